#include "sim/costs.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>

#include "datasets/input_error.hpp"
#include "sim/core/random.hpp"
#include "sim/workload.hpp"
#include "tests/scratch_dir.hpp"

namespace pollscale::sim {
namespace {

TEST(CostsTest, LinearWaitCostAddsRegistrationOnlyWhenBlocking) {
  const linear_wait_cost c{100e-9, 30e-9, 80e-9, 96e-9};
  const wait_query q{1000, 0, false};
  EXPECT_DOUBLE_EQ(c.call_s(q), 100e-9 + 1000 * 30e-9);
  EXPECT_DOUBLE_EQ(c.call_s({1000, 0, true}), 100e-9 + 1000 * 30e-9 + 1000 * 96e-9);
  // k ready at random positions: registration stops after n/(k+1) fds on average.
  EXPECT_DOUBLE_EQ(c.call_s({1000, 3, true}), 100e-9 + 1000 * 30e-9 + 3 * 80e-9 + 250 * 96e-9);
  EXPECT_DOUBLE_EQ(c.rescan_s({1000, 3, true}), 100e-9 + 1000 * 30e-9 + 3 * 80e-9);
}

TEST(CostsTest, ParsesACostsDocumentInNanoseconds) {
  const auto doc = nlohmann::json::parse(R"({
    "mechanisms": {"poll": {"per_call_ns": 150, "per_registered_ns": 31, "per_registered_blocking_ns": 96},
                   "epoll": {"per_call_ns": 100, "per_ready_ns": 80, "rearm_ns": 500},
                   "rtsig": {"per_call_ns": 300}},
    "handler_ns": 2000, "wakeup_same_cpu_ns": 3000, "wakeup_cross_cpu_ns": 60000})");
  const cost_table t = parse_cost_table(doc, "costs.json");
  EXPECT_DOUBLE_EQ(t.handler_s, 2e-6);
  EXPECT_DOUBLE_EQ(t.wait.at("poll").per_registered_s, 31e-9);
  const cost_model epoll = make_cost_model(t, "epoll");
  EXPECT_DOUBLE_EQ(epoll.wait_call_s({5000, 2, true}), 100e-9 + 160e-9);
  EXPECT_DOUBLE_EQ(epoll.rearm_s(5000), 500e-9);
  EXPECT_DOUBLE_EQ(epoll.wakeup_cross_cpu_s, 60e-6);
  const cost_model rtsig = make_cost_model(t, "rtsig");
  EXPECT_DOUBLE_EQ(rtsig.overflow_poll_s({100, 1, false}), 150e-9 + 100 * 31e-9);
  EXPECT_THROW(make_cost_model(t, "select"), std::invalid_argument);
}

TEST(CostsTest, RejectsBadCostsDocumentsNamingTheField) {
  auto error_of = [](const char* text) {
    try {
      parse_cost_table(nlohmann::json::parse(text), "c.json");
    } catch (const datasets::input_error& e) {
      return std::string(e.what());
    }
    return std::string("accepted");
  };
  EXPECT_EQ(error_of(R"({"handler_ns": -1})"), "c.json: top level.handler_ns: must be finite and >= 0");
  EXPECT_EQ(error_of(R"({"mechanisms": {"poll": {"per_fd_ns": 1}}})"),
            "c.json: mechanisms.poll: unknown key 'per_fd_ns'");
  EXPECT_EQ(error_of(R"({"mechanisms": {"poll": {"per_call_ns": "fast"}}})"),
            "c.json: mechanisms.poll.per_call_ns: expected a number of nanoseconds");
  EXPECT_EQ(error_of(R"([1, 2])"), "c.json: top level: expected a JSON object");
  const cost_table no_poll = parse_cost_table(nlohmann::json::parse(R"({"mechanisms": {"rtsig": {}}})"), "x");
  EXPECT_THROW(make_cost_model(no_poll, "rtsig"), std::invalid_argument);
  EXPECT_THROW(read_cost_table("/nonexistent/costs.json"), datasets::input_error);
}

TEST(WorkloadTest, ParsesAWorkloadDocumentOverTheFlags) {
  workload base;
  base.idle = 7;
  const workload w = parse_workload(nlohmann::json::parse(R"({
    "active": 50, "arrivals": "on_off", "rate_per_s": 1000, "on_period": "exp:0.1",
    "off_period": "const:0.3", "network": "uniform:1e-5:3e-5", "idle_activity": "exp:60",
    "generator": {"per_message": "const:6e-6", "wakeup": "exp:2e-5"}})"),
                                    "w.json", base);
  EXPECT_EQ(w.idle, 7);
  EXPECT_EQ(w.active, 50);
  EXPECT_EQ(w.arrivals, arrival_kind::on_off);
  EXPECT_DOUBLE_EQ(w.off_period.mean(), 0.3);
  EXPECT_DOUBLE_EQ(w.network.mean(), 2e-5);
  ASSERT_TRUE(w.idle_activity.has_value());
  EXPECT_DOUBLE_EQ(w.idle_activity->mean(), 60);
  ASSERT_TRUE(w.generator.has_value());
  EXPECT_DOUBLE_EQ(w.generator->per_message.mean(), 6e-6);
  EXPECT_DOUBLE_EQ(w.generator->wakeup.mean(), 2e-5);
  // Round trip through JSON.
  const workload again = parse_workload(to_json(w), "round trip");
  EXPECT_EQ(to_json(again), to_json(w));
}

// "costs" prices a generator cost by the cost model; it survives a round trip as that word.
TEST(WorkloadTest, AGeneratorCostMayBeTheCostModels) {
  const workload w = parse_workload(
      nlohmann::json::parse(R"({"generator": {"per_message": "costs", "wakeup": "exp:2e-5"}})"), "w.json");
  ASSERT_TRUE(w.generator.has_value());
  EXPECT_TRUE(w.generator->per_message_from_costs);
  EXPECT_FALSE(w.generator->wakeup_from_costs);
  EXPECT_DOUBLE_EQ(w.generator->wakeup.mean(), 2e-5);
  EXPECT_EQ(to_json(w)["generator"]["per_message"], "costs");
  EXPECT_EQ(to_json(w)["generator"]["wakeup"], w.generator->wakeup.describe());
  const workload again = parse_workload(to_json(w), "round trip");
  EXPECT_EQ(to_json(again), to_json(w));
  EXPECT_THROW(parse_workload(nlohmann::json::parse(R"({"generator": {"per_message": "cost"}})"), "w.json"),
               datasets::input_error);
}

TEST(WorkloadTest, RejectsBadWorkloadsNamingTheKey) {
  auto error_of = [](const char* text) {
    try {
      parse_workload(nlohmann::json::parse(text), "w.json");
    } catch (const datasets::input_error& e) {
      return std::string(e.what());
    }
    return std::string("accepted");
  };
  EXPECT_EQ(error_of(R"({"active": 1.5})"), "w.json: active: expected an integer");
  EXPECT_EQ(error_of(R"({"arrivals": "bursty"})"),
            "w.json: arrivals: arrivals 'bursty' is not one of closed, poisson, on_off");
  EXPECT_EQ(error_of(R"({"think": "exp:-1"})"),
            "w.json: think: distribution 'exp:-1': exponential mean must be in (0, 1e9] s");
  EXPECT_EQ(error_of(R"({"arrivals": "poisson"})"), "w.json: rate_per_s: required with poisson arrivals");
  EXPECT_EQ(error_of(R"({"arrivals": "poisson", "rate_per_s": 1e300})"),
            "w.json: rate_per_s: must be in (0, 1e9] requests/s for poisson and on_off arrivals");
  EXPECT_EQ(error_of(R"({"idle": -3})"), "w.json: idle: -3 is not in 0..2147483648");
  EXPECT_EQ(error_of(R"({"idle": 18446744073709551615})"),
            "w.json: idle: 18446744073709551615 is not in 0..2147483648");
  EXPECT_EQ(error_of(R"({"generator": 3})"),
            "w.json: generator: expected {\"per_message\": ..., \"wakeup\": ...} or null");
  EXPECT_EQ(error_of(R"({"generator.wakeup": "const:1"})"), "w.json: generator.wakeup: unknown key");
  EXPECT_EQ(error_of(R"({"generator": {"generator": {}}})"), "w.json: generator.generator: unknown key");
  EXPECT_EQ(error_of(R"({"clients": 3})"), "w.json: clients: unknown key");
  EXPECT_EQ(error_of(R"({"generator": {"per_msg": "const:1"}})"), "w.json: generator.per_msg: unknown key");
  EXPECT_THROW(read_workload("/nonexistent/w.json"), datasets::input_error);
}

// The field table is the one place a workload field is named: each field a file can carry
// reads back what to_json writes, each flag's text sets the same value as the file's JSON,
// and the table's keys are exactly the keys to_json writes.
TEST(WorkloadTest, EveryFieldIsNamedOnceAndRoundTrips) {
  std::set<std::string> keys, flags;
  for (const workload_field& f : workload_fields()) {
    SCOPED_TRACE(std::string(f.key));
    EXPECT_TRUE(keys.insert(std::string(f.key)).second) << "key named twice";
    if (!f.flag.empty()) {
      EXPECT_TRUE(flags.insert(std::string(f.flag)).second) << "flag named twice";
    }
    EXPECT_EQ(workload_field_by_key(f.key), &f);
    if (!f.flag.empty()) {
      EXPECT_EQ(workload_field_by_flag(f.flag), &f);
    }
    EXPECT_EQ(f.flag.empty(), f.form == field_form::group);  // a group is set through its members' flags
  }
  // Every field set away from its default, through flags' text: the JSON carries each key.
  workload w;
  const std::map<std::string, std::string> text = {{"idle", "7"},
                                                   {"active", "50"},
                                                   {"arrivals", "on_off"},
                                                   {"think", "exp:0.002"},
                                                   {"rate", "1000.5"},
                                                   {"on", "const:0.25"},
                                                   {"off", "exp:0.3"},
                                                   {"network", "uniform:1e-5:3e-5"},
                                                   {"app-work", "const:1e-6"},
                                                   {"idle-activity", "exp:60"},
                                                   {"generator-per-message", "const:6e-6"},
                                                   {"generator-wakeup", "exp:2e-5"}};
  for (const workload_field& f : workload_fields())
    if (!f.flag.empty()) set_from_text(w, f, text.at(std::string(f.flag)));
  w.validate();
  const nlohmann::json j = to_json(w);
  for (const std::string& key : keys) {
    const auto dot = key.find('.');
    EXPECT_TRUE(dot == std::string::npos ? j.contains(key) : j.at(key.substr(0, dot)).contains(key.substr(dot + 1)))
        << key << " in " << j.dump();
  }
  EXPECT_EQ(j.at("rate_per_s"), 1000.5);
  EXPECT_DOUBLE_EQ(distribution::parse(j.at("generator").at("wakeup")).mean(), 2e-5);
  EXPECT_EQ(to_json(parse_workload(j, "round trip")), j);
  // Fields a closed workload does not use are left out; unset ones are null.
  const nlohmann::json plain = to_json(workload{});
  EXPECT_FALSE(plain.contains("rate_per_s"));
  EXPECT_FALSE(plain.contains("on_period"));
  EXPECT_TRUE(plain.at("generator").is_null());
  EXPECT_TRUE(plain.at("idle_activity").is_null());
}

TEST(WorkloadTest, AFlagsTextIsParsedByItsFieldsForm) {
  workload w;
  auto error_of = [&](const char* flag, const std::string& text) {
    try {
      set_from_text(w, *workload_field_by_flag(flag), text);
    } catch (const std::invalid_argument& e) {
      return std::string(e.what());
    }
    return std::string("accepted");
  };
  EXPECT_EQ(error_of("idle", "1e3"), "'1e3' is not an integer");
  EXPECT_EQ(error_of("idle", ""), "'' is not an integer");
  EXPECT_EQ(error_of("idle", "99999999999999999999"), "'99999999999999999999' is not an integer");
  EXPECT_EQ(error_of("active", "0"), "0 is not in 1..2147483648");
  EXPECT_EQ(error_of("rate", "inf"), "'inf' is not a finite number");
  EXPECT_EQ(error_of("rate", "12x"), "'12x' is not a finite number");
  EXPECT_EQ(error_of("arrivals", "bursty"), "arrivals 'bursty' is not one of closed, poisson, on_off");
  EXPECT_EQ(error_of("idle", "12"), "accepted");
  EXPECT_EQ(w.idle, 12);
  EXPECT_EQ(error_of("rate", "2.5e3"), "accepted");
  EXPECT_DOUBLE_EQ(w.rate_per_s, 2500);
  EXPECT_EQ(workload_field_by_flag("rate_per_s"), nullptr);  // a key is not a flag
  EXPECT_EQ(workload_field_by_flag(""), nullptr);
}

// What the workload fuzzer found (tests/fuzz/corpus/workload/number_overflow): a number
// beyond double escaped as nlohmann's out_of_range and terminated the program. Both of the
// simulator's JSON files now go through the shared reader.
TEST(WorkloadTest, FilesThatAreNotJsonTheSimulatorCanUseAreInputErrors) {
  namespace fs = std::filesystem;
  const test::scratch_dir scratch("sim_json");
  const fs::path& dir = scratch.path();
  auto error_of = [&](const std::string& text, bool costs) {
    const fs::path f = dir / (costs ? "c.json" : "w.json");
    std::ofstream(f) << text;
    try {
      if (costs)
        (void)read_cost_table(f.string());
      else
        (void)read_workload(f.string());
    } catch (const datasets::input_error& e) {
      return std::string(e.what());
    }
    return std::string("accepted");
  };
  for (bool costs : {false, true}) {
    SCOPED_TRACE(costs ? "costs" : "workload");
    EXPECT_NE(error_of(R"({"think": 4e4444444444})", costs).find("invalid JSON"), std::string::npos);
    EXPECT_NE(error_of(R"({"idle": 1e400})", costs).find("invalid JSON"), std::string::npos);
    EXPECT_NE(error_of(std::string(100000, '['), costs).find("nested deeper"), std::string::npos);
    EXPECT_NE(error_of("{", costs).find("invalid JSON"), std::string::npos);
  }
  EXPECT_THROW(read_workload(dir.string()), datasets::input_error);  // a directory
}

TEST(DistributionTest, MomentsAndParsing) {
  EXPECT_DOUBLE_EQ(distribution::parse("const:2").second_moment(), 4);
  EXPECT_DOUBLE_EQ(distribution::parse("exp:2").second_moment(), 8);
  EXPECT_DOUBLE_EQ(distribution::parse("uniform:0:2").second_moment(), 4.0 / 3);
  EXPECT_DOUBLE_EQ(distribution::parse("erlang:4:1").scv(), 0.25);
  EXPECT_NEAR(distribution::parse("hyperexp:1:9").scv(), 9, 1e-12);
  EXPECT_NEAR(distribution::parse("hyperexp:1:9").mean(), 1, 1e-15);
  for (const char* bad : {"", "exp", "exp:x", "exp:1:2", "erlang:1.5:1", "uniform:3:1", "gamma:1", "const:nan"})
    EXPECT_THROW(distribution::parse(bad), std::invalid_argument) << bad;
  // Durations beyond 1e9 s (and scv beyond 1e6) are refused: a sample added to the clock
  // must stay finite. At the limits every sample is finite.
  for (const char* huge :
       {"const:1e308", "exp:1e308", "uniform:0:1e10", "erlang:2:1e308", "hyperexp:1e308:2", "hyperexp:1:1e308"})
    EXPECT_THROW(distribution::parse(huge), std::invalid_argument) << huge;
  rng extreme(3);
  for (const char* edge : {"exp:1e9", "erlang:1000:1e9", "hyperexp:1e9:1e6", "uniform:0:1e9"}) {
    const distribution d = distribution::parse(edge);
    for (int i = 0; i < 2000; ++i) ASSERT_TRUE(std::isfinite(d.sample(extreme))) << edge;
  }
  // Sampled moments agree with the closed forms.
  rng g(8);
  for (const char* text : {"exp:2", "uniform:1:3", "erlang:3:1.5", "hyperexp:1:4"}) {
    const distribution d = distribution::parse(text);
    double sum = 0, sum2 = 0;
    const int n = 200000;
    for (int i = 0; i < n; ++i) {
      const double x = d.sample(g);
      sum += x;
      sum2 += x * x;
    }
    EXPECT_NEAR(sum / n, d.mean(), 0.02 * d.mean()) << text;
    EXPECT_NEAR(sum2 / n, d.second_moment(), 0.06 * d.second_moment()) << text;
  }
}

}  // namespace
}  // namespace pollscale::sim
