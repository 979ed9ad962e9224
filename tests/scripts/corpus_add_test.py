#!/usr/bin/env python3
"""scripts/corpus_add.py end to end: a host is named from its context, a dataset is added
atomically with its samples thinned and gzipped under the budget, pollscale reads the
result like any dataset, and bad input is one line with a documented exit code.

Usage: corpus_add_test.py --pollscale PATH   (run by ctest)
"""
import argparse
import csv
import gzip
import json
import os
import shutil
import subprocess
import sys
import tempfile
import unittest

ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
SCRIPT = os.path.join(ROOT, "scripts", "corpus_add.py")
FIXTURE = os.path.join(ROOT, "tests", "model", "data", "synthetic")
POLLSCALE = None
HOST = "test-cpu-9000_l2-1m_l3-32m_2cpu_6.1.0-test"


def run(*args):
    return subprocess.run([sys.executable, SCRIPT, *args], capture_output=True, text=True)


class CorpusAddTest(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="pollscale_corpus_")
        self.dataset = os.path.join(self.tmp, "q")
        shutil.copytree(FIXTURE, self.dataset)
        with open(os.path.join(self.dataset, "context.json")) as f:
            ctx = json.load(f)
        ctx.update({"cpu_model": "Test CPU 9000", "kernel": "6.1.0-test", "cpus_online": 2,
                    "time_utc": "2026-12-01T12:00:00Z", "calibration": {"profile": "quick"}})
        with open(os.path.join(self.dataset, "context.json"), "w") as f:
            json.dump(ctx, f)
        self.corpus = os.path.join(self.tmp, "machines")

    def tearDown(self):
        shutil.rmtree(self.tmp)

    def test_host_id_and_check(self):
        r = run("--host-id", self.dataset)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(r.stdout.strip(), HOST)
        self.assertEqual(run("--check", self.dataset, "--corpus", self.corpus).returncode, 1)
        self.assertEqual(run(self.dataset, "--corpus", self.corpus).returncode, 0)
        self.assertEqual(run("--check", self.dataset, "--corpus", self.corpus).returncode, 0)

    def test_added_dataset_is_complete_thinned_and_readable(self):
        r = run(self.dataset, "--corpus", self.corpus, "--budget", "15000")
        self.assertEqual(r.returncode, 0, r.stderr)
        target = os.path.join(self.corpus, HOST, "quick-20261201T120000Z")
        self.assertEqual(sorted(os.listdir(target)),
                         ["context.json", "corpus.json", "samples.csv.gz", "summary.csv"])
        total = sum(os.path.getsize(os.path.join(target, f)) for f in os.listdir(target))
        self.assertLessEqual(total, 15000)
        with open(os.path.join(target, "corpus.json")) as f:
            meta = json.load(f)["samples"]
        with open(os.path.join(self.dataset, "samples.csv")) as f:
            rows = list(csv.reader(f))[1:]
        with gzip.open(os.path.join(target, "samples.csv.gz"), "rt") as f:
            kept = list(csv.reader(f))[1:]
        self.assertEqual(meta["rows_total"], len(rows))
        self.assertEqual(meta["rows_kept"], len(kept))
        self.assertGreater(meta["every_kth_row_of_each_visit"], 1)  # the budget forced thinning
        self.assertTrue(set(map(tuple, kept)) <= set(map(tuple, rows)))
        # No half-added directory is left beside it.
        self.assertEqual(os.listdir(os.path.join(self.corpus, HOST)), ["quick-20261201T120000Z"])
        # pollscale reads the corpus like any dataset, and the summary is the one measured.
        v = subprocess.run([POLLSCALE, "validate", "--data", self.corpus, "--format", "json"],
                           capture_output=True, text=True)
        self.assertEqual(v.returncode, 0, v.stderr)
        self.assertEqual(json.loads(v.stdout)["summary"]["n"], 24)

    def test_single_operation_rows_are_kept_whole(self):
        # call_spread's samples are single calls, a shape needs hundreds of them: thinning
        # takes every k-th row of the other points and leaves these whole.
        path = os.path.join(self.dataset, "samples.csv")
        with open(path) as f:
            header = next(csv.reader(f))
        spread = [["call_spread", "poll", "", "pipe", "16", "1", "random", "20", "0", "1", "1", "0",
                   "time_per_call", "ns", str(i), str(1000 + i % 7)] for i in range(300)]
        self.assertEqual(len(spread[0]), len(header))
        with open(path, "a", newline="") as f:
            csv.writer(f, lineterminator="\n").writerows(spread)
        r = run(self.dataset, "--corpus", self.corpus, "--budget", "15000")
        self.assertEqual(r.returncode, 0, r.stderr)
        target = os.path.join(self.corpus, HOST, "quick-20261201T120000Z")
        with open(os.path.join(target, "corpus.json")) as f:
            meta = json.load(f)["samples"]
        self.assertGreater(meta["every_kth_row_of_each_visit"], 1)  # the others were thinned
        self.assertEqual(meta["whole_scenarios"], ["call_spread"])
        with gzip.open(os.path.join(target, "samples.csv.gz"), "rt") as f:
            kept = [r for r in csv.reader(f) if r[0] == "call_spread"]
        self.assertEqual(kept, spread)

    def test_a_summary_too_large_to_keep_plain_is_gzipped_and_read_alike(self):
        # 9 kB of budget: the plain summary (8.8 kB) leaves no room for one sample row per
        # visit, gzipped (3.2 kB) it leaves room for every other row.
        r = run(self.dataset, "--corpus", self.corpus, "--budget", "9000")
        self.assertEqual(r.returncode, 0, r.stderr)
        target = os.path.join(self.corpus, HOST, "quick-20261201T120000Z")
        self.assertEqual(sorted(os.listdir(target)),
                         ["context.json", "corpus.json", "samples.csv.gz", "summary.csv.gz"])
        self.assertLessEqual(sum(os.path.getsize(os.path.join(target, f)) for f in os.listdir(target)), 9000)
        with open(os.path.join(target, "corpus.json")) as f:
            self.assertTrue(json.load(f)["summary"].startswith("summary.csv.gz"))
        with gzip.open(os.path.join(target, "summary.csv.gz"), "rb") as f, \
                open(os.path.join(self.dataset, "summary.csv"), "rb") as g:
            self.assertEqual(f.read(), g.read())  # the summary as measured
        v = subprocess.run([POLLSCALE, "validate", "--data", self.corpus, "--format", "json"],
                           capture_output=True, text=True)
        self.assertEqual(v.returncode, 0, v.stderr)
        self.assertEqual(json.loads(v.stdout)["summary"]["n"], 24)
        # Where even that does not fit: exit 3, naming both measures.
        r = run(self.dataset, "--corpus", os.path.join(self.tmp, "small"), "--budget", "5000")
        self.assertEqual(r.returncode, 3)
        self.assertIn("summary.csv gzipped", r.stderr)

    def test_calibration_of_some_scenarios_is_named_part(self):
        # The CPU-scaling campaign measures four scenarios with the full profile: it must not
        # land as "full-...", which readers and tools take for a whole-machine calibration.
        path = os.path.join(self.dataset, "context.json")
        with open(path) as f:
            ctx = json.load(f)
        ctx["calibration"] = {"profile": "full", "scenarios": ["producers", "cache_line"]}
        with open(path, "w") as f:
            json.dump(ctx, f)
        r = run(self.dataset, "--corpus", self.corpus)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(os.listdir(os.path.join(self.corpus, HOST)), ["full-part-20261201T120000Z"])

    def test_bad_input_is_one_line_and_a_documented_code(self):
        run(self.dataset, "--corpus", self.corpus)
        again = run(self.dataset, "--corpus", self.corpus)
        self.assertEqual(again.returncode, 2)
        self.assertIn("already in the corpus", again.stderr)
        tiny = run(self.dataset, "--corpus", os.path.join(self.tmp, "other"), "--budget", "2000")
        self.assertEqual(tiny.returncode, 3)
        self.assertEqual(len(tiny.stderr.strip().splitlines()), 1, tiny.stderr)
        with open(os.path.join(self.dataset, "context.json"), "w") as f:
            f.write("{ not json")
        broken = run("--host-id", self.dataset)
        self.assertEqual(broken.returncode, 2)
        self.assertIn("context.json:1", broken.stderr)
        self.assertEqual(len(broken.stderr.strip().splitlines()), 1, broken.stderr)


if __name__ == "__main__":
    ap = argparse.ArgumentParser()
    ap.add_argument("--pollscale", required=True)
    a, rest = ap.parse_known_args()
    POLLSCALE = a.pollscale
    unittest.main(argv=[sys.argv[0]] + rest)
