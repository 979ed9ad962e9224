// pollscale validate DATASET... --train EXPR: fit on the rows EXPR selects, predict every
// other row, and report each prediction's error and interval, then per-group and overall
// accuracy (MAPE, median and max relative error, 95% interval coverage, how wide the
// intervals are and their interval score). Errors are fractions in csv/json (0.05 = 5%) and
// percentages in the table. With several datasets (given in turn, or a directory of
// datasets such as the machine corpus) each is validated on its own and one summary row per
// dataset is printed, then the worst of each column: a model is judged on every machine.
// Where the corpus holds several datasets of one host, a second table gives one row per
// host (the worst of its datasets) and the worst host (JSON: "machines").

#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <optional>
#include <sstream>
#include <stdexcept>

#include "app/accuracy_output.hpp"
#include "app/cli.hpp"
#include "app/commands.hpp"
#include "app/exit_codes.hpp"
#include "app/model_options.hpp"
#include "app/output_document.hpp"
#include "app/summary_view.hpp"
#include "app/table_writer.hpp"
#include "model/validation.hpp"

namespace po = boost::program_options;

namespace pollscale::app {
namespace {

using nlohmann::json;

po::options_description validate_options() {
  po::options_description o("validate options");
  // One option per line, as --help prints them.
  // clang-format off
  o.add_options()("help,h", "show this help")
      ("data", arg<std::vector<std::string>>("PATH")->required()->composing(),
       "dataset directory, historical CSV, directory of historical CSVs, or a directory with datasets beneath it "
       "(e.g. datasets/machines); positional, may be repeated")
      ("train", arg<std::string>("EXPR")->default_value("n_fds<=1000"),
       "rows to fit on, e.g. 'n_fds<=1000', 'n_fds<max' (each group's largest n held out), "
       "'n_fds<=1000 && mechanism==poll'; the rest are predicted")
      ("group-by", arg<std::string>("COLUMNS"), "comma-separated columns to aggregate errors by "
       "(default platform,scenario,mechanism,variant,fd_kind,metric)")
      ("format", arg<std::string>("FORMAT")->default_value("table"), "table, csv or json");
  // clang-format on
  o.add(model_fit_options_description());
  return o;
}

std::vector<std::string> split_columns(const std::string& text) {
  std::vector<std::string> out;
  std::stringstream ss(text);
  for (std::string item; std::getline(ss, item, ',');)
    if (!item.empty()) out.push_back(item);
  if (out.empty()) throw usage_error("--group-by: no columns in '" + text + "'");
  return out;
}

// Stands for the rows in a document whose rows are written one by one (write_result_json).
constexpr const char* rows_placeholder = "@@pollscale-validation-rows@@";

std::string text_num(double v) { return std::isfinite(v) ? format_number(v) : (std::isnan(v) ? "" : "inf"); }

json row_json(const model::validation_row& r) {
  json j = json::object();
  for (auto c : model::observation_columns())
    if (c != "source") j[std::string(c)] = column_json(c, model::column_text(*r.o, c));
  j["measured"] = r.measured;
  j["predicted"] = json_number(r.predicted);
  j["lo"] = json_number(r.lo);
  j["hi"] = json_number(r.hi);
  if (!r.has_interval) j["no_interval"] = r.no_interval;
  j["rel_err"] = json_number(r.rel_err);
  j["extrapolated"] = r.extrapolated;
  j["extrapolation"] = json_number(r.extrapolation);
  return j;
}

// The validation document; `with_rows` false leaves "rows" for write_result_json to stream.
json result_json(const model::validation_result& v, const std::string& train, bool with_rows = true) {
  json rows = json::array(), groups = json::array(), models = json::array();
  if (with_rows)
    for (const auto& r : v.rows) rows.push_back(row_json(r));
  else
    rows = rows_placeholder;
  for (const auto& g : v.groups) {
    json gj = accuracy_json(g.acc);
    for (std::size_t i = 0; i < v.group_by.size(); ++i) gj[v.group_by[i]] = column_json(v.group_by[i], g.group[i]);
    gj["n_train"] = g.n_train;
    groups.push_back(gj);
  }
  for (const auto& m : v.models.cells)
    models.push_back(
        {{"model", datasets::describe(m.cell) + (m.platform.empty() ? "" : " @ " + m.platform + ", " + m.kernel)},
         {"formula", m.formula},
         {"mape_loo", json_number(m.stats.mape_loo)},
         {"n_points", m.stats.n_points}});
  json summary = accuracy_json(v.overall);
  summary["groups"] = groups;
  return stamped(output_kind::validation, {{"train", train},
                                           {"n_train", v.n_train},
                                           {"group_by", v.group_by},
                                           {"rows", rows},
                                           {"summary", summary},
                                           {"models", models},
                                           {"skipped", v.skipped}});
}

// Writes `text` with `extra` more spaces at the start of every line but the first: a
// document's dump(2) placed inside another one's, as nlohmann would indent it there.
void write_indented(std::ostream& out, std::string_view text, int extra) {
  const std::string pad(static_cast<std::size_t>(extra), ' ');
  for (char c : text) {
    out << c;
    if (c == '\n') out << pad;
  }
}

// `doc` (a result_json(v, train, false).dump(2)) written as result_json(v, train).dump(2)
// would be, byte for byte, `extra` spaces further in after its first line, with the rows
// dumped one at a time into the stream: a million rows as one JSON value took 6.6 GB.
void write_with_rows(std::ostream& out, const std::string& doc, const model::validation_result& v, int extra) {
  const std::string marker = std::string("\"") + rows_placeholder + "\"";
  const std::size_t at = doc.find(marker);
  write_indented(out, std::string_view(doc).substr(0, at), extra);
  if (v.rows.empty()) {
    out << "[]";
  } else {
    // An element of a member's array sits 4 spaces (plus `extra`) in: so does every line of its dump.
    const std::string pad(static_cast<std::size_t>(extra + 4), ' ');
    out << "[\n";
    for (std::size_t i = 0; i < v.rows.size(); ++i) {
      out << pad;
      write_indented(out, row_json(v.rows[i]).dump(2), extra + 4);
      out << (i + 1 < v.rows.size() ? ",\n" : "\n");
    }
    out << std::string(static_cast<std::size_t>(extra + 2), ' ') << "]";
  }
  write_indented(out, std::string_view(doc).substr(at + marker.size()), extra);
}

// The same document as result_json(v, train).dump(2), byte for byte, rows streamed.
void write_result_json(std::ostream& out, const model::validation_result& v, const std::string& train) {
  write_with_rows(out, result_json(v, train, false).dump(2), v, 0);
  out << "\n";
}

std::string row_label(const model::validation_row& r) {
  std::string s = datasets::describe(r.o->k);
  if (!r.o->kernel.empty()) s += " @ " + r.o->kernel;
  return s;
}

// One line per row, made as it is printed (write_table_rows): a table of a million rows'
// strings took about 1 GB.
void write_rows_table(std::ostream& out, const model::validation_result& v) {
  write_table_rows(out, {"point", "measured", "predicted", "lo", "hi", "rel_err", "extrapolation", "no interval: why"},
                   {false, true, true, true, true, true, true, false}, v.rows.size(), [&](std::size_t i) {
                     const auto& r = v.rows[i];
                     return std::vector<std::string>{row_label(r),
                                                     text_num(r.measured),
                                                     text_num(r.predicted),
                                                     text_num(r.lo),
                                                     text_num(r.hi),
                                                     percent_text(r.rel_err),
                                                     r.extrapolated ? format_number(r.extrapolation, 3) + "x" : "-",
                                                     r.no_interval};
                   });
}

// Every key column for scripts, then the numbers (errors as fractions), written row by row:
// a table of a million rows' strings took about 1 GB.
void write_rows_csv(std::ostream& out, const model::validation_result& v) {
  std::vector<std::string> columns;
  for (auto c : model::observation_columns())
    if (c != "source") columns.emplace_back(c);
  const std::size_t keys = columns.size();
  for (auto c : {"measured", "predicted", "lo", "hi", "rel_err", "extrapolated", "extrapolation", "no_interval"})
    columns.emplace_back(c);
  write_csv_line(out, columns);
  std::vector<std::string> row;
  for (const auto& r : v.rows) {
    row.clear();
    for (std::size_t i = 0; i < keys; ++i) row.push_back(model::column_text(*r.o, columns[i]));
    for (double x : {r.measured, r.predicted, r.lo, r.hi, r.rel_err}) row.push_back(csv_number(x));
    row.push_back(r.extrapolated ? "1" : "0");
    row.push_back(csv_number(r.extrapolation));
    row.push_back(r.no_interval);
    write_csv_line(out, row);
  }
}

void add_accuracy_columns(text_table& t) {
  for (auto c : {"n_train", "n", "mape", "median_rel_err", "max_rel_err", "coverage", "median_rel_halfwidth",
                 "median_interval_score"})
    t.columns.emplace_back(c);
}

void add_accuracy_row(text_table& t, std::vector<std::string> row, std::size_t n_train, const model::accuracy& a,
                      bool fractions) {
  auto f = [&](double x) {
    if (std::isinf(x)) return std::string("inf");
    return fractions ? csv_number(x) : percent_text(x);
  };
  for (auto s : {std::to_string(n_train), std::to_string(a.n), f(a.mape), f(a.median_rel_err), f(a.max_rel_err),
                 f(a.coverage) + (fractions ? "" : " of " + std::to_string(a.n_with_interval)),
                 f(a.median_rel_halfwidth), f(a.median_interval_score)})
    row.push_back(s);
  t.rows.push_back(std::move(row));
}

// What the corpus summary keeps of each dataset once its rows are written.
struct dataset_accuracy {
  std::string source;
  std::size_t n_train = 0;
  model::accuracy overall;
};

// The host a dataset of the machine corpus belongs to (datasets/machines/HOST/DATASET, as
// scripts/corpus_add.py lays it out); any other dataset stands for a machine of its own.
std::string machine_of(const std::filesystem::path& source) {
  const std::filesystem::path p = source.lexically_normal();
  const auto dataset = p.has_filename() ? p : p.parent_path();
  const auto host = dataset.parent_path();
  if (host.has_parent_path() && host.parent_path().filename() == "machines") return host.filename().string();
  return source.string();
}

// The worst of each accuracy figure over several validations: the largest errors, widths
// and scores, the smallest coverage (and the fewest rows, so a thin dataset shows).
// Precondition: `results` is not empty.
model::accuracy worst_of(const std::vector<dataset_accuracy>& results) {
  model::accuracy w = results.front().overall;
  for (const auto& r : results) {
    const auto& a = r.overall;
    auto worse = [](double& into, double x, bool larger_is_worse) {
      if (std::isnan(x)) return;
      if (std::isnan(into) || (larger_is_worse ? x > into : x < into)) into = x;
    };
    w.n = std::min(w.n, a.n);
    w.n_with_interval = std::min(w.n_with_interval, a.n_with_interval);
    worse(w.mape, a.mape, true);
    worse(w.median_rel_err, a.median_rel_err, true);
    worse(w.max_rel_err, a.max_rel_err, true);
    worse(w.coverage, a.coverage, false);
    worse(w.median_rel_halfwidth, a.median_rel_halfwidth, true);
    worse(w.median_interval_score, a.median_interval_score, true);
  }
  return w;
}

text_table summary_table(const model::validation_result& v, bool fractions) {
  text_table t;
  t.columns = v.group_by;
  add_accuracy_columns(t);
  t.numeric.assign(v.group_by.size(), false);
  t.numeric.resize(t.columns.size(), true);
  for (const auto& g : v.groups) add_accuracy_row(t, g.group, g.n_train, g.acc, fractions);
  std::vector<std::string> all(v.group_by.size(), "");
  if (!all.empty()) all[0] = "(all)";
  add_accuracy_row(t, all, v.n_train, v.overall, fractions);
  return t;
}

// One summary row per dataset, then the worst of each column over them.
text_table datasets_table(const std::vector<dataset_accuracy>& results, bool fractions) {
  text_table t;
  t.columns = {"dataset"};
  add_accuracy_columns(t);
  t.numeric.assign(1, false);
  t.numeric.resize(t.columns.size(), true);
  for (const auto& r : results) add_accuracy_row(t, {r.source}, r.n_train, r.overall, fractions);
  add_accuracy_row(t, {"(worst)"}, 0, worst_of(results), fractions);
  t.rows.back()[1] = "";  // a worst row has no training set of its own
  return t;
}

// The datasets grouped by machine, in the order the machines first appear.
using machine_groups = std::vector<std::pair<std::string, std::vector<dataset_accuracy>>>;
machine_groups by_machine(const std::vector<dataset_accuracy>& results) {
  machine_groups out;
  for (const auto& r : results) {
    const std::string machine = machine_of(r.source);
    auto it = std::find_if(out.begin(), out.end(), [&](const auto& m) { return m.first == machine; });
    if (it == out.end()) it = out.insert(out.end(), {machine, {}});
    it->second.push_back(r);
  }
  return out;
}

// True when some machine has more than one dataset: only then is a row per machine news.
bool has_machines(const machine_groups& machines) {
  return std::any_of(machines.begin(), machines.end(), [](const auto& m) { return m.second.size() > 1; });
}

// One row per machine, the worst of its datasets in each column, then the worst machine:
// the table a model is judged by across hosts (docs/model.md §8).
text_table machines_table(const machine_groups& machines, const std::vector<dataset_accuracy>& results,
                          bool fractions) {
  text_table t;
  t.columns = {"machine", "datasets"};
  add_accuracy_columns(t);
  t.numeric.assign(1, false);
  t.numeric.resize(t.columns.size(), true);
  for (const auto& [name, rows] : machines) {
    add_accuracy_row(t, {name, std::to_string(rows.size())}, 0, worst_of(rows), fractions);
    t.rows.back()[2] = "";  // no training set of its own
  }
  add_accuracy_row(t, {"(worst)", std::to_string(results.size())}, 0, worst_of(results), fractions);
  t.rows.back()[2] = "";
  return t;
}

nlohmann::json machines_json(const machine_groups& machines) {
  json out = json::array();
  for (const auto& [name, rows] : machines)
    out.push_back({{"machine", name}, {"datasets", rows.size()}, {"worst", accuracy_json(worst_of(rows))}});
  return out;
}

// Where the corpus document's dataset parts wait until every dataset has been validated: a
// file, unlinked at once, so that memory holds one dataset at a time and a dataset that fails
// half-way leaves nothing on stdout.
class parts_file {
 public:
  parts_file() {
    std::string path = (std::filesystem::temp_directory_path() / "pollscale-validate-XXXXXX").string();
    const int fd = ::mkstemp(path.data());
    if (fd < 0) throw std::runtime_error("validate: cannot create a temporary file in " + path);
    ::close(fd);
    f_.open(path, std::ios::in | std::ios::out | std::ios::binary | std::ios::trunc);
    std::filesystem::remove(path);
    if (!f_) throw std::runtime_error("validate: cannot open the temporary file " + path);
  }
  std::ostream& out() { return f_; }
  /// Copies everything written so far to `to`; a failed write to the file is reported here.
  void copy_to(std::ostream& to) {
    f_.flush();
    if (!f_) throw std::runtime_error("validate: writing the temporary file failed (is its disk full?)");
    f_.seekg(0);
    to << f_.rdbuf();
  }

 private:
  std::fstream f_;
};

// Validates each source in turn (its data released before the next is read), the JSON
// parts of the corpus document streamed into a file meanwhile; then the summary.
void validate_several(const std::vector<std::filesystem::path>& sources, const model::validation_options& vo,
                      output_format format) {
  std::vector<dataset_accuracy> results;
  std::optional<parts_file> parts;
  if (format == output_format::json) parts.emplace();
  for (const auto& source : sources) {
    const model::observation_set data = model::load_observations(source, vo.fit.statistic);
    model::validation_result v;
    try {
      v = model::validate(data, vo);
    } catch (const std::invalid_argument& e) {
      throw usage_error(e.what());
    }
    report_left_out("validate: " + source.string(), v.skipped);
    if (parts) {
      json one = result_json(v, vo.train, false);
      one.erase("kind");  // each is a part of the corpus document, not one of its own
      one.erase("schema_version");
      one["source"] = source.string();
      parts->out() << (results.empty() ? "" : ",\n") << "    ";
      write_with_rows(parts->out(), one.dump(2), v, 4);
    }
    results.push_back({source.string(), v.n_train, v.overall});
  }
  const machine_groups machines = by_machine(results);
  if (format == output_format::json) {
    const std::string datasets_placeholder = "@@pollscale-validation-datasets@@";
    const std::string doc = stamped(output_kind::validation_corpus, {{"train", vo.train},
                                                                     {"datasets", datasets_placeholder},
                                                                     {"machines", machines_json(machines)},
                                                                     {"worst", accuracy_json(worst_of(results))}})
                                .dump(2);
    const std::size_t at = doc.find("\"" + datasets_placeholder + "\"");
    std::cout << doc.substr(0, at) << "[\n";
    parts->copy_to(std::cout);
    std::cout << "\n  ]" << doc.substr(at + datasets_placeholder.size() + 2) << "\n";
  } else {
    const bool csv = format == output_format::csv;  // fractions in CSV, percentages in the table
    const auto write = [&](const text_table& t) { csv ? write_csv(std::cout, t) : write_table(std::cout, t); };
    write(datasets_table(results, csv));
    if (has_machines(machines)) {
      std::cout << "\n";
      write(machines_table(machines, results, csv));
    }
  }
}

}  // namespace

int cmd_validate(const args_t& args) {
  const auto opts = validate_options();
  po::positional_options_description pos;
  pos.add("data", -1);
  po::variables_map vm;
  if (!parse_command_line(args, opts, pos, vm, "usage: pollscale validate DATASET... [--train EXPR] [options]",
                          model_fit_older_options()))
    return exit_ok;
  const output_format format = parse_format(vm["format"].as<std::string>());
  model::validation_options vo;
  vo.train = vm["train"].as<std::string>();
  if (vm.count("group-by")) vo.group_by = split_columns(vm["group-by"].as<std::string>());
  vo.fit = fit_options_from(vm);
  std::vector<std::filesystem::path> sources;
  for (const auto& d : vm["data"].as<std::vector<std::string>>())
    for (auto& s : model::find_sources(d)) sources.push_back(std::move(s));
  if (sources.size() > 1) {
    validate_several(sources, vo, format);
    return exit_ok;
  }
  const model::observation_set data = model::load_observations(sources.front(), vo.fit.statistic);
  model::validation_result v;
  try {
    v = model::validate(data, vo);
  } catch (const std::invalid_argument& e) {
    throw usage_error(e.what());
  }
  report_left_out("validate", v.skipped);
  if (format == output_format::json) {
    write_result_json(std::cout, v, vo.train);
  } else if (format == output_format::csv) {
    write_rows_csv(std::cout, v);
    std::cout << "\n";
    write_csv(std::cout, summary_table(v, true));
  } else {
    write_rows_table(std::cout, v);
    std::cout << "\n";
    write_table(std::cout, summary_table(v, false));
  }
  return exit_ok;
}

}  // namespace pollscale::app
