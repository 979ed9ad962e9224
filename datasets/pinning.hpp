// Where the threads of one measured point ran: the CPU of each thread, the measuring thread
// first, then its partner (the writer that wakes it, the load generator that drives it),
// written "0", "0+0" or "0+1" in the pinning column (docs/datasets.md). One type, so that
// the probes that write the column, the readers that check it and the simulator that picks
// same-CPU or cross-CPU cells share one grammar.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace pollscale::datasets {

class pinning {
 public:
  /// Linux numbers CPUs below CONFIG_NR_CPUS (at most 8192); a larger number is a typo.
  static constexpr int max_cpu = 65535;

  pinning() = default;  ///< unpinned: no CPU named (historical tables)
  static pinning on(int cpu);
  static pinning pair(int first, int second);
  /// The column's text: "" (unpinned) or CPU numbers 0..max_cpu joined by '+'. Throws
  /// std::invalid_argument quoting the text when it is anything else.
  static pinning parse(std::string_view text);

  const std::vector<int>& cpus() const { return cpus_; }
  bool empty() const { return cpus_.empty(); }
  /// Two threads: a measuring thread and its partner.
  bool is_pair() const { return cpus_.size() == 2; }
  /// Every thread on one CPU ("0", "3+3"); false when unpinned.
  bool same_cpu() const;
  /// How many different CPUs the threads ran on (the cpus column).
  std::size_t distinct_cpus() const;
  /// The column's text: "0+1".
  std::string text() const;

  friend bool operator==(const pinning&, const pinning&) = default;

 private:
  explicit pinning(std::vector<int> cpus) : cpus_(std::move(cpus)) {}
  std::vector<int> cpus_;
};

}  // namespace pollscale::datasets
