"""The parity executable's command line: help, info, the JSON report, and clear errors with a
non-zero exit on bad input (never a crash or a hang)."""
import json
import os
import sys
from pathlib import Path
import tempfile
import unittest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "cli"))
from parity_cli import CliTestCase, run  # noqa: E402  (takes the executable from argv[1])


def parity(*args, timeout=120):
    return run(*args, timeout=timeout)


class Cli(CliTestCase):
    def test_help(self):
        r = parity("--help")
        self.assertEqual(r.returncode, 0)
        self.assertIn("info", r.stdout)
        self.assertIn("run", r.stdout)

    def test_info(self):
        r = parity("info")
        self.assertEqual(r.returncode, 0, r.stderr)
        for key in ("backend", "Kokkos version", "concurrency", "device", "precision"):
            self.assertIn(key, r.stdout)

    def test_info_threads(self):
        r = parity("--threads", "2", "info")
        self.assertEqual(r.returncode, 0, r.stderr)

    def test_info_json_schema(self):
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "info.json")
            r = parity("info", "--json", path)
            self.assertEqual(r.returncode, 0, r.stderr)
            with open(path) as f:
                doc = json.load(f)
        self.assertEqual(doc["schema"], "parity.run/1")
        for key in ("parity", "backend", "precision", "parameters", "timing", "results", "status"):
            self.assertIn(key, doc)
        self.assertIn(doc["backend"]["backend"], ("serial", "openmp", "cuda"))
        self.assertGreater(doc["backend"]["concurrency"], 0)
        self.assertRegex(doc["backend"]["kokkos_version"], r"^\d+\.\d+\.\d+$")

    def test_no_command(self):
        r = parity()
        self.assertEqual(r.returncode, 2)

    def test_unknown_command(self):
        self.assert_bad_input(parity("frobnicate"), "subcommand")

    def test_unknown_option(self):
        self.assert_bad_input(parity("info", "--bogus"), "--bogus")

    def test_bad_threads(self):
        self.assert_bad_input(parity("--threads", "-3", "info"), "--threads")
        self.assert_bad_input(parity("--threads", "many", "info"), "--threads")

    def test_unwritable_json(self):
        self.assert_bad_input(parity("info", "--json", "/nonexistent/dir/x.json"), "cannot write")

    def test_run_needs_selection(self):
        self.assert_bad_input(parity("run"), "--all")
        self.assert_bad_input(parity("run", "--model", "nope"), "unknown model")
        self.assert_bad_input(parity("run", "--all", "--size", "huge"), "--size")
        self.assert_bad_input(parity("run", "--all", "--precision", "half"), "--precision")


if __name__ == "__main__":
    unittest.main()
