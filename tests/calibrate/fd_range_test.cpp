// fd_range: descriptors placed at exactly lo..hi, the top ones ready, every mechanism's
// answer checked, nothing leaked, and the points that cannot run skipped with a reason.
// (Timings are not asserted.)

#include <fcntl.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include "calibrate/probes/probes.hpp"
#include "calibrate/registry.hpp"
#include "calibrate/sys/process.hpp"
#include "calibrate/sys/unique_fd.hpp"

namespace pollscale::calibrate {
namespace {

selection range_selection() {
  const auto lim = sys::raise_nofile_limit();
  selection s;
  s.max_fds = static_cast<std::size_t>(std::min<std::uint64_t>(lim.soft, 4096)) - 32;
  s.cpus = sys::allowed_cpus();
  return s;
}

datasets::key point(std::string_view mech, std::int64_t n, std::int64_t hi, std::string_view kind = "pipe") {
  datasets::key k = probes::base_key(datasets::scenario::fd_range, {*parse_mechanism(mech), ""}, *parse_fd_kind(kind),
                                     datasets::metric::time_per_call, "ns");
  k.n_fds = n;
  k.max_fd = hi;
  k.n_active = std::min<std::int64_t>(10, n);
  k.active_pos = "top";
  return k;
}

bool is_open(int fd) { return ::fcntl(fd, F_GETFD) != -1; }

TEST(FdRangeTest, SmallPointsOfEveryMechanismAndKindRunAndCheckTheirAnswers) {
  const auto* probe = find_probe("fd_range");
  ASSERT_NE(probe, nullptr);
  auto sel = range_selection();
  sel.n_override = {1, 7, 40};
  sel.profile = profile_kind::full;  // pipes and eventfds
  const auto mechs = all_flavours();
  const auto points = probe->points(sel, mechs);
  ASSERT_EQ(points.size(), 4u * 3 * 2);  // select, pselect, poll, ppoll; 3 n; 2 kinds
  const std::size_t before = sys::open_fd_count();
  for (const auto& k : points) {
    SCOPED_TRACE(datasets::describe(k));
    EXPECT_EQ(*k.max_fd, 1023);
    auto inst = probe->make(k, sel);
    EXPECT_GT(inst->run(3), 0u);
  }
  EXPECT_EQ(sys::open_fd_count(), before);
}

TEST(FdRangeTest, QuickGridHoldsGoochsFourTestsAndAGrowingMaxFd) {
  const auto* probe = find_probe("fd_range");
  auto sel = range_selection();
  sel.max_fds = 19968;
  const auto mechs = all_flavours();
  const auto points = probe->points(sel, mechs);
  std::set<std::int64_t> gooch_n, select_highs, poll_highs;
  for (const auto& k : points) {
    EXPECT_EQ(k.fd_kind, "pipe");
    EXPECT_EQ(*k.n_active, 10);
    if (*k.max_fd == 1023 && k.mechanism == "pselect") gooch_n.insert(*k.n_fds);
    if (*k.n_fds == 100 && k.mechanism == "select") select_highs.insert(*k.max_fd);
    if (*k.n_fds == 100 && k.mechanism == "poll") poll_highs.insert(*k.max_fd);
  }
  EXPECT_EQ(gooch_n, (std::set<std::int64_t>{100, 200, 500, 1000}));
  EXPECT_GE(select_highs.size(), 6u);
  EXPECT_EQ(select_highs, poll_highs);
  EXPECT_EQ(*select_highs.begin(), 127);
  EXPECT_GE(*select_highs.rbegin(), 19000);
  for (auto hi : select_highs) EXPECT_EQ((hi + 1) % 64, 0) << hi;  // whole bitmap words
}

TEST(FdRangeTest, GridPointsAtThisLimitRunOrSkipForTheLimit) {
  const auto* probe = find_probe("fd_range");
  const auto sel = range_selection();
  const std::vector<flavour> mechs = {{mechanism::select, ""}, {mechanism::poll, ""}};
  const std::size_t before = sys::open_fd_count();
  int ran = 0;
  for (const auto& k : probe->points(sel, mechs)) {
    SCOPED_TRACE(datasets::describe(k));
    try {
      auto inst = probe->make(k, sel);
      inst->run(2);
      ++ran;
    } catch (const probe_skipped& e) {
      EXPECT_NE(std::string(e.what()).find("RLIMIT_NOFILE"), std::string::npos) << e.what();
    }
  }
  EXPECT_GT(ran, 0);
  EXPECT_EQ(sys::open_fd_count(), before);
}

TEST(FdRangeTest, OccupiesExactlyLoToHiAndClosesThem) {
  const auto* probe = find_probe("fd_range");
  const auto sel = range_selection();
  const auto k = point("select", 40, 1023);
  for (int fd = 983; fd <= 1023; ++fd)
    if (is_open(fd)) GTEST_SKIP() << "descriptor " << fd << " was inherited open";
  {
    auto inst = probe->make(k, sel);
    for (int fd = 984; fd <= 1023; ++fd) EXPECT_TRUE(is_open(fd)) << fd;
    EXPECT_FALSE(is_open(983));
  }
  for (int fd = 984; fd <= 1023; ++fd) EXPECT_FALSE(is_open(fd)) << fd;
}

TEST(FdRangeTest, AWrongAnswerFailsLoudly) {
  const auto* probe = find_probe("fd_range");
  const auto sel = range_selection();
  for (std::string_view mech : {"select", "poll"}) {
    auto inst = probe->make(point(mech, 40, 1023), sel);
    char c = 0;
    ASSERT_EQ(::read(1023, &c, 1), 1);  // the top descriptor is no longer ready
    EXPECT_THROW(inst->run(1), probe_failure) << mech;
  }
}

TEST(FdRangeTest, ATakenNumberIsSteppedOverAndATakenMaxFdSkipped) {
  const auto* probe = find_probe("fd_range");
  const auto sel = range_selection();
  sys::unique_fd null_fd(::open("/dev/null", O_RDONLY | O_CLOEXEC));
  sys::unique_fd squatter(::fcntl(null_fd.get(), F_DUPFD_CLOEXEC, 1000));
  ASSERT_EQ(squatter.get(), 1000);
  {
    auto inst = probe->make(point("poll", 40, 1023), sel);
    inst->run(2);
    for (int fd = 983; fd <= 1023; ++fd) EXPECT_TRUE(is_open(fd)) << fd;  // 40 numbers + the squatter
    EXPECT_FALSE(is_open(982));
  }
  EXPECT_TRUE(is_open(1000));  // left alone
  EXPECT_FALSE(is_open(983));
  const std::size_t before = sys::open_fd_count();
  try {
    probe->make(point("select", 40, 1000), sel);
    FAIL() << "not skipped";
  } catch (const probe_skipped& e) {
    EXPECT_NE(std::string(e.what()).find("descriptor 1000"), std::string::npos) << e.what();
  }
  EXPECT_EQ(sys::open_fd_count(), before);
}

TEST(FdRangeTest, NumbersBeyondTheLimitAreSkipped) {
  const auto* probe = find_probe("fd_range");
  const auto sel = range_selection();
  EXPECT_THROW(probe->make(point("select", 100, 50'000'000), sel), probe_skipped);
  auto tight = sel;
  tight.max_fds = 100;
  EXPECT_THROW(probe->make(point("poll", 100, 1023), tight), probe_skipped);
}

TEST(FdRangeTest, MalformedPointsAreRejected) {
  const auto* probe = find_probe("fd_range");
  const auto sel = range_selection();
  auto k = point("poll", 40, 1023);
  k.active_pos = "middle";
  EXPECT_THROW(probe->make(k, sel), std::invalid_argument);
  k = point("poll", 40, 20);  // hi below n-1: lo would be negative
  EXPECT_THROW(probe->make(k, sel), std::invalid_argument);
  k = point("epoll", 40, 1023);
  k.variant = "et";
  EXPECT_THROW(probe->make(k, sel), std::invalid_argument);
}

}  // namespace
}  // namespace pollscale::calibrate
