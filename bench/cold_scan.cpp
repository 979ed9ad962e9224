// cold_scan — what a scan of descriptors pays past the caches, measured at small n.
//
// Far past the data the model under-predicts timeout-0 scans over pipes on most hosts of the
// corpus (docs/model.md §9, "The scans past the caches"): its prior prices the step past L2
// as the descriptors' lines streamed at 15 GB/s (about 10 ns a descriptor), while how much of
// each descriptor's chain of misses the core really hides differs tenfold between hosts. This
// program asks whether a scan measured at n <= 1000 can say it: poll(2), timeout 0, over n
// descriptors of one kind — the read ends of pipes (their write ends open in this process, as
// calibrate's pipes are held open by its keeper), eventfds, or one end of socketpairs — each
// call timed
//   warm — back to back: the descriptors' kernel state stays in the caches;
//   cold — after reading E bytes of another buffer (a 64-byte stride, so every line is
//          loaded): the state was pushed out to wherever a working set of E bytes pushes it.
// The per-descriptor slope between n = 500 and 1000 (the fixed costs cancel) cold minus warm
// is the walk's own exposed cost per descriptor for a working set of E; beside it, the warm
// slope between 2000 descriptors and the largest n this process can open — what a scan far
// past L2 really pays per descriptor. Not a Google Benchmark, not a probe: a measurement
// for the model's notes (docs/model.md §9), pinned to the first allowed CPU.
//
// Usage: cold_scan [pipe|eventfd|socketpair] [N]   (default pipe and the most this process can
// open: 9800 pipes or socketpairs, two descriptors each under a limit of 20000; 19000 eventfds)

#include <fcntl.h>
#include <poll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "calibrate/sys/process.hpp"
#include "calibrate/sys/syscall.hpp"
#include "calibrate/sys/unique_fd.hpp"
#include "calibrate/timer.hpp"
#include "datasets/statistics.hpp"

namespace calibrate = pollscale::calibrate;
namespace datasets = pollscale::datasets;
namespace sys = pollscale::calibrate::sys;

namespace {

constexpr int repeats = 201;  // calls per median
constexpr std::size_t line = 64;

// Loads every line of the first `bytes` of `buffer`: the caches then hold that, not the scan.
volatile std::uint64_t sink;
void evict(const std::vector<std::uint64_t>& buffer, std::size_t bytes) {
  std::uint64_t sum = 0;
  for (std::size_t i = 0; i < bytes / sizeof(std::uint64_t); i += line / sizeof(std::uint64_t)) sum += buffer[i];
  sink = sum;
}

// Median ns of one poll over the first n entries, evicting `bytes` before each call (0: none).
double median_poll_ns(std::vector<pollfd>& set, std::size_t n, const std::vector<std::uint64_t>& buffer,
                      std::size_t bytes) {
  std::vector<double> ns;
  for (int r = 0; r < repeats; ++r) {
    if (bytes) evict(buffer, bytes);
    const std::uint64_t t0 = calibrate::clock_ns();
    sys::call("poll", [&] { return ::poll(set.data(), static_cast<nfds_t>(n), 0); });
    ns.push_back(static_cast<double>(calibrate::clock_ns() - t0));
  }
  return datasets::median(ns);
}

}  // namespace

int main(int argc, char** argv) {
  const std::string kind = argc > 1 ? argv[1] : "pipe";
  if (kind != "pipe" && kind != "eventfd" && kind != "socketpair") {
    std::fprintf(stderr, "cold_scan: the kind must be pipe, eventfd or socketpair (got %s)\n", kind.c_str());
    return 2;
  }
  const std::size_t count = argc > 2 ? std::strtoul(argv[2], nullptr, 10) : kind == "eventfd" ? 19000 : 9800;
  if (count < 2001) {
    std::fprintf(stderr, "cold_scan: N must be more than 2000 (got %s)\n", argc > 2 ? argv[2] : "");
    return 2;
  }
  const auto cpus = sys::allowed_cpus();
  if (!cpus.empty()) sys::pin_current_thread(cpus.front());
  sys::raise_nofile_limit();
  std::vector<sys::unique_fd> ends;
  std::vector<pollfd> set;
  for (std::size_t i = 0; i < count; ++i) {
    int fd[2] = {-1, -1};
    if (kind == "pipe")
      sys::call("pipe2", [&] { return ::pipe2(fd, O_CLOEXEC); });
    else if (kind == "socketpair")
      sys::call("socketpair", [&] { return ::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, fd); });
    else
      fd[0] = sys::call("eventfd", [&] { return ::eventfd(0, EFD_CLOEXEC); });
    ends.emplace_back(fd[0]);
    if (fd[1] >= 0) ends.emplace_back(fd[1]);
    set.push_back({fd[0], POLLIN, 0});
  }
  const std::vector<std::uint64_t> buffer((std::size_t{128} << 20) / sizeof(std::uint64_t), 1);
  const auto slope = [](double a, double b, std::size_t na, std::size_t nb) {
    return (b - a) / static_cast<double>(nb - na);
  };
  const double w500 = median_poll_ns(set, 500, buffer, 0), w1000 = median_poll_ns(set, 1000, buffer, 0);
  const double w2000 = median_poll_ns(set, 2000, buffer, 0), wmax = median_poll_ns(set, count, buffer, 0);
  const double warm = slope(w500, w1000, 500, 1000);
  std::printf(
      "%s, warm: %.1f ns/fd at 1000, %.1f at %zu; slope 500-1000 %.1f ns/fd, 2000-%zu %.1f (past the caches "
      "+%.1f)\n",
      kind.c_str(), w1000 / 1000, wmax / static_cast<double>(count), count, warm, count,
      slope(w2000, wmax, 2000, count), slope(w2000, wmax, 2000, count) - warm);
  std::printf("%10s %16s %14s %16s\n", "evict_MiB", "ns/fd at 1000", "slope 500-1000", "excess over warm");
  constexpr std::size_t evict_mib[] = {1, 2, 4, 8, 16, 32, 64, 128};
  for (std::size_t mib : evict_mib) {
    const std::size_t bytes = mib << 20;
    const double c500 = median_poll_ns(set, 500, buffer, bytes), c1000 = median_poll_ns(set, 1000, buffer, bytes);
    const double cold = slope(c500, c1000, 500, 1000);
    std::printf("%10zu %16.1f %14.1f %16.1f\n", mib, c1000 / 1000, cold, cold - warm);
  }
  return 0;
}
