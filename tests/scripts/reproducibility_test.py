#!/usr/bin/env python3
"""bench/reproducibility.py on two hand-made datasets: a point's median moves with the mix of
the machine's speed modes its visits met, and the "fast mode" line — the differences over
the visits whose drift sentinel read within 1.15x the run's p10 — sees through the mix.

Usage: reproducibility_test.py   (run by ctest)
"""
import csv
import json
import os
import shutil
import subprocess
import sys
import tempfile
import unittest

ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
SCRIPT = os.path.join(ROOT, "bench", "reproducibility.py")
sys.path.insert(0, os.path.join(ROOT, "bench"))
from dataset_csv import KEY  # noqa: E402

# A point costs 100 ns in the machine's fast mode (sentinel 1000 ns) and 130 ns in its slow
# mode (sentinel 1400 ns). visits: (sentinel, value) per visit, three samples each.
POINTS = ("10", "100")


def write_run(d, visits, p10=1000.0, max_fd="", placement=None, pinning="", placements=None, settle=None):
    os.makedirs(d)
    stability = {"p10_ns": p10, "median_ns": p10}
    if placement:
        stability["placement"] = placement
    calibration = {"wall_s": 1.0}
    if settle:
        calibration["settle"] = settle
    with open(os.path.join(d, "context.json"), "w") as f:
        json.dump({"stability": stability, "calibration": calibration}, f)
    summary, samples = [], []
    for n in POINTS:
        key = dict.fromkeys(KEY, "")
        key.update({"scenario": "find_active", "mechanism": "poll", "fd_kind": "pipe", "n_fds": n,
                    "n_active": "1", "active_pos": "middle", "blocking": "0", "metric": "time_per_call",
                    "unit": "ns", "max_fd": max_fd, "pinning": pinning})
        values = []
        for v, (sentinel, value) in enumerate(visits):
            for _ in range(3):
                samples.append({**key, "value": value, "visit": v, "sentinel_ns": sentinel, "wake_sentinel_ns": "",
                                "placement_ns": placements[v] if placements else ""})
                values.append(value)
        values.sort()
        median = values[len(values) // 2]
        summary.append({**key, "median": median, "ci95_lo": median * 0.99, "ci95_hi": median * 1.01,
                        "min": values[0], "max": values[-1]})
    for name, rows in (("summary.csv", summary), ("samples.csv", samples)):
        with open(os.path.join(d, name), "w", newline="") as f:
            w = csv.DictWriter(f, fieldnames=list(rows[0].keys()))
            w.writeheader()
            w.writerows(rows)


def report(a, b):
    r = subprocess.run([sys.executable, SCRIPT, a, b], capture_output=True, text=True)
    if r.returncode != 0:
        raise AssertionError(r.stderr)
    return {line[:12].strip(): line[12:].strip() for line in r.stdout.splitlines()}


class ReproducibilityTest(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="pollscale_repro_")
        self.addCleanup(shutil.rmtree, self.tmp, ignore_errors=True)

    def run_pair(self, visits_a, visits_b, max_fd_a="", max_fd_b="", placement_a=None, placement_b=None):
        a, b = os.path.join(self.tmp, "a"), os.path.join(self.tmp, "b")
        write_run(a, visits_a, max_fd=max_fd_a, placement=placement_a)
        write_run(b, visits_b, max_fd=max_fd_b, placement=placement_b)
        return report(a, b)

    def test_cross_cpu_points_are_compared_within_one_placement(self):
        # Two threads on two CPUs: 100 ns a visit near (cache line 65 ns), 150 ns far (460 ns).
        # Run a met the far placement in two visits of three, run b in one: their medians
        # differ by the mix (150 against 100), each placement's visits agree.
        a, b = os.path.join(self.tmp, "a"), os.path.join(self.tmp, "b")
        write_run(a, [(1000, 150), (1000, 150), (1000, 100)], pinning="0+1", placements=[460, 455, 65])
        write_run(b, [(1000, 100), (1000, 150), (1000, 100)], pinning="0+1", placements=[66, 470, 64])
        out = report(a, b)
        self.assertIn("near (2 points): median |d| 0.0%, p95 0.0% (all their visits: 40.0%, 40.0%)", out["placement"])
        self.assertIn("far (2 points): median |d| 0.0%", out["placement"])
        # Without readings the line says so.
        shutil.rmtree(a)
        shutil.rmtree(b)
        out = self.run_pair([(1000, 100)] * 3, [(1000, 100)] * 3)
        self.assertEqual(out["placement"], "no placement sentinel in either run")

    def test_each_run_says_where_the_host_kept_its_cpus(self):
        steady = {"median_ns": 455.0, "moved": False, "moves": 0, "readings": 120}
        moved = {"median_ns": 440.0, "moved": True, "near_ns": 66.0, "far_ns": 461.0, "near_share": 0.33,
                 "moves": 2, "readings": 117}
        out = self.run_pair([(1000, 100)] * 3, [(1000, 100)] * 3, placement_a=steady, placement_b=moved)
        self.assertIn("placement steady, cache line 455 ns", out["run a"])
        self.assertIn("placement moved: near 66 ns for 33% of readings, far 461 ns, 2 moves", out["run b"])

    def test_each_run_says_what_its_settling_visits_did(self):
        a, b = os.path.join(self.tmp, "a"), os.path.join(self.tmp, "b")
        write_run(a, [(1000, 100)] * 3, settle={"target_se": 0.04, "max_visits": 8, "share": 0.25, "points": 164,
                                                "visits": 249, "still_disagree": 116})
        write_run(b, [(1000, 100)] * 3)
        out = report(a, b)
        self.assertIn("settling 249 visits to 164 points, 116 still disagree (max 8 visits)", out["run a"])
        self.assertIn("settling none", out["run b"])

    def test_the_fast_mode_sees_through_the_mix(self):
        # Run a met the slow mode in two visits of three, run b never: the medians differ by
        # the mix (130 against 100: 26%), the fast-mode visits agree.
        out = self.run_pair([(1000, 100), (1400, 130), (1400, 130)], [(1000, 100)] * 3)
        self.assertTrue(out["median |d|"].startswith("26.09%"), out)
        self.assertTrue(out["fast mode"].startswith("median |d| 0.00%, p95 0.00% over the 2 points"), out)
        self.assertIn("(a: 2, b: 2 of 2)", out["fast mode"])

    def test_the_adjusted_medians_see_through_the_mix(self):
        # A cost that moves with the sentinel (140 ns at 1400, 100 at 1000): run a met the slow
        # mode in two visits of three, run b never; their medians differ by 33%, brought to the
        # fast mode they agree.
        out = self.run_pair([(1000, 100), (1400, 140), (1400, 140)], [(1000, 100)] * 3)
        self.assertTrue(out["median |d|"].startswith("33.33%"), out)
        self.assertTrue(out["adjusted"].startswith("median |d| 0.00%, p95 0.00%, max 0.0% over 2 points"), out)
        # Without a drift sentinel there is nothing to adjust by.
        a, b = os.path.join(self.tmp, "a2"), os.path.join(self.tmp, "b2")
        write_run(a, [(1000, 100)] * 3, p10=None)
        write_run(b, [(1000, 100)] * 3, p10=None)
        self.assertEqual(report(a, b)["adjusted"], "no point to adjust in both runs (a run has no drift sentinel)")

    def test_the_adjusted_intervals_come_from_pollscale_compare(self):
        # A stand-in pollscale whose `compare --statistic adjusted` gives two points: one whose
        # difference its intervals hold (100 [95, 105] against 104 [99, 109]), one they do not
        # (100 [99, 101] against 120 [119, 121]).
        stand_in = os.path.join(self.tmp, "pollscale")
        points = [{"a": {"median": 100, "lo": 95, "hi": 105}, "b": {"median": 104, "lo": 99, "hi": 109}},
                  {"a": {"median": 100, "lo": 99, "hi": 101}, "b": {"median": 120, "lo": 119, "hi": 121}}]
        with open(stand_in, "w") as f:
            f.write("#!" + sys.executable + "\nimport json, sys\n"
                    "assert sys.argv[1] == 'compare' and '--statistic' in sys.argv and 'adjusted' in sys.argv\n"
                    f"print(json.dumps({{'points': {points!r}}}))\n")
        os.chmod(stand_in, 0o755)
        a, b = os.path.join(self.tmp, "a"), os.path.join(self.tmp, "b")
        write_run(a, [(1000, 100)] * 3)
        write_run(b, [(1000, 100)] * 3)
        r = subprocess.run([sys.executable, SCRIPT, "--pollscale", stand_in, a, b], capture_output=True, text=True)
        self.assertEqual(r.returncode, 0, r.stderr)
        line = next(x for x in r.stdout.splitlines() if x.startswith("adjusted"))
        self.assertIn("over 2 points, inside 50.0% of 2,", line)
        # Without a binary the line leaves the figure out.
        self.assertNotIn("inside", report(a, b)["adjusted"])

    def test_points_are_matched_without_where_their_descriptors_landed(self):
        # max_fd records where the descriptors landed; it differs between runs of one plan.
        out = self.run_pair([(1000, 100)] * 3, [(1000, 100)] * 3, max_fd_a="14", max_fd_b="17")
        self.assertTrue(out["points"].startswith("2 in both"), out)
        self.assertTrue(out["median |d|"].startswith("0.00%"), out)

    def test_a_run_that_never_met_the_fast_mode_is_said(self):
        out = self.run_pair([(1400, 130)] * 3, [(1000, 100)] * 3)
        self.assertEqual(out["fast mode"], "no point met the fast mode in both runs (or a run has no drift sentinel)")


if __name__ == "__main__":
    unittest.main()
