"""The one owner of every process tree chrf-audit starts.

Every child (a worker hosting an implementation, an external program, a patch verification or a
patch-validation audit, a command run to its end with ``run``) is started by ``spawn`` in its
own session, so that it and anything it
forks share one process group that can be ended as a whole, and is registered here until it
is stopped.  ``stop`` ends a child's whole group: optionally SIGTERM and a grace period first
(a chrf-audit child then stops its own children and removes its temporary directories), then
SIGKILL of the group, and only then is the child reaped: its group id cannot have been reused
by then, and a grandchild the implementation forked dies with it even when the child itself
exited normally.

``install`` (called by the CLI) turns SIGTERM into an exception in the main thread, so that the
ordinary ``finally`` blocks run (adapters closed, temporary directories removed), and stops
whatever is still registered on the way out (also at interpreter exit).  SIGINT already
raises KeyboardInterrupt.  Either exception, when the handler happens to run inside a
garbage-collector callback or a ``__del__`` (where Python only prints it), is raised again
(``_on_unraisable``).  Workers additionally watch their parent (``adapters.worker``): a
parent killed by SIGKILL, which no handler sees, still takes them down.
"""

from __future__ import annotations

import atexit
import contextlib
import os
import queue
import signal
import subprocess
import sys
import threading
import time
from typing import Optional

from . import subreaper

_lock = threading.Lock()
_live: dict[int, tuple[subprocess.Popen, float]] = {}  # pid -> (process, grace seconds for SIGTERM)
_closing = False  # set by stop_all(final=True): no new child


class Terminated(KeyboardInterrupt):
    """SIGTERM arrived (a KeyboardInterrupt, so every handler of Ctrl-C applies to it)."""


def spawn(argv, *, grace: float = 0.0, **kwargs) -> subprocess.Popen:
    """Popen ``argv`` in a new session, registered until ``stop``.  ``grace``: seconds the
    child gets after SIGTERM before SIGKILL (for chrf-audit children that clean up)."""
    kwargs["start_new_session"] = True
    with _lock:  # under the lock: stop_all cannot miss a child started concurrently
        if _closing:
            raise Terminated("chrf-audit is stopping: no new process")
        proc = subprocess.Popen(argv, **kwargs)
        _live[proc.pid] = (proc, grace)
    return proc


def reopen() -> None:
    """Allow ``spawn`` again (a new command in the same process, e.g. tests)."""
    global _closing
    _closing = False


def live() -> list[subprocess.Popen]:
    with _lock:
        return [p for p, _ in _live.values()]


def _status(proc: subprocess.Popen):
    """The child's wait status without reaping it (None while it runs)."""
    if proc.returncode is not None:
        return proc.returncode
    try:
        res = os.waitid(os.P_PID, proc.pid, os.WEXITED | os.WNOHANG | os.WNOWAIT)
    except ChildProcessError:  # reaped elsewhere
        return proc.poll() if proc.returncode is None else proc.returncode
    if res is None:
        return None
    return -res.si_status if res.si_code in (os.CLD_KILLED, os.CLD_DUMPED) else res.si_status


def exited(proc: subprocess.Popen) -> bool:
    """Has the child ended?  Unlike ``poll`` it does not reap it (its group stays ours)."""
    return _status(proc) is not None


def exit_status(proc: subprocess.Popen, timeout: float) -> Optional[int]:
    """The child's exit status (negative: killed by that signal), waiting up to ``timeout``
    seconds; None when it is still running.  Does not reap."""
    deadline = time.monotonic() + timeout
    while True:
        rc = _status(proc)
        if rc is not None or time.monotonic() >= deadline:
            return rc
        time.sleep(0.01)


def _killpg(proc: subprocess.Popen, sig: int) -> None:
    try:
        os.killpg(proc.pid, sig)
    except (ProcessLookupError, PermissionError):
        if sig == signal.SIGKILL and proc.returncode is None:
            try:
                proc.kill()
            except ProcessLookupError:
                pass


#: Seconds a host gets to reap its killed child and end (``stop``); it takes milliseconds.
HOST_GRACE = 1.0


def stop(proc: Optional[subprocess.Popen], *, wait: float = 0.0, term: bool = False) -> None:
    """End ``proc``'s process group and reap it: SIGTERM first when ``term`` (then up to
    ``wait`` seconds, or the grace it was spawned with), else up to ``wait`` seconds for a
    voluntary exit; then SIGKILL of the group; then close its pipes."""
    if proc is None:
        return
    with _lock:
        grace = _live.get(proc.pid, (None, 0.0))[1]
    if term:
        wait = max(wait, grace)
        if not exited(proc):
            _killpg(proc, signal.SIGTERM)
    if wait > 0:
        exit_status(proc, wait)
    # the child is a subreaper (audit.processes.subreaper): what it daemonized is still in its tree.
    # Its group is stopped first (nothing in it forks any more), the tree killed leaves
    # first, the child (whom the orphans go to meanwhile) last.
    _killpg(proc, signal.SIGSTOP)
    subreaper.kill_tree(proc.pid)
    if not exited(proc):
        # A host of code under audit (``subreaper.host_in_child``, the external programs'
        # launcher) waits for its child: continued, it reaps the child just killed and ends on
        # its own.  Killed first, its child would be left to init as a zombie.
        _killpg(proc, signal.SIGCONT)
        exit_status(proc, HOST_GRACE)
    _killpg(proc, signal.SIGKILL)
    try:
        proc.wait(timeout=5)
    except subprocess.TimeoutExpired:  # pragma: no cover - unkillable (D state)
        pass
    for f in (proc.stdin, proc.stdout, proc.stderr):
        try:
            if f:
                f.close()
        except OSError:
            pass
    with _lock:
        if _live.get(proc.pid, (None,))[0] is proc:
            del _live[proc.pid]


def stop_all(final: bool = False) -> None:
    """Stop every registered child: SIGTERM to all of them at once, one shared grace period
    for the chrf-audit children to clean up, then SIGKILL of every group.  ``final``: from
    now on ``spawn`` refuses (a job thread must not start a new child after Ctrl-C)."""
    global _closing
    with _lock:
        _closing = _closing or final
        items = list(_live.values())
    graceful = [p for p, g in items if g > 0 and not exited(p)]
    for p in graceful:
        _killpg(p, signal.SIGTERM)
    deadline = time.monotonic() + max([g for _, g in items if g > 0], default=0.0)
    for p in graceful:
        exit_status(p, max(0.0, deadline - time.monotonic()))
    for p, _ in items:
        stop(p)


@contextlib.contextmanager
def owned_pool(max_workers: int):
    """A thread pool whose jobs start children (patch verifications).  Ctrl-C or SIGTERM inside the
    block *or while waiting for its jobs at the end*: the queued jobs are cancelled, every
    child is stopped now and no new one can start, so the shutdown does not wait for them."""
    from concurrent.futures import ThreadPoolExecutor

    pool = ThreadPoolExecutor(max_workers=max_workers)
    try:
        yield pool
        pool.shutdown(wait=True)
    except KeyboardInterrupt:
        pool.shutdown(wait=False, cancel_futures=True)
        stop_all(final=True)
        raise


def run(argv, timeout: Optional[float] = None, **kwargs) -> subprocess.CompletedProcess:
    """A short command (creating a venv, a pip install) run to its end as an owned child: its
    own session, registered, stopped with the others on SIGTERM; stdin closed, output captured
    as text (``kwargs`` go to Popen).  ``timeout``: hang detection; a command still running
    after it is stopped, and its result is exit status -1 with "no end within N s" as stderr."""
    kwargs = {"stdin": subprocess.DEVNULL, "stdout": subprocess.PIPE, "stderr": subprocess.PIPE, "text": True,
              **kwargs}
    proc = spawn(argv, **kwargs)
    try:
        out, err = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        return subprocess.CompletedProcess(argv, -1, "", f"no end within {timeout:g} s")
    finally:
        stop(proc)  # what it left running in its group ends with it
    return subprocess.CompletedProcess(argv, proc.returncode, out, err)


def _pool_child(stop_event, parent: int) -> None:
    """Initializer of a ``process_pool`` process.  The workers it starts are registered with
    this module in *this* process and watch *it*, not the audit: so when the audit is
    interrupted (``stop_event`` set) or killed outright (its pid is no longer our parent),
    this process stops its own children and exits at once instead of finishing its job
    (minutes of --timeout)."""

    def watch():
        while not stop_event.wait(0.5) and os.getppid() == parent:
            pass
        stop_all(final=True)
        os._exit(1)

    threading.Thread(target=watch, daemon=True).start()


@contextlib.contextmanager
def process_pool(max_workers: int):
    """A pool of ``max_workers`` Python processes (``spawn``: nothing of this process's state
    is inherited).  Ctrl-C or SIGTERM in the block: the pool processes are told to stop their
    children and exit, queued jobs are cancelled; any other failure cancels the queued jobs;
    otherwise the block's end waits for the pool."""
    from concurrent.futures import ProcessPoolExecutor
    from multiprocessing import get_context

    ctx = get_context("spawn")
    stop_event = ctx.Event()
    pool = ProcessPoolExecutor(max_workers=max_workers, mp_context=ctx, initializer=_pool_child,
                               initargs=(stop_event, os.getpid()))
    try:
        yield pool
    except KeyboardInterrupt:
        stop_event.set()
        pool.shutdown(wait=True, cancel_futures=True)
        raise
    except BaseException:
        pool.shutdown(wait=True, cancel_futures=True)
        raise
    pool.shutdown(wait=True)


def _on_sigterm(signum, frame):
    raise Terminated()


_installed = False


def install() -> None:
    """SIGTERM -> ``Terminated`` in the main thread; every registered child stopped at exit;
    an interruption swallowed where it was raised is raised again (``_on_unraisable``)."""
    global _installed, _previous_unraisablehook
    if _installed or threading.current_thread() is not threading.main_thread():
        return
    signal.signal(signal.SIGTERM, _on_sigterm)
    _previous_unraisablehook = sys.unraisablehook
    sys.unraisablehook = _on_unraisable
    threading.Thread(target=_resend_swallowed, name="chrf-audit-resend-signal", daemon=True).start()
    atexit.register(_stop_resource_tracker)  # runs after stop_all (atexit is last in, first out)
    atexit.register(stop_all)
    _installed = True


_previous_unraisablehook = sys.unraisablehook
_swallowed: "queue.SimpleQueue[int]" = queue.SimpleQueue()  # signals whose exception the main thread lost


def _on_unraisable(unraisable) -> None:
    """A signal's exception raised where Python cannot propagate it is only printed, and the
    program goes on: a handler runs at whatever bytecode comes next, and when that is in a
    garbage-collector callback (Hypothesis registers one) or a ``__del__``, ``Terminated`` (or
    Ctrl-C's KeyboardInterrupt) ends here.  Seen: a SIGTERM'd run that went on waiting for a
    hung implementation.  The watcher thread sends the signal again to the main thread.

    Not from here: the handler would run at the next bytecode, inside this hook, where an
    exception is ignored too.  The watcher needs the GIL first, which the main thread gives
    up when it blocks (the read it would otherwise sit in) or after the switch interval, by
    when it has left the callback: if it is in one again, the exception comes back here and
    the signal is sent once more."""
    exc = unraisable.exc_value
    if isinstance(exc, Terminated):
        _swallowed.put(signal.SIGTERM)
    elif isinstance(exc, KeyboardInterrupt) and signal.getsignal(signal.SIGINT) is signal.default_int_handler:
        _swallowed.put(signal.SIGINT)
    else:
        _previous_unraisablehook(unraisable)


def _resend_swallowed() -> None:
    """The watcher thread (a daemon started by ``install``)."""
    while True:
        signal.pthread_kill(threading.main_thread().ident, _swallowed.get())


def _stop_resource_tracker() -> None:
    """multiprocessing's resource tracker (started by a process pool's locks) ends by itself
    when our end of its pipe closes, i.e. after we have exited, so nobody waits for it: it
    outlived chrf-audit for a moment, a zombie re-parented to init.  Its own ``_stop`` closes
    the pipe and reaps it before we exit (a Python without it: the tracker ends as before)."""
    try:
        from multiprocessing import resource_tracker

        tracker = resource_tracker._resource_tracker
        if getattr(tracker, "_pid", None) is not None and hasattr(tracker, "_stop"):
            tracker._stop()
    except Exception:  # noqa: BLE001 - at exit: the tracker then ends on its own, as it always did
        pass
