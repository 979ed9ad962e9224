#!/usr/bin/env python3
"""The model issue's accuracy targets, measured with `pollscale validate` on calibration datasets.

For each DATASET it runs the two protocols of docs/model.md section 8:

  extrapolation   validate --data D --train 'n_fds<=1000' --skip-unfittable
  interpolation   validate --data D --train 'n_rank%2==0 || n_fds==max || n_active>1' --skip-unfittable

and prints one markdown row per dataset with the figures the targets name: the median
|relative error| of the extrapolated find_active rows of select, poll and epoll (target
<= 10% each), the interpolation MAPE of find_active and token_ring (<= 5%), and the share
of held-out rows whose 95% interval holds the measurement (>= 90%), extrapolating and
interpolating. `--rows` also lists the held-out rows whose |error| exceeds a threshold.

Usage: bench/model_targets.py [--pollscale PATH] [--rows PCT] [--keep DIR] DATASET...
Exit status: 0, or 2 when pollscale fails on a dataset (its message is shown).
"""
import argparse
import json
import os
import statistics
import subprocess
import sys

PROTOCOLS = {
    "extra": "n_fds<=1000",
    "inter": "n_rank%2==0 || n_fds==max || n_active>1",
}


def run_validate(pollscale, data, train, keep):
    cmd = [pollscale, "validate", "--data", data, "--train", train, "--skip-unfittable", "--format", "json"]
    done = subprocess.run(cmd, capture_output=True, text=True)
    if done.returncode != 0:
        print(f"model_targets: {' '.join(cmd)} failed ({done.returncode}): {done.stderr.strip()}", file=sys.stderr)
        sys.exit(2)
    if keep:
        name = os.path.basename(os.path.normpath(data)) + (".extra" if train == PROTOCOLS["extra"] else ".inter")
        with open(os.path.join(keep, name + ".json"), "w") as f:
            f.write(done.stdout)
    return json.loads(done.stdout)


def errors(rows):
    return [abs(r["rel_err"]) for r in rows if r.get("rel_err") is not None]


def median_pct(rows):
    e = errors(rows)
    return 100 * statistics.median(e) if e else float("nan")


def mape_pct(rows):
    e = errors(rows)
    return 100 * sum(e) / len(e) if e else float("nan")




def describe(r):
    keys = ("scenario", "mechanism", "variant", "fd_kind", "blocking", "cpus", "active_pos", "n_active", "n_fds")
    return " ".join(f"{k}={r.get(k, '')}" for k in keys if r.get(k, "") != "")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("datasets", nargs="+", metavar="DATASET")
    ap.add_argument("--pollscale", default="build/release/app/pollscale")
    ap.add_argument("--rows", type=float, default=None, metavar="PCT",
                    help="also list held-out rows whose |error| exceeds PCT percent")
    ap.add_argument("--keep", default=None, metavar="DIR", help="write each validate JSON into DIR")
    a = ap.parse_args()

    print("| dataset | extra. select | extra. poll | extra. epoll | inter. find_active | inter. token_ring "
          "| coverage extra. | coverage inter. |")
    print("|---|---|---|---|---|---|---|---|")
    listed = []
    for d in a.datasets:
        ex_doc = run_validate(a.pollscale, d, PROTOCOLS["extra"], a.keep)
        it_doc = run_validate(a.pollscale, d, PROTOCOLS["inter"], a.keep)
        ex, it = ex_doc["rows"], it_doc["rows"]
        fa = [r for r in ex if r["scenario"] == "find_active"]
        cells = [f"{median_pct([r for r in fa if r['mechanism'] == m]):.1f}%" for m in ("select", "poll", "epoll")]
        cells.append(f"{mape_pct([r for r in it if r['scenario'] == 'find_active']):.1f}%")
        cells.append(f"{mape_pct([r for r in it if r['scenario'] == 'token_ring']):.1f}%")
        for doc in (ex_doc, it_doc):  # validate's own count (a rate's interval may be open above)
            total = doc["summary"]["n_with_interval"]
            cells.append(f"{100 * doc['summary']['coverage']:.1f}% of {total}" if total else "none")
        print(f"| {os.path.basename(os.path.normpath(d))} | " + " | ".join(cells) + " |")
        if a.rows is not None:
            for kind, rows in (("extra", ex), ("inter", it)):
                for r in rows:
                    if r.get("rel_err") is not None and abs(r["rel_err"]) * 100 > a.rows:
                        listed.append(f"{os.path.basename(os.path.normpath(d))} {kind} {describe(r)}: measured "
                                      f"{r['measured']:.6g} predicted {r['predicted']:.6g} ({100 * r['rel_err']:+.1f}%)")
    for line in listed:
        print(line)


if __name__ == "__main__":
    main()
