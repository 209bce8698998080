"""scripts/parity runs an executable as if it were installed here, wherever it really runs (on the
host, or in the Debian sid root that scripts/setup makes): the caller's folder and absolute paths,
the standard streams, signals and the exit status are the executable's own.

Run on the host, not inside the build environment:  python3 tests/scripts/test_wrapper.py [BACKEND]
(scripts/test runs it after the CTest tests)."""
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import unittest
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
WRAPPER = REPO / "scripts" / "parity"
BACKEND = sys.argv.pop(1) if len(sys.argv) > 1 and not sys.argv[1].startswith("-") else "openmp"
# Seconds on one thread: 64 oscillators, one step.
QUICK = ["--threads", "1", "kuramoto", "-N", "64", "--steps", "1", "--sample-every", "1", "-q"]


def tracked_changes():
    return subprocess.run(["git", "-C", str(REPO), "status", "--porcelain", "--untracked-files=all"],
                          capture_output=True, text=True, check=True).stdout


def wrapper(*args, cwd, timeout=300, env=None, **kwargs):
    return subprocess.run(["bash", str(WRAPPER), BACKEND, *args], cwd=cwd, capture_output=True, text=True,
                          timeout=timeout, stdin=subprocess.DEVNULL, env=dict(os.environ, **(env or {})), **kwargs)


class WrapperTest(unittest.TestCase):
    def setUp(self):
        # Folders outside the repository: one in /tmp and one under /var/tmp, a system folder
        # that the build environment has a folder of its own for.
        self.roots = []
        for base in ("/tmp", "/var/tmp"):
            d = tempfile.mkdtemp(prefix="parity-wrapper-", dir=base)
            self.roots.append(d)
        self.outside = self.roots[0]
        self.before = tracked_changes()

    def tearDown(self):
        for d in self.roots:
            shutil.rmtree(d, ignore_errors=True)
        self.assertEqual(tracked_changes(), self.before, "the run changed files in the repository")

    def assert_ok(self, r):
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)

    def test_relative_paths_are_the_callers(self):
        for root in self.roots:
            r = wrapper(*QUICK, "--json", "report.json", "--output", "arrays/nested", cwd=root)
            self.assert_ok(r)
            with open(os.path.join(root, "report.json")) as fh:
                self.assertEqual(json.load(fh)["model"], "kuramoto")
            self.assertTrue(os.path.isfile(os.path.join(root, "arrays", "nested", "manifest.json")))
        self.assertFalse((REPO / "report.json").exists())

    def test_a_file_named_like_a_tracked_one_is_written_where_the_caller_is(self):
        r = wrapper(*QUICK, "--json", "CHANGELOG.md", cwd=self.outside)
        self.assert_ok(r)
        with open(os.path.join(self.outside, "CHANGELOG.md")) as fh:
            self.assertEqual(json.load(fh)["model"], "kuramoto")
        # tearDown checks that the repository's CHANGELOG.md is untouched.

    def test_absolute_paths_are_the_hosts(self):
        json_path = os.path.join(self.roots[1], "abs.json")
        out_path = os.path.join(self.outside, "x")
        r = wrapper(*QUICK, "--json", json_path, "--output", out_path, cwd=str(REPO))
        self.assert_ok(r)
        self.assertTrue(os.path.isfile(json_path))
        self.assertTrue(os.path.isfile(os.path.join(out_path, "manifest.json")))

    def test_standard_streams_and_exit_status(self):
        r = wrapper(*QUICK, "--json", "/dev/stdout", cwd=self.outside)
        self.assert_ok(r)
        self.assertEqual(json.loads(r.stdout[r.stdout.index("{"):r.stdout.rindex("}") + 1])["model"], "kuramoto")
        self.assertTrue(os.path.islink("/dev/stdout"), "/dev/stdout was replaced")
        r = wrapper("kuramoto", "-N", "0", cwd=self.outside)
        self.assertEqual(r.returncode, 2, r.stdout + r.stderr)
        self.assertIn("-N", r.stderr)
        r = wrapper("no-such-command", cwd=self.outside)
        self.assertEqual(r.returncode, 2, r.stdout + r.stderr)

    def test_environment_reaches_the_executable(self):
        r = wrapper("info", "--json", "info.json", cwd=self.outside, env={"OMP_NUM_THREADS": "1"})
        self.assert_ok(r)
        with open(os.path.join(self.outside, "info.json")) as fh:
            self.assertEqual(json.load(fh)["backend"]["concurrency"], 1)

    def test_a_signal_to_the_wrapper_reaches_the_executable(self):
        marker = os.path.join(self.outside, "long-run.json")
        # Minutes of work on one thread; stopped after a few seconds.
        p = subprocess.Popen(["bash", str(WRAPPER), BACKEND, "--threads", "1", "kuramoto", "-N", "1e6", "--steps",
                              "1e6", "-q", "--json", marker], cwd=self.outside, stdin=subprocess.DEVNULL,
                             stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        time.sleep(3)
        if p.poll() is not None:
            self.fail("the run ended early: " + p.stderr.read().decode())
        p.send_signal(signal.SIGTERM)
        try:
            code = p.wait(timeout=30)
        except subprocess.TimeoutExpired:
            p.kill()
            self.fail("the wrapper did not end after SIGTERM")
        p.stderr.close()
        self.assertEqual(code, -signal.SIGTERM)
        deadline = time.time() + 10
        while time.time() < deadline:
            left = subprocess.run(["pgrep", "-f", marker], capture_output=True, text=True).stdout.split()
            if not left:
                break
            time.sleep(0.2)
        self.assertEqual(left, [], "the executable outlived the wrapper")


if __name__ == "__main__":
    unittest.main(verbosity=2)
