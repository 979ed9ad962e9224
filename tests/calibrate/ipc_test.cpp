// ipc: every channel at both message sizes, one process and two, builds, passes checked
// messages and leaves no descriptor, child process or FIFO directory behind.

#include <gtest/gtest.h>
#include <sys/wait.h>

#include <filesystem>
#include <set>

#include "calibrate/probes/probes.hpp"
#include "calibrate/registry.hpp"
#include "calibrate/sys/process.hpp"
#include "calibrate/sys/syscall.hpp"
#include "tests/calibrate/probe_test_support.hpp"

namespace pollscale::calibrate {
namespace {

using test::small_selection;

std::size_t fifo_dirs() {
  std::size_t n = 0;
  for (const auto& e : std::filesystem::directory_iterator(std::filesystem::temp_directory_path()))
    if (e.path().filename().string().rfind("pollscale-fifo-", 0) == 0) ++n;
  return n;
}

bool has_children() {
  int status = 0;
  return !(::waitpid(-1, &status, WNOHANG) < 0 && errno == ECHILD);
}

datasets::key ipc_key(std::string fd_kind, std::string variant, int threads, std::string pin) {
  datasets::key k;
  k.scenario = "ipc";
  k.fd_kind = std::move(fd_kind);
  k.variant = std::move(variant);
  k.threads = threads;
  k.pinning = std::move(pin);
  k.metric = "throughput";
  k.unit = "1/s";
  return k;
}

TEST(IpcTest, EveryFullPointRunsAndLeavesNothingBehind) {
  const auto* probe = find_probe("ipc");
  ASSERT_NE(probe, nullptr);
  auto sel = small_selection();
  sel.profile = profile_kind::full;
  const auto points = probe->points(sel, {});
  ASSERT_EQ(points.size(), 6u * 3 * 2);  // 6 channels x {1 process, 2 same CPU, 2 other CPU} x {64, 4096 B}
  const std::size_t fds = sys::open_fd_count(), dirs = fifo_dirs();
  int ran = 0;
  for (const auto& k : points) {
    SCOPED_TRACE(datasets::describe(k));
    try {
      auto inst = probe->make(k, sel);
      EXPECT_GT(inst->run(50), 0u);
      ++ran;
    } catch (const probe_skipped& e) {
      EXPECT_EQ(sel.cpus.size(), 1u);  // only the cross-CPU points, on a one-CPU mask
      EXPECT_NE(std::string(e.what()).find("CPU"), std::string::npos) << e.what();
    }
  }
  EXPECT_EQ(ran, sel.cpus.size() > 1 ? 36 : 24);
  EXPECT_EQ(sys::open_fd_count(), fds);
  EXPECT_EQ(fifo_dirs(), dirs);
  EXPECT_FALSE(has_children());
}

TEST(IpcTest, QuickGridIsEveryAim9ChannelAt64Bytes) {
  const auto* probe = find_probe("ipc");
  selection sel;
  sel.cpus = {0, 1};
  std::set<std::string> seen;
  for (const auto& k : probe->points(sel, std::vector<flavour>{{mechanism::poll, ""}})) {
    EXPECT_TRUE(k.mechanism.empty());
    EXPECT_EQ(k.unit, "1/s");
    EXPECT_EQ(*k.threads, k.pinning == "0" ? 1 : 2);
    seen.insert(k.fd_kind + "/" + k.variant + " " + k.pinning);
  }
  EXPECT_EQ(seen.size(), 18u);
  for (std::string c : {"pipe/", "fifo/", "socketpair/stream", "socketpair/dgram", "tcp/", "udp/"})
    for (std::string pin : {"0", "0+0", "0+1"}) EXPECT_TRUE(seen.count(c + " " + pin)) << c << " " << pin;
}

TEST(IpcTest, MalformedKeysAreRejected) {
  const auto* probe = find_probe("ipc");
  const auto sel = small_selection();
  EXPECT_THROW(probe->make(ipc_key("socketpair", "stream+dgram", 1, "0"), sel), std::invalid_argument);
  EXPECT_THROW(probe->make(ipc_key("pipe", "9000B", 1, "0"), sel), std::invalid_argument);
  EXPECT_THROW(probe->make(ipc_key("eventfd", "", 1, "0"), sel), std::invalid_argument);
  EXPECT_THROW(probe->make(ipc_key("pipe", "", 3, "0"), sel), std::invalid_argument);
  EXPECT_NO_THROW(probe->make(ipc_key("socketpair", "stream+4096B", 1, "0"), sel));
}

TEST(IpcTest, AMissingReplyFailsTheRunAndTheChildIsReaped) {
  const auto* probe = find_probe("ipc");
  const auto sel = small_selection();
  const std::string pin = std::to_string(sel.cpus[0]) + "+" + std::to_string(sel.cpus[0]);
  for (std::string kind : {"udp", "pipe"}) {
    SCOPED_TRACE(kind);
    auto inst = probe->make(ipc_key(kind, "", 2, pin), sel);
    sys::set_fault_hook([](std::string_view what) { return what == "read(ipc)" ? EAGAIN : 0; });
    EXPECT_THROW(inst->run(1), probe_failure);
    sys::set_fault_hook({});
  }
  EXPECT_FALSE(has_children());
}

}  // namespace
}  // namespace pollscale::calibrate
