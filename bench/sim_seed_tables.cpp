// Reproduces the seeds' dphttpd and pipetest tables with the simulator, costs fitted to
// each series' small-n rows only (studies/seed_tables.hpp says how), and prints every row's
// error as Markdown for docs/sim.md.
//
// usage: sim_seed_tables [--dphttpd-train N] [--pipetest-train N] [HISTORICAL_DIR]
//   defaults: 15000 dead connections (of 60000), 4000 pipes (of 16000): fitted on the
//             first quarter of each range, predicting two doublings beyond (Extra-P),
//             POLLSCALE_SOURCE_DIR/datasets/historical
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <string>
#include <vector>

#include "datasets/historical.hpp"
#include "studies/seed_tables.hpp"

namespace {

using namespace pollscale;

void print_fits(const studies::seed_reproduction& r) {
  std::printf("\n### %s (costs fitted on n <= %lld)\n\n", r.table.c_str(), static_cast<long long>(r.train_max_n));
  std::printf(
      "| series | form | fixed (us) | per fd (ns) | rows fitted | LOO error linear / constant |\n"
      "|---|---|---:|---:|---:|---|\n");
  for (const auto& f : r.fits)
    std::printf("| %s %s | %s | %.3f | %.3f | %zu | %.1f%% / %.1f%% |\n", f.mechanism.c_str(), f.variant.c_str(),
                f.form.c_str(), f.fixed_s * 1e6, f.per_fd_s * 1e9, f.points, 100 * f.loo_linear, 100 * f.loo_constant);
}

// One line per n, three columns per series: published, simulated, error ("fit": a row
// the costs were fitted on).
void print_rows(const studies::seed_reproduction& r) {
  std::printf("\n| n |");
  for (const auto& f : r.fits)
    std::printf(" %s %s published | simulated | error |", f.mechanism.c_str(), f.variant.c_str());
  std::printf("\n|---:|");
  for (std::size_t i = 0; i < r.fits.size(); ++i) std::printf("---:|---:|---:|");
  std::printf("\n");
  std::vector<std::int64_t> ns;
  for (const auto& row : r.rows) ns.push_back(row.n);
  std::sort(ns.begin(), ns.end());
  ns.erase(std::unique(ns.begin(), ns.end()), ns.end());
  for (std::int64_t n : ns) {
    std::printf("| %lld |", static_cast<long long>(n));
    for (const auto& f : r.fits) {
      const auto it = std::find_if(r.rows.begin(), r.rows.end(), [&](const studies::seed_row& row) {
        return row.n == n && row.mechanism == f.mechanism && row.variant == f.variant;
      });
      if (it == r.rows.end())
        std::printf(" | | |");
      else
        std::printf(" %.1f | %.1f | %+.1f%%%s |", it->measured, it->simulated, 100 * it->rel_err,
                    it->trained ? " (fit)" : "");
    }
    std::printf("\n");
  }
}

// Per series: median and largest |error| over the rows it was not fitted on.
void print_summary(const studies::seed_reproduction& r) {
  std::printf(
      "\n| series | median abs error (held out) | max abs error (held out) | held-out rows |\n|---|---:|---:|---:|\n");
  for (const auto& f : r.fits) {
    std::vector<double> e;
    for (const auto& row : r.rows)
      if (!row.trained && row.mechanism == f.mechanism && row.variant == f.variant) e.push_back(std::fabs(row.rel_err));
    std::sort(e.begin(), e.end());
    if (e.empty()) continue;
    const double med = e.size() % 2 ? e[e.size() / 2] : 0.5 * (e[e.size() / 2 - 1] + e[e.size() / 2]);
    std::printf("| %s %s | %.1f%% | %.1f%% | %zu |\n", f.mechanism.c_str(), f.variant.c_str(), 100 * med,
                100 * e.back(), e.size());
  }
}

void print(const studies::seed_reproduction& r) {
  print_fits(r);
  print_rows(r);
  print_summary(r);
}

long long number_arg(int& i, int argc, char** argv) {
  if (i + 1 >= argc) {
    std::cerr << "sim_seed_tables: " << argv[i] << " needs a value\n";
    std::exit(2);
  }
  char* end = nullptr;
  const long long v = std::strtoll(argv[++i], &end, 10);
  if (*end != '\0' || v < 0) {
    std::cerr << "sim_seed_tables: " << argv[i - 1] << ": '" << argv[i] << "' is not a count\n";
    std::exit(2);
  }
  return v;
}

}  // namespace

int main(int argc, char** argv) {
  long long dphttpd_train = 15000, pipetest_train = 4000;
  std::string dir = std::string(POLLSCALE_SOURCE_DIR) + "/datasets/historical";
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--dphttpd-train")
      dphttpd_train = number_arg(i, argc, argv);
    else if (a == "--pipetest-train")
      pipetest_train = number_arg(i, argc, argv);
    else if (!a.empty() && a[0] == '-') {
      std::cerr << "sim_seed_tables: unknown option '" << a << "'\n";
      return 2;
    } else
      dir = a;
  }
  try {
    print(studies::reproduce_dphttpd(datasets::read_historical(dir + "/lse_2002_dphttpd.csv"), dphttpd_train));
    print(studies::reproduce_pipetest(datasets::read_historical(dir + "/lse_2002_pipetest.csv"), pipetest_train));
  } catch (const std::exception& e) {
    std::cerr << "sim_seed_tables: " << e.what() << "\n";
    return 2;
  }
  return 0;
}
