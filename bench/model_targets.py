#!/usr/bin/env python3
"""The model issue's accuracy targets, measured with `pollscale validate` on calibration datasets.

For each DATASET it runs the two protocols of docs/model.md section 8:

  extrapolation   validate D --train 'n_fds<=1000'
  interpolation   validate D --train 'n_rank%2==0 || n_fds==max || n_active>1'

and prints one markdown row per dataset with the figures the targets name: the median
|relative error| of the extrapolated timeout-0 find_active rows of select, poll and epoll
over pipes and eventfds (target <= 10% each) and of the three over sockets (<= 15%;
epoll's blocking and socket rows, and the woken scans, are not among the targets), the
interpolation MAPE of find_active and token_ring (<= 5%), the share
of held-out rows whose 95% interval holds the measurement (>= 90%), extrapolating and
interpolating, and the extrapolation's median relative half-width (<= 30%) and median
relative interval score. Then a row with the worst of each column: the targets hold only
when they hold on every machine. A DATASET that is a directory of datasets (such as
datasets/machines, the corpus of hosts) stands for every dataset beneath it.
`--rows` also lists the held-out rows whose |error| exceeds a threshold.

Usage: bench/model_targets.py [--pollscale PATH] [--statistic median|fastest] [--validate-option=OPT]...
                              [--rows PCT] [--keep DIR] DATASET...
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


def run_validate(pollscale, data, train, keep, extra):
    cmd = [pollscale, "validate", data, "--train", train, "--format", "json"] + extra
    done = subprocess.run(cmd, capture_output=True, text=True)
    if done.returncode != 0:
        print(f"model_targets: {' '.join(cmd)} failed ({done.returncode}): {done.stderr.strip()}", file=sys.stderr)
        sys.exit(2)
    if keep:
        name = os.path.basename(os.path.normpath(data)) + (".extra" if train == PROTOCOLS["extra"] else ".inter")
        os.makedirs(keep, exist_ok=True)
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




def expand(paths):
    """Dataset directories: each path itself, or every dataset (a directory with context.json) beneath it."""
    out = []
    for p in paths:
        if not os.path.isdir(p) or os.path.exists(os.path.join(p, "context.json")):
            out.append(p)
            continue
        found = sorted(root for root, _, files in os.walk(p) if "context.json" in files)
        if not found:
            print(f"model_targets: {p}: no dataset (directory with context.json) beneath it", file=sys.stderr)
            sys.exit(2)
        out += found
    return out


def label(path):
    """host/dataset for a corpus entry, else the directory's name."""
    parts = os.path.normpath(path).split(os.sep)
    return "/".join(parts[-2:]) if len(parts) >= 2 and parts[-3:-2] == ["machines"] else parts[-1]


def describe(r):
    keys = ("scenario", "mechanism", "variant", "fd_kind", "blocking", "cpus", "active_pos", "n_active", "n_fds")
    return " ".join(f"{k}={r[k]}" for k in keys if r.get(k) not in (None, ""))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("datasets", nargs="+", metavar="DATASET")
    ap.add_argument("--pollscale", default=os.path.normpath(os.path.join(
        os.path.dirname(os.path.abspath(__file__)), "..", "build", "release", "app", "pollscale")),
        help="the pollscale binary (default: the Release build beside this script)")
    ap.add_argument("--rows", type=float, default=None, metavar="PCT",
                    help="also list held-out rows whose |error| exceeds PCT percent")
    ap.add_argument("--keep", default=None, metavar="DIR", help="write each validate JSON into DIR")
    ap.add_argument("--statistic", default="median", choices=("median", "fastest"),
                    help="what validate fits and compares (pollscale validate --statistic)")
    ap.add_argument("--validate-option", action="append", default=[], metavar="OPT",
                    help="passed to every pollscale validate, e.g. --validate-option=--curvature-min-n=4 (repeatable)")
    a = ap.parse_args()

    print("| dataset | extra. select | extra. poll | extra. epoll | extra. sockets | inter. find_active "
          "| inter. token_ring | coverage extra. | coverage inter. | half-width extra. | interval score extra. |")
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    listed = []
    worst = None  # per column: (value, text); larger is worse except for coverage
    for d in expand(a.datasets):
        extra = ["--statistic", a.statistic] + a.validate_option
        ex_doc = run_validate(a.pollscale, d, PROTOCOLS["extra"], a.keep, extra)
        it_doc = run_validate(a.pollscale, d, PROTOCOLS["inter"], a.keep, extra)
        ex, it = ex_doc["rows"], it_doc["rows"]
        # The model issue's extrapolation targets: timeout-0 scans (blocking 0) of select,
        # poll and epoll over pipes and eventfds, each mechanism on its own (<= 10%), and
        # over sockets, the three together (<= 15%).
        t0 = [r for r in ex if r["scenario"] == "find_active" and str(r.get("blocking")) == "0"
              and r["mechanism"] in ("select", "poll", "epoll")]
        values = [median_pct([r for r in t0 if r["mechanism"] == m and r["fd_kind"] in ("pipe", "eventfd")])
                  for m in ("select", "poll", "epoll")]
        values.append(median_pct([r for r in t0 if r["fd_kind"] in ("socketpair", "tcp")]))
        values.append(mape_pct([r for r in it if r["scenario"] == "find_active"]))
        values.append(mape_pct([r for r in it if r["scenario"] == "token_ring"]))
        cells = [f"{v:.1f}%" for v in values]
        for doc in (ex_doc, it_doc):  # validate's own count (a rate's interval may be open above)
            total = doc["summary"]["n_with_interval"]
            cov = 100 * doc["summary"]["coverage"] if total else float("nan")
            values.append(-cov)  # lower coverage is worse
            cells.append(f"{cov:.1f}% of {total}" if total else "none")
        for key in ("median_rel_halfwidth", "median_interval_score"):
            v = ex_doc["summary"].get(key)
            v = float("inf") if v == "inf" else (float("nan") if v is None else 100 * v)
            values.append(v)
            cells.append(f"{v:.1f}%")
        worst = [max((x, y), key=lambda p: -1e300 if p[0] != p[0] else p[0]) for x, y in zip(worst, zip(values, cells))] \
            if worst else list(zip(values, cells))
        print(f"| {label(d)} | " + " | ".join(cells) + " |")
        if a.rows is not None:
            for kind, rows in (("extra", ex), ("inter", it)):
                for r in rows:
                    if r.get("rel_err") is not None and abs(r["rel_err"]) * 100 > a.rows:
                        listed.append(f"{label(d)} {kind} {describe(r)}: measured "
                                      f"{r['measured']:.6g} predicted {r['predicted']:.6g} ({100 * r['rel_err']:+.1f}%)")
    if worst:
        print("| (worst) | " + " | ".join(text for _, text in worst) + " |")
    for line in listed:
        print(line)


if __name__ == "__main__":
    main()
