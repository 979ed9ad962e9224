#include "model/forms.hpp"

#include <algorithm>
#include <array>

#include "datasets/vocabulary.hpp"

namespace pollscale::model {
namespace {

basis of(basis_kind k) {
  basis b;
  b.kind = k;
  return b;
}

using datasets::mechanism;
using datasets::metric;
using datasets::scenario;

// The select family's interest set is a bitmap of fd numbers.
bool fd_bitmap(std::string_view m) {
  const auto known = datasets::parse<mechanism>(m);
  return known && datasets::traits(*known).fd_bitmap;
}

struct pool {
  std::vector<basis> core;
  /// Alternatives for the per-fd term, one per candidate (just per_fd when the cache
  /// geometry is known and the working-set term models the growth).
  std::vector<basis> per_fd_choices;
  std::vector<basis> optional;
  bool working_set = false;
};

basis power(double i, double j) {
  basis b = of(basis_kind::power_log);
  b.i = i;
  b.j = j;
  return b;
}

// Without cache geometry (the historical machines) a per-fd cost that grows with n can
// only be followed empirically: n log n, n^1.5 and n^2 compete with n under LOO. Solaris
// /dev/poll keeps per-fd state between calls, so sublinear forms compete there too.
std::vector<basis> per_fd_choices(const form_request& r) {
  std::vector<basis> c{of(basis_kind::per_fd)};
  if (r.curve) return c;
  for (auto b : {power(1, 1), power(1.5, 0), power(2, 0)}) c.push_back(b);
  if (r.cell.k.mechanism == mechanism::devpoll)
    for (auto b : {of(basis_kind::log_n), power(0.5, 0)}) c.push_back(b);
  return c;
}

// Which regressor a basis needs to vary before the data can say anything about it.
bool fittable(const basis& b, const form_request& r) {
  switch (b.kind) {
    case basis_kind::constant: return true;
    case basis_kind::per_fd:
    case basis_kind::log_n:
    case basis_kind::power_log: return r.n_varies;
    case basis_kind::fd_per_ready: return r.n_varies || r.k_varies;
    case basis_kind::per_ready:
    case basis_kind::inverse_ready: return r.k_varies;
    case basis_kind::per_word: return r.words_vary;
    case basis_kind::per_registered: return r.p_varies;
    case basis_kind::overflow: return r.k_varies;
    case basis_kind::fd_times_ready: return r.k_varies && r.n_varies;
    case basis_kind::working_set:
    case basis_kind::cycle_set:
    case basis_kind::entry_set: return true;  // a prior carries it
  }
  return false;
}

// The terms of the n fds themselves: a scan of every fd, or (not scanning) a rival that
// grows slowly with the watched set.
void add_fd_terms(pool& p, const form_request& r) {
  const auto& k = r.cell.k;
  if (!scans_every_fd(k.mechanism)) {
    // A linear term here would extrapolate a cache effect into a scan that does not
    // exist; what grows with the watched set grows like a structure's depth or footprint.
    p.optional.push_back(of(basis_kind::log_n));
    return;
  }
  p.per_fd_choices = per_fd_choices(r);  // copy-in, lookup and query of every fd
  p.working_set = true;
  if (k.scenario == scenario::token_ring) {
    // One call scans n fds and finds the k tokens in flight: the scan is shared by k
    // passes (LSE pipetest); with one token this is per_fd.
    p.per_fd_choices.front() = of(basis_kind::fd_per_ready);
    p.optional.push_back(of(basis_kind::per_fd));
    return;
  }
  if (fd_bitmap(k.mechanism)) p.optional.push_back(of(basis_kind::per_word));
  if (k.blocking && *k.blocking == 1) p.optional.push_back(of(basis_kind::per_registered));
}

// The kernel's work per operation (docs/model.md), as terms.
pool mechanistic_pool(const form_request& r) {
  const auto& k = r.cell.k;
  const bool scanning = scans_every_fd(k.mechanism);
  pool p;
  p.core.push_back(of(basis_kind::constant));
  if (k.scenario == scenario::interest_churn) {
    if (k.mechanism == mechanism::poll) p.core.push_back(of(basis_kind::per_fd));  // fills n entries
    // epoll's rb-tree depth; for the others a rival: whatever grows with the number of
    // watched fds here grows like the depth of a structure over them, not like a scan.
    if (k.mechanism != mechanism::poll) p.optional.push_back(of(basis_kind::log_n));
    return p;
  }
  if ((k.scenario == scenario::wakeup && !scanning) || k.scenario == scenario::ipc) {
    p.optional.push_back(of(basis_kind::per_fd));
    return p;
  }
  add_fd_terms(p, r);
  p.optional.push_back(of(basis_kind::per_ready));
  if (k.scenario == scenario::server && k.metric != metric::throughput)  // latency = k replies deep (Little)
    p.optional.push_back(of(basis_kind::fd_times_ready));
  if (k.scenario == scenario::token_ring) {  // tokens in flight share each call among k passes
    if (!scanning) p.optional.push_back(of(basis_kind::fd_per_ready));
    p.optional.push_back(of(basis_kind::inverse_ready));
  }
  return p;
}

// Each candidate threshold of the RT-signal cliff doubles the forms: with and without it.
std::vector<form> with_overflow(std::vector<form> forms, const form_request& r) {
  if (r.cell.k.mechanism != mechanism::rtsig || !r.k_varies) return forms;
  const std::size_t plain = forms.size();
  for (double q : r.overflow_thresholds)
    for (std::size_t i = 0; i < plain; ++i) {
      form f = forms[i];
      basis b = of(basis_kind::overflow);
      b.threshold = q;
      const std::size_t at = f.priors.empty() ? f.terms.size() : f.priors.front().index;
      f.terms.insert(f.terms.begin() + static_cast<std::ptrdiff_t>(at), b);
      for (auto& pt : f.priors) ++pt.index;
      if (f.working_set) ++*f.working_set;
      forms.push_back(std::move(f));
    }
  return forms;
}

// A blocking call writes a wait entry into each fd it scans before the first ready one and
// removes it on return: past the cache knee those p entries (and the queue heads they are
// linked into) miss as well, beyond what the scan's own per-fd loads pay.
void add_entry_set(form& f, const footprint_prior& scan, const latency_curve& curve, const std::string& unit) {
  const auto prior = entry_prior(scan);
  f.priors.push_back({f.terms.size(), prior});
  f.terms.push_back(working_set_basis(curve, prior, unit));
  f.terms.back().kind = basis_kind::entry_set;
}

bool has_term(const form& f, basis_kind k) {
  return std::any_of(f.terms.begin(), f.terms.end(), [&](const basis& b) { return b.kind == k; });
}

std::vector<form> mechanistic_forms(const form_request& r) {
  pool p = mechanistic_pool(r);
  std::erase_if(p.core, [&](const basis& b) { return !fittable(b, r); });
  std::erase_if(p.per_fd_choices, [&](const basis& b) { return !fittable(b, r); });
  std::erase_if(p.optional, [&](const basis& b) { return !fittable(b, r); });
  if (p.per_fd_choices.empty()) p.per_fd_choices.push_back(of(basis_kind::constant));  // placeholder: no per-fd slot
  const bool rate = is_rate(r.cell.k);
  const std::string unit = rate ? r.cell.k.unit.substr(2) : r.cell.k.unit;
  const bool with_ws = p.working_set && r.curve && ns_to_unit(unit) > 0 && r.n_varies &&
                       (p.per_fd_choices.front().kind == basis_kind::per_fd ||
                        p.per_fd_choices.front().kind == basis_kind::fd_per_ready);
  // A token ring touches one pipe per pass and all n of them per lap; epoll_ctl(MOD) cycling
  // through the watched set touches one watched fd per call and all n per lap.
  const bool ring = r.cell.k.scenario == scenario::token_ring;
  const bool with_ring = (ring || cycles_watched_set(r.cell.k)) && r.curve && ns_to_unit(unit) > 0 && r.n_varies;
  std::vector<form> out;
  const std::size_t options = p.optional.size();
  for (const basis& per_fd : p.per_fd_choices)
    for (std::size_t mask = 0; mask < (std::size_t{1} << options); ++mask) {
      form f;
      f.terms = p.core;
      if (per_fd.kind != basis_kind::constant) f.terms.push_back(per_fd);
      for (std::size_t j = 0; j < options; ++j)
        if (mask & (std::size_t{1} << j)) f.terms.push_back(p.optional[j]);
      if (with_ws) {
        const auto prior = working_set_prior(r.cell.k.fd_kind, r.cell.k.blocking && *r.cell.k.blocking == 1, *r.curve,
                                             r.cold ? &*r.cold : nullptr);
        f.working_set = f.terms.size();
        f.priors.push_back({f.terms.size(), prior});
        f.terms.push_back(working_set_basis(*r.curve, prior, unit));
        f.terms.back().shared_by_ready = per_fd.kind == basis_kind::fd_per_ready;
        if (has_term(f, basis_kind::per_registered)) add_entry_set(f, prior, *r.curve, unit);
      }
      if (with_ring) {
        const auto prior = ring ? ring_prior(r.cell.k.fd_kind) : churn_prior();
        f.priors.push_back({f.terms.size(), prior});
        f.terms.push_back(working_set_basis(*r.curve, prior, unit));
        f.terms.back().kind = basis_kind::cycle_set;
      }
      out.push_back(std::move(f));
    }
  std::stable_sort(out.begin(), out.end(),
                   [](const form& a, const form& b) { return a.terms.size() < b.terms.size(); });
  return out;
}

// Extra-P's default search space for one parameter: n^i log2(n)^j.
std::vector<form> extra_p_forms(const form_request& r) {
  static constexpr std::array<double, 19> exponents = {0,       0.25,    1.0 / 3, 0.5,     2.0 / 3, 0.75, 1,
                                                       1.25,    4.0 / 3, 1.5,     5.0 / 3, 1.75,    2,    2.25,
                                                       7.0 / 3, 2.5,     8.0 / 3, 2.75,    3};
  std::vector<form> out;
  out.push_back(form{{of(basis_kind::constant)}, {}, std::nullopt});
  if (!r.n_varies) return out;
  for (double i : exponents)
    for (double j : {0.0, 1.0, 2.0}) {
      if (i == 0 && j == 0) continue;
      basis b = of(basis_kind::power_log);
      b.i = i;
      b.j = j;
      out.push_back(form{{of(basis_kind::constant), b}, {}, std::nullopt});
    }
  return out;
}

}  // namespace

std::string unfittable_core(const form_request& r) {
  if (r.fam != family::mechanistic || !has_mechanistic_family(r.cell)) return "";
  const pool p = mechanistic_pool(r);
  for (const auto& b : p.core)
    if (!fittable(b, r)) return "term '" + basis_name(b) + "' needs points at two or more distinct n_fds";
  if (!p.per_fd_choices.empty() && !r.n_varies) return "term 'per_fd' needs points at two or more distinct n_fds";
  return "";
}

std::string form::name() const {
  std::string s;
  for (const auto& b : terms) s += (s.empty() ? "" : " + ") + basis_name(b);
  return s;
}

std::string form::formula(const std::string& response) const {
  std::string s = response + " =";
  bool first = true;
  for (const auto& b : terms) {
    s += first ? " " : " + ";
    s += basis_name(b);
    if (b.kind != basis_kind::constant && b.kind != basis_kind::power_log) s += "·" + basis_symbol(b);
    first = false;
  }
  return s;
}

bool is_rate(const datasets::key& cell) { return cell.unit == "1/s" || cell.unit == "1/ms"; }

bool has_mechanistic_family(const cell_id& c) {
  const auto& k = c.k;
  const auto s = datasets::parse<scenario>(k.scenario);
  if (!s || *s == scenario::handler || datasets::is_machine_primitive(*s)) return false;
  return k.mechanism.empty() || datasets::is_known_mechanism(k.mechanism);
}

std::vector<form> candidate_forms(const form_request& r) {
  if (r.fam == family::mechanistic && has_mechanistic_family(r.cell)) return with_overflow(mechanistic_forms(r), r);
  return extra_p_forms(r);
}

}  // namespace pollscale::model
