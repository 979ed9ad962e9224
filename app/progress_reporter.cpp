#include "app/progress_reporter.hpp"

#include <chrono>
#include <cmath>
#include <memory>

namespace pollscale::app {

std::string eta_text(double seconds) {
  if (!std::isfinite(seconds) || seconds < 0) return "?";
  const auto t = static_cast<long>(seconds + 0.5);
  return (t >= 60 ? std::to_string(t / 60) + "m" : std::string()) + std::to_string(t % 60) + "s";
}

std::function<void(std::size_t, std::size_t)> step_progress(std::string label, const char* unit, bool live,
                                                            std::FILE* out) {
  if (!live) return {};
  using clock = std::chrono::steady_clock;
  struct state {
    clock::time_point start = clock::now(), last{};
    bool drawn = false;
  };
  auto st = std::make_shared<state>();
  return [st, label = std::move(label), unit, out](std::size_t done, std::size_t total) {
    const auto now = clock::now();
    if (done >= total) {
      if (st->drawn) std::fprintf(out, "\r\033[K");
      std::fflush(out);
      return;
    }
    if (st->drawn && now - st->last < std::chrono::milliseconds(200)) return;
    const double elapsed = std::chrono::duration<double>(now - st->start).count();
    const double eta = done ? elapsed / static_cast<double>(done) * static_cast<double>(total - done) : NAN;
    std::fprintf(out, "\r\033[K%s: %s %zu/%zu, ETA %s", label.c_str(), unit, done, total, eta_text(eta).c_str());
    std::fflush(out);
    st->drawn = true;
    st->last = now;
  };
}

void stderr_reporter::visit_started(std::size_t done, std::size_t total, double eta_s, const datasets::key& point) {
  if (!live_) return;
  std::string label = datasets::describe(point);
  if (label.size() > 70) label.resize(70);  // one terminal line
  std::fprintf(out_, "\r\033[K[%4zu/%zu] ETA %-7s %s", done + 1, total, eta_text(eta_s).c_str(), label.c_str());
  std::fflush(out_);
  drawn_ = true;
}

void stderr_reporter::probe_failed(const std::string& what) {
  clear_line();
  std::fprintf(out_, "pollscale: probe failed: %s\n", what.c_str());
  std::fflush(out_);
}

void stderr_reporter::finished() { clear_line(); }

void stderr_reporter::clear_line() {
  if (!drawn_) return;
  std::fprintf(out_, "\r\033[K");
  std::fflush(out_);
  drawn_ = false;
}

}  // namespace pollscale::app
