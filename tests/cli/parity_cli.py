"""Shared by the command-line test scripts: the executable under test (CTest passes it as the first
argument), a way to run it, and the check every bad input must pass."""
import os
import subprocess
import sys
import unittest

EXE = sys.argv.pop(1)
ENV = dict(os.environ, OMP_PROC_BIND="false")


def run(*args, timeout=120):
    """Runs the executable with no standard input; a hang fails the test through the timeout."""
    return subprocess.run([EXE, *args], capture_output=True, text=True, timeout=timeout, env=ENV,
                          stdin=subprocess.DEVNULL)


class CliTestCase(unittest.TestCase):
    def assert_bad_input(self, result, message):
        """Bad input: exit status 2 and a message that names the problem."""
        self.assertEqual(result.returncode, 2, result.stdout + result.stderr)
        self.assertIn(message, result.stdout + result.stderr)
