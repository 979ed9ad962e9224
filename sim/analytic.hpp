// Exact closed forms of the queues the simulator is validated against (Kleinrock,
// "Queueing Systems" vol. 1; Gross & Harris). Time unit: seconds; rates: 1/s. Every
// function checks its input and throws std::invalid_argument naming the bad parameter
// (rates must be finite and > 0, the queue stable: utilisation < 1).
#pragma once

namespace pollscale::sim::analytic {

/// Steady-state means of a queue. Response = waiting + service.
struct queue_metrics {
  double utilisation = 0;      ///< fraction of time each server is busy (rho)
  double p_wait = 0;           ///< probability that an arriving customer waits
  double mean_in_system = 0;   ///< L, customers
  double mean_in_queue = 0;    ///< Lq, customers waiting (not in service)
  double mean_response_s = 0;  ///< W, s
  double mean_wait_s = 0;      ///< Wq, s
  double throughput = 0;       ///< X, customers served per second
};

/// M/M/1: Poisson arrivals at `lambda`, exponential service at rate `mu`.
queue_metrics mm1(double lambda, double mu);

/// The p-quantile (0 <= p < 1) of the M/M/1 FIFO response time, which is exponential
/// with rate mu - lambda: -ln(1-p) / (mu - lambda), s.
double mm1_response_quantile(double lambda, double mu, double p);

/// Erlang B: blocking probability of c servers offered `a` erlangs (a > 0, c >= 1).
double erlang_b(int c, double a);

/// Erlang C: probability of waiting in M/M/c with offered load a = lambda/mu < c.
double erlang_c(int c, double a);

/// M/M/c: Poisson arrivals at `lambda`, c servers each at rate `mu`.
queue_metrics mmc(double lambda, double mu, int c);

/// M/G/1 (Pollaczek-Khinchine): service with mean `mean_s` and second moment
/// `second_moment_s2` (E[S^2] >= E[S]^2).
queue_metrics mg1(double lambda, double mean_s, double second_moment_s2);

/// M/D/1: constant service time `service_s` (M/G/1 with E[S^2] = E[S]^2).
queue_metrics md1(double lambda, double service_s);

/// Machine repairman (M/M/c//N, finite source): `customers` sources each thinking for an
/// exponential time of mean `think_s`, then queueing for one of `servers` servers with
/// exponential service of mean `service_s`. Exact for any load (no stability condition).
/// p_wait is the probability an arriving request finds all servers busy (arrival theorem:
/// the queue seen by an arrival is the steady state of N-1 customers).
queue_metrics machine_repairman(int customers, double think_s, double service_s, int servers = 1);

}  // namespace pollscale::sim::analytic
