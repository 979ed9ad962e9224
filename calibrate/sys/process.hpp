// Process-level facts and settings the probes depend on: the descriptor limit, CPU
// affinity, how many descriptors are open (for leak checks), and reaping the helper
// processes the probes fork (fd keeper, load generator, echo peers).
#pragma once

#include <sys/types.h>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <vector>

namespace pollscale::calibrate::sys {

struct nofile_limit {
  std::uint64_t soft_before = 0;  ///< soft RLIMIT_NOFILE when pollscale started
  std::uint64_t soft = 0;         ///< soft limit now
  std::uint64_t hard = 0;         ///< hard limit (cannot be raised without CAP_SYS_RESOURCE)
};

/// Raises the soft RLIMIT_NOFILE to the hard limit and reports both.
nofile_limit raise_nofile_limit();

/// Current soft and hard RLIMIT_NOFILE without changing them.
nofile_limit current_nofile_limit();

/// A resource limit's soft and hard values; nullopt stands for RLIM_INFINITY.
struct resource_limit_values {
  std::optional<std::uint64_t> soft, hard;
};

/// getrlimit(resource), or nullopt when the kernel refuses (an unknown resource): for the
/// context block, which records what it can and goes on.
std::optional<resource_limit_values> resource_limit(int resource);

/// Waits until the child `pid` has exited and returns its wait status (-1 when it is not
/// our child). EINTR is retried even after a stop was requested: a child is reaped before
/// its owner goes, so that none is left as a zombie or an orphan. noexcept, for destructors.
int reap(pid_t pid) noexcept;

/// SIGKILL to `pid`, then reap(pid).
int kill_and_reap(pid_t pid) noexcept;

/// Number of entries in /proc/self/fd (the directory's own descriptor excluded).
std::size_t open_fd_count();

/// CPUs in this process's affinity mask, ascending.
std::vector<int> allowed_cpus();

/// Pins the calling thread to one CPU. Throws std::system_error if the CPU is not allowed.
void pin_current_thread(int cpu);

/// Restores the calling thread's affinity to every CPU in `cpus`.
void set_current_thread_affinity(const std::vector<int>& cpus);

/// The CPU the caller runs on now (sched_getcpu).
int current_cpu();

/// How many times the calling thread has given up its CPU voluntarily — slept in a system
/// call until woken — since it started (getrusage(RUSAGE_THREAD).ru_nvcsw).
std::uint64_t voluntary_switches();

}  // namespace pollscale::calibrate::sys
