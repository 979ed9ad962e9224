#!/usr/bin/env python3
"""Estimate how far a live server moves between runs of one host, from the machine corpus.

A model fitted on one calibration run and simulated (`pollscale simulate`, drawn costs) says
where the server of *that run* would be: its interval carries the costs' uncertainty and the
simulator's discrepancy measured against the run's own live server (model.json
simulator_check). A shared VM measured again meets another state: its neighbours' share of
the L3, the placement of its vCPUs, the host's idle policy. The corpus (datasets/machines/)
holds hosts calibrated more than once, so that spread can be measured: for each host, each
run is judged by a model fitted on the run before it and by the run after it
(bench/sim_vs_server.py, models fitted with `--between-runs none`), and the rows' log errors
e = ln(measured / simulated), beyond each row's own spread s (its 95% interval on the log
scale over 2 x 1.96), give rho by maximum likelihood: e ~ N(0, s^2 + rho^2), the same
random-effects likelihood as the simulator's discrepancy (model/simulator_discrepancy.hpp),
with every host weighing the same however many rows it has.

Two horizons, because the spread grows with the time between runs: "minutes" from runs less
than --gap-s apart (a server measured right after its calibration), "hours" from runs further
apart (another occasion). Each is estimated again leaving each host out, and that host's rows
are judged with the others' rho (their intervals widened in quadrature): the held-out
coverage the docs report. With --judge the held-out check is run for real: each host's models
refitted with a file holding the others' rho, and bench/sim_vs_server.py run again.

It writes datasets/machines/between_runs.json (atomically), which `pollscale fit` reads by
default (--between-runs), and prints one Markdown table per horizon.

Usage: scripts/corpus_between_runs.py [--pollscale PATH] [--corpus DIR] [--out FILE] [--work DIR]
                                      [--gap-s S] [--jobs J] [--judge] [--dry-run]
Exit status: 0; 2 bad usage, no pollscale binary, a corpus without two runs of one host, or a
failed fit or check (named on stderr).
"""
import argparse
import concurrent.futures
import datetime
import json
import math
import os
import re
import statistics
import subprocess
import sys
import tempfile

ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
RUN_NAME = re.compile(r"^(quick|full)-(\d{8}T\d{6}Z)$")
KIND = "pollscale between-runs spread"  # model/between_runs.hpp between_runs_kind
SCHEMA_VERSION = 1
MAX_LOG_SD = 5.0  # the C++ reader's bound: a factor of e^5 between runs
Z95 = 1.959963984540054


def fail(message):
    print(f"corpus_between_runs: {message}", file=sys.stderr)
    sys.exit(2)


def corpus_runs(corpus):
    """{host: [(time, path), ...] in time order} for the runs named <profile>-<UTC time>."""
    hosts = {}
    for host in sorted(os.listdir(corpus)):
        hdir = os.path.join(corpus, host)
        if not os.path.isdir(hdir):
            continue
        runs = []
        for name in os.listdir(hdir):
            m = RUN_NAME.match(name)
            if m and os.path.isdir(os.path.join(hdir, name)):
                t = datetime.datetime.strptime(m.group(2), "%Y%m%dT%H%M%SZ").replace(tzinfo=datetime.timezone.utc)
                runs.append((t, os.path.join(hdir, name)))
        if runs:
            hosts[host] = sorted(runs)
    return hosts


def directed_pairs(hosts, gap_s):
    """Each host's consecutive runs, both ways: (horizon, host, fitted run, judged run, gap in s)."""
    out = []
    for host, runs in hosts.items():
        for (ta, a), (tb, b) in zip(runs, runs[1:]):
            gap = (tb - ta).total_seconds()
            horizon = "minutes" if gap < gap_s else "hours"
            out.append((horizon, host, a, b, gap))
            out.append((horizon, host, b, a, gap))
    return out


def row_terms(row):
    """(e, s) of one sim_vs_server row, or None when it cannot be judged on the log scale."""
    sim, meas, lo, hi = row["simulated"], row["measured"], row["ci95_lo"], row["ci95_hi"]
    if not all(isinstance(v, (int, float)) and math.isfinite(v) for v in (sim, meas, lo, hi)):
        return None
    if sim <= 0 or meas <= 0 or hi < sim:
        return None
    # An interval reaching 0 has no lower end on the log scale: its upper side stands for both.
    s = (math.log(hi) - math.log(lo)) / (2 * Z95) if lo > 0 else math.log(hi / sim) / Z95
    return math.log(meas / sim), max(s, 0.0)


def weighted_nll(rho, terms):
    v0 = rho * rho
    return sum(w * (0.5 * math.log(s * s + v0) + 0.5 * e * e / (s * s + v0)) for e, s, w in terms)


def ml_log_sd(terms):
    """rho maximising the weighted likelihood of e ~ N(0, s^2 + rho^2), on [0, MAX_LOG_SD]."""
    if not terms:
        return None
    # A row with s = 0 and e = 0 would make rho = 0 infinitely likely: give every row at least
    # a hair of spread (1e-4 in ln units, 0.01%).
    terms = [(e, max(s, 1e-4), w) for e, s, w in terms]
    grid = [MAX_LOG_SD * (i / 400) ** 2 for i in range(401)]  # dense near 0, where the answers are
    best = min(range(len(grid)), key=lambda i: weighted_nll(grid[i], terms))
    lo, hi = grid[max(best - 1, 0)], grid[min(best + 1, len(grid) - 1)]
    for _ in range(60):  # golden section inside the bracket
        m1, m2 = lo + 0.382 * (hi - lo), lo + 0.618 * (hi - lo)
        if weighted_nll(m1, terms) <= weighted_nll(m2, terms):
            hi = m2
        else:
            lo = m1
    return (lo + hi) / 2


def host_weighted(rows_by_host):
    """(e, s, w) for every row, each host weighing the same in all (its rows share 1/hosts)."""
    total = sum(len(r) for r in rows_by_host.values())
    out = []
    for rows in rows_by_host.values():
        for e, s in rows:
            out.append((e, s, total / (len(rows_by_host) * len(rows))))
    return out


def widened_inside(e, s, rho):
    """Whether a row's error lies inside its interval widened by rho in quadrature."""
    return abs(e) <= Z95 * math.sqrt(s * s + rho * rho)


def run(cmd, what):
    p = subprocess.run(cmd, capture_output=True, text=True)
    if p.returncode != 0:
        fail(f"{what} failed ({p.returncode}): {p.stderr.strip().splitlines()[-1] if p.stderr.strip() else ''}")
    return p.stdout


def fit(pollscale, dataset, out, between_runs, horizon="minutes"):
    if not os.path.exists(out):
        run([pollscale, "fit", dataset, "-o", out, "--between-runs", between_runs, "--between-runs-horizon", horizon],
            f"pollscale fit {dataset}")
    return out


def check_rows(args, model, dataset, seed):
    """bench/sim_vs_server.py's rows, kept in the work directory beside the model."""
    out = f"{model[:-len('.json')]}_on_{os.path.basename(dataset)}_seed{seed}.rows.json"
    if not os.path.exists(out):
        text = run([sys.executable, os.path.join(ROOT, "bench", "sim_vs_server.py"), "--pollscale", args.pollscale,
                    "--model", model, "--seed", str(seed), "--json", dataset],
                   f"bench/sim_vs_server.py --model {model} --seed {seed} {dataset}")
        write_atomically(out, text)
    with open(out) as f:
        return json.load(f)


def model_name(work, run_dir, tag):
    return os.path.join(work, f"{os.path.basename(os.path.dirname(run_dir))}_{os.path.basename(run_dir)}_{tag}.json")


def checked_rows(args, pairs, tag, between_runs_for):
    """{(horizon, host): [(e, s), ...]} from every directed pair, models fitted with between_runs_for(host, horizon)."""
    def one(job):
        (horizon, host, a, b, _), seed = job
        m = fit(args.pollscale, a, model_name(args.work, a, f"{tag}_{horizon}"), between_runs_for(host, horizon),
                horizon)
        return job, check_rows(args, m, b, seed)

    # Rows of one seed share its draws; several seeds keep one sample of draws from deciding.
    jobs = [(pair, seed) for pair in pairs for seed in args.seeds]
    out = {}
    with concurrent.futures.ThreadPoolExecutor(max_workers=args.jobs) as pool:
        for ((horizon, host, *_), _), rows in pool.map(one, jobs):
            out.setdefault((horizon, host), []).extend(rows)
    return out


def horizon_summary(rows, horizon, gap_s, seeds):
    """The horizon's file block: rho over every host, and each host judged by the others' rho. `rows` counts
    the live-server rows once; each was checked once per seed (a host's `checks`)."""
    by_host, width = {}, {}
    for (h, host), r in rows.items():
        terms = [t for t in (row_terms(x) for x in r) if t is not None]
        if h == horizon and terms:
            by_host[host] = terms
            width[host] = statistics.median(x["rel_half_width"] for x in r)
    if not by_host:
        return None
    rho = ml_log_sd(host_weighted(by_host))
    per_host = []
    for host, mine in by_host.items():
        others = {h: r for h, r in by_host.items() if h != host}
        held = ml_log_sd(host_weighted(others)) if others else None
        per_host.append({"host": host, "checks": len(mine),
                         "inside_without": sum(widened_inside(e, s, 0) for e, s in mine),
                         "median_half_width_without": width[host],
                         "log_sd_without_host": held,
                         "inside_widened_by_others": (sum(widened_inside(e, s, held) for e, s in mine)
                                                      if held is not None else None)})
    checks = sum(len(r) for r in by_host.values())
    block = {"log_sd": rho, "rows": checks // len(seeds), "seeds": seeds, "hosts": len(by_host), "per_host": per_host}
    block["gap_s"] = {"below": gap_s} if horizon == "minutes" else {"at_least": gap_s}
    return block


def write_atomically(path, text):
    d = os.path.dirname(os.path.abspath(path))
    fd, tmp = tempfile.mkstemp(dir=d, prefix=".between_runs.")
    with os.fdopen(fd, "w") as f:
        f.write(text)
    os.replace(tmp, path)


def share(i, n):
    return f"{i}/{n} ({100 * i / n:.1f}%)" if n else "-"


def markdown(doc, judged):
    """One table per horizon: each host without the spread, widened by the others' rho, and refitted with it."""
    lines = []
    for horizon, block in doc["horizons"].items():
        lines.append(f"\n{horizon}: log sd {block['log_sd']:.3f} from {block['rows']} rows of {block['hosts']} hosts "
                     f"({block['pairs']} pairs of runs, both ways), each simulated with seeds "
                     f"{','.join(map(str, block['seeds']))}; the counts below are rows x seeds\n")
        lines.append("| host | inside, without | half-width | log sd of the other hosts | inside, widened by it |"
                     + (" inside, refitted with it | half-width |" if judged else ""))
        lines.append("|---|---:|---:|---:|---:|" + ("---:|---:|" if judged else ""))
        tot = [0, 0, 0, 0, 0]
        for h in block["per_host"]:
            held = "-" if h["log_sd_without_host"] is None else f"{h['log_sd_without_host']:.3f}"
            widened = h["inside_widened_by_others"] or 0
            n, i, hw = judged.get((horizon, h["host"]), (0, 0, float("nan"))) if judged else (0, 0, 0)
            extra = f" {share(i, n)} | {100 * hw:.1f}% |" if judged else ""
            lines.append(f"| {h['host']} | {share(h['inside_without'], h['checks'])} | "
                         f"{100 * h['median_half_width_without']:.1f}% | {held} | {share(widened, h['checks'])} |{extra}")
            for k, v in enumerate((h["checks"], h["inside_without"], widened, n, i)):
                tot[k] += v
        extra = f" {share(tot[4], tot[3])} | |" if judged else ""
        lines.append(f"| all | {share(tot[1], tot[0])} | | | {share(tot[2], tot[0])} |{extra}")
    return "\n".join(lines)


def judge(args, pairs, doc):
    """Each host's pairs again, its models refitted with a file holding the other hosts' log sd."""
    files = {}
    for horizon, block in doc["horizons"].items():
        for h in block["per_host"]:
            if h["log_sd_without_host"] is None:
                continue
            path = os.path.join(args.work, f"held_out_{horizon}_{h['host']}.json")
            held = dict(doc, horizons={horizon: dict(block, log_sd=h["log_sd_without_host"])})
            write_atomically(path, json.dumps(held, indent=2) + "\n")
            files[(h["host"], horizon)] = path
    kept = [p for p in pairs if (p[1], p[0]) in files]
    # The models' names carry the log sd they were fitted with: a work directory kept from an
    # earlier estimate never lends a model fitted with another one.
    tag = "held_" + "_".join(f"{h}{b['log_sd']:.6f}" for h, b in sorted(doc["horizons"].items()))
    rows = checked_rows(args, kept, tag, lambda host, horizon: files[(host, horizon)])
    out = {k: (len(r), sum(bool(x["inside"]) for x in r), [x["rel_half_width"] for x in r]) for k, r in rows.items()}
    return {k: (n, i, statistics.median(hw)) for k, (n, i, hw) in out.items()}


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--pollscale", default=os.path.join(ROOT, "build", "release", "app", "pollscale"))
    ap.add_argument("--corpus", default=os.path.join(ROOT, "datasets", "machines"))
    ap.add_argument("--out", help="the file to write (default: CORPUS/between_runs.json)")
    ap.add_argument("--work", help="where models are fitted (default: a temporary directory)")
    ap.add_argument("--gap-s", type=float, default=3600, help="runs this far apart or more are the hours horizon")
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--seeds", default="1,2,3", help="simulate seeds each check runs with (comma-separated)")
    ap.add_argument("--judge", action="store_true", help="also refit each host with the other hosts' log sd and check")
    ap.add_argument("--dry-run", action="store_true", help="print, do not write the file")
    args = ap.parse_args()
    if not os.access(args.pollscale, os.X_OK):
        fail(f"--pollscale: {args.pollscale} is not an executable (build it: cmake --build --preset release)")
    if not (args.gap_s > 0) or args.jobs < 1:
        fail("--gap-s must be > 0 and --jobs >= 1")
    args.pollscale = os.path.abspath(args.pollscale)
    try:
        args.seeds = [int(x) for x in args.seeds.split(",")]
    except ValueError:
        fail(f"--seeds: '{args.seeds}' is not a comma-separated list of integers")
    out = args.out or os.path.join(args.corpus, "between_runs.json")
    pairs = directed_pairs(corpus_runs(args.corpus), args.gap_s)
    if not pairs:
        fail(f"{args.corpus}: no host with two runs")
    with tempfile.TemporaryDirectory(prefix="between_runs.") as tmp:
        args.work = args.work or tmp
        os.makedirs(args.work, exist_ok=True)
        rows = checked_rows(args, pairs, "plain", lambda host, horizon: "none")
        doc = {"kind": KIND, "schema_version": SCHEMA_VERSION,
               "estimated": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d"),
               "method": "bench/sim_vs_server.py rows of each host's consecutive runs, each judged by a model of the "
                         "other (pollscale fit --between-runs none); log sd by maximum likelihood, e ~ N(0, s^2 + "
                         "log_sd^2), every host weighing the same (scripts/corpus_between_runs.py)",
               "horizons": {}}
        for horizon in ("minutes", "hours"):
            block = horizon_summary(rows, horizon, args.gap_s, args.seeds)
            if block is not None:
                block["pairs"] = sum(1 for p in pairs if p[0] == horizon) // 2
                doc["horizons"][horizon] = block
        judged = judge(args, pairs, doc) if args.judge else None
        print(markdown(doc, judged))
    if not args.dry_run:
        write_atomically(out, json.dumps(doc, indent=2) + "\n")
        print(f"\nwritten to {out}", file=sys.stderr)


if __name__ == "__main__":
    main()
