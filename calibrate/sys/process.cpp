#include "calibrate/sys/process.hpp"

#include <dirent.h>
#include <sched.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/wait.h>

#include <string>

#include "calibrate/sys/syscall.hpp"

namespace pollscale::calibrate::sys {

nofile_limit current_nofile_limit() {
  rlimit r{};
  call("getrlimit(RLIMIT_NOFILE)", [&] { return ::getrlimit(RLIMIT_NOFILE, &r); });
  return {r.rlim_cur, r.rlim_cur, r.rlim_max};
}

std::optional<resource_limit_values> resource_limit(int resource) {
  rlimit r{};
  if (call("getrlimit", [&] { return ::getrlimit(resource, &r); }, {EINVAL}) != 0) return std::nullopt;
  auto value = [](rlim_t x) { return x == RLIM_INFINITY ? std::nullopt : std::optional<std::uint64_t>(x); };
  return resource_limit_values{value(r.rlim_cur), value(r.rlim_max)};
}

int reap(pid_t pid) noexcept {
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0) {
    if (errno != EINTR) return -1;  // ECHILD: not ours, or already reaped
  }
  return status;
}

int kill_and_reap(pid_t pid) noexcept {
  ::kill(pid, SIGKILL);
  return reap(pid);
}

nofile_limit raise_nofile_limit() {
  nofile_limit l = current_nofile_limit();
  if (l.soft < l.hard) {
    rlimit r{l.hard, l.hard};
    call("setrlimit(RLIMIT_NOFILE)", [&] { return ::setrlimit(RLIMIT_NOFILE, &r); });
    l.soft = l.hard;
  }
  return l;
}

std::size_t open_fd_count() {
  DIR* d = ::opendir("/proc/self/fd");
  if (!d) throw_errno(errno, "opendir(/proc/self/fd)");
  std::size_t n = 0;
  while (const dirent* e = ::readdir(d))
    if (e->d_name[0] != '.') ++n;
  ::closedir(d);
  return n - 1;  // the DIR's own descriptor
}

std::vector<int> allowed_cpus() {
  cpu_set_t set;
  CPU_ZERO(&set);
  call("sched_getaffinity", [&] { return ::sched_getaffinity(0, sizeof set, &set); });
  std::vector<int> cpus;
  for (std::size_t c = 0; c < CPU_SETSIZE; ++c)
    if (CPU_ISSET(c, &set)) cpus.push_back(static_cast<int>(c));
  return cpus;
}

void set_current_thread_affinity(const std::vector<int>& cpus) {
  cpu_set_t set;
  CPU_ZERO(&set);
  for (int c : cpus) CPU_SET(static_cast<std::size_t>(c), &set);
  call("sched_setaffinity", [&] { return ::sched_setaffinity(0, sizeof set, &set); });
}

void pin_current_thread(int cpu) {
  try {
    set_current_thread_affinity({cpu});
  } catch (const std::system_error& e) {
    throw std::system_error(e.code(), "pin to CPU " + std::to_string(cpu));
  }
}

int current_cpu() {
  return call("sched_getcpu", [] { return ::sched_getcpu(); });
}

std::uint64_t voluntary_switches() {
  rusage u{};
  call("getrusage(RUSAGE_THREAD)", [&] { return ::getrusage(RUSAGE_THREAD, &u); });
  return static_cast<std::uint64_t>(u.ru_nvcsw);
}

}  // namespace pollscale::calibrate::sys
