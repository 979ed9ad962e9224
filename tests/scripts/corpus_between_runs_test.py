#!/usr/bin/env python3
"""scripts/corpus_between_runs.py's parts: the maximum-likelihood spread recovers a planted one
(and finds none where the rows' own spread explains their errors), every host weighs the same,
consecutive runs pair by the gap between them, and rows that cannot be judged on the log
scale are left out.

Usage: corpus_between_runs_test.py   (run by ctest; needs no pollscale binary)
"""
import importlib.util
import math
import os
import random
import shutil
import tempfile
import unittest

ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
spec = importlib.util.spec_from_file_location("corpus_between_runs",
                                              os.path.join(ROOT, "scripts", "corpus_between_runs.py"))
cbr = importlib.util.module_from_spec(spec)
spec.loader.exec_module(cbr)


def planted(rho, n, seed):
    g = random.Random(seed)
    rows = []
    for i in range(n):
        s = 0.05 * (1 + i % 3)  # rows of unequal spread: 0.05, 0.10, 0.15
        rows.append((g.gauss(0, math.sqrt(s * s + rho * rho)), s))
    return rows


class CorpusBetweenRunsTest(unittest.TestCase):
    def test_a_planted_spread_is_recovered(self):
        for rho in (0.1, 0.3):
            terms = cbr.host_weighted({"a": planted(rho, 1500, 1), "b": planted(rho, 600, 2)})
            self.assertAlmostEqual(cbr.ml_log_sd(terms), rho, delta=0.1 * rho)  # se about rho / 40

    def test_errors_the_rows_own_spread_explains_give_none(self):
        self.assertLess(cbr.ml_log_sd(cbr.host_weighted({"a": planted(0, 3000, 3)})), 0.02)
        self.assertIsNone(cbr.ml_log_sd([]))

    def test_every_host_weighs_the_same(self):
        terms = cbr.host_weighted({"a": [(0.1, 0.1)] * 30, "b": [(0.2, 0.1)] * 10})
        self.assertAlmostEqual(sum(w for e, s, w in terms if e == 0.1), sum(w for e, s, w in terms if e == 0.2))
        self.assertAlmostEqual(sum(w for _, _, w in terms), 40)
        # A host of many rows far off does not outvote a host of few that agree.
        lopsided = cbr.host_weighted({"a": [(0.0, 0.05)] * 10, "b": [(0.5, 0.05), (-0.5, 0.05)] * 100})
        even = cbr.host_weighted({"a": [(0.0, 0.05)] * 10, "b": [(0.5, 0.05), (-0.5, 0.05)] * 5})
        self.assertAlmostEqual(cbr.ml_log_sd(lopsided), cbr.ml_log_sd(even), places=4)

    def test_consecutive_runs_pair_by_their_gap(self):
        tmp = tempfile.mkdtemp(prefix="pollscale_between_runs_")
        try:
            for d in ("host-a/quick-20261201T100000Z", "host-a/full-20261201T100300Z",
                      "host-a/quick-20261201T150000Z", "host-a/notes", "host-b/quick-20261202T080000Z"):
                os.makedirs(os.path.join(tmp, d))
            open(os.path.join(tmp, "host-a", "cold_scan-20261201T1100Z.txt"), "w").close()
            pairs = cbr.directed_pairs(cbr.corpus_runs(tmp), 3600)
            names = [(h, host, os.path.basename(a), os.path.basename(b), gap) for h, host, a, b, gap in pairs]
            self.assertEqual(names, [
                ("minutes", "host-a", "quick-20261201T100000Z", "full-20261201T100300Z", 180.0),
                ("minutes", "host-a", "full-20261201T100300Z", "quick-20261201T100000Z", 180.0),
                ("hours", "host-a", "full-20261201T100300Z", "quick-20261201T150000Z", 17820.0),
                ("hours", "host-a", "quick-20261201T150000Z", "full-20261201T100300Z", 17820.0)])
        finally:
            shutil.rmtree(tmp)

    def test_rows_that_cannot_be_judged_on_the_log_scale_are_left_out(self):
        e, s = cbr.row_terms({"simulated": 100, "measured": 110, "ci95_lo": 80, "ci95_hi": 125})
        self.assertAlmostEqual(e, math.log(1.1))
        self.assertAlmostEqual(s, math.log(125 / 80) / (2 * cbr.Z95))
        _, upper_only = cbr.row_terms({"simulated": 100, "measured": 110, "ci95_lo": 0, "ci95_hi": 150})
        self.assertAlmostEqual(upper_only, math.log(1.5) / cbr.Z95)
        for bad in ({"simulated": 0}, {"measured": -1}, {"ci95_hi": float("nan")}, {"ci95_hi": 90}):
            row = {"simulated": 100, "measured": 110, "ci95_lo": 80, "ci95_hi": 125, **bad}
            self.assertIsNone(cbr.row_terms(row), bad)


if __name__ == "__main__":
    unittest.main()
