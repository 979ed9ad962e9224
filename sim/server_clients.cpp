// The workload's side of the server model: clients sending requests (closed loop, Poisson,
// on/off), idle connections' keep-alives, replies reaching clients, the load generator.
#include "sim/server_model.hpp"

namespace pollscale::sim::detail {

void server_model::client_sends(std::uint32_t conn) {
  clients_[conn].push(e_.now());
  e_.schedule_in(load_.network.sample(g_), *this, tag_of(k_request_arrives, conn));
}

void server_model::request_arrives(std::uint32_t conn) {
  const bool became_ready = state_.request_arrived(conn);
  if (signals())
    wake_sleepers(0, config_.irq_cpu);  // a queued signal (or SIGIO) wakes one waiter
  else if (became_ready)
    wake_sleepers(state_.set_of(conn), config_.irq_cpu);
}

void server_model::reply_arrives(std::uint32_t conn) {
  if (!load_.generator) {
    client_reads(conn);
    client_done(conn);
    return;
  }
  if (generator_busy_) {
    generator_queue_.push(conn);
    return;
  }
  generator_busy_ = true;
  const load_generator& gen = *load_.generator;
  // A given wake-up moves with the replication's placement and machine; the cost model's
  // already has.
  const double wakeup = gen.wakeup_from_costs ? costs_.wakeup_s(false) : gen.wakeup.sample(g_) * given_cost_factor();
  e_.schedule_in(wakeup, *this, tag_of(k_generator_reads, conn));
}

// The client reads its reply: the request's round trip ends here.
void server_model::client_reads(std::uint32_t conn) {
  const double sent = clients_[conn].pop();
  if (measuring_) {
    const double latency = e_.now() - sent;
    ++replies_;
    latency_sum_ += latency;
    latency_.add(latency);
  }
  if (!load_.generator) return;
  const load_generator& gen = *load_.generator;
  const double cost =
      gen.per_message_from_costs ? costs_.handler_s() : gen.per_message.sample(g_) * given_cost_factor();
  e_.schedule_in(cost, *this, tag_of(k_generator_done, conn));
}

void server_model::client_done(std::uint32_t conn) {
  if (load_.arrivals == arrival_kind::closed)
    e_.schedule_in(load_.think.sample(g_), *this, tag_of(k_client_sends, conn));
}

void server_model::generator_done(std::uint32_t conn) {
  client_done(conn);
  if (generator_queue_.empty())
    generator_busy_ = false;
  else
    client_reads(generator_queue_.pop());
}

void server_model::open_arrival(std::uint64_t epoch) {
  if (epoch != epoch_ || !on_) return;  // scheduled before an off switch: void
  client_sends(static_cast<std::uint32_t>(uniform_index(g_, static_cast<std::uint64_t>(load_.active))));
  e_.schedule_in(exponential(g_, 1 / load_.rate_per_s), *this, tag_of(k_open_arrival, epoch_));
}

void server_model::switch_phase() {
  on_ = !on_;
  ++epoch_;
  e_.schedule_in((on_ ? load_.on_period : load_.off_period).sample(g_), *this, tag_of(k_switch, 0));
  if (on_) e_.schedule_in(exponential(g_, 1 / load_.rate_per_s), *this, tag_of(k_open_arrival, epoch_));
}

}  // namespace pollscale::sim::detail
