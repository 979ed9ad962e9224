#!/usr/bin/python3
"""The same M/M/1 queue as bench/sim_mm1_bench.cpp, written in SimPy, to compare the two
engines side by side. Debian's python3-simpy is SimPy 2.3 (module SimPy.Simulation, the
Process/hold/request API); SimPy >= 3 (module simpy) is used instead when that is what is
installed. Run it with the system interpreter (/usr/bin/python3): that is where Debian
installs the package.

One customer = an arrival and a departure (SimPy itself fires more internal events per
customer: the source's hold, the request, the service hold, the release). The statistics
kept are the customers' response times (count, sum, sum of squares): less than pollscale
keeps (it also fills a latency histogram and time averages).

Prints one JSON line: simpy_version, customers, simulated_s, wall_s, cpu_s,
customers_per_s (per CPU second of this process, the basis Google Benchmark's rates use
on the C++ side), mean_response_s.
"""
import argparse
import json
import random
import time


def run_simpy2(lam, mu, until, rng, stats):
    import SimPy.Simulation as S

    class Customer(S.Process):
        def visit(self, server):
            arrived = S.now()
            yield S.request, self, server
            yield S.hold, self, rng.expovariate(mu)
            yield S.release, self, server
            r = S.now() - arrived
            stats[0] += 1
            stats[1] += r
            stats[2] += r * r

    class Source(S.Process):
        def generate(self, server):
            while True:
                yield S.hold, self, rng.expovariate(lam)
                c = Customer()
                S.activate(c, c.visit(server))

    S.initialize()
    server = S.Resource(capacity=1)
    src = Source()
    S.activate(src, src.generate(server))
    S.simulate(until=until)
    return "SimPy " + S.__version__ if hasattr(S, "__version__") else "SimPy 2"


def run_simpy3(lam, mu, until, rng, stats):
    import simpy

    def customer(env, server):
        arrived = env.now
        with server.request() as req:
            yield req
            yield env.timeout(rng.expovariate(mu))
        r = env.now - arrived
        stats[0] += 1
        stats[1] += r
        stats[2] += r * r

    def source(env, server):
        while True:
            yield env.timeout(rng.expovariate(lam))
            env.process(customer(env, server))

    env = simpy.Environment()
    server = simpy.Resource(env, capacity=1)
    env.process(source(env, server))
    env.run(until=until)
    return "simpy " + simpy.__version__


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--lambda", dest="lam", type=float, default=0.9, help="arrival rate, 1/s")
    p.add_argument("--mu", type=float, default=1.0, help="service rate, 1/s")
    p.add_argument("--sim-seconds", type=float, default=2e5, help="simulated time, s")
    p.add_argument("--seed", type=int, default=1)
    a = p.parse_args()
    if not (a.lam > 0 and a.mu > 0 and a.sim_seconds > 0):
        p.error("--lambda, --mu and --sim-seconds must be > 0")
    rng = random.Random(a.seed)
    stats = [0, 0.0, 0.0]
    start = time.perf_counter()
    cpu_start = time.process_time()
    try:
        version = run_simpy2(a.lam, a.mu, a.sim_seconds, rng, stats)
    except ImportError:
        version = run_simpy3(a.lam, a.mu, a.sim_seconds, rng, stats)
    wall = time.perf_counter() - start
    cpu = time.process_time() - cpu_start
    print(json.dumps({
        "simpy_version": version,
        "customers": stats[0],
        "simulated_s": a.sim_seconds,
        "wall_s": wall,
        "cpu_s": cpu,
        "customers_per_s": stats[0] / cpu,
        "mean_response_s": stats[1] / max(stats[0], 1),
    }))


if __name__ == "__main__":
    main()
