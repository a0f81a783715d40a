"""The test suite's own Ctrl-C (tests/fixtures/signals.py): a chrf-audit started by a test
sees Ctrl-C even when pytest was launched with SIGINT ignored (a background job)."""

from __future__ import annotations

import signal
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
#: a process that inherited SIGINT ignored, as a background job does, starts a Python child
#: (as a test starts chrf-audit) and prints whether Ctrl-C is KeyboardInterrupt in it
PARENT = """
import subprocess, sys
sys.path.insert(0, {root!r})
if {restore}:
    from tests.fixtures.signals import restore_ctrl_c
    restore_ctrl_c()
child = "import signal; print(signal.getsignal(signal.SIGINT) is signal.default_int_handler)"
print(subprocess.run([sys.executable, "-c", child], capture_output=True, text=True).stdout.strip())
"""


@pytest.mark.parametrize("restore, expected", [(True, "True"), (False, "False")])
def test_a_child_gets_ctrl_c_though_the_tests_were_started_ignoring_it(restore, expected):
    """Without restore_ctrl_c (the second case, the situation it repairs) the child ignores Ctrl-C."""
    out = subprocess.run([sys.executable, "-c", PARENT.format(root=str(ROOT), restore=restore)],
                         capture_output=True, text=True, timeout=60,
                         preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_IGN))
    assert out.stdout.strip() == expected, out.stderr


def test_the_test_processes_handle_ctrl_c():
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler
