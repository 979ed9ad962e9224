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
datasets/machines, the corpus of hosts) stands for every dataset beneath it; when a machine
has several datasets there (datasets/machines/HOST/...), a second table gives one row per
machine, the worst of its datasets in each column, and the worst machine.
`--rows` also lists the held-out rows whose |error| exceeds a threshold.

`--bands` adds a table that tells a bias from scatter: the extrapolated scans of the
mechanisms that walk every descriptor (select, pselect, poll, ppoll in find_active), by how
far past the largest trained n they lie, each band's signed median error, the share of its
95% intervals that hold the measurement and their median relative half-width — for the
scans that stream (timeout 0 over pipes and eventfds) and for the rest (blocking, sockets),
and a last row per family counting the datasets whose band reads low or high.
A model change that moves one band on one host and the opposite way on another shows here.

Usage: bench/model_targets.py [--pollscale PATH] [--statistic median|fastest|adjusted] [--validate-option=OPT]...
                              [--rows PCT] [--bands] [--keep DIR] DATASET...
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




# The mechanisms whose every call walks all n descriptors (model/working_set.hpp, scans_every_fd).
SCANNING = ("select", "pselect", "poll", "ppoll")
# Bands of the extrapolation factor (n over the largest trained n): lower bound, upper bound, label.
BANDS = ((0, 3, "<= 3x"), (3, 7, "3-7x"), (7, 12, "7-12x"), (12, float("inf"), "> 12x"))
FAMILIES = ("streaming", "other")


def scan_family(r):
    """'streaming' for a timeout-0 scan over pipes or eventfds (a walk the prefetchers can
    follow, model/working_set.hpp scan_streams), 'other' for the rest of the scanning
    mechanisms' find_active rows (blocking calls, sockets), None for rows that do not scan."""
    if r["scenario"] != "find_active" or r["mechanism"] not in SCANNING:
        return None
    return "streaming" if str(r.get("blocking")) == "0" and r["fd_kind"] in ("pipe", "eventfd") else "other"


def band_of(r):
    f = r.get("extrapolation") or 1
    return next(label for lo, hi, label in BANDS if lo < f <= hi or (lo == 0 and f <= hi))


def band_stats(rows):
    """Signed median relative error, coverage and median relative half-width of rows (None when empty)."""
    errs = [r["rel_err"] for r in rows if r.get("rel_err") is not None]
    if not errs:
        return None
    held = [r for r in rows if r.get("lo") is not None and r.get("hi") is not None and r.get("predicted")]
    inside = sum(1 for r in held if r["lo"] <= r["measured"] <= r["hi"])
    widths = [(r["hi"] - r["lo"]) / (2 * r["predicted"]) for r in held]
    return {"bias": statistics.median(errs), "n": len(errs), "inside": inside, "held": len(held),
            "halfwidth": statistics.median(widths) if widths else None}


def band_cell(st):
    if st is None:
        return "-"
    cov = f"{100 * st['inside'] / st['held']:.0f}% of {st['held']}" if st["held"] else "no interval"
    hw = f"{100 * st['halfwidth']:.0f}%" if st["halfwidth"] is not None else "-"
    return f"{100 * st['bias']:+.1f}%, {cov}, {hw}"


def print_bands(per_dataset):
    """per_dataset: [(label, extrapolation rows)]. One row per dataset and family, then a total per family."""
    print()
    print("Extrapolated scans (select, pselect, poll, ppoll) by n over the largest trained n: "
          "signed median error, 95% intervals holding the measurement, median relative half-width")
    print()
    print("| dataset | scans | " + " | ".join(label for _, _, label in BANDS) + " |")
    print("|---|---|" + "---|" * len(BANDS))
    pooled = {(f, b[2]): [] for f in FAMILIES for b in BANDS}
    signs = {(f, b[2]): [0, 0] for f in FAMILIES for b in BANDS}  # datasets reading low, high
    for name, rows in per_dataset:
        for fam in FAMILIES:
            cells = []
            for _, _, label in BANDS:
                these = [r for r in rows if scan_family(r) == fam and band_of(r) == label]
                st = band_stats(these)
                pooled[(fam, label)] += these
                if st is not None and st["bias"] != 0:
                    signs[(fam, label)][st["bias"] > 0] += 1
                cells.append(band_cell(st))
            print(f"| {name} | {fam} | " + " | ".join(cells) + " |")
    for fam in FAMILIES:
        cells = []
        for _, _, label in BANDS:
            st = band_stats(pooled[(fam, label)])
            low, high = signs[(fam, label)]
            cells.append("-" if st is None else f"low in {low}, high in {high}; " + band_cell(st))
        print(f"| (all) | {fam} | " + " | ".join(cells) + " |")


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


def machine(path):
    """The corpus host a dataset belongs to (datasets/machines/HOST/DATASET), else the dataset itself."""
    parts = os.path.normpath(path).split(os.sep)
    return parts[-2] if len(parts) >= 3 and parts[-3] == "machines" else label(path)


def worst_of(rows):
    """Per column, the worst (value, text) of rows of (value, text) pairs: the largest value (the
    coverage columns carry minus the coverage), a NaN never."""
    return [max(column, key=lambda p: -1e300 if p[0] != p[0] else p[0]) for column in zip(*rows)]


def print_machines(per_machine):
    """One row per machine with more than one dataset beside it: the worst of its datasets."""
    if all(len(rows) < 2 for rows in per_machine.values()):
        return
    print()
    print("Per machine, the worst of its datasets in each column:")
    print()
    print("| machine (datasets) | extra. select | extra. poll | extra. epoll | extra. sockets | inter. find_active "
          "| inter. token_ring | coverage extra. | coverage inter. | half-width extra. | interval score extra. |")
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    worst_rows = []
    for name, rows in per_machine.items():
        w = worst_of(rows)
        worst_rows.append(w)
        print(f"| {name} ({len(rows)}) | " + " | ".join(text for _, text in w) + " |")
    print("| (worst) | " + " | ".join(text for _, text in worst_of(worst_rows)) + " |")


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
    ap.add_argument("--bands", action="store_true",
                    help="also tabulate the extrapolated scans by how far they lie past the training data: "
                         "signed median error, coverage and half-width per band, streaming scans and the rest")
    ap.add_argument("--statistic", default="median", choices=("median", "fastest", "adjusted"),
                    help="what validate fits and compares (pollscale validate --statistic)")
    ap.add_argument("--validate-option", action="append", default=[], metavar="OPT",
                    help="passed to every pollscale validate, e.g. --validate-option=--curvature-min-n=4 (repeatable)")
    a = ap.parse_args()

    print("| dataset | extra. select | extra. poll | extra. epoll | extra. sockets | inter. find_active "
          "| inter. token_ring | coverage extra. | coverage inter. | half-width extra. | interval score extra. |")
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    listed = []
    banded = []
    per_machine = {}  # machine -> per dataset, per column: (value, text); larger is worse
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
        per_machine.setdefault(machine(d), []).append(list(zip(values, cells)))
        print(f"| {label(d)} | " + " | ".join(cells) + " |")
        banded.append((label(d), ex))
        if a.rows is not None:
            for kind, rows in (("extra", ex), ("inter", it)):
                for r in rows:
                    if r.get("rel_err") is not None and abs(r["rel_err"]) * 100 > a.rows:
                        listed.append(f"{label(d)} {kind} {describe(r)}: measured "
                                      f"{r['measured']:.6g} predicted {r['predicted']:.6g} ({100 * r['rel_err']:+.1f}%)")
    if per_machine:
        print("| (worst) | " + " | ".join(text for _, text in worst_of(
            [row for rows in per_machine.values() for row in rows])) + " |")
        print_machines(per_machine)
    if a.bands and banded:
        print_bands(banded)
    for line in listed:
        print(line)


if __name__ == "__main__":
    main()
