// A test's own scratch directory, removed by its destructor: a test that ends early (a
// failed ASSERT returns from the test body, an exception unwinds it) still leaves nothing
// in /tmp, which a remove_all at the end of the body would not. Named after the process,
// the running test and a label, so that suites ctest runs in parallel never share one.
#pragma once

#include <gtest/gtest.h>

#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <string>
#include <string_view>
#include <system_error>

namespace pollscale::test {

/// A fresh, empty directory under the system temp dir for one test, named after the
/// process, the running test and a label (so parallel suites never share one), removed
/// (with everything in it) when it goes out of scope, whether the test passed or not.
class scratch_dir {
 public:
  explicit scratch_dir(std::string_view label) {
    std::string name = "pollscale_" + std::string(label) + "_" + std::to_string(::getpid());
    if (const auto* info = ::testing::UnitTest::GetInstance()->current_test_info())
      name += std::string("_") + info->test_suite_name() + "_" + info->name();
    // A parameterised test's names hold '/' ("Prefix/Suite", "Name/0"): one directory, not a
    // nest of them that the destructor would remove only the innermost of.
    std::replace(name.begin(), name.end(), '/', '_');
    path_ = std::filesystem::temp_directory_path() / name;
    std::filesystem::remove_all(path_);  // left by an earlier process of the same pid
    std::filesystem::create_directories(path_);
  }
  // The error_code overload: a destructor is noexcept, so a remove_all that threw (a file
  // still open, a permission) would end the whole test program, not fail one test.
  ~scratch_dir() {
    std::error_code ignored;
    std::filesystem::remove_all(path_, ignored);
  }
  scratch_dir(const scratch_dir&) = delete;
  scratch_dir& operator=(const scratch_dir&) = delete;

  const std::filesystem::path& path() const { return path_; }

 private:
  std::filesystem::path path_;
};

}  // namespace pollscale::test
