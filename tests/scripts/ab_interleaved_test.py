#!/usr/bin/env python3
"""bench/ab_interleaved.py with a stand-in pollscale that logs its calls: the sides are
calibrated in turns, each round's order drawn from the seed (same seed, same order), every
A run is compared with every B run in one `compare`, compare's exit status is the script's,
and bad usage or a failed calibration is one line with exit 2.

Usage: ab_interleaved_test.py   (run by ctest)
"""
import importlib.util
import os
import shutil
import stat
import subprocess
import sys
import tempfile
import unittest

ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
SCRIPT = os.path.join(ROOT, "bench", "ab_interleaved.py")
spec = importlib.util.spec_from_file_location("ab_interleaved", SCRIPT)
ab = importlib.util.module_from_spec(spec)
spec.loader.exec_module(ab)

# The stand-in: appends its arguments to $AB_LOG; calibrate makes its --out directory (or
# fails when $AB_FAIL is set); compare exits 3 when asked to gate, as a regression would.
FAKE = """#!/usr/bin/env python3
import os, sys
with open(os.environ["AB_LOG"], "a") as f:
    f.write(os.path.basename(sys.argv[0]) + " " + " ".join(sys.argv[1:]) + "\\n")
if sys.argv[1] == "calibrate":
    if os.environ.get("AB_FAIL"):
        sys.exit(1)
    os.makedirs(sys.argv[sys.argv.index("--out") + 1])
    sys.exit(0)
print("compared")
sys.exit(3 if "--fail-on-regression=5" in sys.argv else 0)
"""


class AbInterleavedTest(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="pollscale_ab_")
        self.addCleanup(shutil.rmtree, self.tmp, ignore_errors=True)
        self.log = os.path.join(self.tmp, "log")
        self.bins = {}
        for name in ("ps_a", "ps_b"):
            path = os.path.join(self.tmp, name)
            with open(path, "w") as f:
                f.write(FAKE)
            os.chmod(path, os.stat(path).st_mode | stat.S_IXUSR)
            self.bins[name] = path

    def run_script(self, *args, env=None):
        e = dict(os.environ, AB_LOG=self.log, **(env or {}))
        return subprocess.run([sys.executable, SCRIPT, "--a", self.bins["ps_a"], "--b", self.bins["ps_b"], *args],
                              capture_output=True, text=True, env=e)

    def calls(self):
        with open(self.log) as f:
            return [line.split() for line in f]

    def test_the_sides_run_in_turns_and_are_compared_together(self):
        out = os.path.join(self.tmp, "ab")
        r = self.run_script("--runs", "3", "--dir", out, "--seed", "7", "--", "--quick", "--rounds", "1")
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(r.stdout, "compared\n")
        calls = self.calls()
        expected = ab.plan(3, 7)
        self.assertEqual(len(calls), 7)
        for (binary, *args), (side, rnd) in zip(calls, expected):
            self.assertEqual(binary, "ps_" + side)
            self.assertEqual(args, ["calibrate", "--quick", "--rounds", "1", "--out", os.path.join(out, f"{side}{rnd}")])
        self.assertEqual(calls[-1], ["ps_b", "compare", ",".join(os.path.join(out, f"a{i}") for i in (1, 2, 3)),
                                     ",".join(os.path.join(out, f"b{i}") for i in (1, 2, 3))])

    def test_each_round_holds_both_sides_and_the_seed_decides_their_order(self):
        self.assertEqual(ab.plan(10, 1), ab.plan(10, 1))
        for seed in (1, 2):
            p = ab.plan(10, seed)
            for r in range(10):
                self.assertEqual(sorted(side for side, rnd in p[2 * r:2 * r + 2]), ["a", "b"])
                self.assertTrue(all(rnd == r + 1 for _, rnd in p[2 * r:2 * r + 2]))
        firsts = {tuple(p[2 * r][0] for r in range(10)) for p in (ab.plan(10, s) for s in range(1, 6))}
        self.assertGreater(len(firsts), 1)  # another seed, another order
        self.assertIn("a", [p[0] for p in ab.plan(10, 1)[::2]])
        self.assertIn("b", [p[0] for p in ab.plan(10, 1)[::2]])

    def test_compares_status_is_the_scripts(self):
        r = self.run_script("--runs", "1", "--dir", os.path.join(self.tmp, "ab"), "--compare=--fail-on-regression=5")
        self.assertEqual(r.returncode, 3, r.stderr)

    def test_bad_usage_and_failed_calibrations_are_one_line_and_exit_two(self):
        existing = os.path.join(self.tmp, "ab")
        os.makedirs(os.path.join(existing, "a1"))
        os.makedirs(os.path.join(existing, "b1"))
        for args, env, words in ((["--runs", "0"], None, "--runs: 0"),
                                 (["--dir", existing], None, "exists"),
                                 (["--dir", os.path.join(self.tmp, "f")], {"AB_FAIL": "1"}, "exited 1")):
            r = self.run_script(*args, env=env)
            self.assertEqual(r.returncode, 2, (args, r.stderr))
            lines = [line for line in r.stderr.splitlines() if not line.startswith("ab_interleaved: running ")]
            self.assertEqual(len(lines), 1, r.stderr)
            self.assertIn(words, lines[0])
        r = subprocess.run([sys.executable, SCRIPT, "--a", "/nonexistent", "--b", self.bins["ps_b"]],
                           capture_output=True, text=True)
        self.assertEqual(r.returncode, 2)
        self.assertIn("--a: '/nonexistent'", r.stderr)


if __name__ == "__main__":
    unittest.main()
