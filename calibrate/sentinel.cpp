#include "calibrate/sentinel.hpp"

#include <algorithm>
#include <cmath>
#include <sstream>
#include <system_error>

#include "calibrate/channel.hpp"
#include "calibrate/probe.hpp"
#include "calibrate/timer.hpp"
#include "calibrate/waiter.hpp"
#include "datasets/statistics.hpp"

namespace pollscale::calibrate {
namespace {

constexpr std::size_t ready_index = sentinel::pipes / 2;
constexpr double episode_factor = datasets::slow_reading_factor;  // a reading this much above p10 met the slow mode
constexpr double unstable_spread = 1.15;
constexpr double unstable_episode_s = 5.0;

/// The 64 pipes with the middle one readable, watched by poll.
struct sentinel_setup {
  channel_set ch;
  std::unique_ptr<waiter> w;
  std::vector<std::uint32_t> out;

  sentinel_setup()
      : ch(fd_kind::pipe, sentinel::pipes,
           channel_options{[](std::size_t) { return true; }, [](std::size_t i) { return i == ready_index; }}),
        w(make_waiter({mechanism::poll, ""}, sentinel::pipes)) {
    for (std::size_t i = 0; i < ch.size(); ++i) w->add(ch.watched(i), static_cast<std::uint32_t>(i));
  }

  std::uint64_t time_calls(std::size_t calls) {
    const std::uint64_t t0 = clock_ns();
    for (std::size_t c = 0; c < calls; ++c)
      if (w->wait(out, 0) != 1 || out[0] != ready_index) throw probe_failure("sentinel: poll reported a wrong set");
    return clock_ns() - t0;
  }
};

}  // namespace

std::string sentinel::description() {
  return "poll(2), timeout 0, over " + std::to_string(pipes) + " pipes with the middle one ready; median of " +
         std::to_string(batches) + " batches, ns per call";
}

std::optional<datasets::sentinel_reading> sentinel::read(double t_s) {
  std::unique_ptr<sentinel_setup> s;
  try {
    s = std::make_unique<sentinel_setup>();
  } catch (const std::system_error&) {
    return std::nullopt;  // descriptors held by a probe's shared set-up: skip this reading
  } catch (const probe_skipped&) {
    return std::nullopt;
  }
  if (calls_per_batch_ == 0) {
    calls_per_batch_ = 1;
    while (static_cast<double>(s->time_calls(calls_per_batch_)) < min_batch_ns_ && calls_per_batch_ < (1u << 20))
      calls_per_batch_ *= 2;
  }
  s->time_calls(calls_per_batch_);  // warm-up: the fresh pipes' cache lines
  std::vector<double> per_call;
  for (int b = 0; b < batches; ++b)
    per_call.push_back(static_cast<double>(s->time_calls(calls_per_batch_)) / static_cast<double>(calls_per_batch_));
  return datasets::sentinel_reading{t_s, datasets::median(per_call),
                                    static_cast<std::int64_t>(calls_per_batch_) * batches};
}

namespace {

/// The longest run of consecutive readings at or above `level`: {start, end} indices.
std::pair<std::size_t, std::size_t> longest_episode(const std::vector<datasets::sentinel_reading>& series,
                                                    double level) {
  std::pair<std::size_t, std::size_t> best{0, 0};
  double best_s = -1;
  for (std::size_t i = 0; i < series.size();) {
    if (series[i].ns_per_call < level) {
      ++i;
      continue;
    }
    std::size_t j = i;
    while (j + 1 < series.size() && series[j + 1].ns_per_call >= level) ++j;
    const double length_s = series[j].t_s - series[i].t_s;
    if (length_s > best_s) best = {i, j}, best_s = length_s;
    i = j + 1;
  }
  return best_s < 0 ? std::pair<std::size_t, std::size_t>{series.size(), series.size()} : best;
}

}  // namespace

datasets::stability_facts stability_of(const std::vector<datasets::sentinel_reading>& series,
                                       const std::string& description) {
  datasets::stability_facts f;
  f.sentinel = description;
  f.readings = series.size();
  if (series.empty()) return f;
  std::vector<double> v;
  for (const auto& r : series) v.push_back(r.ns_per_call);
  const double p10 = datasets::quantile(v, 0.10), p90 = datasets::quantile(v, 0.90), med = datasets::median(v);
  f.median_ns = med;
  f.p10_ns = p10;
  f.p90_ns = p90;
  f.spread_p90_p10 = p90 / p10;
  f.max_over_median = *std::max_element(v.begin(), v.end()) / med;
  f.slow_share =
      static_cast<double>(std::count_if(v.begin(), v.end(), [&](double x) { return x >= episode_factor * p10; })) /
      static_cast<double>(v.size());
  const auto [a, b] = longest_episode(series, episode_factor * p10);
  f.worst_episode = "none";
  if (a < series.size()) {
    f.worst_episode_s = series[b].t_s - series[a].t_s;
    std::vector<double> in(v.begin() + static_cast<std::ptrdiff_t>(a), v.begin() + static_cast<std::ptrdiff_t>(b) + 1);
    std::ostringstream text;
    text.precision(3);
    text << "t = " << series[a].t_s << "-" << series[b].t_s << " s at " << datasets::median(in) / p10 << "x p10";
    f.worst_episode = text.str();
  }
  f.stable = p90 / p10 <= unstable_spread && f.worst_episode_s < unstable_episode_s;
  return f;
}

std::string stability_warning(const datasets::stability_facts& st, const std::string& subject,
                              const std::string& remedy) {
  if (!st.stable || *st.stable) return {};
  std::ostringstream w;
  w.precision(3);
  w << subject << " drifted during the run: the sentinel (" << st.median_ns.value_or(0)
    << " ns median) spread p90/p10 = " << st.spread_p90_p10.value_or(0) << ", " << 100 * st.slow_share.value_or(0)
    << "% of readings at least " << episode_factor << "x its p10, worst episode " << st.worst_episode
    << "; intervals come from the visits, but expect wider ones";
  if (!remedy.empty()) w << "; " << remedy;
  return w.str();
}

}  // namespace pollscale::calibrate
