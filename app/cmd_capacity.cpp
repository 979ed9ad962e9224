// pollscale capacity: the largest load - idle connections, active clients or request rate
// - at which a simulated server still meets its targets (p99 latency, mean latency, CPU
// utilisation): the flags parsed, the closed-form estimate (studies/capacity_estimate.hpp)
// run and, with --confirm or where the estimate does not cover the case, the simulated
// search (studies/capacity_search.hpp) too, and their answers printed.
// Every evaluation uses the same seed (common random numbers, the same cost draws too).

#include <algorithm>
#include <cmath>
#include <iostream>
#include <memory>
#include <optional>

#include "app/cli.hpp"
#include "app/commands.hpp"
#include "app/exit_codes.hpp"
#include "app/output_document.hpp"
#include "app/sim_costs.hpp"
#include "app/sim_options.hpp"
#include "app/table_writer.hpp"
#include "datasets/vocabulary.hpp"
#include "sim/core/stop.hpp"
#include "studies/binding_resource.hpp"
#include "studies/capacity_estimate.hpp"
#include "studies/capacity_search.hpp"

namespace po = boost::program_options;

namespace pollscale::app {
namespace {

po::options_description capacity_options() {
  po::options_description o("capacity options");
  // One option per line: the table reads like the --help it prints.
  // clang-format off
  o.add_options()
      ("help,h", "show this help")
      ("mechanism", arg<std::string>("MECH"), "select, pselect, poll, ppoll, epoll, rtsig, io_uring")
      ("mechanisms", arg<std::string>("LIST"), "several, comma-separated: a capacity for each and a recommendation (instead of --mechanism)")
      ("vary", arg<std::string>("WHAT")->required(), ("the quantity searched: " + comma_list(quantity_names(false)) + " (rate: poisson/on_off arrivals)").c_str())
      ("lo", arg<double>("X"), "smallest value searched (default: idle 0, active 1, rate 1)")
      ("hi", arg<double>("X")->required(), "largest value searched")
      ("max-p99", arg<std::string>("DURATION"), "target: p99 latency at most this (seconds, or 2ms, 500us)")
      ("slo-p99", arg<std::string>("DURATION"), "the same target as an SLO: --slo-p99 2ms")
      ("max-mean-latency", arg<std::string>("DURATION"), "target: mean latency at most this (seconds, or 2ms, 500us)")
      ("max-cpu", arg<double>("FRACTION"), "target: mean CPU utilisation at most this (0..1)")
      ("tolerance", arg<double>("FRACTION")->default_value(0.02), "stop when the bracket is within this fraction")
      ("analytic", "answer from the closed-form estimate alone, and refuse what it does not cover (the default answers from it where it covers the case, and simulates where not)")
      ("confirm", "also run the simulated search and answer from it, the estimate beside (seconds to minutes; the estimate's accuracy against the simulator: docs/sim.md)")
      ("format", arg<std::string>("FORMAT")->default_value("table"), "table, csv or json");
  // clang-format on
  o.add(sim_server_options_description());
  o.add(sim_cost_options_description());
  return o;
}

std::optional<double> positive(const po::variables_map& vm, const char* flag) {
  if (!vm.count(flag)) return std::nullopt;
  const double v = vm[flag].as<double>();
  if (!std::isfinite(v) || v <= 0) throw usage_error(std::string("--") + flag + ": must be finite and > 0");
  return v;
}

std::optional<double> duration(const po::variables_map& vm, const char* flag) {
  if (!vm.count(flag)) return std::nullopt;
  return parse_duration_s(vm[flag].as<std::string>(), flag);
}

std::string quantity_text(double v) {
  return v == std::floor(v) && std::fabs(v) < 1e15 ? std::to_string(static_cast<long long>(v)) : format_number(v, 6);
}

// What to search: the quantity, its bracket and the targets.
struct search {
  std::string vary;
  studies::capacity_search_range range;
  studies::capacity_targets goal;
};

search parse_search(const po::variables_map& vm) {
  search q;
  q.vary = vm["vary"].as<std::string>();
  const sim::workload_field* field = sim::workload_field_by_flag(q.vary);
  if (!field || !field->quantity())
    throw usage_error("--vary: '" + q.vary + "' is not one of " + comma_list(quantity_names(false)));
  if (vm.count("max-p99") && vm.count("slo-p99"))
    throw usage_error("--slo-p99: the same target as --max-p99; give one");
  const char* p99_flag = vm.count("slo-p99") ? "slo-p99" : "max-p99";
  q.goal = {duration(vm, p99_flag), duration(vm, "max-mean-latency"), positive(vm, "max-cpu")};
  if (!q.goal.p99_s && !q.goal.mean_s && !q.goal.cpu)
    throw usage_error("give a target: --max-p99 (or --slo-p99), --max-mean-latency or --max-cpu");
  auto& r = q.range;
  r.integer = field->form == sim::field_form::integer;
  r.lo = vm.count("lo") ? vm["lo"].as<double>() : field->search_from;
  r.hi = vm["hi"].as<double>();
  if (!std::isfinite(r.lo) || !std::isfinite(r.hi) || r.lo > r.hi) throw usage_error("--lo/--hi: need finite lo <= hi");
  r.tolerance = vm["tolerance"].as<double>();
  if (!(r.tolerance > 0 && r.tolerance < 1)) throw usage_error("--tolerance: must be in (0, 1)");
  return q;
}

using search_result = studies::capacity_search;
using evaluation = studies::capacity_evaluation;

// The simulated search on `costs` (studies/capacity_search.hpp), each evaluation reported
// on stderr.
search_result bisect(const search& q, const sim_setup& base, const sim_costs& costs) {
  const studies::capacity_experiment experiment = [&](double v) {
    sim_setup s = base;
    set_quantity(s, q.vary, v, "vary");
    return run_experiment(s, costs);
  };
  return studies::search_capacity(experiment, q.range, q.goal, [&](const evaluation& e) {
    std::cerr << "capacity: " << q.vary << " = " << quantity_text(e.value) << ": " << (e.met ? "meets" : "misses")
              << " the target (p99 " << format_number(e.result.latency_p99_s.mean, 4) << " s, cpu "
              << format_number(e.result.cpu_utilisation.mean, 3) << ")\n";
  });
}

std::string binding_text(const search& q, const search_result& r) {
  const evaluation* e = r.first_miss();
  if (!e || !r.capacity) return "";
  const auto& x = e->result;
  std::string names;
  for (const auto& m : q.goal.missed(x)) {
    const bool p99 = m == "max_p99_s", mean = m == "max_mean_latency_s";
    const double reach = p99 ? x.latency_p99_s.ci95_hi : mean ? x.latency_mean_s.ci95_hi : x.cpu_utilisation.ci95_hi;
    names += std::string(names.empty() ? "" : " and ") +
             (p99    ? "p99 latency"
              : mean ? "mean latency"
                     : "CPU utilisation") +
             " (its 95% interval reaches " + format_number(reach, 3) + (p99 || mean ? " s" : "") + ")";
  }
  return "limited by " + names + " at " + q.vary + " = " + quantity_text(e->value) + ", where the server's CPUs are " +
         format_number(100 * x.cpu_utilisation.mean, 3) +
         "% busy; what ran out: " + studies::describe(studies::resource_at(q.goal, *e), x);
}

nlohmann::json binding_json(const search& q, const search_result& r) {
  const evaluation* e = r.first_miss();
  if (!e || !r.capacity) return nullptr;
  nlohmann::json j = studies::binding_json(studies::resource_at(q.goal, *e), e->result);
  j["at"] = e->value;
  j["missed"] = q.goal.missed(e->result);
  j["cpu_utilisation"] = e->result.cpu_utilisation.mean;
  return j;
}

nlohmann::json search_json(const search& q, const search_result& r, const sim_setup& base,
                           const cost_provenance& prov) {
  nlohmann::json j = inputs_json(base, prov);
  j["vary"] = q.vary;
  j["targets"] = {{"max_p99_s", json_number(q.goal.p99_s)},
                  {"max_mean_latency_s", json_number(q.goal.mean_s)},
                  {"max_cpu_utilisation", json_number(q.goal.cpu)}};
  j["capacity"] = json_number(r.capacity);
  j["capacity_is_search_limit"] = r.at_hi;
  j["binding"] = binding_json(q, r);
  if (r.interrupted) {
    j["interrupted"] = true;
    j["bracket"] = {{"meets", json_number(r.meets)}, {"misses", json_number(r.misses)}};
  }
  j["evaluations"] = nlohmann::json::array();
  for (const evaluation& e : r.evaluations) {
    nlohmann::json one = sim::to_json(e.result, false);
    one[q.vary] = e.value;
    one["meets_targets"] = e.met;
    j["evaluations"].push_back(one);
  }
  return j;
}

std::string capacity_text(const search_result& r) {
  if (r.interrupted)
    return "unknown (interrupted; the targets are met at " + (r.meets ? quantity_text(*r.meets) : "no value tried") +
           " and missed at " + (r.misses ? quantity_text(*r.misses) : "no value tried") + ")";
  if (!r.capacity) return "none (the smallest value misses)";
  return quantity_text(*r.capacity) + (r.at_hi ? " (the search limit --hi; the true capacity may be larger)" : "");
}

text_table search_table(const search& q, const search_result& r, bool csv) {
  text_table t{{q.vary, "meets", "latency_p99_s", "latency_p99_s_ci95_hi", "latency_mean_s", "cpu_utilisation",
                datasets::text(datasets::metric::throughput)},
               {},
               {true, false, true, true, true, true, true}};
  for (const evaluation& e : r.evaluations)
    t.rows.push_back(
        {quantity_text(e.value), e.met ? "yes" : "no", number_cell(e.result.latency_p99_s.mean, 4, csv),
         number_cell(e.result.latency_p99_s.ci95_hi, 4, csv), number_cell(e.result.latency_mean_s.mean, 4, csv),
         number_cell(e.result.cpu_utilisation.mean, 3, csv), number_cell(e.result.throughput.mean, 5, csv)});
  return t;
}

// With fixed costs (--model-uncertainty fixed), the search again with every model cost at
// the dear and at the cheap end of its 95% prediction interval: the capacity the model's
// own uncertainty allows, from least to most.
struct model_bracket {
  search_result dear, cheap;
};

std::optional<model_bracket> bracket_by_model(const search& q, const sim_setup& base, const po::variables_map& vm,
                                              const std::string& mechanism,
                                              const std::shared_ptr<const model::model_set>& models) {
  if (!models) return std::nullopt;
  const auto at = [&](studies::cost_bound end) {
    return sim_costs{sim_costs_from(vm, mechanism, models, std::make_shared<cost_provenance>(), end), {}};
  };
  model_bracket b;
  std::cerr << "capacity: again with every model cost at the dear end of its 95% interval\n";
  b.dear = bisect(q, base, at(studies::cost_bound::dear));
  if (b.dear.interrupted) return std::nullopt;
  std::cerr << "capacity: again with every model cost at the cheap end of its 95% interval\n";
  b.cheap = bisect(q, base, at(studies::cost_bound::cheap));
  if (b.cheap.interrupted) return std::nullopt;
  return b;
}

std::string bracket_text(const model_bracket& b) {
  // Equal ends do not mean a certain answer: the costs that decide it here carry no usable
  // interval (cells measured at one point, a lower end clamped at 0) or enter as differences
  // of two answers moved together (a per-fd slope). Say so rather than "between x and x".
  if (b.dear.capacity && b.cheap.capacity && *b.dear.capacity == *b.cheap.capacity)
    return "no bracket: with every model cost at the dear or at the cheap end of its 95% prediction interval the "
           "answer stays " +
           capacity_text(b.dear) +
           " (to the search's --tolerance): the costs that decide it carry no usable interval (one-point cells, an "
           "end clamped at 0), enter as differences of two answers moved together, or move it less than the "
           "tolerance. That is not a sign that it is known more surely";
  return "between " + capacity_text(b.dear) + " and " + capacity_text(b.cheap) +
         " with every model cost at the dear and at the cheap end of its 95% prediction interval";
}

std::string extrapolation_text(const cost_provenance& prov) {
  if (prov.max_extrapolation <= 1.0001) return "";
  return "the model answered up to " + format_number(prov.max_extrapolation, 3) +
         "x past the largest n it measured; its intervals, and " + (prov.drawn ? "the draws" : "this bracket") +
         ", widen there";
}

// One mechanism's search: its inputs, where its costs came from, the result and, on fixed
// costs with a model, the envelope.
struct mechanism_capacity {
  std::string mechanism;
  sim_setup base;
  std::shared_ptr<cost_provenance> prov = std::make_shared<cost_provenance>();
  search_result result;
  std::optional<model_bracket> bracket;
  studies::capacity_estimate estimate;  ///< the closed-form answer, first
  bool analytic = false;                ///< the estimate is the answer (no --confirm, or --analytic)
};

// The closed-form search over the same range and targets (studies/capacity_estimate.hpp).
studies::capacity_estimate estimate_one(const search& q, const sim_setup& base, const sim_costs& costs) {
  const studies::capacity_setup setup = [&](double v) {
    sim_setup s = base;
    set_quantity(s, q.vary, v, "vary");
    return std::pair{s.config, s.load};
  };
  return studies::estimate_capacity(setup, costs.predicted, costs.draw, base.options.seed, q.range, q.goal);
}

// `models`: --model's file, read once for every mechanism and both ends of the bracket.
mechanism_capacity search_one(const po::variables_map& vm, const search& q, const std::string& mechanism,
                              const std::shared_ptr<const model::model_set>& models) {
  mechanism_capacity c;
  c.mechanism = mechanism;
  c.base = sim_setup_from(vm, mechanism);
  sim_setup probe = c.base;  // both ends of the bracket must be acceptable before any run
  set_quantity(probe, q.vary, q.range.lo, "lo");
  set_quantity(probe, q.vary, q.range.hi, "hi");
  const sim_costs costs = sim_costs_for(vm, mechanism, c.prov, models);
  c.estimate = estimate_one(q, c.base, costs);
  const bool covered = c.estimate.not_covered.empty();
  if (vm.count("analytic") && !covered)
    throw usage_error("--analytic: " + mechanism + ": " + c.estimate.not_covered + "; drop --analytic to simulate");
  if (!vm.count("confirm") && !covered)
    std::cerr << "capacity: " << mechanism << ": the closed-form estimate does not cover this ("
              << c.estimate.not_covered << "): simulating\n";
  if (!vm.count("confirm") && covered) {
    c.analytic = true;
    c.result.capacity = c.estimate.capacity;
    c.result.at_hi = c.estimate.at_hi;
    warn_undrawn("capacity: " + mechanism + ": ", *c.prov);
    return c;
  }
  c.result = bisect(q, c.base, costs);
  warn_undrawn("capacity: " + mechanism + ": ", *c.prov);
  // Drawn costs put the model's uncertainty into every evaluation's interval already; the
  // envelope is the view of it that runs on fixed costs have.
  if (!c.result.interrupted && !costs.draw) c.bracket = bracket_by_model(q, c.base, vm, mechanism, models);
  return c;
}

nlohmann::json estimate_json(const studies::capacity_targets& goal, const studies::capacity_estimate& e) {
  if (!e.not_covered.empty()) return {{"not_covered", e.not_covered}};
  const sim::server_estimate& f = e.figures;
  return {{"capacity", json_number(e.capacity)},
          {"at_search_limit", e.at_hi},
          {"ci95_lo", json_number(e.ci95_lo)},
          {"ci95_hi", json_number(e.ci95_hi)},
          {"draws", e.draws},
          {"missed_at", json_number(e.missed_at)},
          {"missed", e.missed_at ? nlohmann::json(goal.missed(e.past)) : nlohmann::json(nullptr)},
          {"resource", e.ran_out ? nlohmann::json(studies::to_string(*e.ran_out)) : nlohmann::json(nullptr)},
          {"there",
           {{"throughput", f.throughput},  // vocabulary: the estimate's figure, as the simulation's
            {"latency_p99_s", f.saturated ? nlohmann::json(nullptr) : nlohmann::json(f.latency_p99_s)},
            {"latency_mean_s", f.saturated ? nlohmann::json(nullptr) : nlohmann::json(f.latency_mean_s)},
            {"cpu_utilisation", f.cpu_utilisation},
            {"saturated", f.saturated}}}};
}

// One line: the estimate, its interval over the draws, what ran out past it; and, beside a
// simulated answer, how the two compare.
std::string estimate_text(const search& q, const mechanism_capacity& c) {
  const studies::capacity_estimate& e = c.estimate;
  if (!e.not_covered.empty()) return "estimate (analytic): none - " + e.not_covered;
  std::string t = "estimate (analytic): " + capacity_text({e.capacity, e.at_hi, {}, false, {}, {}});
  if (e.ci95_lo && e.ci95_hi)
    t += ", 95% over " + std::to_string(e.draws) + " draws of the model's costs within " + quantity_text(*e.ci95_lo) +
         " .. " + quantity_text(*e.ci95_hi);
  if (e.ran_out && e.missed_at)
    t += "; past it (" + q.vary + " = " + quantity_text(*e.missed_at) +
         ") ran out: " + studies::describe(*e.ran_out, studies::as_result(e.past));
  if (!c.analytic && c.result.capacity && e.capacity && *e.capacity > 0)
    t += "; the simulation's answer is " + format_number(*c.result.capacity / *e.capacity, 3) + "x it";
  return t;
}

nlohmann::json capacity_json(const search& q, const mechanism_capacity& c) {
  auto j = search_json(q, c.result, c.base, *c.prov);
  if (c.bracket)
    j["capacity_bracket"] = {{"dear", json_number(c.bracket->dear.capacity)},
                             {"cheap", json_number(c.bracket->cheap.capacity)},
                             {"method", "every model cost at the same end of its 95% prediction interval"}};
  j["model_max_extrapolation"] = c.prov->max_extrapolation;
  j["model_uncertainty"] = c.prov->drawn ? "draw" : "fixed";
  j["method"] = c.analytic ? "analytic" : "simulation";
  j["estimate"] = estimate_json(q.goal, c.estimate);
  return j;
}

// The lines after a mechanism's table: its capacity, what bound it, its envelope or draws.
void print_capacity_lines(const search& q, const mechanism_capacity& c, const std::string& label) {
  std::cout << label << estimate_text(q, c) << "\n";
  if (c.analytic) return;
  std::cout << label << capacity_text(c.result) << "\n";
  if (const auto b = binding_text(q, c.result); !b.empty()) std::cout << label << b << "\n";
  if (c.bracket) std::cout << label << bracket_text(*c.bracket) << "\n";
  if (const auto e = extrapolation_text(*c.prov); !e.empty()) std::cout << label << "note: " << e << "\n";
}

constexpr const char* estimate_note =
    "capacity: answered by the closed-form estimate; --confirm runs the simulated search beside it\n";

constexpr const char* drawn_note =
    "capacity: each evaluation ran every replication on its own draw of the model's costs, so the targets hold for "
    "the upper end of where one run's answer lies (97.5% of runs, as far as the model knows)\n";

// The searched mechanisms' answers as studies::recommend() takes them.
studies::capacity_recommendation recommend(const search& q, const std::vector<mechanism_capacity>& all) {
  std::vector<studies::capacity_choice> choices;
  for (const auto& c : all) choices.push_back({c.mechanism, c.result.capacity, c.result.at_hi});
  return studies::recommend(choices, q.range.tolerance);
}

std::string recommendation_text(const search& q, const std::vector<mechanism_capacity>& all,
                                const studies::capacity_recommendation& r) {
  if (!r.best) return "no mechanism meets the targets even at " + quantity_text(q.range.lo);
  const mechanism_capacity& best = all[*r.best];
  const std::string at_least = best.result.at_hi ? "at least " : "";
  std::string text = "recommend " + best.mechanism + ": " + at_least + quantity_text(*best.result.capacity) + " " +
                     q.vary + (best.result.at_hi ? " (the search limit)" : "");
  if (!r.next) return text + "; no other mechanism meets the targets";
  const mechanism_capacity& next = all[*r.next];
  if (r.within_tolerance)
    return "no clear choice: " + best.mechanism + " and " + next.mechanism +
           " reach the same capacity within the search's --tolerance (" + quantity_text(*best.result.capacity) +
           " and " + quantity_text(*next.result.capacity) + ")";
  return text + ", " + at_least + format_number(r.margin, 3) + "x " + next.mechanism + "'s " +
         quantity_text(*next.result.capacity);
}

nlohmann::json recommendation_json(const std::vector<mechanism_capacity>& all,
                                   const studies::capacity_recommendation& r) {
  if (!r.best) return nullptr;
  const mechanism_capacity& best = all[*r.best];
  return {{"mechanism", best.mechanism},
          {"capacity", json_number(best.result.capacity)},
          {"at_search_limit", best.result.at_hi},
          {"runner_up", r.next ? nlohmann::json(all[*r.next].mechanism) : nlohmann::json(nullptr)},
          {"margin", r.next ? nlohmann::json(r.margin) : nlohmann::json(nullptr)},
          {"within_tolerance", r.within_tolerance}};
}

// One row per mechanism: its capacity (estimated, or with --confirm simulated), where and
// why it was first missed, and the estimate beside.
text_table summary_table(const search& q, const std::vector<mechanism_capacity>& all, bool csv) {
  text_table t{{"mechanism", "capacity", "at_search_limit", "missed_at", "missed", "cpu_utilisation_there", "ran_out",
                "estimate"},
               {},
               {false, true, false, true, false, true, false, true}};
  for (const auto& c : all) {
    const studies::capacity_estimate& e = c.estimate;
    const std::string estimate = !e.not_covered.empty() ? "n/a" : e.capacity ? quantity_text(*e.capacity) : "none";
    const std::string capacity = c.result.capacity ? quantity_text(*c.result.capacity) : "none";
    const std::string at_hi = c.result.at_hi ? "yes" : "no";
    if (c.analytic) {
      std::string missed;
      if (e.missed_at)
        for (const auto& m : q.goal.missed(e.past)) missed += (missed.empty() ? "" : "+") + m;
      t.rows.push_back({c.mechanism, capacity, at_hi, e.missed_at ? quantity_text(*e.missed_at) : "", missed,
                        e.missed_at ? number_cell(e.past.cpu_utilisation, 3, csv) : "",
                        e.ran_out ? studies::to_string(*e.ran_out) : "", estimate});
      continue;
    }
    const evaluation* miss = c.result.first_miss();
    std::string missed;
    if (miss)
      for (const auto& m : q.goal.missed(miss->result)) missed += (missed.empty() ? "" : "+") + m;
    t.rows.push_back({c.mechanism, capacity, at_hi, miss ? quantity_text(miss->value) : "", missed,
                      miss ? number_cell(miss->result.cpu_utilisation.mean, 3, csv) : "",
                      miss ? studies::to_string(studies::resource_at(q.goal, *miss)) : "", estimate});
  }
  return t;
}

std::vector<std::string> mechanisms_of(const po::variables_map& vm) {
  if (vm.count("mechanism") && vm.count("mechanisms"))
    throw usage_error("--mechanisms: give it or --mechanism, not both");
  if (vm.count("mechanism")) return {vm["mechanism"].as<std::string>()};
  if (!vm.count("mechanisms")) throw usage_error("--mechanism: give a mechanism (or --mechanisms LIST)");
  const auto list = split_list(vm["mechanisms"].as<std::string>(), "mechanisms");
  if (list.empty()) throw usage_error("--mechanisms: give at least one mechanism");
  for (std::size_t i = 0; i < list.size(); ++i)
    for (std::size_t j = 0; j < i; ++j)
      if (list[i] == list[j]) throw usage_error("--mechanisms: '" + list[i] + "' is listed twice");
  return list;
}

int print_one(const search& q, const mechanism_capacity& c, output_format format) {
  const search_result& r = c.result;
  if (format == output_format::json) {
    std::cout << stamped(output_kind::capacity, capacity_json(q, c)).dump(2) << "\n";
  } else if (format == output_format::csv) {
    // An answer from the estimate evaluates no simulation: its CSV is the summary row.
    write_csv(std::cout, c.analytic ? summary_table(q, {c}, true) : search_table(q, r, true));
  } else {
    if (!c.analytic) {
      write_table(std::cout, search_table(q, r, false));
      std::cout << "\n";
    }
    print_capacity_lines(q, c, "capacity: ");
    if (c.prov->drawn && !c.analytic) std::cout << drawn_note;
    if (c.analytic) std::cout << estimate_note;
  }
  if (r.interrupted) std::cerr << "capacity: interrupted: " << capacity_text(r) << "\n";
  return r.interrupted ? exit_interrupted : exit_ok;
}

int print_several(const search& q, const std::vector<mechanism_capacity>& all, output_format format) {
  const bool interrupted = all.back().result.interrupted;
  const studies::capacity_recommendation rec = recommend(q, all);
  if (format == output_format::json) {
    nlohmann::json j = {{"vary", q.vary}, {"mechanisms", nlohmann::json::array()}};
    for (const auto& c : all) j["mechanisms"].push_back(capacity_json(q, c));
    j["recommendation"] = interrupted ? nlohmann::json(nullptr) : recommendation_json(all, rec);
    if (interrupted) j["interrupted"] = true;
    std::cout << stamped(output_kind::capacity_by_mechanism, std::move(j)).dump(2) << "\n";
  } else if (format == output_format::csv) {
    write_csv(std::cout, summary_table(q, all, true));
  } else {
    write_table(std::cout, summary_table(q, all, false));
    std::cout << "\n";
    for (const auto& c : all) print_capacity_lines(q, c, "capacity: " + c.mechanism + ": ");
    if (std::any_of(all.begin(), all.end(), [](const auto& c) { return c.prov->drawn && !c.analytic; }))
      std::cout << drawn_note;
    if (std::any_of(all.begin(), all.end(), [](const auto& c) { return c.analytic; })) std::cout << estimate_note;
    if (!interrupted) std::cout << "capacity: " << recommendation_text(q, all, rec) << "\n";
  }
  if (interrupted)
    std::cerr << "capacity: interrupted during " << all.back().mechanism << ": no recommendation; " << all.size() - 1
              << " mechanism(s) searched in full\n";
  return interrupted ? exit_interrupted : exit_ok;
}

}  // namespace

int cmd_capacity(const args_t& args) {
  const auto opts = capacity_options();
  po::positional_options_description pos;
  pos.add("model", 1);
  po::variables_map vm;
  if (!parse_command_line(
          args, opts, pos, vm,
          "usage: pollscale capacity [MODEL] (--mechanism M | --mechanisms poll,epoll,...)\n"
          "       --vary idle|active|rate --hi X\n"
          "       (--max-p99 S | --slo-p99 2ms | --max-mean-latency S | --max-cpu U) [simulate's options]"))
    return exit_ok;
  const output_format format = parse_format(vm["format"].as<std::string>());
  if (vm.count("analytic") && vm.count("confirm"))
    throw usage_error("--confirm: give it or --analytic, not both (the estimate alone, or the simulation beside it)");
  const std::vector<std::string> mechanisms = mechanisms_of(vm);
  const search q = parse_search(vm);
  refuse_shared_wait_flags(vm, mechanisms.size());
  for (const auto& m : mechanisms) sim_setup_from(vm, m);  // every mechanism's input checked before any run
  const auto models = model_from(vm);
  std::vector<mechanism_capacity> all;
  for (const auto& m : mechanisms) {
    all.push_back(search_one(vm, q, m, models));
    if (all.back().result.interrupted) break;
  }
  return mechanisms.size() == 1 && !vm.count("mechanisms") ? print_one(q, all.front(), format)
                                                           : print_several(q, all, format);
}

}  // namespace pollscale::app
