#include "app/report/report.hpp"

#include <cmath>
#include <cstdio>
#include <map>
#include <sstream>

#include "app/report/calibration_figures.hpp"
#include "app/report/conditions.hpp"
#include "app/report/markdown.hpp"
#include "app/report/verdict.hpp"
#include "app/table_writer.hpp"
#include "datasets/atomic_file.hpp"
#include "datasets/host_record.hpp"
#include "datasets/machine_facts.hpp"
#include "datasets/run_facts.hpp"
#include "datasets/vocabulary.hpp"
#include "model/fit.hpp"

namespace pollscale::app::report {
namespace {

std::string with_interval(const datasets::summary& s) {
  return format_number(s.median) + " [" + format_number(s.ci95_lo) + ", " + format_number(s.ci95_hi) + "]";
}

std::string cpu_text(const datasets::host_record& h, const datasets::machine_facts& f) {
  std::string t = h.cpu_model;
  if (!f.cpu) return t;
  const auto& cpu = *f.cpu;
  auto n = [](const std::optional<int>& v) { return v ? std::to_string(*v) : std::string("?"); };
  t += " (" + cpu.vendor + " family " + n(cpu.family) + " model " + n(cpu.model) + " stepping " + n(cpu.stepping);
  if (!cpu.microcode.empty()) t += ", microcode " + cpu.microcode;
  if (cpu.mhz) t += ", " + format_number(*cpu.mhz) + " MHz at start";
  if (cpu.max_mhz) t += ", max " + format_number(*cpu.max_mhz) + " MHz";
  return t + ")";
}

std::string topology_text(const datasets::host_record& h, const datasets::machine_facts& f) {
  std::string t = h.cpus_online + " online, allowed " + h.cpus_allowed;
  if (const auto& top = f.topology) {
    t += "; " + std::to_string(top->sockets) + " socket(s), " + std::to_string(top->cores) + " core(s), " +
         std::to_string(top->threads_per_core) + " thread(s) per core";
    if (top->numa_nodes) t += ", " + std::to_string(*top->numa_nodes) + " NUMA node(s)";
    if (!top->smt.empty()) t += ", SMT " + top->smt;
  }
  return t;
}

// The vulnerabilities the kernel mitigates cost time on every system call; a reader wants
// to know how many there are, and which are left vulnerable.
std::string mitigations_text(const datasets::machine_facts& f) {
  if (f.mitigations.empty()) return "n/a";
  int mitigated = 0, unaffected = 0;
  std::string vulnerable;
  for (const auto& [name, state] : f.mitigations) {
    if (state.rfind("Not affected", 0) == 0)
      ++unaffected;
    else if (state.rfind("Vulnerable", 0) == 0)
      vulnerable += (vulnerable.empty() ? "" : ", ") + name;
    else
      ++mitigated;
  }
  return std::to_string(mitigated) + " mitigated, " + std::to_string(unaffected) + " not affected" +
         (vulnerable.empty() ? "" : ", vulnerable: " + vulnerable);
}

std::string virtualization_text(const datasets::host_record& h) {
  const auto& v = h.virtualization;
  std::string t = !v.hypervisor_flag ? "n/a" : *v.hypervisor_flag ? "a guest (hypervisor flag set)" : "bare metal";
  for (const std::string* f : {&v.hypervisor_type, &v.sys_vendor, &v.product_name})
    if (*f != "n/a") t += ", " + *f;
  return t;
}

std::string limits_text(const datasets::host_record& h, const datasets::machine_facts& f) {
  const auto& n = h.rlimit_nofile;
  std::string t = "RLIMIT_NOFILE " + n.soft + " (hard " + n.hard + ", " + n.soft_at_start + " at start)";
  if (const auto& l = f.rlimit_sigpending)
    t += "; RLIMIT_SIGPENDING " + (l->soft ? std::to_string(*l->soft) : std::string("unlimited"));
  return t;
}

std::string timer_text(const datasets::host_record& h) {
  auto ns = [](const std::optional<double>& v) { return v ? format_number(*v) + " ns" : std::string("n/a"); };
  return h.timer.clock + ": " + ns(h.timer.overhead_ns) + " a reading, resolution " + ns(h.timer.resolution_ns);
}

std::string tool_text(const datasets::host_record& h) {
  if (!h.tool) return "n/a (an older pollscale)";
  const auto& t = *h.tool;
  return t.version + " (" + t.git_hash + (t.dirty ? "-dirty" : "") + "), " + t.build_type + " build, " + t.compiler;
}

// What one descriptor of a timeout-0 scan paid past L2 (the cold_scan probe), per fd kind:
// the height of a streaming scan's step there under `fit --step-height measured`. "" without it.
std::string past_l2_text(const datasets::dataset& d) {
  model::observation_set set;
  set.context = d.context;
  for (const auto& r : d.summaries)
    if (r.k.scenario == datasets::scenario::cold_scan) {
      model::observation o;
      o.k = r.k;
      o.value = r.s.median;
      set.rows.push_back(std::move(o));
    }
  const auto exposures = model::cold_exposures_of(set);
  std::string t;
  char figure[64];
  for (const auto& [kind, e] : exposures) {
    std::snprintf(figure, sizeof figure, "%+.1f ns", e.excess_ns);  // ns per descriptor, to a tenth
    t += (t.empty() ? "" : ", ") + kind + " " + figure;
  }
  if (t.empty()) return t;
  const auto& e = exposures.begin()->second;
  if (e.evict_bytes > 0)
    std::snprintf(figure, sizeof figure, "%.0f MiB", e.evict_bytes / (1 << 20));
  else
    std::snprintf(figure, sizeof figure, "a buffer past L2");
  return t + " a descriptor (cold_scan: a timeout-0 poll over " + std::to_string(e.n_lo) + "-" +
         std::to_string(e.n_hi) + " descriptors after reading " + figure +
         ", minus the same back to back; the height of a scan's step past L2 under fit --step-height measured)";
}

std::string machine_section(const datasets::dataset& d) {
  const nlohmann::json& c = d.context;
  const auto facts = datasets::read_machine_facts(c);
  const auto h = datasets::read_host_record(c);
  std::vector<std::vector<std::string>> rows;
  rows.push_back({"host", h.host});
  rows.push_back({"CPU", cpu_text(h, facts)});
  rows.push_back({"CPUs", topology_text(h, facts)});
  std::string caches;
  for (const auto& cache : facts.caches)
    caches += (caches.empty() ? "L" : "; L") + std::to_string(cache.level) + " " + cache.type + " " +
              std::to_string(cache.size_bytes / 1024) + " KiB";
  rows.push_back({"caches", caches});
  if (const auto past = past_l2_text(d); !past.empty()) rows.push_back({"past L2", past});
  rows.push_back({"kernel", h.kernel});
  rows.push_back({"mitigations", mitigations_text(facts)});
  if (facts.thp) rows.push_back({"transparent huge pages", facts.thp->enabled + " (defrag " + facts.thp->defrag + ")"});
  rows.push_back({"virtualization", virtualization_text(h)});
  rows.push_back({"clocksource, governor", h.clocksource + ", " + h.governor});
  rows.push_back({"limits", limits_text(h, facts)});
  rows.push_back({"timer", timer_text(h)});
  rows.push_back({"measured by", tool_text(h)});
  rows.push_back({"time_utc", h.time_utc});
  return "## Machine\n\n" + md_table({"fact", "value"}, rows) + "\n";
}

std::string notes_section(const nlohmann::json& c) {
  const datasets::run_facts run = datasets::read_run_facts(c);
  std::ostringstream o;
  o << "## Warnings, skipped points and failures\n\n";
  for (const auto& w : run.warnings) o << "- warning: " << w << "\n";
  for (const auto& f : run.failures) o << "- **failure**: " << f << "\n";
  std::map<std::string, int> reasons;
  for (const auto& [point, reason] : run.skipped) ++reasons[reason];
  for (const auto& [reason, count] : reasons) o << "- skipped " << count << " point(s): " << reason << "\n";
  if (reasons.empty() && run.warnings.empty()) o << "None.\n";
  return o.str() + "\n";
}

std::string figures_markdown(const std::vector<figure>& figs, const std::filesystem::path& dir) {
  std::string md;
  for (const auto& whole : figs)
    for (const auto& f : small_multiples(whole)) {  // at most six series a panel
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
        !k.n_fds || !datasets::one_thread(k))
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
                                   const std::vector<extra_section>& extras, const std::string& verdict_lines) {
  std::filesystem::create_directories(dir / "figures");
  std::ostringstream md;
  md << "# " << title << "\n\nDataset: `" << source << "` (" << d.summaries.size() << " measured points, "
     << d.samples.size() << " raw samples). Medians with their 95% confidence intervals in brackets; ns unless "
     << "stated.\n\n";
  md << verdict_markdown(d, verdict_lines);
  md << machine_section(d);
  md << "## Headline: find 1 active pipe among n (timeout 0)\n\n"
     << md_table({"mechanism", "metric", "n = 1", "n ≈ 1000", "largest n"}, headline_rows(d)) << "\n";
  md << "## Measurements\n\n" << figures_markdown(calibration_figures(d), dir);
  const conditions steady = conditions_section(d);
  md << steady.markdown;
  if (steady.series) md << figures_markdown({*steady.series}, dir);
  for (const auto& e : extras) md << e.markdown << "\n" << figures_markdown(e.figures, dir);
  md << notes_section(d.context);
  datasets::write_file_atomically(dir / "report.md", md.str());
  const auto html = dir / "report.html";
  datasets::write_file_atomically(html, html_page(title, markdown_to_html(md.str())));
  return html;
}

}  // namespace pollscale::app::report
