#include "app/study/run_step.hpp"

#include <chrono>
#include <iostream>
#include <sstream>

#include "app/exit_codes.hpp"
#include "app/shell_quote.hpp"
#include "calibrate/sys/syscall.hpp"
#include "datasets/atomic_file.hpp"
#include "sim/core/stop.hpp"

namespace pollscale::app::study {
namespace {

/// Restores std::cout's buffer however the step ends.
class cout_capture {
 public:
  cout_capture() : old_(std::cout.rdbuf(buffer_.rdbuf())) {}
  ~cout_capture() { std::cout.rdbuf(old_); }
  cout_capture(const cout_capture&) = delete;
  cout_capture& operator=(const cout_capture&) = delete;
  std::string text() const { return buffer_.str(); }

 private:
  std::ostringstream buffer_;
  std::streambuf* old_;
};

}  // namespace

step_result run_step(const std::string& name, const std::string& command, const command_fn& fn,
                     const std::vector<std::string>& args, const std::filesystem::path& output) {
  step_result r{name, command, args, 0, "", 0, output};
  std::cerr << "pollscale study: " << name << " ...\n";
  const auto t0 = std::chrono::steady_clock::now();
  std::string text;
  {
    cout_capture capture;
    try {
      r.exit_code = fn(args);
    } catch (const calibrate::sys::interrupted&) {
      throw;
    } catch (const sim::stopped&) {
      throw calibrate::sys::interrupted();
    } catch (const std::exception& e) {
      r.exit_code = dynamic_cast<const usage_error*>(&e) ? 2 : 1;
      r.error = e.what();
    }
    text = capture.text();
  }
  r.wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  if (!output.empty()) datasets::write_file_atomically(output, text);
  // A step that was stopped kept what it had (written above); the study stops too.
  if (r.exit_code == exit_interrupted) throw calibrate::sys::interrupted();
  if (!r.ok())
    std::cerr << "pollscale study: step " << name << " failed (exit " << r.exit_code << ")"
              << (r.error.empty() ? "" : ": " + r.error) << "\n";
  return r;
}

nlohmann::json step_json(const step_result& s, const std::filesystem::path& study_dir) {
  std::string cmd = "pollscale " + s.command;
  for (const auto& a : s.args) cmd += " " + shell_quote(a);  // pasteable: 'n_fds<=1000' stays one word
  return {{"step", s.name},
          {"command", cmd},
          {"exit_code", s.exit_code},
          {"error", s.error},
          {"wall_s", s.wall_s},
          {"output", s.output.empty() ? "" : std::filesystem::relative(s.output, study_dir).string()}};
}

}  // namespace pollscale::app::study
