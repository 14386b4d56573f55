import unittest

from . import support  # noqa: F401
import benchlib


class SplitMix64Tests(unittest.TestCase):
    def test_matches_the_reference_sequence_for_seed_zero(self):
        # First outputs of Vigna's splitmix64.c with x = 0; the Swift baseline shares them.
        rng = benchlib.SplitMix64(0)
        self.assertEqual([rng.next() for _ in range(3)],
                         [0xE220A8397B1DCDAF, 0x6E789E6AA1B965F4, 0x06C45D188009454F])

    def test_keys_are_47_bit_and_positive(self):
        rng = benchlib.SplitMix64(benchlib.ROW_SEED)
        keys = [rng.next_key() for _ in range(1000)]
        self.assertTrue(all(0 <= k < 1 << 47 for k in keys))
        self.assertGreater(len(set(keys)), 990)


class WorkloadTests(unittest.TestCase):
    def test_rows_are_numbered_from_one_and_deterministic(self):
        first = list(benchlib.rows(3))
        self.assertEqual([r[0] for r in first], [1, 2, 3])
        self.assertEqual(first, list(benchlib.rows(3)))
        self.assertEqual(first[1][2:], ("sender-2", "body of message 2 for the benchmark"))

    def test_changes_stay_inside_the_table(self):
        changes = benchlib.Changes(7)
        ids = [changes.next()[0] for _ in range(500)]
        self.assertEqual(set(ids), set(range(1, 8)))


class SummaryTests(unittest.TestCase):
    def test_nearest_rank_percentiles(self):
        s = benchlib.summary([float(x) for x in range(100, 0, -1)])
        self.assertEqual((s["p50"], s["p99"], s["min"], s["max"], s["samples"]), (50.0, 99.0, 1.0, 100.0, 100))

    def test_p99_of_few_samples_is_the_largest(self):
        self.assertEqual(benchlib.summary([3.0, 1.0, 2.0])["p99"], 3.0)

    def test_no_samples_is_an_error(self):
        with self.assertRaises(ValueError):
            benchlib.summary([])


if __name__ == "__main__":
    unittest.main()
