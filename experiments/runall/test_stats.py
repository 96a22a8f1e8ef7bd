"""Unit tests of runall/stats.py against values worked out by hand (or
published): `cd experiments && /usr/bin/python3 -m unittest runall.test_stats`."""
import math
import unittest

from runall import stats


class Wilson(unittest.TestCase):
    def test_no_trials_knows_nothing(self):
        self.assertEqual(stats.wilson(0, 0), (0.0, 1.0))

    def test_half_of_ten(self):
        # The textbook value: 5 of 10 gives [0.2366, 0.7634].
        lo, hi = stats.wilson(5, 10)
        self.assertAlmostEqual(lo, 0.2366, places=4)
        self.assertAlmostEqual(hi, 0.7634, places=4)

    def test_clamped_to_zero_and_one(self):
        self.assertEqual(stats.wilson(0, 20)[0], 0.0)
        self.assertEqual(stats.wilson(20, 20)[1], 1.0)

    def test_error_bars_are_distances(self):
        ps, below, above = stats.wilson_error_bars([(5, 10), (0, 4)])
        self.assertEqual(ps, [0.5, 0.0])
        self.assertAlmostEqual(below[0], 0.5 - stats.wilson(5, 10)[0])
        self.assertAlmostEqual(above[0], stats.wilson(5, 10)[1] - 0.5)
        self.assertEqual(below[1], 0.0)


class KaplanMeier(unittest.TestCase):
    # Durations 1, 2 (censored), 3, 3: S drops to 3/4 at 1; at 3 both of the two at risk end.
    EPISODES = [(1.0, True), (2.0, False), (3.0, True), (3.0, True)]

    def test_steps(self):
        self.assertEqual(stats.kaplan_meier(self.EPISODES), [(0.0, 1.0), (1.0, 0.75), (3.0, 0.0)])

    def test_all_censored_never_falls(self):
        self.assertEqual(stats.kaplan_meier([(5.0, False), (7.0, False)]), [(0.0, 1.0)])

    def test_quantiles(self):
        steps = stats.kaplan_meier(self.EPISODES)
        self.assertEqual(stats.km_quantile(steps, 0.25), 1.0)
        self.assertEqual(stats.km_quantile(steps, 0.5), 3.0)
        self.assertIsNone(stats.km_quantile([(0.0, 1.0)], 0.5))

    def test_survival_at(self):
        steps = stats.kaplan_meier(self.EPISODES)
        self.assertEqual(stats.km_survival_at(steps, 0.5), 1.0)
        self.assertEqual(stats.km_survival_at(steps, 2.0), 0.75)


class Exponential(unittest.TestCase):
    def test_rate_over_time_at_risk(self):
        rate, median = stats.exponential_fit([(100.0, True), (300.0, False)])
        self.assertAlmostEqual(rate, 1 / 400)
        self.assertAlmostEqual(median, 400 * math.log(2))

    def test_no_recovery_no_fit(self):
        self.assertIsNone(stats.exponential_fit([(100.0, False)]))

    def test_rule_of_three(self):
        rate, median = stats.rule_of_three(30.0)
        self.assertAlmostEqual(rate, 0.1)
        self.assertAlmostEqual(median, math.log(2) / 0.1)


if __name__ == "__main__":
    unittest.main()
