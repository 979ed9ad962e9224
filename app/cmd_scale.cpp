// pollscale scale PATH [--train EXPR] [--at N,N,...]: the scalability law of each
// CPU-scaling table (producers, private_sets, private_processes, shared_epoll, accept_herd: throughput against N
// threads or processes) fitted on its training rows, its other rows predicted with errors and 95% intervals, and N
// nobody measured predicted with intervals that widen as they leave the data (docs/scaling.md). Errors are fractions in
// csv/json (0.05 = 5%) and percentages in the table.

#include <charconv>
#include <cmath>
#include <deque>
#include <iostream>
#include <optional>
#include <sstream>

#include "app/accuracy_output.hpp"
#include "app/capacity_efficiency_option.hpp"
#include "app/cli.hpp"
#include "app/commands.hpp"
#include "app/exit_codes.hpp"
#include "app/output_document.hpp"
#include "app/scale_wider_output.hpp"
#include "app/scaling_json.hpp"
#include "app/summary_view.hpp"
#include "app/table_writer.hpp"
#include "model/scaling.hpp"
#include "model/scaling_wider.hpp"

namespace po = boost::program_options;

namespace pollscale::app {
namespace {

using nlohmann::json;

po::options_description scale_options() {
  po::options_description o("scale options");
  // One option per line, as --help prints them.
  // clang-format off
  o.add_options()("help,h", "show this help")
      ("data", arg<std::vector<std::string>>("PATH")->required()->composing(),
       "historical CSV or directory of them (e.g. datasets/historical/scaling), dataset directory, or a directory "
       "with datasets beneath it; positional, may be repeated")
      ("train", arg<std::string>("EXPR")->default_value(""),
       "rows to fit on, e.g. 'n_fds<=2' or 'n_fds<max' (N, the threads measured, is the n_fds column); default: "
       "each table's smaller half of its N. A table of C CPUs is capped by C/c0 x its sibling on c0 < C CPUs and, "
       "past N = C, by its law at C times the gain the sibling's CPUs get from as many threads per CPU")
      ("at", arg<std::string>("N,N,..."), "comma-separated N (threads) to predict for every table, e.g. 16,32,128")
      ("from-cpus", arg<long long>("C0"),
       "predict the series of machines wider than C0 CPUs from the series of at most C0 (what a C0-CPU machine "
       "measures): the law of the rows whose threads each have a CPU (for threads that share nothing, past its "
       "widest row M: N/M times the law at M, priced as the capacity bound is), capped by C/c0 x the narrowest "
       "series and, "
       "where one structure serialises every operation, by its serial stage; one producer beside its consumer, "
       "where only one CPU was measured, by the pipeline of its measured parts (the one-CPU series less the consumer's "
       "switches where the probe counted them) and the cache line, with an interval from their variances; "
       "one operation in flight (a one-token ring, accept_herd) by the one-CPU chain, its hand-offs crossing CPUs "
       "(C-1)/C of the time where one CPU shows them, else less its switches, a ceiling; a floor on two CPUs; "
       "a shared_epoll ring with a token for every thread, measured on one CPU alone, by the capacity bound less "
       "the six cache lines a pass moves across CPUs (C-1)/C of the time, at the cache_line probe's round trip "
       "(a prediction on two CPUs, a ceiling wider) (docs/scaling.md); "
       "every wider series measured is predicted, and --cpus widths nobody measured at --at")
      ("no-serial-stage", "with --from-cpus: leave the serial stage out (the protocol as first fixed)")
      ("cpus", arg<std::string>("C,C,..."), "with --from-cpus: widths nobody measured to predict at --at, e.g. 32,64,128")
      ("law", arg<std::string>("LAW")->default_value("auto"),
       "auto (Amdahl, linear if no worse, USL when coherency earns its place), or force linear, amdahl or usl")
      ("weights", arg<std::string>("WEIGHTS")->default_value("relative"),
       "relative (errors scale with throughput) or absolute (plain least squares, as R's usl package)")
      ("coherency-min-n", arg<long long>("N")->default_value(4),
       "distinct thread counts the coherency term (κ) needs before it may compete")
      ("coherency-margin", arg<double>("FRACTION")->default_value(0.2, "0.2"),
       "how far (fraction, 0..1) USL's leave-one-out error must lie below the simpler law's")
      ("statistic", arg<std::string>("STAT")->default_value("median"),
       "in a calibration dataset: median (typical), fastest (the fastest batch) or adjusted (the median at "
       "the drift sentinel's fast mode)")
      ("format", arg<std::string>("FORMAT")->default_value("table"), "table, csv or json");
  // clang-format on
  add_capacity_efficiency_option(o,
                                 "with --from-cpus on a calibration, wider machines' capacity bound is C/c0 times "
                                 "the narrowest series times that, its interval widened by the spread");
  return o;
}

std::vector<double> parse_counts(const std::string& text, const char* flag = "at") {
  std::vector<double> out;
  for (auto v : parse_count_list(text, flag)) out.push_back(static_cast<double>(v));
  return out;
}

model::scaling_options law_options(const po::variables_map& vm) {
  model::scaling_options o;
  const std::string law = vm["law"].as<std::string>();
  o.force = law != "auto";
  if (law == "linear")
    o.forced = model::scaling_law::linear;
  else if (law == "amdahl")
    o.forced = model::scaling_law::amdahl;
  else if (law == "usl")
    o.forced = model::scaling_law::usl;
  else if (law != "auto")
    throw usage_error("--law: '" + law + "' is not one of auto, linear, amdahl, usl");
  const std::string w = vm["weights"].as<std::string>();
  if (w == "absolute")
    o.weights = model::scaling_options::weighting::absolute;
  else if (w != "relative")
    throw usage_error("--weights: '" + w + "' is not one of relative, absolute");
  const long long min_n = vm["coherency-min-n"].as<long long>();
  if (min_n < 3 || min_n > 1000)
    throw usage_error("--coherency-min-n: " + std::to_string(min_n) + " is not in 3..1000");
  o.coherency_min_points = static_cast<std::size_t>(min_n);
  const double margin = vm["coherency-margin"].as<double>();
  if (!(margin >= 0 && margin < 1))
    throw usage_error("--coherency-margin: " + std::to_string(margin) + " is not in [0, 1)");
  o.coherency_margin = margin;
  return o;
}

std::string text(double v) { return std::isfinite(v) ? format_number(v) : (std::isinf(v) ? "inf" : "-"); }

// What gave a prediction: the table's own law, the capacity of its sibling on fewer CPUs,
// or its threads beyond its CPUs.
std::string limit_text(const model::scaling_table& t, model::scaling_limit limit) {
  if (limit == model::scaling_limit::law) return "law";
  const std::string c = std::to_string(*t.k.cpus), c0 = std::to_string(*t.bound_cpus);
  if (limit == model::scaling_limit::oversubscribed)
    return "threads beyond " + c + " CPUs: the law at N=" + c + " x the " + c0 + "-CPU table's gain";
  return "capacity: " + c + "/" + c0 + " x the " + c0 + "-CPU table";
}

std::string table_name(const model::scaling_table& t) {
  std::string s = datasets::describe(t.k);
  if (t.k.cpus) s += " cpus=" + std::to_string(*t.k.cpus);
  return s;
}

std::string where(const model::scaling_table& t) {
  if (t.kernel.empty() && t.platform.empty()) return "this dataset";
  return t.platform + "; " + t.kernel;
}

json result_json(const model::scaling_result& r, const std::string& source) {
  json tables = json::array();
  for (const auto& t : r.tables) {
    json rows = json::array(), at = json::array();
    for (std::size_t i = 0; i < t.rows.size(); ++i)
      rows.push_back(held_out_json(t.rows[i], model::name(t.row_limit[i])));
    for (std::size_t i = 0; i < t.at.size(); ++i) {
      json j = prediction_json(t.at[i].first, t.at[i].second);
      j["limited_by"] = model::name(t.at_limit[i]);
      at.push_back(j);
    }
    json train = json::array();
    for (const auto* o : t.train) train.push_back({{"n", *model::scaling_axis(*o)}, {"measured", o->value}});
    json tj = {{"table", table_name(t)},
               {"key", key_json(t.k)},
               {"n_is", model::scaling_axis_meaning(t.k)},
               {"platform", t.platform},
               {"kernel", t.kernel},
               {"source", t.source},
               {"unit", t.k.unit},
               {"n_train", t.n_train},
               {"train", train},
               {"held_out", rows},
               {"at", at}};
    if (t.bound_cpus) tj["capacity_bound_cpus"] = *t.bound_cpus;
    if (t.fit)
      tj["fit"] = fit_json(*t.fit);
    else
      tj["not_fitted"] = t.not_fitted;
    if (!t.rows.empty()) tj["accuracy"] = accuracy_json(t.acc);
    tables.push_back(tj);
  }
  return {{"source", source}, {"tables", tables}, {"n_train", r.n_train}, {"summary", accuracy_json(r.overall)}};
}

// "#1 producers/epoll/lt/eventfd blocking throughput, 1/ms: PLATFORM; KERNEL", one per table.
void write_legend(std::ostream& out, const model::scaling_result& r) {
  for (std::size_t i = 0; i < r.tables.size(); ++i)
    out << "#" << i + 1 << " " << table_name(r.tables[i]) << ", " << r.tables[i].k.unit << ": " << where(r.tables[i])
        << "\n";
  std::vector<datasets::key> keys;
  for (const auto& t : r.tables) keys.push_back(t.k);
  if (!keys.empty()) out << "N: " << model::scaling_axis_legend(keys) << "\n";
}

text_table laws_table(const model::scaling_result& r) {
  text_table t{{"#", "law", "γ", "σ", "κ", "peak N", "loo", "n_train", "held out", "median |err|"},
               {},
               {true, false, true, true, true, true, true, true, true, true}};
  for (std::size_t i = 0; i < r.tables.size(); ++i) {
    const auto& s = r.tables[i];
    std::vector<std::string> row = {std::to_string(i + 1)};
    if (!s.fit) {
      for (auto c :
           {"not fitted: " + s.not_fitted, std::string(), std::string(), std::string(), std::string(), std::string()})
        row.push_back(c);
    } else {
      const auto& f = *s.fit;
      // A coefficient the law fixes at 0 prints as "-".
      for (auto c :
           {std::string(model::name(f.law)), with_se(f.gamma, f.covariance(0, 0)),
            free_coefficient(f, 1) ? with_se(f.sigma, f.covariance(1, 1)) : "-",
            free_coefficient(f, 2) ? with_se(f.kappa, f.covariance(2, 2)) : "-", text(f.peak_n()), percent_text(f.loo)})
        row.push_back(c);
    }
    for (auto c : {std::to_string(s.n_train), std::to_string(s.rows.size()),
                   s.rows.empty() ? "-" : percent_text(s.acc.median_rel_err)})
      row.push_back(c);
    t.rows.push_back(std::move(row));
  }
  return t;
}

text_table predictions_table(const model::scaling_result& r, bool fractions) {
  text_table t{
      {"#", "N", "measured", "predicted", "lo", "hi", "rel_err", "extrapolation", "limited by", "no interval: why"},
      {},
      {true, true, true, true, true, true, true, true, false, false}};
  auto add = [&](std::size_t i, double n, double measured, const model::scaling_prediction& p, double err,
                 model::scaling_limit limit) {
    auto f = [&](double v) { return fractions ? csv_number(v) : text(v); };
    t.rows.push_back({std::to_string(i + 1), count_text(n), std::isnan(measured) ? "" : f(measured), f(p.value),
                      f(p.lo), f(p.hi), fractions ? csv_number(err) : percent_text(err),
                      fractions ? csv_number(p.extrapolation) : format_number(p.extrapolation, 3) + "x",
                      limit_text(r.tables[i], limit), p.no_interval});
  };
  for (std::size_t i = 0; i < r.tables.size(); ++i) {
    const auto& tab = r.tables[i];
    for (std::size_t j = 0; j < tab.rows.size(); ++j) {
      const auto& v = tab.rows[j];
      add(i, *model::scaling_axis(*v.o), v.measured,
          {v.predicted, v.lo, v.hi, v.has_interval, v.no_interval, v.extrapolation}, v.rel_err, tab.row_limit[j]);
    }
    for (std::size_t j = 0; j < tab.at.size(); ++j)
      add(i, tab.at[j].first, std::nan(""), tab.at[j].second, std::nan(""), tab.at_limit[j]);
  }
  return t;
}

text_table summary_table(const model::scaling_result& r, bool fractions) {
  const auto& a = r.overall;
  // Nothing held out (every row trained): no accuracy to state.
  auto f = [&](double v) { return a.n == 0 ? (fractions ? "" : "-") : fractions ? csv_number(v) : percent_text(v); };
  return {{"n_train", "n", "mape", "median_rel_err", "max_rel_err", "coverage", "median_rel_halfwidth"},
          {{std::to_string(r.n_train), std::to_string(a.n), f(a.mape), f(a.median_rel_err), f(a.max_rel_err),
            f(a.coverage) + (fractions ? "" : " of " + std::to_string(a.n_with_interval)), f(a.median_rel_halfwidth)}},
          std::vector<bool>(7, true)};
}

// The same for scripts: every coefficient and its standard error as numbers, errors as
// fractions, and each table's key and provenance.
text_table laws_csv(const model::scaling_result& r) {
  text_table t{{"#", "table", "unit", "platform", "kernel", "law", "gamma", "gamma_se", "sigma", "sigma_se", "kappa",
                "kappa_se", "peak_n", "loo", "n_train", "held_out", "median_rel_err", "not_fitted"},
               {},
               {}};
  for (std::size_t i = 0; i < r.tables.size(); ++i) {
    const auto& s = r.tables[i];
    std::vector<std::string> row = {std::to_string(i + 1), table_name(s), s.k.unit, s.platform, s.kernel};
    const model::scaling_fit f = s.fit.value_or(model::scaling_fit{});
    const bool fitted = s.fit.has_value();
    row.push_back(fitted ? std::string(model::name(f.law)) : "");
    for (int c = 0; c < 3; ++c) {
      const double v = c == 0 ? f.gamma : c == 1 ? f.sigma : f.kappa;
      row.push_back(fitted ? csv_number(v) : "");
      row.push_back(fitted && free_coefficient(f, c) ? csv_number(std::sqrt(f.covariance(c, c))) : "");
    }
    row.push_back(fitted ? csv_number(f.peak_n()) : "");
    row.push_back(fitted ? csv_number(f.loo) : "");
    row.push_back(std::to_string(s.n_train));
    row.push_back(std::to_string(s.rows.size()));
    row.push_back(s.rows.empty() ? "" : csv_number(s.acc.median_rel_err));
    row.push_back(s.not_fitted);
    t.rows.push_back(std::move(row));
  }
  return t;
}

void write_result(const model::scaling_result& r, const std::string& source, output_format format) {
  if (format == output_format::json) {
    std::cout << stamped(output_kind::scaling, result_json(r, source)).dump(2) << "\n";
    return;
  }
  const bool csv = format == output_format::csv;
  auto write = [&](const text_table& t) { csv ? write_csv(std::cout, t) : write_table(std::cout, t); };
  if (!csv) {
    std::cout << source << "\n";
    write_legend(std::cout, r);
    std::cout << "\n";
  }
  write(csv ? laws_csv(r) : laws_table(r));
  std::cout << "\n";
  write(predictions_table(r, csv));
  std::cout << "\n";
  write(summary_table(r, csv));
}

// --from-cpus: the wider-machine protocol on each source (model/scaling_wider.hpp).
// --from-cpus and --cpus, checked before any data is read; empty without --from-cpus.
std::optional<model::wider_protocol> wider_protocol_of(const po::variables_map& vm,
                                                       const model::scaling_protocol& per_table,
                                                       model::point_statistic statistic) {
  if (!vm.count("from-cpus")) {
    if (vm.count("cpus")) throw usage_error("--cpus: widths to predict from narrow series: give --from-cpus");
    if (vm.count("no-serial-stage")) throw usage_error("--no-serial-stage: only with --from-cpus");
    return std::nullopt;
  }
  if (!per_table.train.empty()) throw usage_error("--from-cpus: trains on the narrow series itself; drop --train");
  model::wider_protocol protocol;
  protocol.efficiency = capacity_efficiency_wanted(vm, "scale", std::string(model::statistic_name(statistic)));
  protocol.from_cpus = vm["from-cpus"].as<long long>();
  protocol.serial_stage = !vm.count("no-serial-stage");
  if (protocol.from_cpus < 1 || protocol.from_cpus > 100000)
    throw usage_error("--from-cpus: " + std::to_string(protocol.from_cpus) + " is not a CPU count in 1..100000");
  if (vm.count("cpus"))
    for (double c : parse_counts(vm["cpus"].as<std::string>(), "cpus"))
      protocol.cpus.push_back(static_cast<std::int64_t>(c));
  if (!protocol.cpus.empty() && per_table.at.empty()) throw usage_error("--cpus: needs --at (the N to predict there)");
  protocol.at = per_table.at;
  protocol.law = per_table.law;
  try {
    model::check_wider_protocol(protocol);
  } catch (const std::invalid_argument& e) {
    throw usage_error(std::string("--cpus: ") + e.what());
  }
  return protocol;
}

// --from-cpus: the wider-machine protocol on each source (model/scaling_wider.hpp).
int scale_wider(const model::wider_protocol& protocol, const std::deque<model::observation_set>& data,
                output_format format) {
  std::vector<model::wider_result> results;
  for (const auto& d : data) {
    // A published table is another machine of another age: the corpus's guests do not speak for it.
    model::wider_protocol p = protocol;
    if (d.historical) p.efficiency.reset();
    results.push_back(model::predict_wider(d, p));
  }
  for (std::size_t i = 0; i < results.size(); ++i) {
    if (i > 0) std::cout << "\n";
    write_wider(results[i], data[i].source, format);
  }
  return exit_ok;
}

}  // namespace

int cmd_scale(const args_t& args) {
  const auto opts = scale_options();
  po::positional_options_description pos;
  pos.add("data", -1);
  po::variables_map vm;
  if (!parse_command_line(args, opts, pos, vm,
                          "usage: pollscale scale PATH... [--train EXPR | --from-cpus C0 [--cpus C,..] "
                          "[--no-serial-stage]] [--at N,N,...]"))
    return exit_ok;
  const output_format format = parse_format(vm["format"].as<std::string>());
  model::scaling_protocol protocol;
  protocol.train = vm["train"].as<std::string>();
  if (vm.count("at")) protocol.at = parse_counts(vm["at"].as<std::string>());
  protocol.law = law_options(vm);
  model::point_statistic statistic;
  try {
    statistic = model::parse_point_statistic(vm["statistic"].as<std::string>());
  } catch (const std::invalid_argument& e) {
    throw usage_error(std::string("--statistic: ") + e.what());
  }
  const auto wider = wider_protocol_of(vm, protocol, statistic);
  std::deque<model::observation_set> data;  // results point into it: stable addresses
  for (const auto& d : vm["data"].as<std::vector<std::string>>())
    for (const auto& s : model::find_sources(d)) data.push_back(model::load_observations(s, statistic));
  if (wider) return scale_wider(*wider, data, format);
  std::vector<model::scaling_result> results;
  for (const auto& d : data) {
    try {
      results.push_back(model::validate_scaling(d, protocol));
    } catch (const std::invalid_argument& e) {
      throw usage_error(e.what());
    }
  }
  if (format == output_format::json && results.size() > 1) {
    json all = json::array();
    for (std::size_t i = 0; i < results.size(); ++i) all.push_back(result_json(results[i], data[i].source));
    std::cout << stamped(output_kind::scaling_corpus, {{"sources", all}}).dump(2) << "\n";
    return exit_ok;
  }
  for (std::size_t i = 0; i < results.size(); ++i) {
    if (i > 0) std::cout << "\n";
    write_result(results[i], data[i].source, format);
  }
  return exit_ok;
}

}  // namespace pollscale::app
