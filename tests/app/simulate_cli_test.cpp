// pollscale simulate, whatif and capacity end to end: same seed, same bytes; bad input is
// one line and exit 2.

#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "tests/app/cli_fixture.hpp"
#include "tests/app/run_command.hpp"

namespace pollscale::test {
namespace {

const std::string small =
    "simulate --mechanism poll --idle 1000 --active 20 --cpus 2 --threads 2 --duration 0.2"
    " --think exp:0.001 --max-replications 6" +
    fixed_costs;

// This test process's own directory, removed when the process ends: ctest runs the tests of
// this binary as parallel processes, each in its own, and leaves nothing behind in /tmp.
class process_dir {
 public:
  process_dir()
      : path_(std::filesystem::path(::testing::TempDir()) / ("pollscale_simulate_cli_" + std::to_string(::getpid()))) {
    std::filesystem::create_directories(path_);
  }
  ~process_dir() {
    std::error_code ignored;
    std::filesystem::remove_all(path_, ignored);
  }
  process_dir(const process_dir&) = delete;
  process_dir& operator=(const process_dir&) = delete;
  const std::filesystem::path& path() const { return path_; }

 private:
  std::filesystem::path path_;
};

// A file of this test process alone: a shared name would let one process truncate the file
// while another's pollscale reads it.
std::string own_file(const std::string& name) {
  static const process_dir dir;
  const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
  return (dir.path() / (std::string(info->name()) + "_" + name)).string();
}

TEST(SimulateCliTest, SameSeedGivesByteIdenticalOutput) {
  for (const char* format : {"json", "table", "csv"}) {
    const auto a = run_pollscale(small + " --seed 7 --format " + format);
    const auto b = run_pollscale(small + " --seed 7 --format " + format);
    ASSERT_EQ(a.rc, 0) << a.err;
    EXPECT_EQ(a.out, b.out) << format;
    EXPECT_FALSE(a.out.empty());
  }
  EXPECT_NE(run_pollscale(small + " --seed 8 --format json").out, run_pollscale(small + " --seed 7 --format json").out);
}

TEST(SimulateCliTest, JsonCarriesTheResultNames) {
  const auto r = run_pollscale(small + " --format json --engine-stats");
  ASSERT_EQ(r.rc, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  for (const char* key : {"throughput", "latency_s", "cpu_utilisation", "calls_per_s", "events_per_call", "engine"})
    EXPECT_TRUE(j.contains(key)) << key;
  for (const char* p : {"p50", "p90", "p99", "p999"}) {
    EXPECT_TRUE(j["latency_s"][p].contains("ci95_lo")) << p;
    EXPECT_LE(j["latency_s"][p]["ci95_lo"].get<double>(), j["latency_s"][p]["mean"].get<double>());
  }
  for (const char* key : {"events", "events_per_s", "sim_s_per_wall_s", "peak_rss_bytes"})
    EXPECT_TRUE(j["engine"].contains(key)) << key;
  EXPECT_GT(j["throughput"]["mean"].get<double>(), 0);
  EXPECT_EQ(j["cpu_utilisation"]["per_cpu"].size(), 2U);
}

TEST(SimulateCliTest, WorkloadAndCostsFilesAreRead) {
  const std::string w = own_file("w.json"), c = own_file("c.json");
  std::ofstream(w) << R"({"active": 10, "arrivals": "poisson", "rate_per_s": 2000})";
  std::ofstream(c) << R"({"mechanisms": {"epoll": {"per_call_ns": 200, "per_ready_ns": 80}},
                          "handler_ns": 4000})";
  const auto r =
      run_pollscale("simulate --mechanism epoll --duration 0.5 --format json --workload " + w + " --costs " + c);
  ASSERT_EQ(r.rc, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["workload"]["arrivals"], "poisson");
  EXPECT_NEAR(j["throughput"]["mean"].get<double>(), 2000, 200);
}

TEST(SimulateCliTest, BadInputIsOneLineAndExitTwo) {
  const std::string bad_workload = own_file("bad_workload.json"), bad_costs = own_file("bad_costs.json");
  std::ofstream(bad_workload) << R"({"active": "many"})";
  std::ofstream(bad_costs) << R"({"handler_ns": -5})";
  const std::vector<std::string> cases = {
      "simulate --mechanism kqueue" + fixed_costs, "simulate --mechanism poll --think exp:-1" + fixed_costs,
      "simulate --mechanism poll --duration -1" + fixed_costs, "simulate --mechanism poll --duration nan" + fixed_costs,
      "simulate --mechanism poll --handler-ns 5", "simulate --mechanism poll --wait-per-fd-ns 5",
      "simulate --mechanism poll --costs /nonexistent.json", "simulate --mechanism poll --cpus 0" + fixed_costs,
      "simulate --mechanism poll --arrivals poisson" + fixed_costs,
      "simulate --mechanism poll --format xml" + fixed_costs,
      "simulate --mechanism poll --workload " + bad_workload + fixed_costs,
      "simulate --mechanism poll --costs " + bad_costs,
      "simulate --mechanism poll --model /nonexistent/model.json --handler-ns 1",
      "simulate --mechanism poll --handler-ns -3 --wait-per-fd-ns 1",
      "simulate --mechanism poll --scheduler ladder" + fixed_costs,
      "simulate --mechanism poll --min-replications 1" + fixed_costs,
      // Boost alone would read -1 as 2^64 - 1: refused, as fit refuses it.
      "simulate --mechanism poll --seed -1" + fixed_costs, "simulate --mechanism poll --seed 1e3" + fixed_costs,
      "simulate" + fixed_costs};
  for (const std::string& args : cases) {
    SCOPED_TRACE(args);
    const auto r = run_pollscale(args);
    EXPECT_EQ(r.rc, 2);
    EXPECT_EQ(lines(r.err), 1) << r.err;
    EXPECT_EQ(r.err.rfind("pollscale: ", 0), 0u) << r.err;
    EXPECT_TRUE(r.out.empty());
  }
}

TEST(SimulateCliTest, ErrorsNameTheCulprit) {
  EXPECT_NE(run_pollscale("simulate --mechanism poll --think exp:-1" + fixed_costs).err.find("--think"),
            std::string::npos);
  EXPECT_NE(run_pollscale("simulate --mechanism poll --handler-ns 5").err.find("wait-call cost"), std::string::npos);
  EXPECT_NE(run_pollscale("simulate --mechanism kqueue" + fixed_costs).err.find("'kqueue'"), std::string::npos);
  // A workload field's error names its flag on the command line, its key in a file.
  auto err = [](const std::string& args) {
    return run_pollscale("simulate --mechanism poll" + fixed_costs + args).err;
  };
  EXPECT_NE(err(" --idle -5").find("--idle: -5 is not in 0..2147483648"), std::string::npos) << err(" --idle -5");
  EXPECT_NE(err(" --idle 1e3").find("--idle: '1e3' is not an integer"), std::string::npos);
  EXPECT_NE(err(" --arrivals poisson").find("--rate: required with poisson arrivals"), std::string::npos);
  EXPECT_NE(err(" --arrivals poisson --rate 1e300").find("--rate: must be in (0, 1e9]"), std::string::npos);
  const std::string file = own_file("rate_workload.json");
  std::ofstream(file) << R"({"arrivals": "poisson", "rate_per_s": -1})";
  EXPECT_NE(err(" --workload " + file).find(file + ": rate_per_s: must be in (0, 1e9]"), std::string::npos)
      << err(" --workload " + file);
  std::remove(file.c_str());
}

// Flags given override the file field by field: the file's generator keeps the member no
// flag names, and the defaults of flags not given leave the file's values alone.
TEST(SimulateCliTest, FlagsGivenOverrideTheWorkloadFileFieldByField) {
  const std::string file = own_file("override_workload.json");
  std::ofstream(file) << R"({"active": 20, "think": "const:0.002", "network": "const:1e-5",
                            "generator": {"per_message": "const:2e-6", "wakeup": "const:3e-5"}})";
  const auto r = run_pollscale("simulate --mechanism poll --duration 0.05 --format json --workload " + file +
                               " --active 30 --generator-wakeup const:4e-5" + fixed_costs);
  ASSERT_EQ(r.rc, 0) << r.err;
  const auto w = nlohmann::json::parse(r.out).at("workload");
  // "const:X" as written by the simulator (17 significant digits): X.
  auto constant = [](const nlohmann::json& d) { return std::stod(d.get<std::string>().substr(6)); };
  EXPECT_EQ(w.at("active"), 30);                                          // the flag given
  EXPECT_DOUBLE_EQ(constant(w.at("think")), 0.002);                       // the file's, not the flag's default 0
  EXPECT_DOUBLE_EQ(constant(w.at("network")), 1e-5);                      // the file's
  EXPECT_DOUBLE_EQ(constant(w.at("generator").at("per_message")), 2e-6);  // the file's member
  EXPECT_DOUBLE_EQ(constant(w.at("generator").at("wakeup")), 4e-5);       // the flag's member
  std::remove(file.c_str());
}

// model.json fitted on tests/model/data/synthetic (planted poll, select and epoll costs over
// pipes), in a file of this test alone, removed when the test ends.
struct synthetic_model {
  std::string path = own_file("model.json");
  int fit_rc = run_pollscale("fit " + std::string(POLLSCALE_SOURCE_DIR) + "/tests/model/data/synthetic -o " + path).rc;
  synthetic_model() = default;
  synthetic_model(const synthetic_model&) = delete;
  synthetic_model& operator=(const synthetic_model&) = delete;
  ~synthetic_model() { std::remove(path.c_str()); }
};

std::string write_costs() {
  const std::string path = own_file("costs.json");
  std::ofstream(path) << R"({"mechanisms": {"poll": {"per_call_ns": 150, "per_registered_ns": 30},
                                            "epoll": {"per_call_ns": 200, "per_ready_ns": 80}},
                             "handler_ns": 5000, "wakeup_same_cpu_ns": 3000, "wakeup_cross_cpu_ns": 60000})";
  return path;
}

// Threads sharing one level-triggered epoll instance default to the level wake policy
// (a second waiter woken per event handed out, as calibrate's accept_herd measures): with
// the workers asleep at each request, two wake-ups per reply, one of them futile. An
// explicit --wake, or an edge-triggered variant, keeps one.
TEST(SimulateCliTest, SharedLevelTriggeredEpollWakesASecondWaiterByDefault) {
  const std::string base = "simulate --costs " + write_costs() +
                           " --mechanism epoll --interest shared --threads 2 --active 1 --idle 0"
                           " --think const:0.0001 --duration 0.1 --format json";
  const auto per_reply = [](const nlohmann::json& j, const char* what) {
    return j[what].get<double>() / j["throughput"]["mean"].get<double>();
  };
  const auto lt = run_pollscale(base);
  ASSERT_EQ(lt.rc, 0) << lt.err;
  const auto j = nlohmann::json::parse(lt.out);
  EXPECT_EQ(j["server"]["wake"], "level");
  EXPECT_NEAR(per_reply(j, "wakeups_per_s"), 2.0, 0.05);
  EXPECT_NEAR(per_reply(j, "futile_wakeups_per_s"), 1.0, 0.05);
  for (const char* other : {" --wake one", " --variant et"}) {
    const auto r = run_pollscale(base + other);
    ASSERT_EQ(r.rc, 0) << other << ": " << r.err;
    const auto k = nlohmann::json::parse(r.out);
    EXPECT_EQ(k["server"]["wake"], "one") << other;
    EXPECT_NEAR(per_reply(k, "wakeups_per_s"), 1.0, 0.05) << other;
  }
  const auto bad = run_pollscale(base + " --wake two");
  EXPECT_EQ(bad.rc, 2);
  EXPECT_NE(bad.err.find("level"), std::string::npos) << bad.err;
}

TEST(WhatifCliTest, ComparesMechanismsAlongASweep) {
  const auto r = run_pollscale(
      "whatif --mechanisms poll,epoll --sweep idle=0,20000 --active 10 --think exp:0.001"
      " --duration 0.2 --format json --costs " +
      write_costs());
  ASSERT_EQ(r.rc, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  ASSERT_EQ(j["rows"].size(), 4U);
  auto rate = [&](std::size_t i) { return j["rows"][i]["throughput"]["mean"].get<double>(); };
  EXPECT_EQ(j["rows"][0]["mechanism"], "poll");
  EXPECT_EQ(j["rows"][1]["idle"], 20000);
  EXPECT_LT(rate(1), 0.8 * rate(0));              // poll loses replies to 20000 idle fds
  EXPECT_NEAR(rate(3), rate(2), 1e-9 * rate(2));  // epoll does not
}

// A server given C CPUs runs C threads unless --threads says otherwise: under a load that
// saturates one CPU, sweeping cpus doubles the throughput; with --threads 1 the second CPU
// idles and the throughput stays.
TEST(WhatifCliTest, ThreadsFollowASweptCpuCountUnlessGiven) {
  const std::string base =
      "whatif --mechanisms epoll --sweep cpus=1,2 --active 50 --duration 0.2 --format json"
      " --costs " +
      write_costs();
  const auto follow = run_pollscale(base);
  ASSERT_EQ(follow.rc, 0) << follow.err;
  const auto j = nlohmann::json::parse(follow.out);
  auto rate = [](const nlohmann::json& doc, std::size_t i) {
    return doc["rows"][i]["throughput"]["mean"].get<double>();
  };
  EXPECT_GT(rate(j, 1), 1.8 * rate(j, 0));
  const auto one = run_pollscale(base + " --threads 1");
  ASSERT_EQ(one.rc, 0) << one.err;
  const auto k = nlohmann::json::parse(one.out);
  EXPECT_NEAR(rate(k, 1), rate(k, 0), 0.05 * rate(k, 0));
  EXPECT_NEAR(k["rows"][1]["cpu_utilisation"]["mean"].get<double>(), 0.5, 0.05);
}

// Threads on one epoll instance hold each pass's serial part one at a time: four threads on
// four CPUs, a 3 µs call of which 2.5 µs is held and a 0.5 µs handler, pass at most one call
// per 2.5 µs (400 000/s) where sets of their own would pass 4 / 3.5 µs; without a hold
// they scale with the CPUs, and the run says that nothing held them.
TEST(WhatifCliTest, ASharedInstancesSerialPartStopsTheCpuSweepScaling) {
  const std::string base =
      "whatif --mechanisms epoll --interest shared --max-events 1 --sweep cpus=1,2,4 --active 200 --think const:0"
      " --wait-per-call-ns 3000 --handler-ns 500 --duration 0.02 --format json";
  auto rates = [](const command_result& r) {
    EXPECT_EQ(r.rc, 0) << r.err;
    std::vector<double> out;
    const auto doc = nlohmann::json::parse(r.out);  // kept alive through the loop
    for (const auto& row : doc["rows"]) out.push_back(row["throughput"]["mean"].get<double>());
    return out;
  };
  const auto held_run = run_pollscale(base + " --shared-set-hold-ns 2500");
  const auto held = rates(held_run);
  ASSERT_EQ(held.size(), 3U);
  EXPECT_NEAR(held[0], 1 / 3.5e-6, 0.03 / 3.5e-6);  // one thread never waits for itself
  EXPECT_NEAR(held[1], 1 / 2.5e-6, 0.03 / 2.5e-6);
  EXPECT_NEAR(held[2], 1 / 2.5e-6, 0.03 / 2.5e-6);
  const auto last = nlohmann::json::parse(held_run.out)["rows"][2];
  EXPECT_GT(last["shared_set"]["busy"].get<double>(), 0.97);
  EXPECT_EQ(last["costs"]["sources"]["shared_set_hold"], "flag");
  EXPECT_NE(held_run.err.find("serial part (flag) was held"), std::string::npos) << held_run.err;
  const auto free_run = run_pollscale(base);
  const auto free = rates(free_run);
  ASSERT_EQ(free.size(), 3U);
  EXPECT_NEAR(free[2], 4 / 3.5e-6, 0.03 * 4 / 3.5e-6);
  EXPECT_NE(free_run.err.find("nothing says how long each pass holds it"), std::string::npos) << free_run.err;
  const auto zero_run = run_pollscale(base + " --shared-set-hold-ns 0");
  EXPECT_NEAR(rates(zero_run)[2], free[2], 0.03 * free[2]);  // a hold of 0 is no hold
  EXPECT_NE(zero_run.err.find("serial part is 0 (--shared-set-hold-ns)"), std::string::npos) << zero_run.err;
  EXPECT_EQ(zero_run.err.find("was held 0%"), std::string::npos) << zero_run.err;
  const auto bad = run_pollscale(base + " --shared-set-hold-ns -5");
  EXPECT_EQ(bad.rc, 2);
  EXPECT_NE(bad.err.find("--shared-set-hold-ns"), std::string::npos) << bad.err;
}

// With a model each replication runs on its own draw of the model's costs: the interval is
// where one run's answer lies (wide as the model's intervals), labelled so, over at least
// 20 draws; --model-uncertainty fixed runs every replication on the predictions, whose
// interval is the simulation's noise alone. A bad mode is one line naming the flag.
TEST(SimulateCliTest, AModelsUncertaintyIsDrawnIntoEveryReplication) {
  const synthetic_model fitted;
  ASSERT_EQ(fitted.fit_rc, 0);
  const std::string& model = fitted.path;
  const std::string args = "simulate " + model +
                           " --mechanism poll --fd-kind pipe --handler-ns 2000 --idle 2000 --active 10"
                           " --duration 0.1 --format json";
  const auto drawn = run_pollscale(args);
  ASSERT_EQ(drawn.rc, 0) << drawn.err;
  const auto d = nlohmann::json::parse(drawn.out);
  EXPECT_EQ(d["intervals"], "replication");
  EXPECT_EQ(d["costs"]["model_uncertainty"], "draw");
  EXPECT_GE(d["replications"].get<int>(), 20);
  const auto fixed = run_pollscale(args + " --model-uncertainty fixed");
  ASSERT_EQ(fixed.rc, 0) << fixed.err;
  const auto f = nlohmann::json::parse(fixed.out);
  EXPECT_EQ(f["intervals"], "mean");
  EXPECT_EQ(f["costs"]["model_uncertainty"], "fixed");
  EXPECT_TRUE(f["costs"]["draw_correlation"].is_null());  // nothing drawn, nothing correlated
  EXPECT_TRUE(d["costs"].contains("draw_correlation"));
  auto width = [](const nlohmann::json& doc) {
    return doc["throughput"]["ci95_hi"].get<double>() / doc["throughput"]["ci95_lo"].get<double>();
  };
  EXPECT_GT(width(d), 1.05);  // the poll cell's interval at 2000 fds: several percent
  EXPECT_GT(width(d), 5 * (width(f) - 1) + 1);
  EXPECT_EQ(run_pollscale(args).out, drawn.out);  // same seed, same draws, same bytes
  EXPECT_FALSE(d.contains("model_bounds"));       // the envelope is for fixed costs
  EXPECT_TRUE(f.contains("model_bounds"));
  // capacity: the targets judged on where one run lies, so no more load than on fixed costs.
  const std::string cap = "capacity " + model +
                          " --mechanism poll --fd-kind pipe --handler-ns 20000 --vary idle --hi 100000"
                          " --max-p99 0.002 --active 10 --think exp:0.001 --duration 0.1 --format json --confirm";
  const auto cd = run_pollscale(cap), cf = run_pollscale(cap + " --model-uncertainty fixed");
  ASSERT_EQ(cd.rc, 0) << cd.err;
  ASSERT_EQ(cf.rc, 0) << cf.err;
  const auto cdj = nlohmann::json::parse(cd.out), cfj = nlohmann::json::parse(cf.out);
  EXPECT_EQ(cdj["model_uncertainty"], "draw");
  EXPECT_FALSE(cdj.contains("capacity_bracket"));
  EXPECT_TRUE(cfj.contains("capacity_bracket"));
  EXPECT_LE(cdj["capacity"].get<double>(), cfj["capacity"].get<double>());
  const auto bad = run_pollscale(args + " --model-uncertainty maybe");
  EXPECT_EQ(bad.rc, 2);
  EXPECT_EQ(lines(bad.err), 1) << bad.err;
  EXPECT_NE(bad.err.find("--model-uncertainty"), std::string::npos) << bad.err;
}

// A model with a call spread varies each call by it: the same throughput, a longer tail, the
// shapes listed in costs.call_spread; --call-spread none charges every call its mean. A bad
// mode is one line naming the flag.
TEST(SimulateCliTest, AModelsCallSpreadVariesEachCall) {
  const synthetic_model fitted;
  ASSERT_EQ(fitted.fit_rc, 0);
  std::ifstream in(fitted.path);
  auto doc = nlohmann::json::parse(in);
  EXPECT_TRUE(doc["call_spread"].is_null());  // the synthetic dataset has no call_spread rows
  const nlohmann::json shape = {{"point", "planted"},
                                {"mean_ns", 5000},
                                {"ratios", {0.7, 0.75, 0.8, 0.82, 0.86, 0.9, 0.95, 1.05, 1.2, 4.0, 8.0, 10.0}},
                                {"samples", 3000},
                                {"visits", 3}};
  doc["call_spread"] = {{"probabilities", {0, 0.01, 0.05, 0.1, 0.25, 0.5, 0.75, 0.9, 0.95, 0.99, 0.999, 1}},
                        {"wait_calls", {shape}},
                        {"handlers", {shape}},
                        {"wakeups_same_cpu", nlohmann::json::array()},
                        {"wakeups_cross_cpu", nlohmann::json::array()}};
  const std::string model = own_file("spread.model.json");
  std::ofstream(model) << doc.dump();
  const std::string args = "simulate " + model +
                           " --mechanism poll --fd-kind pipe --handler-ns 5000 --idle 100 --active 10"
                           " --duration 0.2 --model-uncertainty fixed --format json";
  const auto varied = run_pollscale(args);
  ASSERT_EQ(varied.rc, 0) << varied.err;
  const auto none = run_pollscale(args + " --call-spread none");
  ASSERT_EQ(none.rc, 0) << none.err;
  const auto v = nlohmann::json::parse(varied.out), n = nlohmann::json::parse(none.out);
  ASSERT_EQ(v["costs"]["call_spread"]["handlers"].size(), 1u);
  EXPECT_GT(v["costs"]["call_spread"]["handlers"][0]["p99_over_mean"].get<double>(), 3.5);
  EXPECT_TRUE(n["costs"]["call_spread"].is_null());
  EXPECT_NE(varied.err.find("varied around its mean"), std::string::npos) << varied.err;
  const double tv = v["throughput"]["mean"].get<double>(), tn = n["throughput"]["mean"].get<double>();
  EXPECT_NEAR(tv, tn, 0.03 * tn);  // the multiplier's mean is 1
  EXPECT_GT(v["latency_s"]["p99"]["mean"].get<double>(), 1.3 * n["latency_s"]["p99"]["mean"].get<double>());
  EXPECT_EQ(run_pollscale(args).out, varied.out);  // same seed, same draws
  const auto bad = run_pollscale(args + " --call-spread sometimes");
  EXPECT_EQ(bad.rc, 2);
  EXPECT_EQ(lines(bad.err), 1) << bad.err;
  EXPECT_NE(bad.err.find("--call-spread"), std::string::npos) << bad.err;
  std::remove(model.c_str());
}

// A model whose host moved its two CPUs (model.json placement): every replication in the far
// placement pays the load generator's given costs times far_over_near, and serves fewer
// replies than in the near one; drawn replications meet both, and the JSON and stderr say
// how many met the far one. A model without placements refuses near and far; a bad mode is
// one line naming the flag.
TEST(SimulateCliTest, ReplicationsMeetThePlacementsOfTheModelsHost) {
  const synthetic_model fitted;
  ASSERT_EQ(fitted.fit_rc, 0);
  std::ifstream in(fitted.path);
  auto doc = nlohmann::json::parse(in);
  EXPECT_TRUE(doc["placement"].is_null());  // the synthetic dataset keeps no placement sentinel
  doc["placement"] = {
      {"split_ns", 130}, {"near_share", 0.6}, {"far_over_near", 1.5}, {"near_readings", 60}, {"far_readings", 40}};
  const std::string model = own_file("placement.model.json");
  std::ofstream(model) << doc.dump();
  const std::string args = "simulate " + model +
                           " --mechanism poll --fd-kind pipe --idle 10 --active 1 --cpus 2 --irq-cpu 1" + fixed_costs +
                           " --generator-per-message const:20e-6 --generator-wakeup const:30e-6 --duration 0.2"
                           " --format json";
  auto throughput = [&](const std::string& extra) {
    const auto r = run_pollscale(args + extra);
    EXPECT_EQ(r.rc, 0) << r.err;
    return nlohmann::json::parse(r.out);
  };
  const auto near = throughput(" --model-uncertainty fixed --placement near");
  const auto far = throughput(" --model-uncertainty fixed --placement far");
  // One request at a time: the generator's 50 us become 75 us in the far placement.
  EXPECT_LT(far["throughput"]["mean"].get<double>(), 0.9 * near["throughput"]["mean"].get<double>());
  EXPECT_EQ(far["costs"]["placement"]["asked"], "far");
  EXPECT_EQ(far["costs"]["placement"]["far_draws"], far["costs"]["placement"]["draws"]);
  EXPECT_EQ(near["costs"]["placement"]["far_draws"], 0);
  EXPECT_EQ(near["costs"]["placement"]["usual"], "near");
  const auto usual = throughput(" --model-uncertainty fixed --placement usual");
  EXPECT_TRUE(usual["costs"]["placement"].is_null());
  EXPECT_EQ(usual["throughput"]["mean"], near["throughput"]["mean"]);  // the usual placement is the near one

  const auto drawn = run_pollscale(args);
  ASSERT_EQ(drawn.rc, 0) << drawn.err;
  const auto d = nlohmann::json::parse(drawn.out);
  const auto draws = d["costs"]["placement"]["draws"].get<int>(),
             far_draws = d["costs"]["placement"]["far_draws"].get<int>();
  EXPECT_EQ(draws, d["replications"].get<int>());
  EXPECT_GT(far_draws, 0);
  EXPECT_LT(far_draws, draws);
  EXPECT_NE(drawn.err.find("met the near or far placement"), std::string::npos) << drawn.err;
  // The interval holds both placements' answers.
  EXPECT_LT(d["throughput"]["ci95_lo"].get<double>(), far["throughput"]["mean"].get<double>());
  EXPECT_GT(d["throughput"]["ci95_hi"].get<double>(), 0.97 * near["throughput"]["mean"].get<double>());

  const auto refused =
      run_pollscale("simulate " + fitted.path + " --mechanism poll --fd-kind pipe --idle 10 --active 1 --duration 0.1" +
                    fixed_costs + " --placement far");
  EXPECT_EQ(refused.rc, 2);
  EXPECT_EQ(lines(refused.err), 1) << refused.err;
  EXPECT_NE(refused.err.find("--placement far"), std::string::npos) << refused.err;
  const auto bad = run_pollscale(args + " --placement sideways");
  EXPECT_EQ(bad.rc, 2);
  EXPECT_EQ(lines(bad.err), 1) << bad.err;
  EXPECT_NE(bad.err.find("--placement"), std::string::npos) << bad.err;
  std::remove(model.c_str());
}

// whatif on a model's terms: the changed mechanism gets its rows again on the changed
// model, with the throughput against its baseline; a cheaper per-fd scan helps more the
// more idle fds there are. Mistakes are one line naming the flag.
TEST(WhatifCliTest, AChangedModelTermIsSimulatedBesideTheBaseline) {
  const synthetic_model fitted;
  ASSERT_EQ(fitted.fit_rc, 0);
  const std::string& model = fitted.path;
  const std::string args = "whatif " + model +
                           " --mechanisms poll,epoll --fd-kind pipe --handler-ns 2000 --sweep idle=0,5000"
                           " --active 10 --duration 0.1 --model-uncertainty fixed";
  const auto r = run_pollscale(args + " --change poll.per_fd*=0.5 --format json");
  ASSERT_EQ(r.rc, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  ASSERT_EQ(j["rows"].size(), 6U);  // poll x 2, poll changed x 2, epoll x 2
  EXPECT_TRUE(j["rows"][0]["change"].is_null());
  EXPECT_TRUE(j["rows"][0]["vs_baseline"].is_null());
  EXPECT_EQ(j["rows"][2]["change"], "poll.per_fd*=0.5");
  EXPECT_EQ(j["rows"][4]["mechanism"], "epoll");
  const double at0 = j["rows"][2]["vs_baseline"].get<double>(), at5000 = j["rows"][3]["vs_baseline"].get<double>();
  EXPECT_GE(at0, 1.0);
  EXPECT_GT(at5000, 1.2);  // 5000 idle fds: the scan is most of poll's cost
  EXPECT_GT(at5000, at0);
  const auto text = run_pollscale(args + " --drop poll.per_fd");
  ASSERT_EQ(text.rc, 0) << text.err;
  EXPECT_NE(text.out.find("drop poll.per_fd"), std::string::npos) << text.out;
  for (const std::string& bad : {std::string(" --change poll.per_fd*=x"), std::string(" --change epol.fixed=1"),
                                 std::string(" --change poll.per_word*=2"), std::string(" --drop poll.fixed=2")}) {
    SCOPED_TRACE(bad);
    const auto e = run_pollscale(args + bad);
    EXPECT_EQ(e.rc, 2);
    EXPECT_EQ(lines(e.err), 1) << e.err;
  }
  const auto clamped = run_pollscale(args + " --change poll.fixed-=1e12");
  ASSERT_EQ(clamped.rc, 0) << clamped.err;
  EXPECT_NE(clamped.err.find("whatif: note: poll.fixed-=1e12 would take"), std::string::npos) << clamped.err;
  EXPECT_NE(clamped.err.find("held at 0"), std::string::npos) << clamped.err;
  const auto no_model = run_pollscale("whatif --mechanisms poll --change poll.fixed*=2 --costs " + write_costs());
  EXPECT_EQ(no_model.rc, 2);
  EXPECT_NE(no_model.err.find("give --model"), std::string::npos) << no_model.err;
}

// --swap FROM=TO: FROM simulated on TO's cells of the same model. The simulator treats
// select as poll (a scan per call), so poll on select's cells, with fixed costs, is select
// in every figure; whatif puts the swapped rows beside poll's with their ratio.
TEST(WhatifCliTest, ASwappedMechanismRunsOnTheOtherMechanismsCells) {
  const synthetic_model fitted;
  ASSERT_EQ(fitted.fit_rc, 0);
  const std::string common = "simulate " + fitted.path +
                             " --fd-kind pipe --handler-ns 2000 --idle 500 --active 10 --duration 0.1"
                             " --model-uncertainty fixed --format json";
  const auto select = run_pollscale(common + " --mechanism select");
  const auto swapped = run_pollscale(common + " --mechanism poll --swap poll=select");
  ASSERT_EQ(select.rc, 0) << select.err;
  ASSERT_EQ(swapped.rc, 0) << swapped.err;
  auto a = nlohmann::json::parse(select.out), b = nlohmann::json::parse(swapped.out);
  EXPECT_EQ(b["swap"], "poll=select");
  for (auto* j : {&a, &b}) {
    j->erase("mechanism");
    j->erase("swap");
  }
  EXPECT_EQ(a, b);
  const auto rows = run_pollscale("whatif " + fitted.path +
                                  " --mechanisms poll --fd-kind pipe --handler-ns 2000 --sweep idle=0,5000 --active 10"
                                  " --duration 0.1 --model-uncertainty fixed --swap poll=epoll/lt --format json");
  ASSERT_EQ(rows.rc, 0) << rows.err;
  const auto j = nlohmann::json::parse(rows.out);
  ASSERT_EQ(j["rows"].size(), 4U);  // poll x 2, poll on epoll/lt's cells x 2
  EXPECT_EQ(j["rows"][2]["change"], "poll=epoll/lt");
  EXPECT_GT(j["rows"][3]["vs_baseline"].get<double>(), 1.2);  // 5000 idle fds: no scan to pay
  const std::string w = "whatif " + fitted.path + " --mechanisms poll --fd-kind pipe --handler-ns 2000 --duration 0.05";
  for (const std::string& bad :
       {w + " --swap poll=devpoll", w + " --swap epoll=poll", w + " --swap poll=poll", w + " --swap poll",
        w + " --swap poll=select --change poll.fixed*=2", common + " --mechanism poll --swap select=poll",
        std::string("simulate --mechanism poll --handler-ns 2000 --wait-per-call-ns 100 --swap poll=epoll")}) {
    SCOPED_TRACE(bad);
    const auto e = run_pollscale(bad);
    EXPECT_EQ(e.rc, 2);
    EXPECT_EQ(lines(e.err), 1) << e.err;
    EXPECT_NE(e.err.find("--swap"), std::string::npos) << e.err;
  }
}

// A model fitted on a historical table drives the simulator: --platform and --kernel choose
// the machine's cells, the table's time_per_op stands for the call (and the provenance says
// so), and --swap poll=devpoll asks Kegel's /dev/poll question of a server: with 10 000
// idle connections the /dev/poll kernel's poll is the dearer call.
TEST(WhatifCliTest, AHistoricalModelDrivesTheSimulatorForOneMachine) {
  const std::string path = own_file("kegel.json");
  ASSERT_EQ(run_pollscale("fit " + std::string(POLLSCALE_SOURCE_DIR) +
                          "/datasets/historical/kegel_2000_poller_bench.csv -o " + path)
                .rc,
            0);
  const std::string machine = path +
                              " --handler-ns 20000 --platform 'dual Pentium III 650 MHz'"
                              " --kernel '2.2.14smp + /dev/poll patch' --active 10 --duration 0.2"
                              " --model-uncertainty fixed --format json";
  const auto r = run_pollscale("simulate " + machine + " --mechanism poll --idle 10000");
  ASSERT_EQ(r.rc, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  EXPECT_NE(j["costs"]["sources"]["wait_call"].get<std::string>().find("time_per_op"), std::string::npos) << j;
  const auto w = run_pollscale("whatif " + machine + " --mechanisms poll --sweep idle=0,10000 --swap poll=devpoll");
  ASSERT_EQ(w.rc, 0) << w.err;
  const auto rows = nlohmann::json::parse(w.out)["rows"];
  ASSERT_EQ(rows.size(), 4U);
  EXPECT_EQ(rows[1]["throughput"]["mean"], j["throughput"]["mean"]);  // the same run as simulate's
  EXPECT_GT(rows[3]["vs_baseline"].get<double>(), 1.5) << rows;       // /dev/poll at 10 000 idle
  // Several machines in one model and none chosen: the error says to choose.
  const auto all = run_pollscale("simulate " + path + " --mechanism poll --handler-ns 20000 --duration 0.1");
  EXPECT_EQ(all.rc, 2);
  EXPECT_NE(all.err.find("platform/kernel"), std::string::npos) << all.err;
  const auto wrong = run_pollscale("simulate " + path + " --mechanism poll --handler-ns 20000 --platform 'VAX'");
  EXPECT_EQ(wrong.rc, 2);
  EXPECT_EQ(wrong.err, "pollscale: --platform: no cell of the model is of 'VAX'\n");
  const auto no_model = run_pollscale("simulate --mechanism poll --handler-ns 2 --wait-per-call-ns 1 --kernel x");
  EXPECT_EQ(no_model.rc, 2);
  EXPECT_NE(no_model.err.find("give --model"), std::string::npos) << no_model.err;
  std::remove(path.c_str());
}

// A kind is swept as its text: one row per mechanism and kind, the kind in the table's
// column and each JSON row, the server's own block saying it; fixed costs know no fd
// lookup, so threads and processes cost the same there (the model's two-thread cells are what
// part them: EventLoopServerTest).
TEST(WhatifCliTest, AKindIsSweptAsItsText) {
  const std::string base =
      "whatif --mechanisms poll,epoll --sweep workers=threads,processes --threads 2 --cpus 2"
      " --active 4 --duration 0.05 --costs " +
      write_costs();
  const auto r = run_pollscale(base + " --format json");
  ASSERT_EQ(r.rc, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["sweep"], "workers");
  ASSERT_EQ(j["rows"].size(), 4U);
  const std::vector<std::string> mechanisms = {"poll", "poll", "epoll", "epoll"},
                                 kinds = {"threads", "processes", "threads", "processes"};
  for (std::size_t i = 0; i < 4; ++i) {
    EXPECT_EQ(j["rows"][i]["mechanism"], mechanisms[i]);
    EXPECT_EQ(j["rows"][i]["workers"], kinds[i]);
  }
  EXPECT_EQ(j["rows"][0]["throughput"]["mean"], j["rows"][1]["throughput"]["mean"]);
  const auto table = run_pollscale(base);
  ASSERT_EQ(table.rc, 0) << table.err;
  EXPECT_NE(table.out.find("workers"), std::string::npos) << table.out;
  EXPECT_NE(table.out.find("processes"), std::string::npos) << table.out;
  const auto csv = run_pollscale(base + " --format csv");
  ASSERT_EQ(csv.rc, 0) << csv.err;
  EXPECT_EQ(csv.out.substr(0, csv.out.find('\n')).rfind("mechanism,workers,throughput", 0), 0U) << csv.out;
}

TEST(WhatifCliTest, BadInputIsOneLineAndExitTwo) {
  const std::vector<std::string> cases = {
      "whatif --sweep idle=1,x --costs " + write_costs(),
      "whatif --sweep bogus=1 --costs " + write_costs(),
      "whatif --sweep idle=-5 --costs " + write_costs(),
      "whatif --sweep workers=threads,forks --costs " + write_costs(),
      "whatif --sweep workers=threads,,processes --costs " + write_costs(),
      "whatif --mechanisms rtsig --sweep workers=processes --costs " + write_costs(),
      "whatif --mechanisms poll,epoll --wait-per-fd-ns 3 --handler-ns 4"};
  for (const std::string& args : cases) {
    SCOPED_TRACE(args);
    const auto r = run_pollscale(args);
    EXPECT_EQ(r.rc, 2);
    EXPECT_EQ(lines(r.err), 1) << r.err;
    EXPECT_TRUE(r.out.empty());
  }
}

// With a model and fixed costs, the search runs again with every model cost at each end of its 95%
// prediction interval: the capacity the model's uncertainty allows, dear end first, and a
// note when the model answered past the n it measured.
TEST(CapacityCliTest, AModelsIntervalsBracketTheCapacity) {
  const synthetic_model fitted;
  ASSERT_EQ(fitted.fit_rc, 0);
  const std::string& model = fitted.path;
  const std::string args = "capacity --model " + model +
                           " --mechanism poll --fd-kind pipe --handler-ns 20000 --vary idle --hi 100000 --max-p99 0.002"
                           " --active 10 --think exp:0.001 --duration 0.2 --model-uncertainty fixed --confirm";
  const auto r = run_pollscale(args + " --format json");
  ASSERT_EQ(r.rc, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  const double cap = j["capacity"].get<double>(), dear = j["capacity_bracket"]["dear"].get<double>(),
               cheap = j["capacity_bracket"]["cheap"].get<double>();
  EXPECT_LT(dear, cap);
  EXPECT_GT(cheap, cap);
  EXPECT_GT(j["model_max_extrapolation"].get<double>(), 1.0);  // idle 100000 is past the fixture's n
  const auto text = run_pollscale(args);
  EXPECT_NE(text.out.find("capacity: between "), std::string::npos) << text.out;
  EXPECT_NE(text.out.find("x past the largest n it measured"), std::string::npos) << text.out;
}

// simulate with a model and fixed costs: the same run at both ends of the model's intervals,
// beside the replications' own interval (which cannot see the model's uncertainty).
TEST(SimulateCliTest, AModelsIntervalsBoundTheAnswer) {
  const synthetic_model fitted;
  ASSERT_EQ(fitted.fit_rc, 0);
  const std::string& model = fitted.path;
  const std::string args = "simulate --model " + model +
                           " --mechanism poll --fd-kind pipe --handler-ns 20000 --idle 50000 --active 10"
                           " --think exp:0.001 --duration 0.2 --model-uncertainty fixed";
  const auto r = run_pollscale(args + " --format json");
  ASSERT_EQ(r.rc, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  const double mid = j["throughput"]["mean"].get<double>();
  EXPECT_LE(j["model_bounds"]["throughput"]["dear"].get<double>(), mid);
  EXPECT_GE(j["model_bounds"]["throughput"]["cheap"].get<double>(), mid);
  EXPECT_LT(j["model_bounds"]["throughput"]["dear"].get<double>(),
            j["model_bounds"]["throughput"]["cheap"].get<double>());
  EXPECT_NE(run_pollscale(args).out.find("with every model cost at the dear .. cheap end"), std::string::npos);
  // Without a model there is nothing to bound: flags are exact.
  const auto flags = run_pollscale(
      "simulate --mechanism poll --wait-per-call-ns 1000 --handler-ns 20000 --duration 0.2 --format json");
  ASSERT_EQ(flags.rc, 0) << flags.err;
  EXPECT_FALSE(nlohmann::json::parse(flags.out).contains("model_bounds"));
}

// Several mechanisms in one run: a capacity for each, the same evaluations a single
// --mechanism run makes, and the one to use with its margin over the runner-up.
TEST(CapacityCliTest, SeveralMechanismsGetACapacityEachAndARecommendation) {
  const std::string args =
      "capacity --vary idle --hi 100000 --max-p99 0.002 --active 10 --think exp:0.001 --duration 0.2 --confirm "
      "--costs " +
      write_costs();
  const auto r = run_pollscale(args + " --mechanisms poll,epoll --format json");
  ASSERT_EQ(r.rc, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["kind"], "capacity_by_mechanism");
  ASSERT_EQ(j["mechanisms"].size(), 2U);
  EXPECT_EQ(j["mechanisms"][0]["mechanism"], "poll");
  const auto single = nlohmann::json::parse(run_pollscale(args + " --mechanism poll --format json").out);
  EXPECT_EQ(j["mechanisms"][0]["capacity"], single["capacity"]);
  const double poll = j["mechanisms"][0]["capacity"].get<double>(),
               epoll = j["mechanisms"][1]["capacity"].get<double>();
  EXPECT_LT(poll, 100000);   // poll's calls grow with the idle fds: its p99 binds
  EXPECT_EQ(epoll, 100000);  // epoll's do not: it meets the target up to the search limit
  EXPECT_EQ(j["recommendation"]["mechanism"], "epoll");
  EXPECT_EQ(j["recommendation"]["at_search_limit"], true);
  EXPECT_EQ(j["recommendation"]["runner_up"], "poll");
  EXPECT_DOUBLE_EQ(j["recommendation"]["margin"].get<double>(), epoll / poll);
  const auto text = run_pollscale(args + " --mechanisms poll,epoll");
  EXPECT_NE(text.out.find("capacity: recommend epoll: at least 100000 idle"), std::string::npos) << text.out;
  for (const char* bad :
       {" --mechanisms poll,poll", " --mechanism poll --mechanisms epoll", "", " --mechanisms poll, --format json"}) {
    SCOPED_TRACE(bad);
    const auto e = run_pollscale(args + bad);
    EXPECT_EQ(e.rc, 2);
    EXPECT_EQ(lines(e.err), 1) << e.err;
    EXPECT_NE(e.err.find("--mechanism"), std::string::npos) << e.err;
  }
  // Two mechanisms with the same costs: no clear choice, and the text says so.
  const std::string twins = own_file("twins.json");
  std::ofstream(twins) << R"({"mechanisms": {"poll": {"per_call_ns": 150, "per_registered_ns": 30},
                                             "ppoll": {"per_call_ns": 150, "per_registered_ns": 30}},
                              "handler_ns": 5000})";
  const auto tie = run_pollscale(
      "capacity --mechanisms poll,ppoll --vary idle --hi 100000 --max-p99 0.002 --active 10 --think exp:0.001"
      " --duration 0.2 --confirm --costs " +
      twins);
  ASSERT_EQ(tie.rc, 0) << tie.err;
  EXPECT_NE(tie.out.find("capacity: no clear choice: poll and ppoll"), std::string::npos) << tie.out;
  std::remove(twins.c_str());
  const auto same_wait = run_pollscale(
      "capacity --mechanisms poll,epoll --vary idle --hi 1000 --max-p99 0.01 --wait-per-call-ns 100 --handler-ns 10");
  EXPECT_EQ(same_wait.rc, 2);
  EXPECT_NE(same_wait.err.find("same wait cost"), std::string::npos) << same_wait.err;
}

TEST(CapacityCliTest, FindsTheLargestLoadMeetingTheTarget) {
  const auto r = run_pollscale(
      "capacity --mechanism poll --vary idle --hi 100000 --max-p99 0.002 --active 10"
      " --think exp:0.001 --duration 0.2 --format json --confirm --costs " +
      write_costs());
  ASSERT_EQ(r.rc, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  const double cap = j["capacity"].get<double>();
  EXPECT_GT(cap, 0);
  EXPECT_LT(cap, 100000);
  EXPECT_FALSE(j["capacity_is_search_limit"].get<bool>());
  // Every evaluation at or below the answer met the target; every one above missed it.
  for (const auto& e : j["evaluations"]) {
    const double v = e["idle"].get<double>();
    EXPECT_EQ(e["meets_targets"].get<bool>(), v <= cap) << v;
    if (e["meets_targets"].get<bool>()) {
      EXPECT_LE(e["latency_s"]["p99"]["ci95_hi"].get<double>(), 0.002);
    }
  }
  // What bound it: the p99 target, at the smallest value tried that misses it.
  const auto& b = j["binding"];
  ASSERT_TRUE(b.is_object()) << j.dump();
  EXPECT_EQ(b["missed"], nlohmann::json::array({"max_p99_s"}));
  // The resource that ran out there and the CPUs' time split by use.
  EXPECT_TRUE(b["resource"].is_string()) << b.dump();
  double by_use = 0;
  for (const auto& [use, share] : b["cpu_by_use"].items()) by_use += share.get<double>();
  EXPECT_NEAR(by_use, b["cpu_utilisation"].get<double>(), 0.02) << b.dump();
  EXPECT_GT(b["at"].get<double>(), cap);
  for (const auto& e : j["evaluations"])
    if (!e["meets_targets"].get<bool>()) {
      EXPECT_GE(e["idle"].get<double>(), b["at"].get<double>());
    }
}

// The closed-form estimate comes first: it is the answer by default and with --analytic (no
// evaluation simulated), and beside the simulated search with --confirm; what it cannot
// cover it says, --analytic then refuses and the default simulates.
TEST(CapacityCliTest, TheEstimateAnswersFirstAndConfirmSimulatesBesideIt) {
  const std::string common =
      "capacity --vary idle --hi 100000 --max-p99 0.002 --active 10 --think exp:0.001 --duration 0.2 --costs " +
      write_costs();
  const auto sim = run_pollscale(common + " --mechanism poll --format json --confirm");
  ASSERT_EQ(sim.rc, 0) << sim.err;
  const auto s = nlohmann::json::parse(sim.out);
  EXPECT_EQ(s["method"], "simulation");
  const double estimate = s["estimate"]["capacity"].get<double>();
  // The estimate and the simulation agree to the estimate's measured accuracy (docs/sim.md).
  EXPECT_NEAR(estimate / s["capacity"].get<double>(), 1, 0.3) << s["estimate"].dump();
  const auto alone = run_pollscale(common + " --mechanism poll --format json --analytic");
  ASSERT_EQ(alone.rc, 0) << alone.err;
  const auto a = nlohmann::json::parse(alone.out);
  EXPECT_EQ(a["method"], "analytic");
  EXPECT_EQ(a["capacity"].get<double>(), estimate);
  EXPECT_TRUE(a["evaluations"].empty());
  EXPECT_TRUE(a["estimate"]["resource"].is_string()) << a.dump();
  EXPECT_EQ(a["estimate"]["missed"], nlohmann::json::array({"max_p99_s"})) << a.dump();
  // The several-mechanism summary says which target the estimate missed, as the simulation's does.
  const auto csv = run_pollscale(common + " --mechanisms poll --format csv --analytic");
  ASSERT_EQ(csv.rc, 0) << csv.err;
  EXPECT_NE(csv.out.find(",max_p99_s,"), std::string::npos) << csv.out;
  const auto text = run_pollscale(common + " --mechanism poll --analytic");
  EXPECT_NE(text.out.find("capacity: estimate (analytic): "), std::string::npos) << text.out;
  const auto crowded = run_pollscale(common + " --mechanism poll --threads 2 --analytic");
  EXPECT_EQ(crowded.rc, 2);
  EXPECT_NE(crowded.err.find("--analytic: poll: more threads than CPUs"), std::string::npos) << crowded.err;
  // By default: the estimate where it covers the case, byte for byte what --analytic gives...
  const auto plain = run_pollscale(common + " --mechanism poll --format json");
  ASSERT_EQ(plain.rc, 0) << plain.err;
  EXPECT_EQ(plain.out, alone.out);
  const auto plain_text = run_pollscale(common + " --mechanism poll");
  EXPECT_NE(plain_text.out.find("--confirm runs the simulated search"), std::string::npos) << plain_text.out;
  // ...and the simulation where it does not, saying why on stderr.
  const auto fallback = run_pollscale(common + " --mechanism poll --threads 2 --format json");
  ASSERT_EQ(fallback.rc, 0) << fallback.err;
  EXPECT_EQ(nlohmann::json::parse(fallback.out)["method"], "simulation");
  EXPECT_NE(fallback.err.find("capacity: poll: the closed-form estimate does not cover this (more threads than CPUs"),
            std::string::npos)
      << fallback.err;
  const auto both = run_pollscale(common + " --mechanism poll --analytic --confirm");
  EXPECT_EQ(both.rc, 2);
  EXPECT_EQ(lines(both.err), 1) << both.err;
  EXPECT_NE(both.err.find("--confirm"), std::string::npos) << both.err;
}

// A CPU target binds where the CPUs are busy; the text names it and how busy they were.
TEST(CapacityCliTest, TheTextNamesTheTargetThatBinds) {
  const auto r = run_pollscale(
      "capacity --mechanism poll --vary idle --hi 100000 --max-cpu 0.5 --active 10"
      " --think exp:0.001 --duration 0.2 --confirm --costs " +
      write_costs());
  ASSERT_EQ(r.rc, 0) << r.err;
  EXPECT_NE(r.out.find("capacity: limited by CPU utilisation (its 95% interval reaches"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("% busy"), std::string::npos) << r.out;
  // What ran out: the CPU, named by what it was busy with (here poll's scans of the idle fds).
  EXPECT_NE(r.out.find("; what ran out: the CPUs, "), std::string::npos) << r.out;
}

TEST(CapacityCliTest, BadInputIsOneLineAndExitTwo) {
  const std::string file = " --costs " + write_costs();
  const std::vector<std::string> cases = {
      "capacity --mechanism poll --vary idle --hi 100" + file,
      "capacity --mechanism poll --vary bogus --hi 100 --max-p99 1" + file,
      "capacity --mechanism poll --vary idle --hi -5 --max-p99 1" + file,
      "capacity --mechanism poll --vary rate --hi 100 --max-p99 1" + file,
      "capacity --mechanism poll --vary idle --hi 100 --max-p99 nan" + file,
      "capacity --mechanism poll --vary idle --hi 100 --slo-p99 2parsecs" + file,
      "capacity --mechanism poll --vary idle --hi 100 --slo-p99 -1ms" + file,
      "capacity --mechanism poll --vary idle --hi 100 --slo-p99 1ms --max-p99 1" + file};
  for (const std::string& args : cases) {
    SCOPED_TRACE(args);
    const auto r = run_pollscale(args);
    EXPECT_EQ(r.rc, 2);
    EXPECT_EQ(lines(r.err), 1) << r.err;
    EXPECT_TRUE(r.out.empty());
  }
}

// The target as an SLO with a unit is the same search as seconds: --slo-p99 10ms and
// --max-p99 0.01 give byte-identical answers, and so does --max-p99 10000us.
TEST(CapacityCliTest, ASloWithAUnitIsTheSameTargetInSeconds) {
  const std::string base =
      "capacity --mechanism poll --vary active --hi 50 --duration 0.1 --format json --costs " + write_costs();
  const auto seconds = run_pollscale(base + " --max-p99 0.01");
  ASSERT_EQ(seconds.rc, 0) << seconds.err;
  EXPECT_EQ(run_pollscale(base + " --slo-p99 10ms").out, seconds.out);
  EXPECT_EQ(run_pollscale(base + " --max-p99 10000us").out, seconds.out);
  EXPECT_NE(run_pollscale(base + " --slo-p99 2parsecs").err.find("--slo-p99: '2parsecs' is not a duration"),
            std::string::npos);
}

TEST(SimulateCliTest, WorkThatWouldNotFinishOrFitIsRefusedWithTheArithmetic) {
  const std::string base = "simulate --mechanism poll" + fixed_costs;
  // A span of 10^12 s: refused once a replication has fired its event budget.
  const auto endless = run_pollscale(base + " --duration 1e12 --event-budget 1e5");
  EXPECT_EQ(endless.rc, 2) << endless.err;
  EXPECT_NE(endless.err.find("--event-budget 100000: one replication fired that many events by simulated t ="),
            std::string::npos)
      << endless.err;
  // 2^31 active connections: refused before anything is allocated.
  const auto huge = run_pollscale(base + " --active 2147483648");
  EXPECT_EQ(huge.rc, 2) << huge.err;
  EXPECT_NE(huge.err.find("the simulated connections would take about 640 GiB"), std::string::npos) << huge.err;
  // A think time whose samples would overflow the clock.
  const auto think = run_pollscale(base + " --think exp:1e308");
  EXPECT_EQ(think.rc, 2) << think.err;
  EXPECT_NE(think.err.find("exponential mean must be in (0, 1e9] s"), std::string::npos) << think.err;
  const auto rate = run_pollscale(base + " --arrivals poisson --rate 1e308");
  EXPECT_EQ(rate.rc, 2) << rate.err;
  EXPECT_EQ(run_pollscale(base + " --event-budget 5").rc, 2);
}

TEST(SimulateCliTest, HelpDescribesTheOptions) {
  const auto r = run_pollscale("simulate --help");
  EXPECT_EQ(r.rc, 0);
  for (const char* opt : {"--model", "--mechanism", "--idle", "--active", "--cpus", "--threads", "--duration", "--seed",
                          "--workload", "--format", "--costs", "--handler-ns", "--wake", "--interest"})
    EXPECT_NE(r.out.find(opt), std::string::npos) << opt;
}

}  // namespace
}  // namespace pollscale::test
