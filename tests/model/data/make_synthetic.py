#!/usr/bin/env python3
"""Writes tests/model/data/synthetic/: a small calibration dataset with planted costs.

The shapes follow docs/datasets.md; the planted formulas are those model/ should find:
  poll, pipes:      T = 170 + 30 n + 1.5 n dlat(n 144 B)        (working-set step past L2)
  select, pipes:    T = 190 + 32 n + 2 words + 0.6 n dlat(n 144 B)
  epoll lt, pipes:  T = 210 + 78 k                               (flat in n)
  token_ring poll:  1/X = 900 ns + 30 n + 1.0 n dlat(n 144 B)  (X in 1/s)
  interest_churn epoll add: T = 400 + 25 log2 n
  custom (no mechanistic family): T = 50 + 0.8 n^1.5
dlat(W) = 9 (1 - 1 MiB/W)+ + 75 (1 - 32 MiB/W)+ ns: the default latencies of
model/working_set.cpp with this context's caches. The planted 1.5 and 0.6 loads per fd
differ from the prior's 1 on purpose: the step beyond the training range is then off by
a few percent and the interval must say so. Noise: 1% relative, Gaussian, 15
samples per point, seeded. Run from the repository root; output is deterministic.
"""
import json
import math
import os
import random

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "synthetic")
rng = random.Random(20240611)
KEYS = ["scenario", "mechanism", "variant", "fd_kind", "n_fds", "n_active", "active_pos", "max_fd",
        "blocking", "threads", "cpus", "pinning", "metric", "unit"]
L2, L3 = 1 << 20, 32 << 20


def dlat(w):
    return 9 * max(0.0, 1 - L2 / w) + 75 * max(0.0, 1 - L3 / w) if w > 0 else 0.0


def key(scenario, mechanism, variant, kind, n, k, metric, unit, max_fd=None):
    return {"scenario": scenario, "mechanism": mechanism, "variant": variant, "fd_kind": kind,
            "n_fds": n, "n_active": k, "active_pos": "middle" if k is not None else "",
            "max_fd": max_fd, "blocking": 0, "threads": 1, "cpus": 1, "pinning": "0",
            "metric": metric, "unit": unit}


def points():
    ns = [1, 4, 17, 70, 290, 1000, 1200, 4900, 9000, 16000]
    for n in ns:
        yield key("find_active", "poll", "", "pipe", n, 1, "time_per_call", "ns"), 170 + 30 * n + 1.5 * n * dlat(n * 144)
        maxfd = 2 * n + 4
        words = math.ceil((maxfd + 1) / 64)
        yield (key("find_active", "select", "", "pipe", n, 1, "time_per_call", "ns", maxfd),
               190 + 32 * n + 2 * words + 0.6 * n * dlat(n * 144))
        yield key("find_active", "epoll", "lt", "pipe", n, 1, "time_per_call", "ns"), 210 + 78
        yield key("token_ring", "poll", "", "pipe", n, 1, "throughput", "1/s"), 1e9 / (900 + 30 * n + 1.0 * n * dlat(n * 144))
        yield key("interest_churn", "epoll", "", "pipe", n, None, "add", "ns"), 400 + 25 * math.log2(n)
        yield key("custom", "", "", "", n, None, "time_per_op", "ns"), 50 + 0.8 * n ** 1.5
    for k in (10, 100):
        yield key("find_active", "poll", "", "pipe", 1000, k, "time_per_call", "ns"), 170 + 30 * 1000 + 1.5 * 1000 * dlat(144e3)
        yield key("find_active", "epoll", "lt", "pipe", 1000, k, "time_per_call", "ns"), 210 + 78 * k


def text(v):
    return "" if v is None else str(v)


def median_ci_ranks(n):
    best = (0, n - 1)
    for j in range(n):
        if 2 * j + 1 >= n:
            break
        tail = sum(math.comb(n, i) for i in range(j + 1)) / 2 ** n
        if 1 - 2 * tail < 0.95:
            break
        best = (j, n - 1 - j)
    return best


def summary_fields(values):
    v = sorted(values)
    n = len(v)
    med = v[n // 2] if n % 2 else 0.5 * (v[n // 2 - 1] + v[n // 2])
    mean = sum(v) / n
    sd = math.sqrt(sum((x - mean) ** 2 for x in v) / (n - 1))
    lo, hi = median_ci_ranks(n)
    return [n, med, mean, sd, sd / math.sqrt(n), v[lo], v[hi], v[0], v[-1]]


def main():
    os.makedirs(OUT, exist_ok=True)
    context = {"schema_version": 1, "host": "synthetic", "kernel": "planted",
               "caches": [{"level": 1, "type": "Data", "size_bytes": 49152},
                          {"level": 2, "type": "Unified", "size_bytes": L2},
                          {"level": 3, "type": "Unified", "size_bytes": L3}],
               "rlimit_sigpending": {"soft": 63000, "hard": 63000},
               "warnings": [], "skipped": [],
               "note": "written by tests/model/data/make_synthetic.py; planted costs, 1% noise"}
    with open(os.path.join(OUT, "context.json"), "w") as f:
        json.dump(context, f, indent=2)
        f.write("\n")
    samples = ["%s,rep,value" % ",".join(KEYS)]
    summary = ["%s,n,median,mean,stddev,stderr_mean,ci95_lo,ci95_hi,min,max" % ",".join(KEYS)]
    for k, truth in points():
        values = [truth * (1 + rng.gauss(0, 0.01)) for _ in range(15)]
        prefix = ",".join(text(k[c]) for c in KEYS)
        samples += ["%s,%d,%.6g" % (prefix, rep, v) for rep, v in enumerate(values)]
        values = [float("%.6g" % v) for v in values]
        summary.append(prefix + "," + ",".join("%.10g" % x for x in summary_fields(values)))
    for name, lines in (("samples.csv", samples), ("summary.csv", summary)):
        with open(os.path.join(OUT, name), "w") as f:
            f.write("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
