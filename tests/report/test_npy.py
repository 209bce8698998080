"""The .npy files Parity writes load in numpy with the right dtype, shape and values."""
import subprocess
import sys
import tempfile
import unittest

import numpy as np

WRITER = sys.argv.pop(1)


class NpyRoundTrip(unittest.TestCase):
    def test_arrays_load_in_numpy(self):
        with tempfile.TemporaryDirectory() as d:
            subprocess.run([WRITER, d], check=True)
            a = np.load(f"{d}/f8_2x3x4.npy")
            self.assertEqual(a.dtype, np.float64)
            self.assertEqual(a.shape, (2, 3, 4))
            np.testing.assert_array_equal(a.ravel(), 0.5 * np.arange(24) - 3.0)
            self.assertEqual(a[1, 2, 3], 0.5 * 23 - 3.0)  # C order
            b = np.load(f"{d}/f4_7.npy")
            self.assertEqual(b.dtype, np.float32)
            np.testing.assert_array_equal(b, (1.0 / np.arange(1, 8)).astype(np.float32))
            c = np.load(f"{d}/i4_5x2.npy")
            self.assertEqual(c.dtype, np.int32)
            np.testing.assert_array_equal(c.ravel(), np.arange(10) ** 2 - 5)
            self.assertEqual(np.load(f"{d}/f8_1x1x1.npy").shape, (1, 1, 1))


if __name__ == "__main__":
    unittest.main()
