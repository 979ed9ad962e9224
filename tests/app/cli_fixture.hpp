// The base of the end-to-end CLI tests: a fresh scratch directory per test, named after the
// process and the test so that suites running in parallel never share one, and removed
// afterwards.
#pragma once

#include <gtest/gtest.h>

#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <string>

#include "tests/app/run_command.hpp"

namespace pollscale::test {

/// Lines in a command's output (its newlines).
inline int lines(const std::string& s) { return static_cast<int>(std::count(s.begin(), s.end(), '\n')); }

/// The synthetic calibration the model tests fit (planted costs), and the historical record.
inline const std::string fixture = std::string(POLLSCALE_SOURCE_DIR) + "/tests/model/data/synthetic";
inline const std::string historical = std::string(POLLSCALE_SOURCE_DIR) + "/datasets/historical";

/// Simulator costs given as flags, so that a simulation needs no model: 150 ns a wait call,
/// 30 ns a descriptor, 80 ns a ready one, 5 µs a handler, 3 µs / 60 µs a wake-up on the same /
/// another CPU.
inline const std::string fixed_costs =
    " --wait-per-call-ns 150 --wait-per-fd-ns 30 --wait-per-ready-ns 80 --handler-ns 5000"
    " --wakeup-same-ns 3000 --wakeup-cross-ns 60000";

class cli_test : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() /
           ("pollscale_cli_" + std::to_string(::getpid()) + "_" +
            ::testing::UnitTest::GetInstance()->current_test_info()->test_suite_name() + "_" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    std::filesystem::remove_all(dir_);
    std::filesystem::create_directories(dir_);
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  std::filesystem::path dir_;
};

}  // namespace pollscale::test
