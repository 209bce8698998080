"""Shared by the command-line test scripts: the executable under test (CTest passes it as the first
argument), a way to run it, and the check every bad input must pass."""
import os
import subprocess
import sys
import unittest

EXE = sys.argv.pop(1)
ENV = dict(os.environ, OMP_PROC_BIND="false")


def run(*args, timeout=120, env=None):
    """Runs the executable with no standard input; a hang fails the test through the timeout.
    `env`: variables to set on top of the test environment."""
    return subprocess.run([EXE, *args], capture_output=True, text=True, timeout=timeout,
                          env=dict(ENV, **(env or {})), stdin=subprocess.DEVNULL)


def run_briefly(*args, seconds=10):
    """Runs a command that would take very long for a few seconds and returns what it wrote to
    stderr before it was stopped (or by the time it ended)."""
    try:
        r = subprocess.run([EXE, *args], capture_output=True, timeout=seconds, env=ENV, stdin=subprocess.DEVNULL)
        err = r.stderr
    except subprocess.TimeoutExpired as e:
        err = e.stderr or b""
    return err.decode() if isinstance(err, bytes) else err


class CliTestCase(unittest.TestCase):
    def assert_bad_input(self, result, message):
        """Bad input: exit status 2 and a message that names the problem."""
        self.assertEqual(result.returncode, 2, result.stdout + result.stderr)
        self.assertIn(message, result.stdout + result.stderr)
