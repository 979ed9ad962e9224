#include "sim/station.hpp"

#include <cmath>
#include <stdexcept>

namespace pollscale::sim {

namespace {

enum : std::uint64_t { arrival = 0, departure = 1, warmup_end = 2 };

std::uint64_t make_tag(std::uint64_t kind, std::uint64_t index) { return kind << 32 | index; }

class station_process final : public process {
 public:
  station_process(const station_config& c, rng& g)
      : config_(c), g_(g), in_service_(static_cast<std::size_t>(c.servers)) {
    for (int s = c.servers; s-- > 0;) free_.push_back(static_cast<std::uint32_t>(s));
    measuring_ = c.warmup_s <= 0;
  }

  void start(engine& e) {
    if (config_.warmup_s > 0) e.schedule_at(config_.warmup_s, *this, make_tag(warmup_end, 0));
    if (config_.interarrival) {
      e.schedule_in(config_.interarrival->sample(g_), *this, make_tag(arrival, 0));
    } else {
      for (int c = 0; c < config_.customers; ++c)
        e.schedule_in(config_.think.sample(g_), *this, make_tag(arrival, static_cast<std::uint64_t>(c)));
    }
  }

  void on_event(engine& e, std::uint64_t tag) override {
    const std::uint64_t kind = tag >> 32;
    const auto index = static_cast<std::uint32_t>(tag);
    if (kind == arrival)
      on_arrival(e, index);
    else if (kind == departure)
      on_departure(e, index);
    else
      restart_statistics(e.now());
  }

  station_result finish(double end) {
    station_result r;
    r.completed = completed_;
    r.throughput = static_cast<double>(completed_) / config_.run_s;
    r.mean_response_s = response_.mean();
    r.mean_wait_s = wait_.mean();
    r.mean_in_system = in_system_.mean(end);
    r.utilisation = busy_.mean(end) / config_.servers;
    r.response = std::move(histogram_);
    r.series = std::move(series_);
    return r;
  }

 private:
  struct customer {
    double arrival = 0;
    std::uint32_t id = 0;
  };

  void on_arrival(engine& e, std::uint32_t id) {
    const double now = e.now();
    in_system_.add(now, 1);
    if (config_.interarrival) e.schedule_in(config_.interarrival->sample(g_), *this, make_tag(arrival, 0));
    if (free_.empty()) {
      queue_.push({now, id});
      return;
    }
    const std::uint32_t s = free_.back();
    free_.pop_back();
    busy_.add(now, 1);
    begin_service(e, s, {now, id});
  }

  void begin_service(engine& e, std::uint32_t server, const customer& c) {
    if (measuring_) wait_.add(e.now() - c.arrival);
    in_service_[server] = c;
    e.schedule_in(config_.service.sample(g_), *this, make_tag(departure, server));
  }

  void on_departure(engine& e, std::uint32_t server) {
    const double now = e.now();
    const customer done = in_service_[server];
    in_system_.add(now, -1);
    if (measuring_) {
      const double r = now - done.arrival;
      response_.add(r);
      histogram_.add(r);
      if (config_.keep_series) series_.push_back(r);
      ++completed_;
    }
    if (!config_.interarrival) e.schedule_in(config_.think.sample(g_), *this, make_tag(arrival, done.id));
    if (!queue_.empty()) {
      begin_service(e, server, queue_.pop());
    } else {
      free_.push_back(server);
      busy_.add(now, -1);
    }
  }

  void restart_statistics(double now) {
    measuring_ = true;
    in_system_.reset(now);
    busy_.reset(now);
  }

  const station_config& config_;
  rng& g_;
  std::vector<customer> in_service_;
  std::vector<std::uint32_t> free_;
  ring_fifo<customer> queue_;
  bool measuring_ = false;
  running_stats response_, wait_;
  time_weighted in_system_, busy_;
  latency_histogram histogram_;
  std::vector<double> series_;
  std::uint64_t completed_ = 0;
};

void validate(const station_config& c) {
  if (c.servers < 1) throw std::invalid_argument("station: servers must be >= 1");
  if (!c.interarrival && c.customers < 1) throw std::invalid_argument("station: a closed model needs customers >= 1");
  if (!std::isfinite(c.run_s) || c.run_s <= 0) throw std::invalid_argument("station: run_s must be finite and > 0");
  if (!std::isfinite(c.warmup_s) || c.warmup_s < 0)
    throw std::invalid_argument("station: warmup_s must be finite and >= 0");
  if (c.interarrival && c.interarrival->mean() <= 0)
    throw std::invalid_argument("station: interarrival mean must be > 0");
}

}  // namespace

station_result simulate_station(const station_config& config, rng& g, scheduler_kind scheduler) {
  validate(config);
  engine e(scheduler);
  station_process p(config, g);
  p.start(e);
  const double end = config.warmup_s + config.run_s;
  e.run_until(end);
  station_result r = p.finish(end);
  r.events = e.events_fired();
  return r;
}

}  // namespace pollscale::sim
