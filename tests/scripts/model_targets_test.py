#!/usr/bin/env python3
"""bench/model_targets.py --bands with a stand-in pollscale whose `validate` returns planted
rows: the extrapolated scans land in their band of n over the largest trained n, each band
reports the signed median error, the intervals that hold the measurement and the median
relative half-width, streaming scans (timeout 0 over pipes and eventfds) apart from the rest,
the last rows count the datasets reading low and high, and rows of mechanisms that do not
scan are left out.

Usage: model_targets_test.py   (run by ctest)
"""
import json
import os
import stat
import shutil
import subprocess
import sys
import tempfile
import unittest

ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
SCRIPT = os.path.join(ROOT, "bench", "model_targets.py")

# The stand-in: `validate D --train T --format json ...` prints D/rows.json's rows for the
# extrapolation protocol (T = n_fds<=1000) and none for the interpolation one.
FAKE = """#!/usr/bin/env python3
import json, os, sys
d, train = sys.argv[2], sys.argv[sys.argv.index("--train") + 1]
rows = json.load(open(os.path.join(d, "rows.json"))) if train == "n_fds<=1000" else []
print(json.dumps({"rows": rows, "summary": {"n_with_interval": len(rows), "coverage": 1.0,
                  "median_rel_halfwidth": 0.1, "median_interval_score": 0.2}}))
"""


def row(mechanism, factor, err, fd_kind="pipe", blocking=0, lo=None, hi=None):
    """A held-out find_active row measured at 100 and predicted at 100 x (1 + err), as validate
    writes it: rel_err = predicted / measured - 1, so a model reading low has a negative error."""
    return {"scenario": "find_active", "mechanism": mechanism, "fd_kind": fd_kind, "blocking": blocking,
            "n_fds": int(1000 * factor), "extrapolation": factor, "measured": 100.0, "predicted": 100 * (1 + err),
            "rel_err": err, "lo": lo, "hi": hi}


class ModelTargetsBandsTest(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="pollscale_targets_")
        self.addCleanup(shutil.rmtree, self.tmp, ignore_errors=True)
        self.fake = os.path.join(self.tmp, "pollscale")
        with open(self.fake, "w") as f:
            f.write(FAKE)
        os.chmod(self.fake, os.stat(self.fake).st_mode | stat.S_IXUSR)

    def dataset(self, name, rows):
        d = os.path.join(self.tmp, name)
        os.makedirs(d)  # name may hold a corpus path, machines/HOST/DATASET
        with open(os.path.join(d, "context.json"), "w") as f:
            f.write("{}")
        with open(os.path.join(d, "rows.json"), "w") as f:
            json.dump(rows, f)
        return d

    def run_script(self, *args):
        r = subprocess.run([sys.executable, SCRIPT, "--pollscale", self.fake, *args], capture_output=True, text=True)
        self.assertEqual(r.returncode, 0, r.stderr)
        return r.stdout

    def band_rows(self, out):
        """{(dataset, family): [cell per band]} from the --bands table."""
        table = out[out.index("| dataset | scans |"):].splitlines()[2:]
        cells = {}
        for line in table:
            if not line.startswith("|"):
                break
            parts = [p.strip() for p in line.strip("|").split("|")]
            cells[(parts[0], parts[1])] = parts[2:]
        return cells

    def test_bands_tell_a_bias_from_scatter(self):
        a = self.dataset("a", [
            row("poll", 2, -0.10, lo=80, hi=120), row("select", 2.5, 0.10, lo=95, hi=105),
            row("ppoll", 1.2, 0.30, fd_kind="eventfd"),                      # no interval: counted in the error only
            row("poll", 5, -0.20, lo=60, hi=100), row("pselect", 5, -0.30, lo=50, hi=90),
            row("select", 20, -0.40),
            row("poll", 5, 0.50, fd_kind="tcp", lo=90, hi=210),             # a socket scan: the other family
            row("poll", 5, 0.30, blocking=1, lo=100, hi=160),              # a blocking scan: the other family
            row("epoll", 20, -0.90, lo=1, hi=2),                             # does not scan: left out
        ])
        b = self.dataset("b", [row("poll", 19.7, 0.10, lo=105, hi=120)])
        out = self.run_script("--bands", a, b)
        cells = self.band_rows(out)
        # a, streaming: <= 3x holds errors -10%, +10%, +30% (median +10%) and two intervals, both
        # holding the measurement, half-widths 40 / (2 x 90) and 10 / (2 x 110): median 13.4%.
        self.assertEqual(cells[("a", "streaming")][0], "+10.0%, 100% of 2, 13%")
        # 3-7x: -20% and -30% -> -25%; [60, 100] holds 100, [50, 90] does not; half-widths
        # 40 / 160 and 40 / 140: median 26.8%.
        self.assertEqual(cells[("a", "streaming")][1], "-25.0%, 50% of 2, 27%")
        self.assertEqual(cells[("a", "streaming")][2], "-")
        self.assertEqual(cells[("a", "streaming")][3], "-40.0%, no interval, -")
        # The socket and the blocking scan: +50% and +30% -> +40%, both intervals hold.
        self.assertEqual(cells[("a", "other")][1].split(", ")[:2], ["+40.0%", "100% of 2"])
        self.assertEqual(cells[("b", "streaming")][3].split(", ")[:2], ["+10.0%", "0% of 1"])
        # The datasets reading low and high, band by band; the pooled rows beside them.
        self.assertTrue(cells[("(all)", "streaming")][3].startswith("low in 1, high in 1; -15.0%, 0% of 1"))
        self.assertTrue(cells[("(all)", "streaming")][1].startswith("low in 1, high in 0; -25.0%"))
        self.assertEqual(cells[("(all)", "other")][0], "-")
        self.assertNotIn("-90.0%", out[out.index("| dataset | scans |"):])  # epoll's row

    def corpus_dataset(self, host, name, rows):
        return self.dataset(os.path.join("machines", host, name), rows)

    def machine_rows(self, out):
        """{machine (datasets): [cells]} from the per-machine table."""
        table = out[out.index("| machine (datasets) |"):].splitlines()[2:]
        return {parts[0]: parts[1:] for parts in
                ([p.strip() for p in line.strip("|").split("|")] for line in table if line.startswith("|"))}

    def test_a_corpus_gives_one_row_per_machine_with_the_worst_of_its_datasets(self):
        # Host h1: two datasets, poll off by 20% in one and 40% in the other; host h2: one, 10%.
        self.corpus_dataset("h1", "quick-1", [row("poll", 5, -0.20, lo=60, hi=100)])
        self.corpus_dataset("h1", "full-1", [row("poll", 5, 0.40, lo=90, hi=150)])
        self.corpus_dataset("h2", "quick-1", [row("poll", 5, -0.10, lo=85, hi=95)])
        out = self.run_script(os.path.join(self.tmp, "machines"))
        per_dataset = [line for line in out.splitlines() if line.startswith("| h1/") or line.startswith("| h2/")]
        self.assertEqual(len(per_dataset), 3)
        machines = self.machine_rows(out)
        self.assertEqual(set(machines), {"h1 (2)", "h2 (1)", "(worst)"})
        self.assertEqual(machines["h1 (2)"][1], "40.0%")  # extra. poll: the worse of 20% and 40%
        self.assertEqual(machines["h2 (1)"][1], "10.0%")
        self.assertEqual(machines["(worst)"][1], "40.0%")

    def test_datasets_outside_a_corpus_get_no_machine_table(self):
        a = self.dataset("a", [row("poll", 5, -0.20, lo=60, hi=100)])
        b = self.dataset("b", [row("poll", 5, -0.30, lo=60, hi=100)])
        self.assertNotIn("| machine (datasets) |", self.run_script(a, b))

    def test_without_bands_the_table_is_the_targets_alone(self):
        a = self.dataset("a", [row("poll", 5, -0.20, lo=60, hi=100)])
        out = self.run_script(a)
        self.assertNotIn("| dataset | scans |", out)
        self.assertEqual(len([line for line in out.splitlines() if line.startswith("| a |")]), 1)


if __name__ == "__main__":
    unittest.main()
