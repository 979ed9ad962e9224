#include "calibrate/probe_support.hpp"

#include <fcntl.h>
#include <sched.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include <algorithm>
#include <random>
#include <stdexcept>

#include "calibrate/channel.hpp"
#include "calibrate/sys/process.hpp"
#include "calibrate/sys/syscall.hpp"
#include "calibrate/timer.hpp"
#include "datasets/pinning.hpp"
#include "datasets/vocabulary.hpp"

namespace pollscale::calibrate {

std::vector<std::size_t> active_positions(std::string_view pos, std::size_t n, std::size_t k, std::uint64_t seed) {
  if (k > n) throw std::invalid_argument("more active descriptors than registered ones");
  std::vector<std::size_t> idx(k);
  using datasets::position;
  if (pos == position::first) {
    for (std::size_t i = 0; i < k; ++i) idx[i] = i;
  } else if (pos == position::last || pos == position::top) {
    for (std::size_t i = 0; i < k; ++i) idx[i] = n - k + i;
  } else if (pos == position::middle) {
    for (std::size_t i = 0; i < k; ++i) idx[i] = (n - k) / 2 + i;
  } else if (pos == position::spread) {
    for (std::size_t i = 0; i < k; ++i) idx[i] = (2 * i + 1) * n / (2 * k);
  } else if (pos == position::random) {
    std::vector<std::size_t> all(n);
    for (std::size_t i = 0; i < n; ++i) all[i] = i;
    std::mt19937_64 rng(seed);
    for (std::size_t i = 0; i < k; ++i)  // partial Fisher-Yates, reproducible across libstdc++
      std::swap(all[i], all[i + static_cast<std::size_t>(rng() % (n - i))]);
    idx.assign(all.begin(), all.begin() + static_cast<std::ptrdiff_t>(k));
  } else {
    throw std::invalid_argument("unknown active position '" + std::string(pos) + "'");
  }
  std::sort(idx.begin(), idx.end());
  return idx;
}

void require_fds(std::size_t needed, const selection& sel) {
  if (needed <= sel.max_fds) return;
  const auto lim = sys::current_nofile_limit();
  throw probe_skipped("needs " + std::to_string(needed) + " descriptors in this process; RLIMIT_NOFILE is " +
                      std::to_string(lim.soft) + " (hard " + std::to_string(lim.hard) +
                      ", not raisable without CAP_SYS_RESOURCE) and " + std::to_string(lim.soft - sel.max_fds) +
                      " are reserved");
}

int partner_cpu(const selection& sel, bool same_cpu) {
  if (sel.cpus.empty()) throw probe_skipped("no CPU in the affinity mask");
  if (same_cpu) return sel.cpus[0];
  if (sel.cpus.size() < 2) throw probe_skipped("cross-CPU point needs two CPUs; the affinity mask holds one");
  return sel.cpus[1];
}

std::pair<int, int> parse_pinning_pair(const std::string& pinning) {
  const auto p = datasets::pinning::parse(pinning);
  if (!p.is_pair()) throw std::invalid_argument("pinning '" + pinning + "' is not two CPUs 'A+B'");
  return {p.cpus()[0], p.cpus()[1]};
}

partner_thread::partner_thread(int cpu, std::function<void(const std::atomic<bool>&)> body, std::function<void()> wake)
    : wake_(std::move(wake)) {
  thread_ = std::thread([this, cpu, body = std::move(body)] {
    try {
      sys::pin_current_thread(cpu);
      body(stop_);
    } catch (...) {
      error_ = std::current_exception();
    }
  });
}

partner_thread::~partner_thread() {
  stop_ = true;
  try {
    if (wake_) wake_();
  } catch (...) {  // the partner may already be gone; joining is what matters
  }
  if (thread_.joinable()) thread_.join();
}

void partner_thread::check() {
  if (error_) std::rethrow_exception(std::exchange(error_, nullptr));
}

parked_sibling::parked_sibling(int cpu)
    : go_(sys::call("eventfd", [] { return ::eventfd(0, EFD_CLOEXEC); })),
      thread_(
          cpu,
          [this](const std::atomic<bool>& stop) {
            std::uint64_t v = 0;
            while (!stop && sys::call("read(go)", [&] { return ::read(go_.get(), &v, sizeof v); }) > 0) {
            }
          },
          [this] { write_token(fd_kind::eventfd, go_.get()); }) {}

sleep_watch::sleep_watch(pid_t tid) {
  const std::string path = "/proc/self/task/" + std::to_string(tid) + "/wchan";
  fd_ = sys::unique_fd(sys::call("open(" + path + ")", [&] { return ::open(path.c_str(), O_RDONLY | O_CLOEXEC); }));
}

bool sleep_watch::asleep() {
  const auto r = sys::call("pread(wchan)", [&] { return ::pread(fd_.get(), buf_, sizeof buf_, 0); });
  return !(r == 0 || (r == 1 && buf_[0] == '0'));  // "0": running, waking or still queued
}

void sleep_watch::wait_until_asleep(bool same_cpu, std::uint64_t limit_ns) {
  const std::uint64_t t0 = clock_ns();
  while (!asleep()) {
    if (same_cpu) ::sched_yield();
    if (clock_ns() - t0 > limit_ns)
      throw probe_failure("the waiter did not fall asleep within " + std::to_string(limit_ns / 1'000'000) + " ms");
  }
}

answer_checker::answer_checker(std::size_t n, const std::vector<std::size_t>& active) : seen_(n, 0), active_(n, false) {
  for (std::size_t i : active) active_[i] = true;
}

void answer_checker::accept(const std::vector<std::uint32_t>& tags, std::string_view what) {
  for (std::uint32_t t : tags) {
    if (t >= active_.size() || !active_[t])
      throw probe_failure(std::string(what) + " reported descriptor #" + std::to_string(t) + ", which is not active");
    if (seen_[t] == generation_)
      throw probe_failure(std::string(what) + " reported descriptor #" + std::to_string(t) + " twice in one operation");
    seen_[t] = generation_;
  }
}

std::size_t harvest(waiter& w, const channel_set& ch, answer_checker& check, std::size_t expected, int timeout_ms,
                    std::vector<std::uint32_t>& scratch, int max_empty) {
  std::size_t got = 0;
  int empty = 0, stale = 0, wait_ms = timeout_ms;
  while (got < expected) {
    if (w.wait(scratch, wait_ms) == 0) {
      if (stale > 0 && timeout_ms < 0)
        throw probe_failure("a report found nothing to read, and no event came within " +
                            std::to_string(stale_wait_ms / 1000) + " s after it");
      if (++empty >= max_empty)
        throw probe_failure("expected " + std::to_string(expected) + " ready descriptors, saw " + std::to_string(got));
      continue;
    }
    empty = 0;
    check.accept(scratch, "wait");
    for (std::uint32_t t : scratch) {
      const bool read = w.may_report_stale() ? ch.try_consume(t) : (ch.consume(t), true);
      if (!read) {  // a stale report: not an event, wait for the real one
        if (++stale > max_stale_reports)
          throw probe_failure(std::to_string(stale) + " reports in one wait found nothing to read");
        check.forget(t);
        if (timeout_ms < 0) wait_ms = stale_wait_ms;  // a lost token must fail, not hang
      }
      w.rearm(ch.watched(t), t);
      if (read) ++got;
    }
  }
  return got;
}

}  // namespace pollscale::calibrate
