#include "app/report/report.hpp"

#include <cmath>
#include <map>
#include <sstream>

#include "app/report/calibration_figures.hpp"
#include "app/report/markdown.hpp"
#include "app/table_writer.hpp"
#include "datasets/atomic_file.hpp"
#include "datasets/machine_facts.hpp"
#include "datasets/vocabulary.hpp"

namespace pollscale::app::report {
namespace {

std::string with_interval(const datasets::summary& s) {
  return format_number(s.median) + " [" + format_number(s.ci95_lo) + ", " + format_number(s.ci95_hi) + "]";
}

std::string json_text(const nlohmann::json& j) {
  if (j.is_null()) return "n/a";
  return j.is_string() ? j.get<std::string>() : j.dump();
}

std::string machine_section(const nlohmann::json& c) {
  std::vector<std::vector<std::string>> rows;
  for (const char* f : {"host", "cpu_model", "kernel", "cpus_online", "cpus_allowed", "clocksource", "governor",
                        "virtualization", "rlimit_nofile", "rlimit_sigpending", "timer", "time_utc"})
    if (c.contains(f)) rows.push_back({f, json_text(c[f])});
  std::string caches;
  for (const auto& cache : datasets::read_machine_facts(c).caches)
    caches +=
        "L" + std::to_string(cache.level) + " " + cache.type + " " + std::to_string(cache.size_bytes / 1024) + " KiB; ";
  rows.push_back({"caches", caches});
  return "## Machine\n\n" + md_table({"fact", "value"}, rows) + "\n";
}

std::string notes_section(const nlohmann::json& c) {
  std::ostringstream o;
  o << "## Warnings, skipped points and failures\n\n";
  for (const auto& w : c.value("warnings", nlohmann::json::array())) o << "- warning: " << json_text(w) << "\n";
  for (const auto& f : c.value("failures", nlohmann::json::array())) o << "- **failure**: " << json_text(f) << "\n";
  std::map<std::string, int> reasons;
  for (const auto& s : c.value("skipped", nlohmann::json::array())) ++reasons[json_text(s["reason"])];
  for (const auto& [reason, count] : reasons) o << "- skipped " << count << " point(s): " << reason << "\n";
  if (reasons.empty() && c.value("warnings", nlohmann::json::array()).empty()) o << "None.\n";
  return o.str() + "\n";
}

std::string figures_markdown(const std::vector<figure>& figs, const std::filesystem::path& dir) {
  std::string md;
  for (const auto& f : figs) {
    render_svg(f, dir / "figures");
    md += "![" + f.title + "](figures/" + f.name + ".svg)\n\n";
  }
  return md;
}

}  // namespace

std::vector<std::vector<std::string>> headline_rows(const datasets::dataset& d) {
  // (mechanism label, metric) -> n -> summary
  std::map<std::pair<std::string, std::string>, std::map<std::int64_t, datasets::summary>> cells;
  for (const auto& r : d.summaries) {
    const auto& k = r.k;
    if (k.scenario != datasets::scenario::find_active || k.fd_kind != datasets::fd_kind::pipe ||
        k.n_active.value_or(0) != 1 || k.active_pos != datasets::position::middle || k.blocking.value_or(0) != 0 ||
        !k.n_fds)
      continue;
    cells[{flavour_label(k), k.metric}][*k.n_fds] = r.s;
  }
  std::vector<std::vector<std::string>> rows;
  for (const auto& [id, by_n] : cells) {
    auto near = by_n.begin();
    for (auto it = by_n.begin(); it != by_n.end(); ++it)
      if (std::abs(std::log(static_cast<double>(it->first) / 1000.0)) <
          std::abs(std::log(static_cast<double>(near->first) / 1000.0)))
        near = it;
    const auto first = by_n.begin(), last = std::prev(by_n.end());
    rows.push_back({id.first, id.second, first->first == 1 ? with_interval(first->second) : "-",
                    with_interval(near->second) + " (n=" + std::to_string(near->first) + ")",
                    with_interval(last->second) + " (n=" + std::to_string(last->first) + ")"});
  }
  return rows;
}

std::filesystem::path write_report(const datasets::dataset& d, const std::filesystem::path& dir,
                                   const std::string& title, const std::string& source,
                                   const std::vector<extra_section>& extras) {
  std::filesystem::create_directories(dir / "figures");
  std::ostringstream md;
  md << "# " << title << "\n\nDataset: `" << source << "` (" << d.summaries.size() << " measured points, "
     << d.samples.size() << " raw samples). Medians with their 95% confidence intervals in brackets; ns unless "
     << "stated.\n\n";
  md << machine_section(d.context);
  md << "## Headline: find 1 active pipe among n (timeout 0)\n\n"
     << md_table({"mechanism", "metric", "n = 1", "n ≈ 1000", "largest n"}, headline_rows(d)) << "\n";
  md << "## Measurements\n\n" << figures_markdown(calibration_figures(d), dir);
  for (const auto& e : extras) md << e.markdown << "\n" << figures_markdown(e.figures, dir);
  md << notes_section(d.context);
  datasets::write_file_atomically(dir / "report.md", md.str());
  const auto html = dir / "report.html";
  datasets::write_file_atomically(html, html_page(title, markdown_to_html(md.str())));
  return html;
}

}  // namespace pollscale::app::report
