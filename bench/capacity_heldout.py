#!/usr/bin/env python3
"""Judge the corpus's capacity efficiency on calibrations it was not estimated from.

For each dataset, `pollscale scale D --from-cpus 1 --format json` runs twice — with the
capacity efficiency (--capacity-efficiency FILE, by default the corpus's) and without it
(none) — and every measured row of the wider series is compared with its prediction: how
many lie inside their 95% interval, the median |error| and the signed median error, per
dataset and for the rows of the nothing-shared scenarios (private_sets, private_processes,
which the estimate is built from) apart from the rest (the scenarios that share a structure,
where the bound is a ceiling or one candidate of several). docs/scaling.md, "What a CPU
beyond the measured ones delivers", keeps its tables.

Usage: bench/capacity_heldout.py [--pollscale PATH] [--efficiency FILE] [--statistic S] DATASET...
Exit status: 0; 2 bad usage, no pollscale binary or a failed `pollscale scale` (named on stderr).
"""
import argparse
import json
import os
import statistics
import subprocess
import sys

ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
NOTHING_SHARED = ("private_sets", "private_processes")  # datasets::shares_nothing


def fail(message):
    print(f"capacity_heldout: {message}", file=sys.stderr)
    sys.exit(2)


def wider_rows(pollscale, dataset, efficiency, statistic):
    """[(nothing_shared, measured, predicted, lo, hi)] of every measured row of a wider series."""
    cmd = [pollscale, "scale", dataset, "--from-cpus", "1", "--format", "json", "--capacity-efficiency", efficiency,
           "--statistic", statistic]
    r = subprocess.run(cmd, capture_output=True, text=True)
    if r.returncode != 0:
        fail(f"{' '.join(cmd)} exited {r.returncode}: {r.stderr.strip().splitlines()[-1] if r.stderr else ''}")
    out = []
    for f in json.loads(r.stdout).get("families", []):
        shared_nothing = f.get("table", "").split("/")[0] in NOTHING_SHARED
        for s in f.get("series", []):
            if not s.get("measured"):
                continue
            for x in s.get("rows", []):
                if x.get("measured") is None or not x.get("predicted"):
                    continue
                out.append((shared_nothing, x["measured"], x["predicted"], x.get("lo"), x.get("hi")))
    return out


def summary(rows):
    """'inside i/n, median |e| m%, signed s%' of (measured, predicted, lo, hi) rows; '-' for none."""
    if not rows:
        return "-"
    inside = sum(1 for m, p, lo, hi in rows if lo is not None and hi is not None and lo <= m <= hi)
    errors = [p / m - 1 for m, p, lo, hi in rows]
    return (f"{inside}/{len(rows)} inside, median |e| {100 * statistics.median(abs(e) for e in errors):.1f}%, "
            f"signed {100 * statistics.median(errors):+.1f}%")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("datasets", nargs="+", metavar="DATASET")
    ap.add_argument("--pollscale", default=os.path.join(ROOT, "build", "release", "app", "pollscale"))
    ap.add_argument("--efficiency", default=os.path.join(ROOT, "datasets", "machines", "capacity_efficiency.json"))
    ap.add_argument("--statistic", default="median", choices=("median", "fastest", "adjusted"))
    args = ap.parse_args()
    if not os.access(args.pollscale, os.X_OK):
        fail(f"--pollscale: {args.pollscale} is not an executable (build it, or name one)")
    print("| dataset | rows | nothing shared: without → with | the rest: without → with |")
    print("|---|---|---|---|")
    for d in args.datasets:
        if not os.path.isdir(d):
            fail(f"{d}: not a dataset directory")
        bare = wider_rows(args.pollscale, d, "none", args.statistic)
        priced = wider_rows(args.pollscale, d, args.efficiency, args.statistic)
        if len(bare) != len(priced):
            fail(f"{d}: {len(bare)} rows without the efficiency, {len(priced)} with it")
        cols = []
        for group in (True, False):
            a = [r[1:] for r in bare if r[0] == group]
            b = [r[1:] for r in priced if r[0] == group]
            cols.append(f"{summary(a)} → {summary(b)}" if a else "-")
        print(f"| {os.path.basename(os.path.normpath(d))} | {len(bare)} | {cols[0]} | {cols[1]} |")


if __name__ == "__main__":
    main()
