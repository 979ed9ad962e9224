#!/usr/bin/env python3
"""Two CPUs predicted from one for the producers scenario, by a rule written down before the
held-out datasets were looked at (docs/scaling.md, "One CPU to two: the pipeline").

On one CPU the consumer and its T producers share the CPU, so 1/X1(T) is the CPU time of
one event: one producer's write w plus the consumer's share a/T (one epoll_wait and one
eventfd read take every event the producers wrote while the consumer was off the CPU).
w and a are fitted by least squares on the one-CPU rows, 1/X1(T) = w + a/T. On two CPUs
the consumer sits on the first CPU and producer i on CPU (i + 1) mod 2, and the eventfd's
line crosses between the CPUs on every event: L, the cache_line probe's round trip
between the two CPUs (calibrate/probes/cache_line.cpp), measured in the same dataset. The
rule:

  T = 1: the producer and the consumer form a pipeline, each paying the line:
         X = min(1 / (w + L), 1 / (a + L));
  T >= 2: both CPUs busy, the second CPU's producers paying the line and the first CPU's
         producers sharing their CPU with the consumer (a/T + L per event):
         X = (1/(w + L) + 1/w) / (1 + (a/T + L)/w).

Beside it, the capacity bound that `pollscale scale D --from-cpus 1` gives: twice the
one-CPU rate at the same T (here from the measured rows, not the law through them).
Prints one Markdown row per dataset: w, a, L, the errors (predicted - measured)/measured
at each T of the two-CPU series for the rule and for the bound, and their medians.
Datasets without producers on one and two CPUs or without a cache_line row are listed as
such.

Usage: bench/producers_pipeline.py DATASET...
Exit status: 0; 2 when a dataset cannot be read.
"""
import csv
import os
import statistics
import sys

from dataset_csv import open_summary


def load(directory):
    """{(cpus, producers): events/s} and the cache line's round trip in seconds (or None)."""
    rates, line = {}, None
    with open_summary(directory) as f:
        for r in csv.DictReader(f):
            if r["scenario"] == "producers" and r["metric"] == "throughput":
                rates[(int(r["cpus"]), int(r["threads"]) - 1)] = float(r["median"])
            elif r["scenario"] == "cache_line" and r["pinning"] == "0+1":
                line = float(r["median"]) * 1e-9
    return rates, line


def fit_one_cpu(rates):
    """w and a of 1/X1(T) = w + a/T, least squares over the one-CPU rows."""
    ts = sorted(t for c, t in rates if c == 1)
    xs = [1.0 / t for t in ts]
    ds = [1.0 / rates[(1, t)] for t in ts]
    mx, md = statistics.fmean(xs), statistics.fmean(ds)
    a = sum((x - mx) * (d - md) for x, d in zip(xs, ds)) / sum((x - mx) ** 2 for x in xs)
    return md - a * mx, a


def pipeline(w, a, line, t):
    if t == 1:
        return min(1.0 / (w + line), 1.0 / (a + line))
    return (1.0 / (w + line) + 1.0 / w) / (1.0 + (a / t + line) / w)


def signed(values):
    return " ".join(f"{v:+.0f}" for v in values)


def main(argv):
    if not argv or argv[0] in ("-h", "--help"):
        print(__doc__)
        return 0
    print("| dataset | w, a, L | T (two CPUs) | rule: error % | median | capacity bound: error % | median |")
    print("|---|---|---|---|---|---|---|")
    for d in argv:
        try:
            rates, line = load(d)
        except (OSError, KeyError, ValueError) as e:
            print(f"producers_pipeline: {d}: {e}", file=sys.stderr)
            return 2
        name = os.path.join(os.path.basename(os.path.dirname(os.path.normpath(d))), os.path.basename(os.path.normpath(d)))
        two = sorted(t for c, t in rates if c == 2 and (1, t) in rates)
        if len([t for c, t in rates if c == 1]) < 2 or not two:
            print(f"| {name} | no producers rows on one and two CPUs | | | | | |")
            continue
        if line is None:
            print(f"| {name} | no cache_line row | | | | | |")
            continue
        w, a = fit_one_cpu(rates)
        rule = [(pipeline(w, a, line, t) - rates[(2, t)]) / rates[(2, t)] * 100 for t in two]
        bound = [(2 * rates[(1, t)] - rates[(2, t)]) / rates[(2, t)] * 100 for t in two]
        print(f"| {name} | {w * 1e6:.2f} µs, {a * 1e6:.2f} µs, {line * 1e9:.0f} ns | {', '.join(map(str, two))} | "
              f"{signed(rule)} | {statistics.median(abs(e) for e in rule):.1f}% | {signed(bound)} | "
              f"{statistics.median(abs(e) for e in bound):.1f}% |")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
