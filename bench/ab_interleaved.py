#!/usr/bin/env python3
"""A/B of two pollscale builds (or two settings of one machine) by interleaved calibrations.

One calibration per side measures the machine of its moment: on a shared VM two runs minutes
apart can meet different speed modes, and every mechanism moves with them
(docs/compare.md). So this runs the sides in turns — round r calibrates A_r and B_r, in an
order drawn from --seed — and compares all A runs against all B runs with `pollscale compare
A1,A2,.. B1,B2,..`, whose intervals then carry the spread between each side's runs.

  --a PATH, --b PATH   the two pollscale binaries calibrating the sides (the same binary for
                       both compares two moments of one machine: a false-alarm check)
  --runs N             rounds, each one calibration per side (default 2)
  --dir DIR            where the runs go: DIR/a1, DIR/b1, DIR/a2, ... (default
                       out/ab-<UTC time>); an existing run directory is an error
  --seed S             seed of the order within each round (default 1)
  --compare-with PATH  the binary that compares (default: --b)
  -- OPTION...         calibrate options for every run (default --quick)
  --compare OPTION     passed to compare (repeatable), e.g. --compare=--fail-on-regression=20

Prints compare's output; exits with compare's status (3: a regression beyond
--fail-on-regression), 2 on bad usage or a failed calibration, 130 when interrupted (the runs
finished so far stay in DIR).
"""
import argparse
import os
import random
import signal
import subprocess
import sys
import time


def fail(msg, status=2):
    print(f"ab_interleaved: {msg}", file=sys.stderr)
    sys.exit(status)


def executable(path, flag):
    if not os.access(path, os.X_OK):
        fail(f"{flag}: '{path}' is not an executable")
    return path


def plan(runs, seed):
    """The calibrations in the order they run: (side, round), each round A and B in an order
    drawn from the seed, so that neither side always meets the earlier part of a round."""
    rng = random.Random(seed)
    order = []
    for r in range(1, runs + 1):
        sides = ["a", "b"]
        rng.shuffle(sides)
        order += [(s, r) for s in sides]
    return order


def main():
    signal.signal(signal.SIGPIPE, signal.SIG_DFL)
    argv = sys.argv[1:]
    extra = []
    if "--" in argv:
        i = argv.index("--")
        argv, extra = argv[:i], argv[i + 1:]
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--a", required=True, metavar="PATH")
    ap.add_argument("--b", required=True, metavar="PATH")
    ap.add_argument("--runs", type=int, default=2)
    ap.add_argument("--dir", default=None)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--compare-with", default=None, metavar="PATH")
    ap.add_argument("--compare", action="append", default=[], metavar="OPTION")
    a = ap.parse_args(argv)
    if not 1 <= a.runs <= 100:
        fail(f"--runs: {a.runs} is not in [1, 100]")
    binaries = {"a": executable(a.a, "--a"), "b": executable(a.b, "--b")}
    comparer = executable(a.compare_with or a.b, "--compare-with")
    out = a.dir or os.path.join("out", time.strftime("ab-%Y%m%d-%H%M%S", time.gmtime()))
    runs = {"a": [], "b": []}
    for side, r in plan(a.runs, a.seed):
        run_dir = os.path.join(out, f"{side}{r}")
        if os.path.exists(run_dir):
            fail(f"{run_dir} exists: give another --dir")
        cmd = [binaries[side], "calibrate"] + (extra or ["--quick"]) + ["--out", run_dir]
        print(f"ab_interleaved: running {' '.join(cmd)}", file=sys.stderr)
        try:
            done = subprocess.run(cmd, stdout=subprocess.DEVNULL)
        except KeyboardInterrupt:
            fail(f"interrupted; the runs finished so far are in {out}", 130)
        if done.returncode == 130:
            fail(f"interrupted; the runs finished so far are in {out}", 130)
        if done.returncode != 0:
            fail(f"{' '.join(cmd)} exited {done.returncode}")
        runs[side].append(run_dir)
    cmd = [comparer, "compare", ",".join(runs["a"]), ",".join(runs["b"])] + a.compare
    print(f"ab_interleaved: running {' '.join(cmd)}", file=sys.stderr)
    sys.stdout.flush()
    sys.exit(subprocess.run(cmd).returncode)


if __name__ == "__main__":
    main()
