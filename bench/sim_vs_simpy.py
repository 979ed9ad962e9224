#!/usr/bin/python3
"""Runs pollscale's M/M/1 (bench/sim_mm1_bench) and SimPy's (bench/simpy_mm1.py) side by
side on this machine, alternating them `--rounds` times, and prints the ratio of the
median customers served per wall second (target: >= 40x). Same model on both
sides: lambda 0.9/s, mu 1/s, FIFO, response times recorded.

usage: bench/sim_vs_simpy.py BUILD_DIR [--rounds 3]
  BUILD_DIR: a Release build tree holding bench/sim_mm1_bench
"""
import argparse
import json
import os
import statistics
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))


def run_pollscale(binary):
    out = subprocess.run(
        [binary, "--benchmark_filter=BM_MM1Heap$", "--benchmark_format=json",
         "--benchmark_min_time=2"],
        check=True, capture_output=True, text=True).stdout
    b = json.loads(out)["benchmarks"][0]
    return b["customers_per_s"], b["items_per_second"]


def run_simpy(sim_seconds):
    out = subprocess.run(
        ["/usr/bin/python3", os.path.join(HERE, "simpy_mm1.py"), "--sim-seconds", str(sim_seconds)],
        check=True, capture_output=True, text=True).stdout
    r = json.loads(out)
    return r["customers_per_s"], r["simpy_version"]


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("build_dir")
    p.add_argument("--rounds", type=int, default=3)
    p.add_argument("--simpy-seconds", type=float, default=4e5, help="SimPy's simulated time per round")
    a = p.parse_args()
    binary = os.path.join(a.build_dir, "bench", "sim_mm1_bench")
    if not os.access(binary, os.X_OK):
        sys.exit(f"sim_vs_simpy: {binary} not found; build the sim_mm1_bench target (Release)")
    if a.rounds < 1:
        sys.exit("sim_vs_simpy: --rounds must be >= 1")
    ours, theirs, events = [], [], []
    version = ""
    for i in range(a.rounds):
        c, version = run_simpy(a.simpy_seconds)
        theirs.append(c)
        c, e = run_pollscale(binary)
        ours.append(c)
        events.append(e)
        print(f"round {i + 1}: pollscale {c:,.0f} customers/s ({e:,.0f} events/s), "
              f"{version} {theirs[-1]:,.0f} customers/s", file=sys.stderr)
    ratio = statistics.median(ours) / statistics.median(theirs)
    print(json.dumps({
        "simpy_version": version,
        "rounds": a.rounds,
        "pollscale_customers_per_s": statistics.median(ours),
        "pollscale_events_per_s": statistics.median(events),
        "simpy_customers_per_s": statistics.median(theirs),
        "ratio": ratio,
    }))


if __name__ == "__main__":
    main()
