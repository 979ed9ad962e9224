#!/usr/bin/env python3
"""Add a calibration dataset to the machine corpus (datasets/machines/), or say whether its host is there.

The corpus holds calibrations of every distinct host pollscale has run on, so that a model
change can be judged on machines it was not tuned on (docs/model.md, "Judged on every
machine"). A host is named by what its context.json says about it: CPU model, the sizes of
its L2 and L3 caches, online CPUs and kernel release, e.g.

    amd-epyc_l2-512k_l3-32m_2cpu_6.18.44-fc-v1045

Each dataset goes to datasets/machines/<host-id>/<profile>-<UTC time>/ with context.json and
summary.csv as measured, sentinel.csv.gz (and wake_sentinel.csv.gz, placement_sentinel.csv.gz), and samples.csv.gz. To keep a dataset under the
size budget (1 MB by default) the raw samples may be thinned: every k-th sample row of each
visit of each point is kept, with k the smallest that fits; summary.csv was computed from all
of them, and corpus.json records k and the row counts. Where even one sample row per visit
does not fit beside a plain summary.csv (a full profile's), the summary is kept gzipped
(summary.csv.gz, which pollscale and the bench scripts read alike) and the samples are
thinned again from all rows; corpus.json says so. The call_spread scenario's rows are
kept whole: each is one operation timed alone, and its shape (datasets/call_spread.hpp) needs
at least 300 of them per point (about 100 kB gzipped for a quick calibration's seven points).
pollscale reads the .gz files directly.

Usage:
  scripts/corpus_add.py DATASET [--corpus DIR] [--budget BYTES]   add it (refuses to overwrite)
  scripts/corpus_add.py --host-id DATASET                         print the host id
  scripts/corpus_add.py --check DATASET [--corpus DIR]            exit 0 if the host is in the corpus, 1 if not

Exit status: 0 done; 1 (--check) host not in the corpus; 2 bad input (named on stderr);
3 the dataset cannot fit the budget even thinned to one row per visit with its summary gzipped.
"""
import argparse
import csv
import gzip
import io
import json
import os
import re
import shutil
import sys
import tempfile

DEFAULT_CORPUS = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "datasets", "machines"))
# Columns that identify a point and its visit in samples.csv (the rest are the measurement).
POINT_COLUMNS = ("scenario", "mechanism", "variant", "fd_kind", "n_fds", "n_active", "active_pos", "max_fd",
                 "blocking", "threads", "cpus", "pinning", "metric", "unit")


def fail(message, code=2):
    print(f"corpus_add: {message}", file=sys.stderr)
    sys.exit(code)


def read_context(dataset):
    path = os.path.join(dataset, "context.json")
    try:
        with open(path) as f:
            return json.load(f)
    except OSError as e:
        fail(f"{path}: {e.strerror}")
    except json.JSONDecodeError as e:
        fail(f"{path}:{e.lineno}: not JSON ({e.msg})")


def slug(text):
    return re.sub(r"[^a-z0-9.]+", "-", text.lower()).strip("-") or "unknown"


def size_text(size_bytes):
    for unit, div in (("g", 1 << 30), ("m", 1 << 20), ("k", 1 << 10)):
        if size_bytes >= div and size_bytes % div == 0:
            return f"{size_bytes // div}{unit}"
    return str(size_bytes)


def host_id(ctx, where):
    """The host's name in the corpus, from the facts its context records."""
    caches = {c.get("level"): c.get("size_bytes") for c in ctx.get("caches") or [] if c.get("type") != "Instruction"}
    missing = [name for name, value in (("cpu_model", ctx.get("cpu_model")), ("kernel", ctx.get("kernel")),
                                        ("cpus_online", ctx.get("cpus_online"))) if not value]
    if missing:
        fail(f"{where}: context lacks {', '.join(missing)}; cannot name the host")
    parts = [slug(ctx["cpu_model"])]
    for level in (2, 3):
        if caches.get(level):
            parts.append(f"l{level}-{size_text(int(caches[level]))}")
    parts += [f"{int(ctx['cpus_online'])}cpu", slug(ctx["kernel"])]
    return "_".join(parts)


def dataset_name(ctx):
    calibration = ctx.get("calibration") or {}
    profile = calibration.get("profile") or "dataset"
    # A calibration of some scenarios only (the CPU-scaling campaign's four, say) is no
    # quick or full profile of the machine: "full-part-..." keeps tools and readers from
    # taking it for one.
    if calibration.get("scenarios"):
        profile += "-part"
    when = re.sub(r"[^0-9TZ]", "", ctx.get("time_utc") or "")  # 20261201T125036Z
    return f"{slug(profile)}-{when}" if when else slug(profile)


def open_samples(dataset):
    for name, opener in (("samples.csv", open), ("samples.csv.gz", gzip.open)):
        path = os.path.join(dataset, name)
        if os.path.exists(path):
            return path, opener(path, "rt", newline="")
    fail(f"{os.path.join(dataset, 'samples.csv')}: no such file")


def read_samples(dataset):
    path, f = open_samples(dataset)
    with f:
        reader = csv.reader(f)
        header = next(reader, None)
        if not header:
            fail(f"{path}: empty")
        missing = [c for c in POINT_COLUMNS + ("value",) if c not in header]
        if missing:
            fail(f"{path}:1: missing column(s) {', '.join(missing)}")
        rows = list(reader)
    for i, r in enumerate(rows):
        if len(r) != len(header):
            fail(f"{path}:{i + 2}: expected {len(header)} fields, found {len(r)}")
    return path, header, rows


# Scenarios whose samples are single operations, kept whole (their spread is the measurement).
WHOLE_SCENARIOS = ("call_spread",)


def thin(header, rows, k):
    """Every k-th row of each (point, visit), in file order: every visit keeps its first row;
    rows of WHOLE_SCENARIOS are all kept."""
    idx = [header.index(c) for c in POINT_COLUMNS]
    scenario = header.index("scenario")
    visit = header.index("visit") if "visit" in header else None
    seen = {}
    kept = []
    for r in rows:
        key = tuple(r[i] for i in idx) + ((r[visit],) if visit is not None else ())
        n = seen.get(key, 0)
        seen[key] = n + 1
        if n % k == 0 or r[scenario] in WHOLE_SCENARIOS:
            kept.append(r)
    return kept


def gzip_csv(header, rows):
    text = io.StringIO()
    w = csv.writer(text, lineterminator="\n")
    w.writerow(header)
    w.writerows(rows)
    # mtime=0: the same rows give the same bytes (deterministic corpus files).
    return gzip.compress(text.getvalue().encode(), compresslevel=9, mtime=0)


def gzip_file(path):
    with open(path, "rb") as f:
        return gzip.compress(f.read(), compresslevel=9, mtime=0)


def add(dataset, corpus, budget):
    ctx = read_context(dataset)
    hid = host_id(ctx, os.path.join(dataset, "context.json"))
    target = os.path.join(corpus, hid, dataset_name(ctx))
    if os.path.exists(target):
        fail(f"{target}: already in the corpus")
    for name in ("summary.csv",):
        if not os.path.exists(os.path.join(dataset, name)):
            fail(f"{os.path.join(dataset, name)}: no such file")
    files = {"context.json": open(os.path.join(dataset, "context.json"), "rb").read(),
             "summary.csv": open(os.path.join(dataset, "summary.csv"), "rb").read()}
    for name in ("sentinel.csv", "wake_sentinel.csv", "placement_sentinel.csv"):
        if os.path.exists(os.path.join(dataset, name)):
            files[name + ".gz"] = gzip_file(os.path.join(dataset, name))
    samples_path, header, rows = read_samples(dataset)
    k = 1
    while True:
        fixed = sum(len(b) for b in files.values()) + 1024  # corpus.json
        kept = thin(header, rows, k)
        packed = gzip_csv(header, kept)
        if fixed + len(packed) <= budget:
            break
        if len(kept) == len(thin(header, rows, k * 1000)):  # one row per visit already
            if "summary.csv" not in files:
                fail(f"{dataset}: {fixed + len(packed)} bytes even with one sample row per visit and "
                     f"summary.csv gzipped (budget {budget})", 3)
            # A summary too large to keep plain (a full profile's 2,800 points): gzipped, pollscale
            # and the bench scripts read either, and the samples start over from all rows.
            files["summary.csv.gz"] = gzip.compress(files.pop("summary.csv"), compresslevel=9, mtime=0)
            k = 1
            continue
        # Jump close to the fitting k in one step, then creep.
        k = max(k + 1, int(k * len(packed) / max(1, budget - fixed)))
    files["samples.csv.gz"] = packed
    files["corpus.json"] = (json.dumps({
        "host_id": hid,
        "source": os.path.basename(os.path.normpath(dataset)),
        "samples": {"rows_total": len(rows), "rows_kept": len(kept), "every_kth_row_of_each_visit": k,
                    "whole_scenarios": list(WHOLE_SCENARIOS),
                    "note": "summary.csv was computed from all rows before thinning; "
                            "the whole_scenarios' rows are all kept"},
        "summary": "summary.csv.gz: gzipped, the dataset did not fit the budget with it plain"
                   if "summary.csv.gz" in files else "summary.csv",
    }, indent=2) + "\n").encode()
    # Write into a temporary sibling, then rename: a half-added dataset never appears.
    os.makedirs(os.path.join(corpus, hid), exist_ok=True)
    tmp = tempfile.mkdtemp(prefix=".adding-", dir=os.path.join(corpus, hid))
    try:
        os.chmod(tmp, 0o755)  # mkdtemp's 0700 would follow the files into the repository
        for name, data in files.items():
            with open(os.path.join(tmp, name), "wb") as f:
                f.write(data)
        os.rename(tmp, target)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    total = sum(len(b) for b in files.values())
    print(f"{target}: {total} bytes; samples {len(kept)} of {len(rows)} rows (1 in {k} of each visit)")
    # The corpus's estimates read every run: say which to estimate again (datasets/machines/README.md).
    print("corpus_add: estimate the corpus's spreads again with this run in them: scripts/corpus_capacity.py "
          "(where it measured private_sets on more than one CPU) and scripts/corpus_between_runs.py --judge "
          "(where its host has another run)", file=sys.stderr)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("dataset", metavar="DATASET")
    ap.add_argument("--corpus", default=DEFAULT_CORPUS, help="the corpus directory (default datasets/machines)")
    ap.add_argument("--budget", type=int, default=1_000_000, help="bytes a dataset may take (default 1000000)")
    mode = ap.add_mutually_exclusive_group()
    mode.add_argument("--host-id", action="store_true", help="print the host id and exit")
    mode.add_argument("--check", action="store_true", help="exit 0 when the host is in the corpus, else 1")
    a = ap.parse_args()
    if a.budget <= 0:
        fail(f"--budget {a.budget}: must be positive")
    ctx = read_context(a.dataset)
    hid = host_id(ctx, os.path.join(a.dataset, "context.json"))
    if a.host_id:
        print(hid)
    elif a.check:
        present = os.path.isdir(os.path.join(a.corpus, hid))
        print(f"{hid}: {'in the corpus' if present else 'not in the corpus yet'}")
        sys.exit(0 if present else 1)
    else:
        add(a.dataset, a.corpus, a.budget)


if __name__ == "__main__":
    main()
