#include "calibrate/sys/child.hpp"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <optional>
#include <stdexcept>
#include <system_error>
#include <utility>

#include "calibrate/sys/syscall.hpp"
#include "calibrate/sys/unique_fd.hpp"

namespace pollscale::calibrate::sys {

namespace {

using clock = std::chrono::steady_clock;

/// The longest a wait sleeps before it looks at stop_requested again: a signal that
/// arrives just before a blocking call is not seen by that call, only by the next look.
constexpr std::chrono::milliseconds stop_poll_slice{100};

/// The child's side between fork and exec: raw async-signal-safe calls only, never
/// returns. Reports a failed exec to the parent as its errno over `err_w` (close-on-exec,
/// so a successful exec closes it and the parent reads end-of-file).
[[noreturn]] void exec_child(char* const* args, int out_w, int err_w, int devnull, pid_t parent) noexcept {
  ::setpgid(0, 0);  // its own group, so that a kill reaches whatever it forks too
  ::prctl(PR_SET_PDEATHSIG, SIGKILL);
  if (::getppid() != parent) ::_exit(127);  // the parent died before prctl took effect
  sigset_t none;
  ::sigemptyset(&none);
  ::sigprocmask(SIG_SETMASK, &none, nullptr);
  struct sigaction dfl {};
  dfl.sa_handler = SIG_DFL;
  for (int s = 1; s < NSIG; ++s)
    if (s != SIGKILL && s != SIGSTOP) ::sigaction(s, &dfl, nullptr);  // SIGPIPE may be ignored here
  if (::dup2(devnull, STDIN_FILENO) < 0 || ::dup2(out_w, STDOUT_FILENO) < 0 || ::dup2(devnull, STDERR_FILENO) < 0) {
    const int e = errno;
    [[maybe_unused]] const ssize_t w = ::write(err_w, &e, sizeof e);
    ::_exit(127);
  }
  // Nothing else of the parent's (thousands of parked descriptors, some without
  // O_CLOEXEC) may reach the program. Kernels before 5.11 lack the flag: the parent's
  // own descriptors are then mostly close-on-exec anyway.
#ifdef SYS_close_range
  ::syscall(SYS_close_range, 3U, ~0U, CLOSE_RANGE_CLOEXEC);
#endif
  ::execv(args[0], args);
  const int e = errno;
  [[maybe_unused]] const ssize_t w = ::write(err_w, &e, sizeof e);
  ::_exit(127);
}

/// Moves a descriptor above stdin/stdout/stderr (they may be closed in the parent, and
/// the child's dup2 onto 0..2 must not overwrite one it still needs).
unique_fd above_stdio(unique_fd fd) {
  if (fd.get() > STDERR_FILENO) return fd;
  return unique_fd(call("fcntl(F_DUPFD_CLOEXEC)", [&] { return ::fcntl(fd.get(), F_DUPFD_CLOEXEC, 3); }));
}

std::pair<unique_fd, unique_fd> cloexec_pipe() {
  int p[2];
  call("pipe2", [&] { return ::pipe2(p, O_CLOEXEC); });
  unique_fd r(p[0]), w(p[1]);
  return {above_stdio(std::move(r)), above_stdio(std::move(w))};
}

/// Sleeps `ms` milliseconds, or less if a signal arrives (the caller looks at the clock
/// and at stop_requested again).
void nap(int ms) {
  call("poll(sleep)", [&] { return ::poll(nullptr, 0, ms); });
}

/// Owns a running child until it is reaped; the destructor kills the child's process
/// group and reaps it, so that no exit path leaves a zombie or an orphan behind.
class child_guard {
 public:
  explicit child_guard(pid_t pid) noexcept : pid_(pid) {}
  child_guard(const child_guard&) = delete;
  child_guard& operator=(const child_guard&) = delete;
  ~child_guard() {
    if (reaped_) return;
    try {
      kill_group();
      call("kill", [&] { return ::kill(pid_, SIGKILL); }, {ESRCH, EPERM});
    } catch (...) {
    }
    // A SIGKILLed child exits promptly; an EINTR (even with stop requested) only delays
    // the reaping, which must happen regardless.
    for (int tries = 0; tries < 1000; ++tries) {
      try {
        int status = 0;
        call("waitpid", [&] { return ::waitpid(pid_, &status, 0); });
        break;
      } catch (const interrupted&) {
        continue;
      } catch (...) {
        break;  // ECHILD: someone else reaped it (SIGCHLD ignored)
      }
    }
  }

  /// True once the child has terminated; it stays a zombie (not reaped), so that its pid
  /// and process group id cannot be reused before kill_group() and reap().
  bool terminated() {
    siginfo_t info{};
    call("waitid", [&] { return ::waitid(P_PID, static_cast<id_t>(pid_), &info, WEXITED | WNOHANG | WNOWAIT); });
    return info.si_pid != 0;
  }

  /// SIGKILL to every process left in the child's group (it may have forked helpers).
  void kill_group() {
    call("kill(group)", [&] { return ::kill(-pid_, SIGKILL); }, {ESRCH, EPERM});
  }

  /// Kills whatever is left in the child's group, then reaps the child (waiting for it).
  int reap() {
    kill_group();
    int status = 0;
    call("waitpid", [&] { return ::waitpid(pid_, &status, 0); });
    reaped_ = true;
    return status;
  }

 private:
  pid_t pid_;
  bool reaped_ = false;
};

void record_status(capture_result& r, int status) {
  if (WIFEXITED(status)) {
    r.how = capture_result::outcome::exited;
    r.exit_code = WEXITSTATUS(status);
  } else {
    r.how = capture_result::outcome::signaled;
    r.signal = WIFSIGNALED(status) ? WTERMSIG(status) : 0;
  }
}

}  // namespace

std::string capture_result::describe() const {
  switch (how) {
    case outcome::exited: return "exited with status " + std::to_string(exit_code);
    case outcome::signaled: return "killed by signal " + std::to_string(signal);
    case outcome::timed_out:
      return "timed out after " +
             std::to_string(std::chrono::duration_cast<std::chrono::milliseconds>(elapsed).count()) + " ms (killed)";
    case outcome::spawn_failed: return "could not be started: " + std::generic_category().message(spawn_errno);
  }
  return "unknown outcome";
}

namespace {

// The child's exec report: end-of-file when the exec succeeded (the pipe is close-on-exec),
// else the errno the exec failed with.
std::optional<int> exec_failure(int err_r) {
  int exec_errno = 0;
  std::size_t got = 0;
  while (got < sizeof exec_errno) {
    const ssize_t r = call("read(exec report)", [&] {
      return ::read(err_r, reinterpret_cast<char*>(&exec_errno) + got, sizeof exec_errno - got);
    });
    if (r == 0) break;
    got += static_cast<std::size_t>(r);
  }
  if (got == sizeof exec_errno) return exec_errno;
  return std::nullopt;
}

// A started child's stdout, read until end-of-file, then its exit awaited, both before the
// deadline and both giving way to a stop request (sys::interrupted). The child is reaped
// by the caller.
class output_reader {
 public:
  output_reader(child_guard& child, int out_r, clock::time_point deadline, std::size_t max_output,
                capture_result& result)
      : child_(child), fd_(out_r), deadline_(deadline), max_output_(max_output), result_(result) {}

  /// Until end-of-file, or until the child has exited while something it left behind
  /// still holds the pipe open. False when the deadline came first.
  bool read_output() {
    for (;;) {
      if (!still_in_time()) return false;
      pollfd p{fd_, POLLIN, 0};
      if (call("poll(child stdout)", [&] { return ::poll(&p, 1, slice_ms(stop_poll_slice)); }) == 0) {
        if (!child_.terminated()) continue;
        exited_ = true;
        drain();
        return true;
      }
      if (!read_once()) return true;
    }
  }

  /// Its stdout is closed: waits for it to exit. False when the deadline came first.
  bool wait_exit() {
    for (int ms = 1; !exited_; ms = std::min(2 * ms, 20)) {
      if (child_.terminated()) return true;
      if (!still_in_time()) return false;
      nap(std::min(ms, std::max(1, slice_ms(stop_poll_slice))));
    }
    return true;
  }

 private:
  bool still_in_time() const {
    if (stop_requested.load(std::memory_order_relaxed)) throw interrupted();
    return clock::now() < deadline_;
  }

  int slice_ms(std::chrono::milliseconds cap) const {
    const auto left = std::chrono::ceil<std::chrono::milliseconds>(deadline_ - clock::now());
    return static_cast<int>(std::clamp(left, std::chrono::milliseconds(0), cap).count());
  }

  // One read; false at end-of-file. Bytes past max_output are read and dropped.
  bool read_once() {
    const ssize_t r = call("read(child stdout)", [&] { return ::read(fd_, buf_, sizeof buf_); });
    if (r == 0) return false;
    const std::size_t n = static_cast<std::size_t>(r);
    const std::size_t room = max_output_ - std::min(max_output_, result_.out.size());
    result_.out.append(buf_, std::min(n, room));
    if (n > room) result_.truncated = true;
    return true;
  }

  // What the exited child left in the pipe, without blocking.
  void drain() {
    for (;;) {
      pollfd p{fd_, POLLIN, 0};
      if (call("poll(child stdout)", [&] { return ::poll(&p, 1, 0); }) == 0 || !read_once()) return;
    }
  }

  child_guard& child_;
  int fd_;
  clock::time_point deadline_;
  std::size_t max_output_;
  capture_result& result_;
  bool exited_ = false;
  char buf_[4096];
};

}  // namespace

capture_result run_capture(const std::vector<std::string>& argv, const capture_options& options) {
  if (argv.empty() || argv.front().empty()) throw std::invalid_argument("run_capture: no program given");
  // Everything the child needs is prepared before fork: it may not allocate after it.
  std::vector<char*> args;
  args.reserve(argv.size() + 1);
  for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  auto [out_r, out_w] = cloexec_pipe();
  auto [err_r, err_w] = cloexec_pipe();
  unique_fd devnull =
      above_stdio(unique_fd(call("open(/dev/null)", [] { return ::open("/dev/null", O_RDWR | O_CLOEXEC); })));
  const pid_t parent = ::getpid();

  capture_result result;
  const auto start = clock::now();
  const pid_t pid = call("fork", [] { return ::fork(); });
  if (pid == 0) exec_child(args.data(), out_w.get(), err_w.get(), devnull.get(), parent);
  child_guard child(pid);
  // Also here, so that the group exists before anything below may kill it.
  call("setpgid", [&] { return ::setpgid(pid, pid); }, {EACCES, ESRCH, EPERM});
  out_w.reset();
  err_w.reset();
  devnull.reset();

  const auto done = [&](capture_result::outcome how) {
    const int status = child.reap();
    if (how == capture_result::outcome::exited)
      record_status(result, status);
    else
      result.how = how;
    result.elapsed = clock::now() - start;
    return result;
  };
  if (const auto e = exec_failure(err_r.get())) {
    result.spawn_errno = *e;
    return done(capture_result::outcome::spawn_failed);
  }
  output_reader reader(child, out_r.get(), start + options.timeout, options.max_output, result);
  if (!reader.read_output() || !reader.wait_exit()) return done(capture_result::outcome::timed_out);
  return done(capture_result::outcome::exited);  // or signaled: record_status tells
}

std::filesystem::path find_program(std::string_view name) {
  auto executable = [](const std::string& p) {
    struct stat st {};
    if (call("stat", [&] { return ::stat(p.c_str(), &st); }, {ENOENT, ENOTDIR, EACCES, ELOOP, ENAMETOOLONG}) != 0)
      return false;
    return S_ISREG(st.st_mode) && call("access", [&] { return ::access(p.c_str(), X_OK); },
                                       {ENOENT, ENOTDIR, EACCES, ELOOP, ENAMETOOLONG, EROFS}) == 0;
  };
  if (name.empty()) return {};
  const std::string n(name);
  if (n.find('/') != std::string::npos) return executable(n) ? std::filesystem::path(n) : std::filesystem::path();
  const char* env = std::getenv("PATH");
  const std::string path = env ? env : "/usr/local/bin:/usr/bin:/bin";
  for (std::size_t at = 0;;) {
    const std::size_t colon = path.find(':', at);
    const std::string dir = path.substr(at, colon == std::string::npos ? std::string::npos : colon - at);
    const std::string candidate = (dir.empty() ? std::string(".") : dir) + "/" + n;
    if (executable(candidate)) return candidate;
    if (colon == std::string::npos) return {};
    at = colon + 1;
  }
}

}  // namespace pollscale::calibrate::sys
