#include "calibrate/channel.hpp"

#include <gtest/gtest.h>
#include <poll.h>

#include "calibrate/fd_parking.hpp"
#include "calibrate/sys/process.hpp"

namespace pollscale::calibrate {
namespace {

bool readable(int fd) {
  pollfd p{fd, POLLIN, 0};
  return ::poll(&p, 1, 0) == 1 && (p.revents & POLLIN);
}

bool hung_up(int fd) {
  pollfd p{fd, POLLIN, 0};
  return ::poll(&p, 1, 0) == 1 && (p.revents & POLLHUP);
}

class ChannelTest : public ::testing::TestWithParam<fd_kind> {};

TEST_P(ChannelTest, TriggerMakesReadableAndConsumeClears) {
  channel_set ch(GetParam(), 4);
  for (std::size_t i = 0; i < 4; ++i) EXPECT_FALSE(readable(ch.watched(i)));
  ch.trigger(3);
  EXPECT_TRUE(readable(ch.watched(3)));
  EXPECT_FALSE(readable(ch.watched(0)));
  ch.consume(3);
  EXPECT_FALSE(readable(ch.watched(3)));
  EXPECT_THROW(ch.consume(3), std::runtime_error);  // nothing there: never blocks
}

TEST_P(ChannelTest, ParkedTriggersKeepWatchedEndsOpenAndReadyStaysReady) {
  const std::size_t before = sys::open_fd_count();
  {
    channel_options opts;
    opts.keep_trigger = [](std::size_t i) { return i == 0; };
    opts.ready_initially = [](std::size_t i) { return i == 400; };
    channel_set ch(GetParam(), 600, opts);
    // Parked ends are open in the keeper: no hang-up, and only the pre-made one is ready.
    for (std::size_t i : {1u, 250u, 599u}) {
      EXPECT_FALSE(readable(ch.watched(i))) << i;
      EXPECT_FALSE(hung_up(ch.watched(i))) << i;
    }
    EXPECT_TRUE(readable(ch.watched(400)));
    if (GetParam() != fd_kind::eventfd) {
      EXPECT_EQ(ch.trigger_fd(1), -1);
      EXPECT_THROW(ch.trigger(1), std::logic_error);
      // This process holds the watched ends and one kept trigger (+ the keeper socket).
      EXPECT_EQ(sys::open_fd_count(), before + 600 + 1 + 1);
    }
    ch.trigger(0);
    EXPECT_TRUE(readable(ch.watched(0)));
    // Watched descriptors ascend with the index even though parking frees numbers.
    for (std::size_t i = 1; i < ch.size(); ++i) ASSERT_LT(ch.watched(i - 1), ch.watched(i)) << i;
  }
  EXPECT_EQ(sys::open_fd_count(), before);
}

INSTANTIATE_TEST_SUITE_P(AllKinds, ChannelTest, ::testing::ValuesIn(all_fd_kinds),
                         [](const auto& p) { return std::string(name_of(p.param)); });

TEST(FdParkingTest, KeeperHoldsDescriptorsUntilDestroyed) {
  int p[2];
  ASSERT_EQ(::pipe(p), 0);
  {
    fd_parking park;
    const int w = p[1];
    park.park(std::span<const int>(&w, 1));
    ::close(p[1]);
    EXPECT_FALSE(hung_up(p[0]));  // the keeper still holds the write end
    EXPECT_EQ(park.parked(), 1u);
  }
  EXPECT_TRUE(hung_up(p[0]));  // keeper gone: last write end closed
  ::close(p[0]);
}

TEST(ChannelTest, FdsNeededCountsWhatThisProcessHolds) {
  EXPECT_EQ(channel_set::fds_needed(fd_kind::eventfd, 19000, 19000), 19000u);
  EXPECT_EQ(channel_set::fds_needed(fd_kind::pipe, 100, 100), 201u);  // + a transient dup
  EXPECT_LE(channel_set::fds_needed(fd_kind::pipe, 19000, 1), 19000u + 1 + 250 + 2);
}

}  // namespace
}  // namespace pollscale::calibrate
