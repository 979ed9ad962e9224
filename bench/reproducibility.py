#!/usr/bin/env python3
"""Does a calibration reproduce? Two calibrations of one machine, compared point by point.

With --pollscale (the default when no DATASET is given) it runs `pollscale calibrate` twice
back to back into DIR/a and DIR/b (extra calibrate options after `--`), then compares them;
with two DATASET directories it compares those. It prints the calibrate issue's figures:

  points         points measured in both runs, matched as `pollscale compare` matches them:
                 without max_fd (where the descriptors landed) unless it tells two points of
                 a run apart
  median |d|     median over points of |a - b| / ((a + b) / 2), a and b the two medians
  p95 |d|        the 95th percentile of the same
  max |d|        the largest
  inside         share of points whose difference lies inside the interval that both runs'
                 95% intervals give it: |a - b| <= sqrt(wa^2 + wb^2), wa the distance from a
                 to its interval's end on b's side (the same for b); a point whose runs agree
                 exactly counts as inside
  op < call      timeout-0 find_active scans over pipes (k = 1) whose write + wait + read
                 (time_per_op) is cheaper than the wait alone (time_per_call), per run: the
                 physics says it cannot be
  reference      the in-run plain poll loop against pollscale's find_active poll at the same
                 moments (context.json "reference"): the median ratio pollscale / loop, per run
  wall           each run's calibration time (context.json calibration.wall_s)
  settling       each run's visits until the visits agree (context.json calibration.settle):
                 the points whose visits disagreed after the rounds, the visits added, and
                 the points still disagreeing at the end
  wake regime    for the cross-CPU points: how many of those past the 95th percentile met
                 cross-CPU wake sentinel levels more than 15% apart in the two runs (each
                 point's median samples.csv wake_sentinel_ns), and the correlation of the
                 points' log(b/a) (a/b for rates: as costs) with their levels' log(b/a)
  fast mode      the same differences from each point's visits that met the machine in its
                 fast mode only (drift sentinel within 1.15x the run's p10: samples.csv
                 sentinel_ns, context.json stability.p10_ns), over the points that had such
                 a visit in both runs: two runs that met different mixes of a machine's
                 speed modes differ in their medians by the mix, and agree here when both
                 met the fast mode
  adjusted       the same differences between the points as `pollscale fit --statistic adjusted`
                 reads them: every sample brought to its run's fast mode by the drift
                 sentinel read at its visit (a time times p10 / reading, a rate divided by
                 it), the median of the visits' medians; with a pollscale binary (--pollscale,
                 or the one that calibrated) also "inside" for them, from `pollscale compare
                 --statistic adjusted`, whose intervals come from the adjusted visits
  placement      the cross-CPU points compared within one placement of the first two CPUs
                 (each visit's samples.csv placement_ns, split into near and far): per
                 level, over the points with visits on it in both runs, median and p95 |d|
                 of their medians over those visits, beside the same over all their visits
  stability      each run's sentinel spread (context.json "stability": p90 / p10 of the
                 sentinel series) and its worst episode; the same for the cross-CPU wake
                 sentinel ("stability"."cross_cpu") where the run had one; and where the
                 host kept the first two CPUs ("stability"."placement": steady, or moved
                 between a near and a far level, with the share near and the moves)

Usage: bench/reproducibility.py [--pollscale PATH] [--dir DIR] [--rows PCT] [-- CALIBRATE-OPTION...]
       bench/reproducibility.py [--rows PCT] DATASET_A DATASET_B
Exit status: 0, or 2 on bad usage, a failed calibration or an unreadable dataset.
"""
import argparse
import csv
import json
import math
import os
import signal
import statistics
import subprocess
import sys
import time

from dataset_csv import KEY, open_samples, open_summary, point_key


def fail(msg):
    print(f"reproducibility: {msg}", file=sys.stderr)
    sys.exit(2)


MAX_FD = KEY.index("max_fd")


def without_max_fd(k):
    return k[:MAX_FD] + ("",) + k[MAX_FD + 1:]


def matching_keys(keys):
    """How a run's points are matched with another run's, as `pollscale compare` matches them:
    without max_fd, which records where the descriptors happened to land and shifts between
    runs, unless it tells two points of the run apart (fd_range's grid of ranges)."""
    counts = {}
    for k in keys:
        counts[without_max_fd(k)] = counts.get(without_max_fd(k), 0) + 1
    return {k: without_max_fd(k) if counts[without_max_fd(k)] == 1 else k for k in keys}


def sample_key(d):
    """The matching key of a samples.csv row of run d (its summary's points decide)."""
    with open_summary(d) as f:
        mapping = matching_keys([point_key(r) for r in csv.DictReader(f)])
    return lambda row: mapping.get(point_key(row), point_key(row))


def read_dataset(d):
    try:
        with open_summary(d) as f:
            by_key = {point_key(r): r for r in csv.DictReader(f)}
        mapping = matching_keys(list(by_key))
        rows = {mapping[k]: r for k, r in by_key.items()}
        with open(os.path.join(d, "context.json")) as f:
            context = json.load(f)
    except (OSError, ValueError) as e:
        fail(f"{d}: {e}")
    return rows, context


def num(r, c):
    return float(r[c])


def rel_diff(a, b):
    mean = (a + b) / 2
    return abs(a - b) / mean if mean > 0 else 0.0


def inside(ra, rb):
    a, b = num(ra, "median"), num(rb, "median")
    if a == b:
        return True
    if a < b:
        ra, rb, a, b = rb, ra, b, a
    wa = a - num(ra, "ci95_lo")  # a is the larger: its lower end faces b
    wb = num(rb, "ci95_hi") - b
    return (a - b) <= math.hypot(wa, wb)


def op_below_call(rows):
    """Timeout-0 pipe scans (k = 1) whose time_per_op median is below time_per_call's."""
    calls = {}
    for k, r in rows.items():
        f = dict(zip(KEY, k))
        if f["scenario"] == "find_active" and f["fd_kind"] == "pipe" and f["blocking"] == "0" and f["n_active"] == "1":
            if f["metric"] in ("time_per_call", "time_per_op"):
                base = tuple(v for c, v in f.items() if c not in ("metric", "max_fd"))
                calls.setdefault(base, {})[f["metric"]] = num(r, "median")
    pairs = [v for v in calls.values() if len(v) == 2]
    below = sum(1 for v in pairs if v["time_per_op"] < v["time_per_call"])
    return below, len(pairs)


def cross_cpu(k):
    """A point whose threads ran on more than one CPU (pinning "0+1", "0+1+0", ...)."""
    cpus = [c for c in dict(zip(KEY, k))["pinning"].split("+") if c != ""]
    return len(set(cpus)) > 1


def percentile(values, q):
    v = sorted(values)
    h = q * (len(v) - 1)
    lo = math.floor(h)
    hi = min(lo + 1, len(v) - 1)
    return v[lo] + (h - lo) * (v[hi] - v[lo])


def reference_text(context):
    ref = context.get("reference") or {}
    parts = []
    for name, entry in sorted(ref.items()):
        ratio = entry.get("median_ratio") if isinstance(entry, dict) else None
        if ratio is not None:
            parts.append(f"{name} {ratio:.3f}")
        elif isinstance(entry, dict) and entry.get("missing"):
            parts.append(f"{name}: {entry['missing']}")
    return ", ".join(parts) if parts else "none"


def settle_text(context):
    s = (context.get("calibration") or {}).get("settle")
    if not s:
        return "none"
    return (f"{s.get('visits', 0)} visits to {s.get('points', 0)} points, {s.get('still_disagree', 0)} still "
            f"disagree (max {s.get('max_visits', '?')} visits)")


def stability_text(context):
    s = context.get("stability")
    if not s:
        return "none"
    text = f"spread {s.get('spread_p90_p10', float('nan')):.3f}, worst {s.get('worst_episode', '?')}"
    x = s.get("cross_cpu")
    if x and "median_ns" in x:
        text += (f"; cross-CPU wake sentinel median {x['median_ns'] / 1000:.1f} us, "
                 f"spread {x.get('spread_p90_p10', float('nan')):.3f}, worst {x.get('worst_episode', '?')}")
    p = s.get("placement")
    if p and "median_ns" in p:
        if p.get("moved"):
            text += (f"; placement moved: near {p.get('near_ns', float('nan')):.0f} ns for "
                     f"{100 * p.get('near_share', float('nan')):.0f}% of readings, far {p.get('far_ns', float('nan')):.0f} ns, "
                     f"{p.get('moves', 0)} moves")
        else:
            text += f"; placement steady, cache line {p['median_ns']:.0f} ns"
    return text


def sample_medians(d, pick):
    """Per point of run d, the median of pick(row) over its samples.csv rows, leaving out the
    rows for which pick gives None; a point with no row picked is absent."""
    values = {}
    try:
        key_of = sample_key(d)
        with open_samples(d) as f:
            for r in csv.DictReader(f):
                v = pick(r)
                if v is not None:
                    values.setdefault(key_of(r), []).append(v)
    except (OSError, ValueError) as e:
        fail(f"{os.path.join(d, 'samples.csv')}: {e}")
    return {k: statistics.median(v) for k, v in values.items()}


def wake_levels(d):
    """Per point: the median cross-CPU wake sentinel reading (samples.csv wake_sentinel_ns)
    over its samples, or nothing when the run had no wake sentinel (one CPU, or older)."""
    return sample_medians(d, lambda r: float(r["wake_sentinel_ns"]) if r.get("wake_sentinel_ns") else None)


def wake_attribution(common, d, da, db):
    """How much of the cross-CPU tail the wake regime explains: among the cross-CPU points
    past the 95th percentile of |d|, how many met wake-sentinel levels more than 15% apart
    in the two runs, and the correlation of log(b/a) of the points with log(b/a) of the
    levels their visits met."""
    la, lb = wake_levels(da), wake_levels(db)
    if not la or not lb:
        return "no wake sentinel in " + ("either run" if not la and not lb else "one run")
    a, _ = read_dataset(da)
    b, _ = read_dataset(db)
    cut = percentile(d, 0.95)
    xs, ys, tail, tail_moved = [], [], 0, 0
    for i, k in enumerate(common):
        if not cross_cpu(k) or k not in la or k not in lb:
            continue
        lv = math.log(lb[k] / la[k])
        pv = math.log(num(b[k], "median") / num(a[k], "median")) if num(a[k], "median") > 0 < num(b[k], "median") else 0
        if dict(zip(KEY, k))["unit"].startswith("1/"):
            pv = -pv  # a rate falls where a cost rises: compared as cost
        xs.append(lv)
        ys.append(pv)
        if d[i] >= cut:
            tail += 1
            tail_moved += abs(lv) > math.log(1.15)
    r = statistics.correlation(xs, ys) if len(xs) > 2 and len(set(xs)) > 1 and len(set(ys)) > 1 else float("nan")
    return (f"{tail_moved} of the {tail} cross-CPU points past p95 met wake levels > 15% apart; "
            f"log-ratio correlation with their wake levels r = {r:.2f} over {len(xs)} points")


def placement_visits(d):
    """Per point of run d: a list of (placement reading, visit median) per visit, from the
    samples' placement_ns (the placement sentinel's reading at the visit); points or visits
    without one are left out (one CPU, or a dataset from before the sentinel)."""
    visits = {}
    try:
        key_of = sample_key(d)
        with open_samples(d) as f:
            for r in csv.DictReader(f):
                if not r.get("placement_ns"):
                    continue
                entry = visits.setdefault(key_of(r), {}).setdefault(r["visit"], [float(r["placement_ns"]), []])
                entry[1].append(float(r["value"]))
    except (OSError, ValueError) as e:
        fail(f"{os.path.join(d, 'samples.csv')}: {e}")
    return {k: [(p, statistics.median(v)) for p, v in per.values()] for k, per in visits.items()}


def placement_text(common, da, db):
    """The cross-CPU points compared within one placement of the two CPUs: where the host kept
    them moves every cost that crosses them (docs/calibrate.md), and two runs that met the
    placements in different shares differ by that mix. The readings of both runs are split
    at the geometric middle of their extremes when those lie at least 2x apart
    (placement_step); for each level, the points with visits on it in both runs, and the
    |d| of their medians over those visits against over all."""
    va, vb = placement_visits(da), placement_visits(db)
    if not va or not vb:
        return "no placement sentinel in " + ("either run" if not va and not vb else "one run")
    readings = [p for per in (va, vb) for vis in per.values() for p, _ in vis]
    lo, hi = min(readings), max(readings)
    if hi < 2 * lo:
        return f"one placement in both runs (a cache line {lo:.0f}-{hi:.0f} ns between the first two CPUs)"
    split = math.sqrt(lo * hi)
    parts = []
    for near, label in ((True, "near"), (False, "far")):
        same, whole = [], []
        for k in common:
            if not cross_cpu(k) or k not in va or k not in vb:
                continue
            a = [v for p, v in va[k] if (p < split) == near]
            b = [v for p, v in vb[k] if (p < split) == near]
            if a and b:
                same.append(rel_diff(statistics.median(a), statistics.median(b)))
                whole.append(rel_diff(statistics.median([v for _, v in va[k]]), statistics.median([v for _, v in vb[k]])))
        if same:
            parts.append(f"{label} ({len(same)} points): median |d| {100 * statistics.median(same):.1f}%, "
                         f"p95 {100 * percentile(same, 0.95):.1f}% (all their visits: "
                         f"{100 * statistics.median(whole):.1f}%, {100 * percentile(whole, 0.95):.1f}%)")
    if not parts:
        return "the runs met the two placements at no common point"
    return "cross-CPU points within one placement: " + "; ".join(parts)


def fast_mode_medians(d, context):
    """Per point, the median of the samples of the visits whose drift sentinel read within
    1.15x the run's p10 (the machine's fast mode); points without such a visit are absent."""
    p10 = ((context.get("stability") or {}).get("p10_ns"))
    if not p10:
        return {}

    def fast(r):
        level = r.get("sentinel_ns") or ""
        return float(r["value"]) if level and float(level) <= 1.15 * p10 else None

    return sample_medians(d, fast)


TIME_UNITS = ("ns", "us", "ms", "s")


def adjusted_medians(d, context):
    """Per point, what `pollscale fit --statistic adjusted` fits: every sample brought to the
    run's fast mode by the drift sentinel read at its visit (a time times p10 / reading, a rate
    divided by it, a count as measured; a sample without a reading as measured), each visit
    reduced to its median, the point to the median of its visits. {} without a p10."""
    p10 = ((context.get("stability") or {}).get("p10_ns"))
    if not p10:
        return {}
    visits = {}
    try:
        key_of = sample_key(d)
        with open_samples(d) as f:
            for r in csv.DictReader(f):
                value, level = float(r["value"]), r.get("sentinel_ns") or ""
                factor = p10 / float(level) if level and float(level) > 0 else 1.0
                if r["unit"] in TIME_UNITS:
                    value *= factor
                elif r["unit"].startswith("1/"):
                    value /= factor
                visits.setdefault(key_of(r), {}).setdefault(r.get("visit", "0"), []).append(value)
    except (OSError, ValueError) as e:
        fail(f"{os.path.join(d, 'samples.csv')}: {e}")
    return {k: statistics.median([statistics.median(v) for v in by_visit.values()]) for k, by_visit in visits.items()}


def adjusted_inside(da, db, pollscale):
    """The share of points whose adjusted difference lies inside the interval both runs'
    adjusted 95% intervals give it (as "inside" above), from `pollscale compare --statistic
    adjusted --points all --format json`, which summarises the adjusted visits as calibrate
    does; None without a pollscale binary or when it cannot compare the pair."""
    if not pollscale:
        return None
    cmd = [pollscale, "compare", da, db, "--statistic", "adjusted", "--points", "all", "--format", "json"]
    done = subprocess.run(cmd, capture_output=True, text=True)
    if done.returncode != 0:
        return None
    points = json.loads(done.stdout).get("points") or []
    if not points:
        return None
    ins = sum(1 for p in points if inside({"median": p["a"]["median"], "ci95_lo": p["a"]["lo"], "ci95_hi": p["a"]["hi"]},
                                          {"median": p["b"]["median"], "ci95_lo": p["b"]["lo"], "ci95_hi": p["b"]["hi"]}))
    return ins, len(points)


def adjusted_text(common, da, ca, db, cb, pollscale=None):
    fa, fb = adjusted_medians(da, ca), adjusted_medians(db, cb)
    both = [k for k in common if k in fa and k in fb]
    if not both:
        return "no point to adjust in both runs (a run has no drift sentinel)"
    df = [rel_diff(fa[k], fb[k]) for k in both]
    held = adjusted_inside(da, db, pollscale)
    inside_text = f", inside {100 * held[0] / held[1]:.1f}% of {held[1]}" if held else ""
    return (f"median |d| {100 * statistics.median(df):.2f}%, p95 {100 * percentile(df, 0.95):.2f}%, "
            f"max {100 * max(df):.1f}% over {len(both)} points{inside_text}, every visit brought to its run's "
            f"fast mode by the drift sentinel (fit --statistic adjusted)")


def fast_mode_text(common, da, ca, db, cb):
    fa, fb = fast_mode_medians(da, ca), fast_mode_medians(db, cb)
    both = [k for k in common if k in fa and k in fb]
    if not both:
        return "no point met the fast mode in both runs (or a run has no drift sentinel)"
    df = [rel_diff(fa[k], fb[k]) for k in both]
    return (f"median |d| {100 * statistics.median(df):.2f}%, p95 {100 * percentile(df, 0.95):.2f}% over the "
            f"{len(both)} points with a fast-mode visit in both runs (a: {sum(k in fa for k in common)}, "
            f"b: {sum(k in fb for k in common)} of {len(common)})")


def compare(da, db, rows_pct, pollscale=None):
    a, ca = read_dataset(da)
    b, cb = read_dataset(db)
    common = sorted(set(a) & set(b))
    if not common:
        fail(f"{da} and {db} share no point")
    d = [rel_diff(num(a[k], "median"), num(b[k], "median")) for k in common]
    ins = sum(1 for k in common if inside(a[k], b[k]))
    print(f"points       {len(common)} in both ({len(a)} in {da}, {len(b)} in {db})")
    print(f"median |d|   {100 * statistics.median(d):.2f}%   (target <= 3%)")
    print(f"p95 |d|      {100 * percentile(d, 0.95):.2f}%   (target <= 10%)")
    print(f"max |d|      {100 * max(d):.1f}%")
    # The fastest batch (what `validate --statistic fastest` fits): min for a time, max for a rate.
    def fastest(row):
        return num(row, "max" if row["unit"].startswith("1/") else "min")
    dm = [rel_diff(fastest(a[k]), fastest(b[k])) for k in common]
    print(f"fastest batch: median |d| {100 * statistics.median(dm):.2f}%, p95 {100 * percentile(dm, 0.95):.2f}%, "
          f"max {100 * max(dm):.1f}%")
    print(f"fast mode    {fast_mode_text(common, da, ca, db, cb)}")
    print(f"adjusted     {adjusted_text(common, da, ca, db, cb, pollscale)}")
    print(f"inside       {100 * ins / len(common):.1f}%   (target >= 90%)")
    # Where the spread lives: points with a partner thread on another CPU (a cross-CPU wake-up,
    # a hypervisor exit on a VM, whose cost moves with the host's scheduling of the idle vCPU)
    # against the rest.
    for label, part in (("cross-CPU", [i for i, k in enumerate(common) if cross_cpu(k)]),
                        ("same CPU", [i for i, k in enumerate(common) if not cross_cpu(k)])):
        if part:
            dp = [d[i] for i in part]
            print(f"  {label:9s}  {len(part)} points: median |d| {100 * statistics.median(dp):.2f}%, "
                  f"p95 {100 * percentile(dp, 0.95):.2f}%")
    print(f"wake regime  {wake_attribution(common, d, da, db)}")
    print(f"placement    {placement_text(common, da, db)}")
    for name, rows, ctx in (("a", a, ca), ("b", b, cb)):
        below, pairs = op_below_call(rows)
        wall = (ctx.get("calibration") or {}).get("wall_s")
        print(f"run {name}        op < call {below} of {pairs} (target <= 1); reference {reference_text(ctx)}; "
              f"wall {wall if wall is None else round(wall, 1)} s; settling {settle_text(ctx)}; "
              f"stability {stability_text(ctx)}")
    if rows_pct is not None:
        worst = sorted(zip(d, common), reverse=True)
        for diff, k in worst:
            if 100 * diff <= rows_pct:
                break
            label = " ".join(f"{c}={v}" for c, v in zip(KEY, k) if v != "")
            print(f"  {100 * diff:6.1f}%  {label}: {num(a[k], 'median'):.6g} vs {num(b[k], 'median'):.6g}")


def main():
    signal.signal(signal.SIGPIPE, signal.SIG_DFL)  # `| head` ends the listing quietly
    argv = sys.argv[1:]
    extra = []
    if "--" in argv:
        i = argv.index("--")
        argv, extra = argv[:i], argv[i + 1:]
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("datasets", nargs="*", metavar="DATASET")
    ap.add_argument("--pollscale", default=None, help="pollscale binary (default build/release/app/pollscale "
                                                      "beside this script's repository)")
    ap.add_argument("--dir", default=None, help="where the two calibrations go (default out/repro-<UTC time>)")
    ap.add_argument("--rows", type=float, default=None, metavar="PCT", help="list the points differing by > PCT%%")
    a = ap.parse_args(argv)
    if len(a.datasets) == 2:
        compare(a.datasets[0], a.datasets[1], a.rows, a.pollscale)
        return
    if a.datasets:
        fail("give two datasets to compare, or none to calibrate twice")
    repo = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    ps = a.pollscale or os.path.join(repo, "build", "release", "app", "pollscale")
    if not os.access(ps, os.X_OK):
        fail(f"'{ps}' is not an executable pollscale (build the release preset or pass --pollscale)")
    out = a.dir or os.path.join("out", time.strftime("repro-%Y%m%d-%H%M%S", time.gmtime()))
    runs = [os.path.join(out, "a"), os.path.join(out, "b")]
    for r in runs:
        cmd = [ps, "calibrate", "--quick", "--out", r] + extra
        print(f"reproducibility: {' '.join(cmd)}", file=sys.stderr)
        done = subprocess.run(cmd, stdout=subprocess.DEVNULL)
        if done.returncode != 0:
            fail(f"{' '.join(cmd)} exited {done.returncode}")
    compare(runs[0], runs[1], a.rows, ps)


if __name__ == "__main__":
    main()
