#include "calibrate/reference.hpp"

#include <limits.h>
#include <unistd.h>

#include <charconv>
#include <cmath>
#include <system_error>
#include <vector>

#include "calibrate/sys/child.hpp"
#include "calibrate/sys/syscall.hpp"

namespace pollscale::calibrate {

namespace {

void say(std::string* why, std::string text) {
  if (why) *why = std::move(text);
}

/// The start of `out` on one line, quoted, for a reason: "'n=10 mean...'" or "nothing".
std::string excerpt(std::string_view out) {
  if (out.empty()) return "nothing";
  std::string e(out.substr(0, 80));
  for (char& c : e)
    if (c == '\n' || c == '\r' || c == '\t') c = ' ';
  while (!e.empty() && e.back() == ' ') e.pop_back();
  return "'" + e + (out.size() > 80 ? "...'" : "'");
}

/// A finite positive number at the start of `s` (leading blanks skipped).
std::optional<double> leading_number(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  double v = 0;
  const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || end == s.data() || !std::isfinite(v) || v <= 0) return std::nullopt;
  return v;
}

std::vector<std::string_view> lines(std::string_view out) {
  std::vector<std::string_view> ls;
  while (!out.empty()) {
    const std::size_t nl = out.find('\n');
    ls.push_back(out.substr(0, nl));
    if (nl == std::string_view::npos) break;
    out.remove_prefix(nl + 1);
  }
  return ls;
}

/// Runs argv and hands back its stdout, or nullopt and why ("<what> <outcome>").
std::optional<std::string> run(const std::vector<std::string>& argv, const std::string& what,
                               std::chrono::milliseconds timeout, std::string* why) {
  sys::capture_options opt;
  opt.timeout = timeout;
  opt.max_output = 64 * 1024;
  sys::capture_result r;
  try {
    r = sys::run_capture(argv, opt);
  } catch (const std::system_error& e) {  // sys::interrupted is not one: it propagates
    say(why, what + " could not be run: " + e.what());
    return std::nullopt;
  }
  if (!r.ok()) {
    say(why, what + " " + r.describe());
    return std::nullopt;
  }
  return std::move(r.out);
}

}  // namespace

std::filesystem::path poll_loop_path(const std::filesystem::path& dir) {
  if (dir.empty()) return {};
  const std::filesystem::path p = dir / poll_loop_name;
  return sys::find_program(p.string());  // a path with '/': checked, not searched
}

std::filesystem::path poll_loop_path() {
  std::vector<char> buf(PATH_MAX + 1);
  const ssize_t len =
      sys::call("readlink(/proc/self/exe)", [&] { return ::readlink("/proc/self/exe", buf.data(), buf.size() - 1); },
                {ENOENT, EACCES, ENOTDIR, ENAMETOOLONG, ELOOP});
  if (len <= 0 || static_cast<std::size_t>(len) >= buf.size() - 1) return {};
  return poll_loop_path(std::filesystem::path(std::string(buf.data(), static_cast<std::size_t>(len))).parent_path());
}

std::optional<double> parse_poll_loop(std::string_view out, std::int64_t n, std::string* why) {
  const std::string head = "n=" + std::to_string(n) + " ";
  for (const std::string_view line : lines(out)) {
    if (line.substr(0, head.size()) != head) continue;
    const std::size_t at = line.find(" median_ns=");
    if (at == std::string_view::npos) break;
    if (auto v = leading_number(line.substr(at + 11))) return v;
    say(why, "no positive number after median_ns= in " + excerpt(line));
    return std::nullopt;
  }
  say(why, "no line 'n=" + std::to_string(n) + " median_ns=...' in its output: " + excerpt(out));
  return std::nullopt;
}

std::optional<double> parse_perf_pipe(std::string_view out, std::string* why) {
  for (const std::string_view line : lines(out)) {
    const std::size_t at = line.find("usecs/op");
    if (at == std::string_view::npos) continue;
    if (auto v = leading_number(line.substr(0, at))) return v;
    say(why, "no positive number before usecs/op in " + excerpt(line));
    return std::nullopt;
  }
  say(why, "no 'usecs/op' line in its output: " + excerpt(out));
  return std::nullopt;
}

std::optional<reference_reading> run_poll_loop(const std::filesystem::path& exe, std::int64_t n, int reps,
                                               std::string* why, std::chrono::milliseconds timeout) {
  if (exe.empty()) {
    say(why, std::string(poll_loop_name) + ": no path given (not built beside pollscale?)");
    return std::nullopt;
  }
  if (n < 1 || n > INT_MAX || reps < 1) {
    say(why,
        exe.string() + ": n (" + std::to_string(n) + ") and reps (" + std::to_string(reps) + ") must be positive ints");
    return std::nullopt;
  }
  const auto out = run({exe.string(), std::to_string(n), std::to_string(reps)}, exe.string(), timeout, why);
  if (!out) return std::nullopt;
  std::string parse_why;
  const auto ns = parse_poll_loop(*out, n, &parse_why);
  if (!ns) {
    say(why, exe.string() + ": " + parse_why);
    return std::nullopt;
  }
  return reference_reading{*ns, "crosscheck_poll n=" + std::to_string(n) + " reps=" + std::to_string(reps) +
                                    ": poll(timeout 0) over n pipes, middle ready, median ns/call"};
}

std::optional<reference_reading> run_perf_pipe(int loops, std::string* why, std::chrono::milliseconds timeout) {
  if (loops < 1) {
    say(why, "perf bench sched pipe: loops (" + std::to_string(loops) + ") must be positive");
    return std::nullopt;
  }
  const std::filesystem::path perf = sys::find_program("perf");
  if (perf.empty()) {
    say(why, "perf not found on PATH (Debian: apt-get install linux-perf)");
    return std::nullopt;
  }
  const std::vector<std::string> argv = {perf.string(), "bench", "sched", "pipe", "-T", "-l", std::to_string(loops)};
  const std::string what = perf.string() + " bench sched pipe -T -l " + std::to_string(loops);
  const auto out = run(argv, what, timeout, why);
  if (!out) return std::nullopt;
  std::string parse_why;
  const auto us = parse_perf_pipe(*out, &parse_why);
  if (!us) {
    say(why, what + ": " + parse_why);
    return std::nullopt;
  }
  return reference_reading{*us * 1000.0, "perf bench sched pipe -T -l " + std::to_string(loops) +
                                             ": two threads, blocking pipe round trip, mean ns/op"};
}

}  // namespace pollscale::calibrate
