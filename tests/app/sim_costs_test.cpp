// Where a model-driven simulation takes its costs (app/sim_costs.cpp): on a dataset with
// planted costs, fitted by `pollscale fit`, the handler comes from the handler scenario
// (peer on the other CPU first, then the same thread, then ipc), and a blocking poll's
// registration per fd from the ready-at-entry rows (ready fd last minus ready fd first).

#include <gtest/gtest.h>

#include <filesystem>

#include <boost/program_options.hpp>

#include "app/sim_costs.hpp"
#include "datasets/dataset.hpp"
#include "tests/app/run_command.hpp"

namespace pollscale::test {
namespace {

namespace fs = std::filesystem;
namespace po = boost::program_options;

// Planted costs (ns): the handler 4000 (peer on the other CPU) / 3000 (same thread); one
// ipc tcp message 6000; poll over tcp, timeout 0: 300 + 70 n; blocking with the data there
// on entry: 7000 + 70 n, plus 120 per fd before the ready one (ready fd last: n - 1).
constexpr double handler_cross_ns = 4000, handler_same_ns = 3000, ipc_ns = 6000, reg_ns = 120;
double call_ns(double n) { return 300 + 70 * n; }
double entry_ns(double n, bool last) { return 7000 + 70 * n + (last ? reg_ns * (n - 1) : 0); }

datasets::key key_of(std::string scenario, std::string mech, std::string metric, std::string unit) {
  datasets::key k;
  k.scenario = std::move(scenario);
  k.mechanism = std::move(mech);
  k.fd_kind = "tcp";
  k.metric = std::move(metric);
  k.unit = std::move(unit);
  k.threads = 1;
  k.cpus = 1;
  k.pinning = "0";
  return k;
}

class planted_dataset {
 public:
  explicit planted_dataset(const std::string& name)
      : dir_(fs::temp_directory_path() / ("pollscale_sim_costs_" + name + "_" + std::to_string(::getpid()))) {
    fs::remove_all(dir_);
  }
  ~planted_dataset() { fs::remove_all(dir_); }

  // Five samples within ±0.2% of `value`: the median is `value`.
  void add(const datasets::key& k, double value) {
    for (int i = 0; i < 5; ++i)
      d_.samples.push_back({k, i, value * (1 + 0.001 * (i % 3 - 1) * (1 + i / 3)), 1, 0, {}, {}, {}, {}});
  }
  void add_handler(int threads, double ns) {
    datasets::key k = key_of("handler", "", "time_per_op", "ns");
    k.threads = k.cpus = threads;
    k.pinning = threads == 2 ? "0+1" : "0";
    add(k, ns);
  }
  void add_ipc() { add(key_of("ipc", "", "throughput", "1/s"), 1e9 / ipc_ns); }
  void add_poll_rows() {
    for (std::int64_t n : {1, 10, 30, 100, 300, 1000}) {
      datasets::key k = key_of("find_active", "poll", "time_per_call", "ns");
      k.n_fds = n;
      k.n_active = 1;
      k.active_pos = "middle";
      k.blocking = 0;
      add(k, call_ns(static_cast<double>(n)));
    }
    for (std::int64_t n : {10, 30, 100, 300, 1000})
      for (bool last : {false, true}) {
        datasets::key k = key_of("find_active", "poll", "time_per_op", "ns");
        k.n_fds = n;
        k.n_active = 1;
        k.active_pos = last ? "last" : "first";
        k.blocking = 1;
        add(k, entry_ns(static_cast<double>(n), last));
      }
  }

  /// Writes the dataset, fits it, and returns the model's path.
  std::string fit() {
    d_.context = {{"schema_version", 1},
                  {"host", "planted"},
                  {"caches",
                   {{{"level", 2}, {"type", "Unified"}, {"size_bytes", 1 << 20}},
                    {{"level", 3}, {"type", "Unified"}, {"size_bytes", 32 << 20}}}},
                  {"warnings", nlohmann::json::array()},
                  {"skipped", nlohmann::json::array()}};
    d_.summaries = datasets::summarise_samples(d_.samples);
    datasets::write_dataset(dir_ / "data", d_);
    const std::string model = (dir_ / "model.json").string();
    const auto r = run_pollscale("fit " + (dir_ / "data").string() + " -o " + model + " --skip-unfittable");
    EXPECT_EQ(r.rc, 0) << r.err;
    return model;
  }

 private:
  fs::path dir_;
  datasets::dataset d_;
};

struct costs_result {
  sim::cost_model c;
  std::shared_ptr<app::cost_provenance> prov = std::make_shared<app::cost_provenance>();
};

costs_result costs_of(const std::string& model, const std::string& mechanism) {
  const std::vector<std::string> args{"--model", model, "--fd-kind", "tcp"};
  po::variables_map vm;
  po::store(po::command_line_parser(args).options(app::sim_cost_options_description()).run(), vm);
  po::notify(vm);
  costs_result r;
  r.c = app::sim_costs_from(vm, mechanism, r.prov);
  return r;
}

std::string source(const costs_result& r, const char* cost) {
  return r.prov->sources.contains(cost) ? r.prov->sources[cost].get<std::string>() : "";
}

TEST(SimCostsTest, HandlerComesFromTheHandlerScenarioWithThePeerOnTheOtherCpu) {
  planted_dataset d("cross");
  d.add_handler(2, handler_cross_ns);
  d.add_handler(1, handler_same_ns);
  d.add_ipc();
  d.add_poll_rows();
  const auto r = costs_of(d.fit(), "poll");
  EXPECT_NEAR(r.c.handler_s, handler_cross_ns * 1e-9, handler_cross_ns * 1e-11);
  EXPECT_NE(source(r, "handler").find("handler tcp threads=2"), std::string::npos) << source(r, "handler");
}

TEST(SimCostsTest, HandlerFallsBackToTheSameThreadThenToIpc) {
  planted_dataset same("same");
  same.add_handler(1, handler_same_ns);
  same.add_ipc();
  same.add_poll_rows();
  const auto r1 = costs_of(same.fit(), "poll");
  EXPECT_NEAR(r1.c.handler_s, handler_same_ns * 1e-9, handler_same_ns * 1e-11);
  EXPECT_NE(source(r1, "handler").find("threads=1"), std::string::npos) << source(r1, "handler");

  planted_dataset ipc("ipc");
  ipc.add_ipc();
  ipc.add_poll_rows();
  const auto r2 = costs_of(ipc.fit(), "poll");
  EXPECT_NEAR(r2.c.handler_s, ipc_ns * 1e-9, ipc_ns * 1e-11);
  EXPECT_NE(source(r2, "handler").find("ipc tcp"), std::string::npos) << source(r2, "handler");
}

TEST(SimCostsTest, BlockingPollPaysTheRegistrationMeasuredWithTheDataThereOnEntry) {
  planted_dataset d("reg");
  d.add_handler(2, handler_cross_ns);
  d.add_poll_rows();
  const auto r = costs_of(d.fit(), "poll");
  EXPECT_NE(source(r, "registration").find("ready fd last minus ready fd first"), std::string::npos)
      << source(r, "registration");
  const double n = 1000;
  sim::wait_query q{1000, 1, true, n - 1};  // the ready fd last: 999 entries registered
  EXPECT_NEAR(r.c.wait_call_s(q), (call_ns(n) + reg_ns * (n - 1)) * 1e-9,
              0.02 * (call_ns(n) + reg_ns * (n - 1)) * 1e-9);
  q.before_first_ready = 0;  // the ready fd first: the timeout-0 pass alone
  EXPECT_NEAR(r.c.wait_call_s(q), call_ns(n) * 1e-9, 0.02 * call_ns(n) * 1e-9);
  q.blocking = false;
  EXPECT_NEAR(r.c.rescan_s(q), call_ns(n) * 1e-9, 0.02 * call_ns(n) * 1e-9);
}

// The probes write the CPUs they ran on: under an affinity mask starting at CPU 2 the
// wake-up cells are "2+2" and "2+3". Their costs must still reach the simulation.
TEST(SimCostsTest, WakeupsAreFoundWhateverCpusTheCalibrationRanOn) {
  planted_dataset d("pinning");
  d.add_handler(2, handler_cross_ns);
  d.add_poll_rows();
  for (const auto& [pinning, ns] : {std::pair<std::string, double>{"2+2", 5000}, {"2+3", 9000}}) {
    datasets::key k = key_of("wakeup", "poll", "round_trip", "ns");
    k.fd_kind = "pipe";
    k.threads = k.cpus = 2;
    k.pinning = pinning;
    k.blocking = 1;
    k.n_active = 1;
    k.active_pos = "last";
    for (std::int64_t n : {1, 10, 100}) {
      k.n_fds = n;
      d.add(k, ns + 10 * static_cast<double>(n));
    }
  }
  const auto r = costs_of(d.fit(), "poll");
  EXPECT_NEAR(r.c.wakeup_same_cpu_s, 5010 / 2 * 1e-9, 0.05 * 5010 / 2 * 1e-9) << source(r, "wakeup_same_cpu");
  EXPECT_NEAR(r.c.wakeup_cross_cpu_s, 9010 / 2 * 1e-9, 0.05 * 9010 / 2 * 1e-9) << source(r, "wakeup_cross_cpu");
  EXPECT_NE(source(r, "wakeup_cross_cpu").find("pinning 2+3"), std::string::npos) << source(r, "wakeup_cross_cpu");
}

TEST(SimCostsTest, NoHandlerCellIsAnErrorNamingTheHandler) {
  planted_dataset d("none");
  d.add_poll_rows();
  const std::string model = d.fit();
  try {
    costs_of(model, "poll");
    FAIL() << "no error";
  } catch (const std::exception& e) {
    EXPECT_NE(std::string(e.what()).find("handler"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace pollscale::test
