#!/usr/bin/env python3
"""Do cells move together between calibrations as much as the model's draws say?

A drawn simulation (docs/sim.md) correlates its cells' draws by the model's drift
correlation rho: how much two different points' visits, started within a second of each
other, moved together, estimated *within* one calibration (datasets/simultaneous_drift.hpp;
`pollscale fit` writes it to model.json's "drift"). This script judges that figure against
what a second calibration of the same machine does, which the estimate never saw.

For each pair A B (consecutive DATASET arguments: A1 B1 A2 B2 ...):
  rho A, rho B   the drift correlation `pollscale fit` finds in each (model.json "drift")
  points         points measured in both, each with at least two visits in both
  shift          every point's u = log(b/a) (a/b for a rate, so that dearer is positive) over
                 sqrt(sa^2 + sb^2), s the standard deviation of the run's log visit medians
                 for that point: the move in the points' own spreads. "mean u" is the shift
                 the points shared; "share" = mean(u)^2 / mean(u^2), the part of the pair's
                 mean-square move that one shared shift explains
  z if independent  mean(u) * sqrt(points) / sd(u): how unlikely the shared shift is if
                 the cells moved independently (|z| > 1.96: independent draws are refuted)
  z if rho       mean(u) / sqrt(rho_A * mean(u^2)): the same shift in the spread that
                 correlated draws give a shared move (|z| <= 1.96 in 95% of pairs if rho is right)

Usage: bench/shared_drift.py [--pollscale PATH] A B [A B ...]
Exit status: 0, or 2 on bad usage or an unreadable dataset.
"""
import argparse
import collections
import csv
import json
import math
import os
import statistics
import subprocess
import sys
import tempfile

from dataset_csv import open_samples, point_key


def visit_logs(directory):
    """{point key: [log visit median, ...]} with a rate's sign flipped (dearer positive)."""
    visits = collections.defaultdict(lambda: collections.defaultdict(list))
    with open_samples(directory) as f:
        for row in csv.DictReader(f):
            value = float(row["value"])
            if value > 0:
                visits[point_key(row)][row["visit"]].append(value)
    out = {}
    for key, by_visit in visits.items():
        sign = -1.0 if key[-1].startswith("1/") else 1.0
        out[key] = [sign * math.log(statistics.median(v)) for v in by_visit.values()]
    return out


def drift_of(pollscale, directory):
    with tempfile.TemporaryDirectory() as tmp:
        model = os.path.join(tmp, "model.json")
        subprocess.run([pollscale, "fit", directory, "-o", model], check=True, stdout=subprocess.DEVNULL,
                       stderr=subprocess.DEVNULL)
        with open(model) as f:
            return json.load(f).get("drift")


def judge(pollscale, a, b):
    rho_a, rho_b = drift_of(pollscale, a), drift_of(pollscale, b)
    la, lb = visit_logs(a), visit_logs(b)
    us = []
    for key in la.keys() & lb.keys():
        xa, xb = la[key], lb[key]
        if len(xa) < 2 or len(xb) < 2:
            continue
        spread = math.sqrt(statistics.variance(xa) + statistics.variance(xb))
        if spread > 0:
            us.append((statistics.median(xb) - statistics.median(xa)) / spread)
    print(f"{os.path.normpath(a)}  ->  {os.path.normpath(b)}")
    print(f"  rho A {rho_a['correlation']:.3f} ({rho_a['pairs']} pairs)" if rho_a else "  rho A none", end="")
    print(f", rho B {rho_b['correlation']:.3f}" if rho_b else ", rho B none")
    if len(us) < 2:
        print(f"  points {len(us)}: too few points visited twice in both runs to judge")
        return
    mean_u = statistics.fmean(us)
    mean_sq = statistics.fmean(u * u for u in us)
    sd_u = statistics.stdev(us)
    if mean_sq == 0 or sd_u == 0:
        print(f"  points {len(us)}: the two runs agree on every point (the same data?): nothing to judge")
        return
    rho = rho_a["correlation"] if rho_a else 0.0
    z_rho = f"{mean_u / math.sqrt(rho * mean_sq):+.2f}" if rho > 0 else "none (no drift in A: independent draws)"
    print(f"  points {len(us)}: mean u {mean_u:+.3f}, share {mean_u * mean_u / mean_sq:.3f}; "
          f"z if independent {mean_u * math.sqrt(len(us)) / sd_u:+.1f}, z if rho {z_rho}")


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--pollscale", default=os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "build",
                                                       "release", "app", "pollscale"))
    p.add_argument("datasets", nargs="+")
    args = p.parse_args()
    if len(args.datasets) % 2:
        p.error("datasets come in pairs: A B [A B ...]")
    try:
        for i in range(0, len(args.datasets), 2):
            judge(args.pollscale, args.datasets[i], args.datasets[i + 1])
    except (OSError, subprocess.CalledProcessError, KeyError, ValueError, statistics.StatisticsError) as e:
        print(f"shared_drift: {e}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
