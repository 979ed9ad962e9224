#!/usr/bin/env python3
"""scripts/corpus_capacity.py's parts: the maximum-likelihood factor per doubling and its
spread recover planted ones (and no spread where the rows' own spread explains their errors),
every host weighs the same, only the nothing-shared rows that the capacity bound gave are
taken from `pollscale scale --from-cpus` output, and a host judged by the others counts its
rows inside as the widened intervals say.

Usage: corpus_capacity_test.py   (run by ctest; needs no pollscale binary)
"""
import importlib.util
import math
import os
import random
import unittest

ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
spec = importlib.util.spec_from_file_location("corpus_capacity", os.path.join(ROOT, "scripts", "corpus_capacity.py"))
cc = importlib.util.module_from_spec(spec)
spec.loader.exec_module(cc)


def planted(mu, tau, n, seed, doublings=(1, 1, 2)):
    g = random.Random(seed)
    rows = []
    for i in range(n):
        s, d = 0.01 * (1 + i % 3), doublings[i % len(doublings)]
        rows.append((g.gauss(mu * d, math.sqrt(s * s + tau * tau * d)), s, d))
    return rows


def scale_row(measured, predicted, lo, hi, limited_by="cpu_capacity"):
    return {"measured": measured, "predicted": predicted, "lo": lo, "hi": hi, "limited_by": limited_by}


class CorpusCapacityTest(unittest.TestCase):
    def test_a_planted_factor_and_spread_are_recovered(self):
        for mu, tau in ((-0.04, 0.04), (0.0, 0.1), (-0.1, 0.02)):
            terms = cc.weights({"a": planted(mu, tau, 2000, 1), "b": planted(mu, tau, 700, 2)})
            got_mu, got_tau = cc.estimate(terms)
            self.assertAlmostEqual(got_mu, mu, delta=0.006)
            self.assertAlmostEqual(got_tau, tau, delta=0.15 * tau)

    def test_errors_the_rows_own_spread_explains_give_no_spread(self):
        _, tau = cc.estimate(cc.weights({"a": planted(-0.03, 0.0, 3000, 3)}))
        self.assertLess(tau, 0.006)
        self.assertIsNone(cc.estimate([]))

    def test_every_host_weighs_the_same(self):
        # Host a: 300 rows at -0.10 a doubling; host b: 10 rows at 0. Weighed by hosts, the
        # factor lies halfway, not at a's.
        rows = {"a": [(-0.10, 0.01, 1)] * 300, "b": [(0.0, 0.01, 1)] * 10}
        mu, _ = cc.estimate(cc.weights(rows))
        self.assertAlmostEqual(mu, -0.05, delta=1e-6)

    def test_only_nothing_shared_rows_that_the_bound_gave_are_taken(self):
        doc = {"families": [
            {"table": "private_sets/epoll/lt/pipe t0 throughput", "capacity_cpus": 1, "series": [
                {"cpus": 2, "measured": True, "rows": [
                    scale_row(190.0, 200.0, 190.0, 210.0),                   # taken
                    scale_row(95.0, 100.0, 90.0, 110.0, "dedicated_law"),    # another rule gave it
                    scale_row(190.0, 200.0, 0.0, 210.0),                     # a ceiling: no spread
                    scale_row(None, 200.0, 190.0, 210.0)]},                  # not measured
                {"cpus": 8, "measured": False, "rows": []}]},
            {"table": "private_processes/poll/pipe t0 throughput", "capacity_cpus": 1, "series": [
                {"cpus": 4, "measured": True, "rows": [scale_row(380.0, 400.0, 360.0, 440.0)]}]},
            {"table": "producers/epoll/lt/eventfd k=1 blocking throughput", "capacity_cpus": 1, "series": [
                {"cpus": 2, "measured": True, "rows": [scale_row(100.0, 200.0, 0.0, 210.0)]}]}]}
        rows = cc.bound_rows(doc)
        self.assertEqual(len(rows), 2)
        e, s, d = rows[0]
        self.assertAlmostEqual(e, math.log(0.95))
        self.assertAlmostEqual(s, math.log(210 / 190) / (2 * cc.Z95))
        self.assertEqual(d, 1)
        self.assertEqual(rows[1][2], 2)  # one CPU to four: two doublings

    def test_a_host_judged_by_the_others_counts_its_rows_inside_the_widened_intervals(self):
        rows = [(math.log(0.95), 0.01, 1)] * 4  # 5% below the bound, which claims +-2%
        bare = cc.judged(rows, 0.0, 0.0)
        self.assertEqual(bare["inside"], 0)
        self.assertAlmostEqual(bare["median_abs_error"], 0.05)
        priced = cc.judged(rows, -0.04, 0.03)
        self.assertEqual(priced["inside"], 4)
        self.assertAlmostEqual(priced["median_abs_error"], 1 - 0.95 * math.exp(0.04))
        self.assertLess(priced["mean_interval_score"], bare["mean_interval_score"])

    def test_the_file_keeps_an_estimate_per_statistic_in_the_layout_the_reader_takes(self):
        # model/capacity_efficiency.cpp reads kind, schema_version, estimated and, per
        # statistic, log_mean in [-1, 1], log_sd in [0, 1] and rows, runs, hosts > 0.
        by_host = {"a": {"quick-1": planted(-0.04, 0.04, 40, 5)}, "b": {"full-1": planted(-0.04, 0.04, 30, 6),
                                                                     "quick-2": planted(-0.04, 0.04, 10, 7)}}
        doc = cc.document({st: cc.estimate_block(by_host) for st in cc.STATISTICS})
        self.assertEqual(doc["kind"], "pollscale capacity efficiency")
        self.assertEqual(doc["schema_version"], 1)
        self.assertRegex(doc["estimated"], r"^\d{4}-\d{2}-\d{2}$")
        self.assertEqual(sorted(doc["per_statistic"]), sorted(cc.STATISTICS))
        block = doc["per_statistic"]["median"]
        self.assertTrue(-1 <= block["log_mean"] <= 1 and 0 <= block["log_sd"] <= 1)
        self.assertEqual((block["rows"], block["runs"], block["hosts"]), (80, 3, 2))
        # Each host judged by the other's estimate, with and without.
        self.assertEqual([h["host"] for h in block["per_host"]], ["a", "b"])
        for h in block["per_host"]:
            self.assertIn("judged_by_others", h)
            self.assertEqual(h["judged_by_others"]["rows"], h["without"]["rows"])
        self.assertIn("median: per doubling of the CPUs x0.9", cc.markdown("median", block))


if __name__ == "__main__":
    unittest.main()
