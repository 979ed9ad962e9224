#!/usr/bin/env python3
"""Can a ratio measured on another machine and era be carried to this one?

The test pollscale ran before deciding that `predict --swap` answers only from the model's
own machine: take the LSE 2002 pipetest (sys_epoll 0.14 against poll on one 2.5.x SMP
machine, datasets/historical/lse_2002_pipetest.csv), carry its epoll/poll throughput ratio
at n onto each corpus host's measured poll, and compare with the epoll (level-triggered)
that host measured. Both host figures are the host model's answers at n (token_ring over
pipes, timeout 0; in-range, leave-one-out error a few percent).

Usage: bench/ratio_transfer.py [--pollscale BIN] [DATASET ...]   (default: every full
calibration under datasets/machines). Prints a Markdown table and the median |error|.
"""
import argparse
import glob
import json
import os
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def answer(binary, model, args):
    r = subprocess.run([binary, "predict", model, *args, "--format", "json"], capture_output=True, text=True)
    if r.returncode != 0:
        sys.exit(f"ratio_transfer: pollscale predict {' '.join(args)} failed: {r.stderr.strip()}")
    return json.loads(r.stdout)["value"]


def fit(binary, data, out):
    r = subprocess.run([binary, "fit", data, "-o", out], capture_output=True, text=True)
    if r.returncode != 0:
        sys.exit(f"ratio_transfer: pollscale fit {data} failed: {r.stderr.strip()}")


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--pollscale", default=os.path.join(ROOT, "build/release/app/pollscale"))
    ap.add_argument("datasets", nargs="*")
    a = ap.parse_args()
    data = a.datasets or sorted(glob.glob(os.path.join(ROOT, "datasets/machines/*/full-*")))
    at = ["--scenario", "token_ring", "--fd-kind", "pipe"]
    errors = []
    with tempfile.TemporaryDirectory() as tmp:
        lse = os.path.join(tmp, "lse.json")
        fit(a.pollscale, os.path.join(ROOT, "datasets/historical/lse_2002_pipetest.csv"), lse)
        print("| host | n | LSE epoll/poll | this host's epoll/poll | epoll carried over / measured |")
        print("|---|---|---|---|---|")
        for d in data:
            host = os.path.join(tmp, "host.json")
            fit(a.pollscale, d, host)
            name = os.path.basename(os.path.dirname(os.path.abspath(d))) or d
            for n in (10, 100, 1000, 9979):
                q = at + ["--n", str(n)]
                lse_ratio = answer(a.pollscale, lse, q + ["--mechanism", "epoll", "--variant", "0.14"]) / answer(
                    a.pollscale, lse, q + ["--mechanism", "poll", "--variant", "none"])
                poll = answer(a.pollscale, host, q + ["--mechanism", "poll", "--variant", "none", "--blocking", "0"])
                epoll = answer(a.pollscale, host, q + ["--mechanism", "epoll", "--variant", "lt", "--blocking", "0"])
                carried = poll * lse_ratio
                errors.append(abs(carried / epoll - 1))
                print(f"| {name} | {n} | {lse_ratio:.2f} | {epoll / poll:.2f} | {carried / epoll:.2f}x |")
    errors.sort()
    print(f"\nmedian |error| {100 * errors[len(errors) // 2]:.0f}%, smallest {100 * errors[0]:.0f}%, "
          f"largest {100 * errors[-1]:.0f}% ({len(errors)} points)")


if __name__ == "__main__":
    main()
