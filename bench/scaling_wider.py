#!/usr/bin/env python3
"""The wider-machine protocol of docs/scaling.md judged on CPU-scaling datasets.

For each DATASET (a calibration with producers, private_sets or shared_epoll rows over
several CPU counts, such as the campaigns in datasets/scaling/) and each narrow width C0
(default 2, 4 and 8: what a 2-vCPU VM, a laptop and a small server measure), runs

    pollscale scale DATASET --from-cpus C0 --format json

which predicts every series wider than C0 from the series of at most C0 CPUs, and prints
one Markdown row per dataset, C0 and table: how many measurements were predicted, the
median and the largest |relative error|, the share with an interval, the coverage of
those intervals, and what gave the predictions (the dedicated-CPU law, the capacity
bound or the serial stage, with how many rows each). Then one row per dataset and C0 for
all tables together. Widths C0 that leave nothing wider in a dataset are skipped.
--no-serial-stage passes the flag on: the protocol as first fixed, for comparison.

Usage: bench/scaling_wider.py [--pollscale PATH] [--from-cpus 2,4,8] [--no-serial-stage] DATASET...
Exit status: 0, or 2 when pollscale fails on a dataset (its message is shown).
"""
import argparse
import json
import os
import subprocess
import sys


def scale(pollscale, data, c0, without_stage):
    cmd = [pollscale, "scale", data, "--from-cpus", str(c0), "--format", "json"]
    if without_stage:
        cmd.append("--no-serial-stage")
    done = subprocess.run(cmd, capture_output=True, text=True)
    if done.returncode != 0:
        sys.stderr.write(f"scaling_wider: {' '.join(cmd)} failed ({done.returncode}): {done.stderr.strip()}\n")
        sys.exit(2)
    return json.loads(done.stdout)


def percent(x):
    return "-" if x is None else f"{100 * x:.1f}%"


def sources(family):
    """How many predicted rows each rule gave, e.g. 'dedicated 9, capacity 15'."""
    counts, seen = {}, set()
    for series in family.get("series", []):
        for row in series.get("rows", []):
            # A dedicated row belongs to every series wide enough: count each measurement once.
            if row.get("measured") is None or (row["n"], row["measured"]) in seen:
                continue
            seen.add((row["n"], row["measured"]))
            rule = {"cpu_capacity": "capacity", "serial_stage": "serial", "pipeline": "pipeline"}.get(
                row.get("limited_by"), "dedicated")
            counts[rule] = counts.get(rule, 0) + 1
    return ", ".join(f"{k} {v}" for k, v in sorted(counts.items())) or "-"


def row(name, c0, table, acc, how):
    n = acc.get("n") or 0
    with_interval = acc.get("n_with_interval") or 0
    return (f"| {name} | {c0} | {table} | {n} | {percent(acc.get('median_rel_err'))} | "
            f"{percent(acc.get('max_rel_err'))} | {with_interval} | {percent(acc.get('coverage'))} | {how} |")


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--pollscale", default=os.path.join(here, "..", "build", "release", "app", "pollscale"))
    ap.add_argument("--from-cpus", default="2,4,8", help="comma list of narrow widths C0")
    ap.add_argument("--no-serial-stage", action="store_true", help="the protocol as first fixed")
    ap.add_argument("datasets", nargs="+", metavar="DATASET")
    a = ap.parse_args()
    try:
        widths = [int(w) for w in a.from_cpus.split(",")]
    except ValueError:
        ap.error(f"--from-cpus: '{a.from_cpus}' is not a comma list of integers")
    if any(w < 1 for w in widths):
        ap.error(f"--from-cpus: '{a.from_cpus}' holds a width below 1")
    print("| dataset | C0 | table | predicted | median \\|error\\| | max \\|error\\| | with interval | coverage | given by |")
    print("|---|---|---|---|---|---|---|---|---|")
    for data in a.datasets:
        name = os.path.basename(os.path.normpath(data))
        for c0 in widths:
            result = scale(a.pollscale, data, c0, a.no_serial_stage)
            if not (result.get("summary") or {}).get("n"):
                continue
            for family in result["families"]:
                table = family["table"].split(" ", 1)[0]
                print(row(name, c0, table, family["accuracy"], sources(family)))
            print(row(name, c0, "**all**", result["summary"], ""))


if __name__ == "__main__":
    main()
