// harvest(): a report whose read finds nothing. From io_uring poll it can be a stale
// wake-up (the completion carries the mask of a wake-up that arrived late, not a fresh look
// at the file), which a reader re-arms and waits past; from a mechanism that polls the file
// before reporting it, it is a wrong answer and fails the probe.

#include <gtest/gtest.h>

#include <deque>
#include <stdexcept>

#include "calibrate/channel.hpp"
#include "calibrate/probe.hpp"
#include "calibrate/probe_support.hpp"
#include "calibrate/waiter.hpp"

namespace pollscale::calibrate {
namespace {

enum class step { stale, event, silent };

/// A waiter that follows a script: each wait() reports channel 0 after writing its token
/// (event), reports it without writing (stale), or reports nothing (silent, as a wait that
/// timed out); past the script's end, stale. It records the timeouts it was asked for.
class scripted_waiter final : public waiter {
 public:
  scripted_waiter(const channel_set& ch, bool may_be_stale, std::deque<step> script)
      : ch_(ch), stale_ok_(may_be_stale), script_(std::move(script)) {}

  void add(int, std::uint32_t) override {}
  void remove(int, std::uint32_t) override {}
  std::size_t wait(std::vector<std::uint32_t>& out, int timeout_ms) override {
    timeouts.push_back(timeout_ms);
    const step s = script_.empty() ? step::stale : script_.front();
    if (!script_.empty()) script_.pop_front();
    out.clear();
    if (s == step::silent) return 0;
    if (s == step::event) ch_.trigger(0);
    out.push_back(0);
    return 1;
  }
  void rearm(int, std::uint32_t) override { ++rearms; }
  bool level_triggered() const override { return false; }
  bool may_report_stale() const override { return stale_ok_; }

  int rearms = 0;
  std::vector<int> timeouts;

 private:
  const channel_set& ch_;
  bool stale_ok_;
  std::deque<step> script_;
};

TEST(Harvest, WaitsPastAStaleReportFromAMechanismThatMayGiveOne) {
  channel_set ch(fd_kind::eventfd, 1);
  scripted_waiter w(ch, true, {step::stale, step::stale, step::event});
  answer_checker check(1, {0});
  std::vector<std::uint32_t> scratch;
  EXPECT_EQ(harvest(w, ch, check, 1, -1, scratch), 1u);
  EXPECT_EQ(w.rearms, 3);           // re-armed after each report, stale or not
  EXPECT_FALSE(ch.try_consume(0));  // the event's token was read, nothing is left
  EXPECT_EQ(w.timeouts, (std::vector<int>{-1, stale_wait_ms, stale_wait_ms}));
}

TEST(Harvest, AStaleReportWithNoEventAfterItFailsTheProbeInsteadOfHanging) {
  channel_set ch(fd_kind::eventfd, 1);
  scripted_waiter w(ch, true, {step::stale, step::silent});
  answer_checker check(1, {0});
  std::vector<std::uint32_t> scratch;
  EXPECT_THROW(harvest(w, ch, check, 1, -1, scratch), probe_failure);
  EXPECT_EQ(w.timeouts, (std::vector<int>{-1, stale_wait_ms}));
}

TEST(Harvest, AnEmptyReportFromAMechanismThatPollsTheFileFailsTheProbe) {
  channel_set ch(fd_kind::eventfd, 1);
  scripted_waiter w(ch, false, {step::stale, step::event});
  answer_checker check(1, {0});
  std::vector<std::uint32_t> scratch;
  EXPECT_THROW(harvest(w, ch, check, 1, -1, scratch), std::runtime_error);
}

TEST(Harvest, EndlessStaleReportsFailTheProbeInsteadOfSpinning) {
  channel_set ch(fd_kind::pipe, 1);
  scripted_waiter w(ch, true, {});  // never an event
  answer_checker check(1, {0});
  std::vector<std::uint32_t> scratch;
  EXPECT_THROW(harvest(w, ch, check, 1, -1, scratch), probe_failure);
  EXPECT_EQ(w.rearms, max_stale_reports);  // the last one failed instead
}

}  // namespace
}  // namespace pollscale::calibrate
