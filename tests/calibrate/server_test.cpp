// The server probe at small c for every mechanism and metric: instances build, serve,
// check every request and reply, and leave no descriptor or process behind; the load
// generator's protocol (echo check, latency carried in the next request); the grid; skip
// reasons. (Timings are not asserted.)

#include <poll.h>
#include <sys/socket.h>
#include <sys/wait.h>

#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <set>

#include "calibrate/probe_support.hpp"
#include "calibrate/probes/probes.hpp"
#include "calibrate/probes/server_loadgen.hpp"
#include "calibrate/registry.hpp"
#include "calibrate/runner.hpp"
#include "calibrate/sys/process.hpp"
#include "tests/calibrate/probe_test_support.hpp"

namespace pollscale::calibrate {
namespace {

using probes::load_generator;
using probes::server_message;

using test::small_selection;

std::string cross_pinning(const selection& s) {
  const int c0 = s.cpus.at(0), c1 = s.cpus.size() > 1 ? s.cpus[1] : s.cpus[0];
  return std::to_string(c0) + "+" + std::to_string(c1);
}

datasets::key server_key(const flavour& f, std::string_view metric, std::int64_t c, std::int64_t a,
                         const std::string& pinning) {
  datasets::key k =
      probes::base_key(datasets::scenario::server, f, fd_kind::tcp, *datasets::parse<datasets::metric>(metric),
                       metric == datasets::metric::throughput ? "1/s" : "ns");
  k.n_fds = c;
  k.n_active = a;
  k.active_pos = "last";
  k.blocking = 1;
  k.threads = 2;
  k.cpus = probes::distinct_cpus(pinning);
  k.pinning = pinning;
  return k;
}

/// Blocks until `fd` is readable, then reads one whole message from it.
server_message read_message(int fd) {
  server_message m{};
  std::size_t got = 0;
  while (got < sizeof m) {
    pollfd p{fd, POLLIN, 0};
    EXPECT_EQ(::poll(&p, 1, 5000), 1);
    const ssize_t r = ::recv(fd, reinterpret_cast<char*>(&m) + got, sizeof m - got, 0);
    EXPECT_GT(r, 0);
    if (r <= 0) break;
    got += static_cast<std::size_t>(r);
  }
  return m;
}

void send_message(int fd, const server_message& m) {
  EXPECT_EQ(::send(fd, &m, sizeof m, MSG_NOSIGNAL), static_cast<ssize_t>(sizeof m));
}

TEST(ServerTest, EveryMechanismAndMetricServesAndChecksItsAnswers) {
  const auto* probe = find_probe("server");
  ASSERT_NE(probe, nullptr);
  const auto sel = small_selection();
  const std::size_t before = sys::open_fd_count();
  int ran = 0;
  for (const auto& f : all_flavours())
    for (const char* metric : {"throughput", "latency", "latency_p99"})
      for (std::int64_t c : {0, 5})
        for (std::int64_t a : {1, 3}) {
          const auto k = server_key(f, metric, c, a, cross_pinning(sel));
          SCOPED_TRACE(datasets::describe(k));
          auto inst = probe->make(k, sel);
          EXPECT_GE(inst->min_batch(), 4u * static_cast<std::size_t>(a));  // several rounds of the clients
          EXPECT_GT(inst->run(20), 0u);
          EXPECT_GT(inst->run(1), 0u);  // shorter than a round: latency still has a value
          datasets::key annotated = k;
          inst->annotate(annotated);
          ASSERT_TRUE(annotated.max_fd.has_value());
          EXPECT_GE(*annotated.max_fd, c + a);
          ++ran;
        }
  EXPECT_EQ(ran, 10 * 3 * 2 * 2);
  probe->release();
  EXPECT_EQ(sys::open_fd_count(), before);
}

TEST(ServerTest, PointsWithTheSameIdleCountShareOneSetUntilReleased) {
  const auto* probe = find_probe("server");
  const auto sel = small_selection();
  const std::size_t before = sys::open_fd_count();
  probe->make(server_key({mechanism::poll, ""}, "throughput", 30, 2, cross_pinning(sel)), sel)->run(10);
  const std::size_t kept = sys::open_fd_count();
  EXPECT_GE(kept, before + 30);  // the 30 idle server ends stay for the next point
  probe->make(server_key({mechanism::epoll, "lt"}, "latency", 30, 3, cross_pinning(sel)), sel)->run(10);
  EXPECT_EQ(sys::open_fd_count(), kept);
  probe->make(server_key({mechanism::epoll, "lt"}, "throughput", 10, 1, cross_pinning(sel)), sel)->run(10);
  EXPECT_LT(sys::open_fd_count(), kept);  // another c replaces the set
  probe->release();
  EXPECT_EQ(sys::open_fd_count(), before);
  probe->release();  // idempotent
  EXPECT_EQ(sys::open_fd_count(), before);
}

TEST(ServerTest, SameCpuPinningRuns) {
  const auto* probe = find_probe("server");
  const auto sel = small_selection();
  const std::string same = std::to_string(sel.cpus[0]) + "+" + std::to_string(sel.cpus[0]);
  for (const auto& f : {flavour{mechanism::poll, ""}, flavour{mechanism::rtsig, ""}}) {
    auto inst = probe->make(server_key(f, "throughput", 20, 4, same), sel);
    EXPECT_GT(inst->run(50), 0u);
  }
  probe->release();
}

TEST(ServerTest, RunnerBatchesHoldManyRoundsOfTheClosedLoop) {
  const auto* probe = find_probe("server");
  const auto sel = small_selection();
  runner_options o;
  o.warmup_s = 0;
  o.max_s_per_point = 0.02;
  o.min_samples = 3;
  o.min_sample_ns = 1000;
  const runner r(o);
  const auto k = server_key({mechanism::epoll, "lt"}, "latency_p99", 10, 2, cross_pinning(sel));
  const point_result res = r.measure(*probe, k, sel);
  ASSERT_TRUE(res.skipped.empty()) << res.skipped;
  ASSERT_GE(res.values.size(), 3u);
  for (std::size_t b : res.batches) EXPECT_GE(b, 1000u);
  for (double v : res.values) EXPECT_GT(v, 0.0);
  EXPECT_TRUE(res.key.max_fd.has_value());
  probe->release();
}

TEST(ServerTest, QuickGridCoversEveryMechanismAcrossIdleConnections) {
  const auto* probe = find_probe("server");
  selection sel = small_selection();
  sel.max_fds = 19968;  // RLIMIT_NOFILE 20000 less the calibrate command's reserve
  std::vector<flavour> mechs = all_flavours();
  const auto points = probe->points(sel, mechs);
  std::set<std::string> mech_names;
  std::set<std::int64_t> cs, as;
  std::set<std::string> metrics;
  for (const auto& k : points) {
    EXPECT_EQ(k.scenario, "server");
    EXPECT_EQ(k.fd_kind, "tcp");
    EXPECT_EQ(k.threads, 2);
    EXPECT_EQ(k.blocking, 1);
    EXPECT_EQ(k.unit, k.metric == "throughput" ? "1/s" : "ns");
    metrics.insert(k.metric);
    as.insert(*k.n_active);
    if (k.metric == "throughput" && k.n_active == 8 && k.mechanism == "poll") cs.insert(*k.n_fds);
    mech_names.insert(k.mechanism);
  }
  EXPECT_EQ(mech_names, (std::set<std::string>{"select", "poll", "epoll", "rtsig", "io_uring"}));
  EXPECT_EQ(metrics, (std::set<std::string>{"throughput", "latency", "latency_p99"}));
  EXPECT_EQ(as, (std::set<std::int64_t>{1, 8}));
  EXPECT_GE(cs.size(), 6u);
  EXPECT_EQ(*cs.begin(), 0);
  EXPECT_GE(*cs.rbegin(), 15000);
  // --n replaces the c grid; a mechanism not asked for is left out.
  sel.n_override = {3, 30};
  const std::vector<flavour> only_epoll = {{mechanism::epoll, "lt"}};
  const auto few = probe->points(sel, only_epoll);
  ASSERT_EQ(few.size(), 2u);
  EXPECT_EQ(*few[0].n_fds, 3);
  EXPECT_EQ(*few[1].n_fds, 30);
  // Points with the same c are listed together (they share one set of idle connections).
  for (std::size_t i = 1; i < points.size(); ++i) EXPECT_LE(*points[i - 1].n_fds, *points[i].n_fds);
}

TEST(ServerTest, EveryQuickPointRunsUnderASmallDescriptorLimit) {
  const auto* probe = find_probe("server");
  auto sel = small_selection();
  sel.max_fds = 300;  // c_max becomes ~140: the whole quick grid in a fraction of a second
  const auto points = probe->points(sel, all_flavours());
  ASSERT_GE(points.size(), 40u);
  const std::size_t before = sys::open_fd_count();
  for (const auto& k : points) {
    SCOPED_TRACE(datasets::describe(k));
    auto inst = probe->make(k, sel);
    EXPECT_GT(inst->run(5), 0u);
  }
  probe->release();
  EXPECT_EQ(sys::open_fd_count(), before);
}

TEST(ServerTest, PointsBeyondTheDescriptorLimitAreSkipped) {
  const auto* probe = find_probe("server");
  auto sel = small_selection();
  sel.max_fds = 100;
  try {
    probe->make(server_key({mechanism::poll, ""}, "throughput", 500, 8, cross_pinning(sel)), sel);
    FAIL() << "not skipped";
  } catch (const probe_skipped& e) {
    EXPECT_NE(std::string(e.what()).find("RLIMIT_NOFILE"), std::string::npos) << e.what();
  }
}

TEST(ServerTest, GeneratorCpuOutsideTheMaskIsSkipped) {
  const auto* probe = find_probe("server");
  const auto sel = small_selection();
  const auto k = server_key({mechanism::poll, ""}, "throughput", 0, 1, std::to_string(sel.cpus[0]) + "+4095");
  EXPECT_THROW(probe->make(k, sel), probe_skipped);
}

TEST(LoadGeneratorTest, KeepsOneRequestOutstandingAndReportsTheLastRoundTrip) {
  const std::size_t before = sys::open_fd_count();
  {
    load_generator gen(2);
    ASSERT_EQ(gen.size(), 2u);
    EXPECT_LT(gen.server_fd(0), gen.server_fd(1));
    gen.start(sys::allowed_cpus()[0]);
    for (std::uint32_t i = 0; i < 2; ++i) {
      server_message m = read_message(gen.server_fd(i));
      EXPECT_EQ(m.magic, probes::request_magic);
      EXPECT_EQ(m.client, i);
      EXPECT_EQ(m.seq, 0u);
      EXPECT_EQ(m.prev_latency_ns, 0u);
      const std::uint64_t first_sent = m.sent_ns;
      m.magic = probes::reply_magic;
      send_message(gen.server_fd(i), m);
      const server_message next = read_message(gen.server_fd(i));
      EXPECT_EQ(next.seq, 1u);
      EXPECT_EQ(next.client, i);
      EXPECT_EQ(next.prev_sent_ns, first_sent);
      EXPECT_GT(next.prev_latency_ns, 0u);
      EXPECT_GE(next.sent_ns, first_sent + next.prev_latency_ns);
    }
    gen.stop();
    EXPECT_NE(gen.end_reason().find("told to stop"), std::string::npos) << gen.end_reason();
  }
  EXPECT_EQ(sys::open_fd_count(), before);
}

TEST(LoadGeneratorTest, AWrongReplyEndsTheGeneratorWithAReason) {
  load_generator gen(1);
  gen.start(sys::allowed_cpus()[0]);
  server_message m = read_message(gen.server_fd(0));
  m.magic = probes::reply_magic;
  m.seq += 7;  // not the request it answers
  send_message(gen.server_fd(0), m);
  char c = 0;
  pollfd p{gen.server_fd(0), POLLIN, 0};
  ASSERT_EQ(::poll(&p, 1, 5000), 1);
  EXPECT_LE(::recv(gen.server_fd(0), &c, 1, 0), 0);  // EOF or reset: the generator is gone
  EXPECT_NE(gen.end_reason().find("did not echo"), std::string::npos) << gen.end_reason();
}

TEST(LoadGeneratorTest, RejectsZeroClients) { EXPECT_THROW(load_generator(0), std::invalid_argument); }

}  // namespace
}  // namespace pollscale::calibrate
