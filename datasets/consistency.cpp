#include "datasets/consistency.hpp"

#include <algorithm>
#include <array>
#include <charconv>
#include <cmath>
#include <functional>
#include <map>
#include <optional>
#include <set>
#include <tuple>

#include "datasets/vocabulary.hpp"

namespace pollscale::datasets {
namespace {

const std::string_view scenario_checked = name(scenario::find_active);
const std::string_view scenario_cold = name(scenario::cold_scan);
const std::string_view metric_call = name(metric::time_per_call);
const std::string_view metric_op = name(metric::time_per_op);

using row_index = std::multimap<key, const summary_row*>;

/// The probes read an absent blocking as timeout 0; the matching must agree with them.
std::int64_t blocking_of(const key& k) { return k.blocking.value_or(0); }

bool is_time_metric(const key& k) { return k.metric == metric_call || k.metric == metric_op; }

/// Three significant digits, but never fewer than the integer digits ("15.8", "9.6",
/// "1168"), so that a detail line reads like the figures and still tells close values apart.
std::string three_digits(double v) {
  const double magnitude = v == 0 || !std::isfinite(v) ? 0 : std::floor(std::log10(std::fabs(v)));
  const int decimals = std::clamp(2 - static_cast<int>(magnitude), 0, 12);
  std::array<char, 512> buf{};  // wide enough for any finite double in fixed notation
  const auto [end, ec] = std::to_chars(buf.data(), buf.data() + buf.size(), v, std::chars_format::fixed, decimals);
  if (ec != std::errc{}) return std::to_string(v);
  std::string s(buf.data(), end);
  if (s.find('.') != std::string::npos) {
    s.erase(s.find_last_not_of('0') + 1);
    if (s.back() == '.') s.pop_back();
  }
  return s;
}

std::string interval_text(const summary& s) {
  return "[" + three_digits(s.ci95_lo) + ", " + three_digits(s.ci95_hi) + "]";
}

std::string at_n_text(const key& k) { return k.n_fds ? " at n=" + std::to_string(*k.n_fds) : std::string{}; }

/// One side of a detail line: "time_per_op 9.6 us".
std::string side_text(std::string_view label, const summary_row& r) {
  return std::string(label) + " " + three_digits(r.s.median) + " " + r.k.unit;
}

/// `high` must cost at least as much as `low`. Returns the issue when it does not: by the
/// medians (only when `flag_medians`), or beyond both 95% intervals.
std::optional<consistency_issue> order_issue(const summary_row& high, std::string_view high_label,
                                             const summary_row& low, std::string_view low_label, std::string_view rule,
                                             bool flag_medians) {
  const bool beyond = high.s.ci95_hi < low.s.ci95_lo;
  const bool medians = high.s.median < low.s.median;
  if (!beyond && !(flag_medians && medians)) return std::nullopt;
  std::string detail = side_text(high_label, high) + " < " + side_text(low_label, low) + at_n_text(high.k) + " (95% " +
                       interval_text(high.s) + " vs " + interval_text(low.s) + ")";
  return consistency_issue{high.k, low.k, rule, beyond, std::move(detail)};
}

/// The rows of `scenario` (find_active unless given) that pass `keep`, keyed by `reduce(k)`:
/// the key with the columns a rule varies (and max_fd) blanked, so that partners meet under
/// one key.
row_index index_rows(const std::vector<summary_row>& rows, const std::function<bool(const key&)>& keep,
                     const std::function<key(key)>& reduce, std::string_view scenario = scenario_checked) {
  row_index index;
  for (const summary_row& r : rows)
    if (r.k.scenario == scenario && keep(r.k)) index.emplace(reduce(r.k), &r);
  return index;
}

/// Rule op_below_call: at timeout 0, write + wait + read >= the wait alone.
void check_op_below_call(const std::vector<summary_row>& rows, std::vector<consistency_issue>& out) {
  const auto reduce = [](key k) {
    k.metric.clear();
    k.max_fd.reset();
    k.blocking = 0;
    return k;
  };
  const row_index calls = index_rows(
      rows, [](const key& k) { return k.metric == metric_call && blocking_of(k) == 0; }, reduce);
  const row_index ops = index_rows(
      rows, [](const key& k) { return k.metric == metric_op && blocking_of(k) == 0; }, reduce);
  for (const auto& [reduced, op] : ops) {
    const auto [first, last] = calls.equal_range(reduced);
    for (auto it = first; it != last; ++it)
      if (auto issue = order_issue(*op, metric_op, *it->second, metric_call, rule_op_below_call, true))
        out.push_back(std::move(*issue));
  }
}

/// Rule blocking_below_timeout0: an operation whose wait may sleep >= the same at timeout 0.
void check_blocking_below_timeout0(const std::vector<summary_row>& rows, std::vector<consistency_issue>& out) {
  const auto reduce = [](key k) {
    k.blocking.reset();
    k.max_fd.reset();
    return k;
  };
  const row_index timeout0 = index_rows(
      rows, [](const key& k) { return k.metric == metric_op && blocking_of(k) == 0; }, reduce);
  const row_index blocking = index_rows(
      rows, [](const key& k) { return k.metric == metric_op && blocking_of(k) == 1; }, reduce);
  for (const auto& [reduced, b] : blocking) {
    const auto [first, last] = timeout0.equal_range(reduced);
    for (auto it = first; it != last; ++it)
      if (auto issue = order_issue(*b, "time_per_op(blocking)", *it->second, "time_per_op(timeout 0)",
                                   rule_blocking_below_timeout0, true))
        out.push_back(std::move(*issue));
  }
}

/// Rule cold_below_warm: a cold_scan call after the eviction >= the same call back to back.
void check_cold_below_warm(const std::vector<summary_row>& rows, std::vector<consistency_issue>& out) {
  const auto reduce = [](key k) {
    k.variant.clear();
    k.max_fd.reset();
    return k;
  };
  const row_index warm = index_rows(
      rows, [](const key& k) { return k.variant.empty(); }, reduce, scenario_cold);
  const row_index cold = index_rows(
      rows, [](const key& k) { return k.variant == name(variant::cold); }, reduce, scenario_cold);
  for (const auto& [reduced, c] : cold) {
    const auto [first, last] = warm.equal_range(reduced);
    for (auto it = first; it != last; ++it)
      if (auto issue = order_issue(*c, "cold", *it->second, "warm", rule_cold_below_warm, true))
        out.push_back(std::move(*issue));
  }
}

/// Compares every row of one n level with every row of the level below (usually one each;
/// more only when the same set-up was measured at several max_fd).
void check_series(std::vector<const summary_row*>& series, std::vector<consistency_issue>& out) {
  std::sort(series.begin(), series.end(), [](const summary_row* a, const summary_row* b) {
    return std::tie(*a->k.n_fds, a->k) < std::tie(*b->k.n_fds, b->k);
  });
  std::size_t below = 0;  // first row of the level below the current one
  std::size_t level = 0;  // first row of the current level
  for (std::size_t i = 0; i < series.size(); ++i) {
    if (*series[i]->k.n_fds != *series[level]->k.n_fds) {
      below = level;
      level = i;
    }
    if (below == level) continue;  // still on the lowest level
    for (std::size_t j = below; j < level; ++j) {
      const summary_row& hi = *series[i];
      const summary_row& lo = *series[j];
      const std::string metric = hi.k.metric;
      if (auto issue = order_issue(hi, metric + "(n=" + std::to_string(*hi.k.n_fds) + ")", lo,
                                   metric + "(n=" + std::to_string(*lo.k.n_fds) + ")", rule_decreasing_in_n, false))
        out.push_back(std::move(*issue));
    }
  }
}

/// Rule decreasing_in_n: along n_fds, time_per_call and time_per_op do not decrease beyond
/// both intervals (medians of flat series cross by noise and are not flagged).
void check_decreasing_in_n(const std::vector<summary_row>& rows, std::vector<consistency_issue>& out) {
  std::map<key, std::vector<const summary_row*>> series;
  for (const summary_row& r : rows) {
    if ((r.k.scenario != scenario_checked && r.k.scenario != scenario_cold) || !is_time_metric(r.k) || !r.k.n_fds)
      continue;
    key reduced = r.k;
    reduced.n_fds.reset();
    reduced.max_fd.reset();
    reduced.blocking = blocking_of(r.k);
    series[reduced].push_back(&r);
  }
  for (auto& [reduced, s] : series) check_series(s, out);
}

}  // namespace

std::vector<consistency_issue> check_consistency(const std::vector<summary_row>& rows) {
  std::vector<consistency_issue> issues;
  check_op_below_call(rows, issues);
  check_decreasing_in_n(rows, issues);
  check_blocking_below_timeout0(rows, issues);
  check_cold_below_warm(rows, issues);
  std::stable_sort(issues.begin(), issues.end(), [](const consistency_issue& a, const consistency_issue& b) {
    return std::tie(a.k, a.rule, a.other) < std::tie(b.k, b.rule, b.other);
  });
  return issues;
}

std::string consistency_marks(const std::vector<consistency_issue>& issues, const key& k) {
  std::set<std::string_view> rules;
  for (const consistency_issue& i : issues)
    if (i.k == k) rules.insert(i.rule);
  std::string marks;
  for (std::string_view r : rules) {
    if (!marks.empty()) marks += consistency_marks_separator;
    marks += r;
  }
  return marks;
}

}  // namespace pollscale::datasets
