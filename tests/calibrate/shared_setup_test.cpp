// One set-up kept between the points of a group: the same name gives the same channels back,
// another name frees the kept ones before building, and an empty name is never kept.

#include "calibrate/shared_setup.hpp"

#include <gtest/gtest.h>

#include "calibrate/sys/process.hpp"

namespace pollscale::calibrate {
namespace {

std::unique_ptr<channel_set> pipes(std::size_t n) {
  return std::make_unique<channel_set>(fd_kind::pipe, n, channel_options{});
}

TEST(SharedSetupTest, TheSameNameGivesTheSameSetBack) {
  shared_setup kept;
  int built = 0;
  auto a = kept.get("pipes 8", [&] {
    ++built;
    return pipes(8);
  });
  auto b = kept.get("pipes 8", [&] {
    ++built;
    return pipes(8);
  });
  EXPECT_EQ(a, b);
  EXPECT_EQ(built, 1);
  EXPECT_EQ(kept.kept(), "pipes 8");
}

TEST(SharedSetupTest, AnotherNameFreesTheKeptSetBeforeBuilding) {
  const std::size_t before = sys::open_fd_count();
  shared_setup kept;
  kept.get("pipes 40", [] { return pipes(40); });  // nobody else holds it
  std::size_t during_build = 0;
  auto b = kept.get("pipes 4", [&] {
    during_build = sys::open_fd_count();
    return pipes(4);
  });
  EXPECT_EQ(during_build, before);  // the 80 descriptors were closed first
  EXPECT_EQ(kept.kept(), "pipes 4");
  b.reset();
  kept.release();
  EXPECT_EQ(kept.kept(), "");
  EXPECT_EQ(sys::open_fd_count(), before);
}

TEST(SharedSetupTest, AnEmptyNameIsTheCallersOwn) {
  const std::size_t before = sys::open_fd_count();
  shared_setup kept;
  kept.get("pipes 8", [] { return pipes(8); });
  auto own = kept.get("", [] { return pipes(3); });
  EXPECT_EQ(kept.kept(), "");  // the named one was freed, the own one not kept
  own.reset();
  EXPECT_EQ(sys::open_fd_count(), before);
}

}  // namespace
}  // namespace pollscale::calibrate
