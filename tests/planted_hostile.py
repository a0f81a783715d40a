"""Hostile implementations for the worker-protocol and process-tree tests (issue 12).

The hypothesis selects the behaviour; any other input scores ``len(hypothesis)``.
"""

import os
import pickle
import subprocess
import sys
import time


def _protocol_fds():
    """The worker's pipes other than 0-2: where a hostile implementation would write."""
    out = []
    for name in os.listdir("/proc/self/fd"):
        fd = int(name)
        try:
            if fd > 2 and os.readlink(f"/proc/self/fd/{name}").startswith("pipe:"):
                out.append(fd)
        except OSError:
            pass
    return out


class _RunsCode:
    def __reduce__(self):
        return (os.system, (f"touch {os.environ.get('CHRF_HOSTILE_MARK', '/nonexistent/mark')}",))


def _write_all(data: bytes) -> None:
    for fd in _protocol_fds():
        try:
            os.write(fd, data)
        except OSError:
            pass  # the read end


def sentence(hypothesis, references):
    if hypothesis == "garbage":
        _write_all(b"\x80\x81 not a frame\n")
    elif hypothesis == "pickle":
        # what ran code in the parent when it unpickled the worker's frames (c994a20)
        payload = pickle.dumps(_RunsCode())
        _write_all(len(payload).to_bytes(4, "big") + payload + b"\n")
    elif hypothesis == "partial":
        _write_all(b'["item", 0, ["value"')  # no newline: glued to the real frame
    elif hypothesis == "wrongshape":
        _write_all(b'["item", 0, ["value", "NaN", 3]]\n')
    elif hypothesis == "fork":
        _fork_grandchild()
    elif hypothesis == "hang":
        time.sleep(300)
    return float(len(hypothesis))


def _fork_grandchild():
    """A grandchild in the worker's process group that outlives the call; the worker's and
    its pid go to $CHRF_HOSTILE_PIDS."""
    child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(300)"])
    with open(os.environ["CHRF_HOSTILE_PIDS"], "a") as fh:
        fh.write(f"{os.getpid()} {child.pid}\n")


def fork_and_hang(hypothesis, references):
    """Every call: fork a grandchild, then hang (the audit is then waiting on this worker)."""
    _fork_grandchild()
    time.sleep(300)
    return 0.0


def slow(hypothesis, references):
    time.sleep(0.3)
    return 0.0
