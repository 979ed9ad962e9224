#!/usr/bin/python3
"""Runs a command and says how much CPU *other* processes used while it ran: the machine's
busy time (/proc/stat) minus the command's own (its rusage, reaped children and threads
included). A measurement is only as good as the quiet around it; the load average lags by
a minute and counts the measurement itself, this does neither.

usage: bench/foreign_cpu.py [--wait-quiet S] [--max-wait S] [--json FILE] -- COMMAND [ARGS...]

--wait-quiet S: first wait until every CPU has been idle (< 5% busy) for S seconds in a
row (at most --max-wait seconds, default 1800; then run anyway and say so).
Prints one line on stderr: wall time, the command's CPU, other processes' CPU (in CPUs:
1.0 = one CPU busy the whole time), the hypervisor's steal, the load average before and
after; --json also writes them to FILE. Exits with the command's status.
"""
import argparse
import json
import os
import subprocess
import sys
import time

HZ = os.sysconf("SC_CLK_TCK")


def cpu_times():
    """(busy, steal, total) jiffies over all CPUs."""
    f = [int(x) for x in open("/proc/stat").readline().split()[1:]]
    user, nice, system, idle, iowait, irq, softirq, steal = f[:8]
    return user + nice + system + irq + softirq, steal, sum(f[:8])


def loadavg():
    return [float(x) for x in open("/proc/loadavg").read().split()[:3]]


def wait_quiet(seconds, max_wait, limit=0.05):
    start = time.time()
    quiet = 0
    b0, s0, t0 = cpu_times()
    while time.time() - start < max_wait:
        time.sleep(1)
        b1, s1, t1 = cpu_times()
        busy = (b1 - b0 + s1 - s0) / max(1, t1 - t0)
        b0, s0, t0 = b1, s1, t1
        quiet = quiet + 1 if busy < limit else 0
        if quiet >= seconds:
            return time.time() - start
    return None


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--wait-quiet", type=float, default=0)
    p.add_argument("--max-wait", type=float, default=1800)
    p.add_argument("--json")
    p.add_argument("command", nargs=argparse.REMAINDER)
    a = p.parse_args()
    cmd = a.command[1:] if a.command[:1] == ["--"] else a.command
    if not cmd:
        p.error("no command given (put it after --)")
    waited = wait_quiet(a.wait_quiet, a.max_wait) if a.wait_quiet > 0 else 0
    before = loadavg()
    b0, s0, _ = cpu_times()
    t0 = time.time()
    child = subprocess.Popen(cmd)
    _, status, usage = os.wait4(child.pid, 0)
    wall = time.time() - t0
    b1, s1, _ = cpu_times()
    own = usage.ru_utime + usage.ru_stime
    busy = (b1 - b0) / HZ
    r = {"command": cmd, "wall_s": round(wall, 2), "own_cpu_s": round(own, 2),
         "foreign_cpus": round(max(0.0, busy - own) / wall, 3), "steal_cpus": round((s1 - s0) / HZ / wall, 3),
         "waited_for_quiet_s": None if waited is None else round(waited, 1),
         "loadavg_before": before, "loadavg_after": loadavg()}
    print(f"foreign_cpu: wall {r['wall_s']} s, command {r['own_cpu_s']} CPU-s, other processes "
          f"{r['foreign_cpus']:.3f} CPUs, steal {r['steal_cpus']:.3f} CPUs, loadavg {before} -> {r['loadavg_after']}"
          + ("" if waited is not None else "; never quiet: ran anyway"), file=sys.stderr)
    if a.json:
        with open(a.json, "w") as f:
            json.dump(r, f, indent=2)
    sys.exit(os.waitstatus_to_exitcode(status))


if __name__ == "__main__":
    main()
