#!/usr/bin/env python3
"""Estimate what each CPU beyond the measured ones delivers, from the machine corpus.

The capacity bound (`pollscale scale --from-cpus C0`, model/cpu_scaling.hpp) says C CPUs do
C/c0 times the work of the narrowest series measured, c0 CPUs: every operation needs its CPU
time, and each CPU has as much to give as the first. Where the threads share nothing (a
thread, its own descriptors, no hand-off: private_sets, private_processes) the bound is the
whole answer, and the corpus can say how true it is: every calibration there measured those
series on one CPU and on more, so each row of C > c0 CPUs has the bound predicted from c0
beside its measurement. On shared guests the wider series run a little slower per CPU than
the bound (a busy neighbour takes a share of the core's power budget, turbo, caches or the
host's time), which a one-CPU series cannot show and its interval cannot carry.

Rows: ln(measured / bound) = e, with the bound's own log spread s (its 95% interval over
2 x 1.96) and d = log2(C / c0) doublings. Model: e ~ N(mu * d, s^2 + tau^2 * d): each
doubling of the CPUs costs a factor exp(mu), with a log sd tau between machines and runs,
independent from one doubling to the next. mu and tau by maximum likelihood, every host
weighing the same however many rows and runs it has (for a given tau, mu is the weighted
least-squares slope; tau by golden section on the profile likelihood). Each host is then
judged by the others' estimate (leave one host out): its rows' coverage, median |error| and
mean interval score (Gneiting-Raftery, relative to the measurement) without and with.

Each point statistic a model can be fitted to (`--statistic median|fastest|adjusted`) gives
its own rows, and its own estimate: the fastest batch meets less of the interference that
makes two busy CPUs deliver less than twice one, so its shortfall and spread are smaller.

It writes datasets/machines/capacity_efficiency.json (atomically), which `pollscale scale
--from-cpus` reads by default (the estimate of its --statistic) and `pollscale fit` copies
into model.json for `predict --cpus` and the simulator, and prints a Markdown table of the
held-out judgement per statistic.

Usage: scripts/corpus_capacity.py [--pollscale PATH] [--corpus DIR] [--out FILE] [--jobs J]
                                  [--dry-run]
Exit status: 0; 2 bad usage, no pollscale binary, a failed `pollscale scale`, or a corpus
with no nothing-shared rows on two hosts (named on stderr).
"""
import argparse
import concurrent.futures
import datetime
import json
import math
import os
import statistics
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from corpus_between_runs import ROOT, Z95, corpus_runs, write_atomically  # noqa: E402

KIND = "pollscale capacity efficiency"  # model/capacity_efficiency.hpp capacity_efficiency_kind
SCHEMA_VERSION = 1
STATISTICS = ("median", "fastest", "adjusted")  # model/observations.hpp point_statistic
MAX_LOG_MEAN = 1.0  # the C++ reader's bounds: |mu| <= 1, tau in [0, 1]
MAX_LOG_SD = 1.0
# The scenarios whose threads share nothing: the capacity bound is their whole answer, so
# its error is the machine's, not a lock's or a hand-off's (docs/scaling.md).
NOTHING_SHARED = ("private_sets", "private_processes")


def fail(message):
    print(f"corpus_capacity: {message}", file=sys.stderr)
    sys.exit(2)


def bound_rows(scale_doc):
    """(e, s, d) of every nothing-shared row of a wider series that the capacity bound gave.

    Rows without a two-sided interval (no spread to weigh them by) are left out."""
    out = []
    for f in scale_doc.get("families", []):
        if f.get("table", "").split("/")[0] not in NOTHING_SHARED or not f.get("capacity_cpus"):
            continue
        c0 = f["capacity_cpus"]
        for s in f.get("series", []):
            if not s.get("measured") or s.get("cpus", 0) <= c0:
                continue
            for r in s.get("rows", []):
                m, p, lo, hi = r.get("measured"), r.get("predicted"), r.get("lo"), r.get("hi")
                if r.get("limited_by") != "cpu_capacity" or None in (m, p, lo, hi):
                    continue
                if not (m > 0 and p > 0 and 0 < lo < hi):
                    continue
                out.append((math.log(m / p), math.log(hi / lo) / (2 * Z95), math.log2(s["cpus"] / c0)))
    return out


def weights(rows_by_host):
    """[(e, s, d, w)]: each host's rows weigh 1/n_host, so every host counts the same."""
    return [(e, s, d, 1.0 / len(rows)) for rows in rows_by_host.values() if rows for e, s, d in rows]


def slope(terms, tau):
    """The maximum-likelihood mu for a given tau: weighted least squares through the origin."""
    num = sum(w * e * d / (s * s + tau * tau * d) for e, s, d, w in terms)
    den = sum(w * d * d / (s * s + tau * tau * d) for e, s, d, w in terms)
    return num / den


def nll(tau, terms):
    mu = slope(terms, tau)
    return sum(w * (0.5 * math.log(s * s + tau * tau * d) + 0.5 * (e - mu * d) ** 2 / (s * s + tau * tau * d))
               for e, s, d, w in terms)


def estimate(terms):
    """(mu, tau) by maximum likelihood; None without rows."""
    if not terms:
        return None
    lo, hi = 0.0, MAX_LOG_SD
    g = (math.sqrt(5) - 1) / 2
    a, b = hi - g * (hi - lo), lo + g * (hi - lo)
    fa, fb = nll(a, terms), nll(b, terms)
    for _ in range(80):
        if fa < fb:
            hi, b, fb = b, a, fa
            a = hi - g * (hi - lo)
            fa = nll(a, terms)
        else:
            lo, a, fa = a, b, fb
            b = lo + g * (hi - lo)
            fb = nll(b, terms)
    tau = (lo + hi) / 2
    if nll(0.0, terms) <= nll(tau, terms):
        tau = 0.0
    return slope(terms, tau), tau


def judged(rows, mu, tau):
    """Coverage, median |error| and mean relative interval score of rows under (mu, tau)."""
    inside, errors, scores = 0, [], []
    for e, s, d in rows:
        c, sd = e - mu * d, math.sqrt(s * s + tau * tau * d)
        inside += abs(c) <= Z95 * sd
        errors.append(abs(math.exp(c) - 1))
        # Relative to the measurement (1): the prediction is exp(-c), its ends exp(-c -+ z sd).
        lo, hi = math.exp(-c - Z95 * sd), math.exp(-c + Z95 * sd)
        scores.append((hi - lo) + 2 / 0.05 * (max(0.0, lo - 1) + max(0.0, 1 - hi)))
    return {"rows": len(rows), "inside": inside, "median_abs_error": statistics.median(errors),
            "mean_interval_score": statistics.fmean(scores)}


def scale_rows(pollscale, run_dir, statistic):
    cmd = [pollscale, "scale", run_dir, "--from-cpus", "1", "--format", "json", "--capacity-efficiency", "none",
           "--statistic", statistic]
    r = subprocess.run(cmd, capture_output=True, text=True)
    if r.returncode == 2 and "no rows of a CPU-scaling scenario" in r.stderr:
        return []  # a calibration from before the CPU-scaling probes
    if r.returncode != 0:
        fail(f"{' '.join(cmd)} exited {r.returncode}: {r.stderr.strip().splitlines()[-1] if r.stderr else ''}")
    return bound_rows(json.loads(r.stdout))


def collect(pollscale, corpus, jobs, statistic):
    """{host: {run: rows}} for the runs that have nothing-shared rows, read as `statistic`."""
    runs = [(host, path) for host, items in corpus_runs(corpus).items() for _, path in items]
    with concurrent.futures.ThreadPoolExecutor(max_workers=jobs) as pool:
        found = list(pool.map(lambda hp: (hp[0], hp[1], scale_rows(pollscale, hp[1], statistic)), runs))
    out = {}
    for host, path, rows in found:
        if rows:
            out.setdefault(host, {})[os.path.basename(path)] = rows
    return out


def estimate_block(by_host):
    """One statistic's estimate with each host judged by the others'."""
    flat = {h: [r for rows in runs.values() for r in rows] for h, runs in by_host.items()}
    mu, tau = estimate(weights(flat))
    per_host = []
    for host, rows in flat.items():
        held = estimate(weights({h: r for h, r in flat.items() if h != host}))
        entry = {"host": host, "runs": len(by_host[host]), "without": judged(rows, 0.0, 0.0)}
        if held:
            entry.update({"log_mean_without_host": held[0], "log_sd_without_host": held[1],
                          "judged_by_others": judged(rows, *held)})
        per_host.append(entry)
    return {"log_mean": mu, "log_sd": tau, "rows": sum(len(r) for r in flat.values()),
            "runs": sum(len(runs) for runs in by_host.values()), "hosts": len(flat), "per_host": per_host}


def document(blocks):
    """The file: {statistic: estimate_block} under per_statistic."""
    today = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d")
    return {
        "kind": KIND, "schema_version": SCHEMA_VERSION, "estimated": today,
        "method": "rows of the nothing-shared scenarios (" + ", ".join(NOTHING_SHARED) + ") on C > c0 CPUs that "
                  "the capacity bound gave (pollscale scale RUN --from-cpus 1 --capacity-efficiency none "
                  "--statistic S, for each statistic S); ln(measured/bound) ~ N(log_mean*d, s^2 + log_sd^2*d), "
                  "d = log2(C/c0), s the bound's own spread; maximum likelihood, every host weighing the same "
                  "(scripts/corpus_capacity.py)",
        "per_statistic": blocks,
    }


def markdown(statistic, p):
    lines = [f"{statistic}: per doubling of the CPUs x{math.exp(p['log_mean']):.3f}, log sd {p['log_sd']:.3f} "
             f"({p['rows']} rows, {p['runs']} runs, {p['hosts']} hosts)", "",
             "| host | runs | rows | inside: bound / judged by the others | median abs error | mean interval score |",
             "|---|---|---|---|---|---|"]
    for h in p["per_host"]:
        w, j = h["without"], h.get("judged_by_others")
        if not j:
            continue
        lines.append(f"| {h['host']} | {h['runs']} | {w['rows']} | {w['inside']} / {j['inside']} | "
                     f"{100 * w['median_abs_error']:.1f}% / {100 * j['median_abs_error']:.1f}% | "
                     f"{w['mean_interval_score']:.3f} / {j['mean_interval_score']:.3f} |")
    return "\n".join(lines)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--pollscale", default=os.path.join(ROOT, "build", "release", "app", "pollscale"))
    ap.add_argument("--corpus", default=os.path.join(ROOT, "datasets", "machines"))
    ap.add_argument("--out", default=os.path.join(ROOT, "datasets", "machines", "capacity_efficiency.json"))
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--dry-run", action="store_true", help="print the table, write nothing")
    args = ap.parse_args()
    if args.jobs < 1:
        fail(f"--jobs: {args.jobs} is not a count >= 1")
    if not os.access(args.pollscale, os.X_OK):
        fail(f"--pollscale: {args.pollscale} is not an executable (build it, or name one)")
    if not os.path.isdir(args.corpus):
        fail(f"--corpus: {args.corpus} is not a directory")
    blocks = {}
    for statistic in STATISTICS:
        by_host = collect(args.pollscale, args.corpus, args.jobs, statistic)
        if len(by_host) < 2:
            fail(f"{args.corpus}: nothing-shared rows on {len(by_host)} host(s) as {statistic}; two are needed to "
                 "judge one by another")
        blocks[statistic] = estimate_block(by_host)
        if abs(blocks[statistic]["log_mean"]) > MAX_LOG_MEAN:
            fail(f"{statistic}: log_mean {blocks[statistic]['log_mean']:.3f} is beyond what the reader accepts "
                 f"(|x| <= {MAX_LOG_MEAN})")
        print(markdown(statistic, blocks[statistic]) + "\n")
    doc = document(blocks)
    if not args.dry_run:
        write_atomically(args.out, json.dumps(doc, indent=2) + "\n")
        print(f"\nwritten to {args.out}", file=sys.stderr)


if __name__ == "__main__":
    main()
