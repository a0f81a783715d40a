"""Daemons an implementation starts die with the process that hosts it.

Why: every child chrf-audit starts runs in its own session, and ``audit.processes.owner`` ends the
whole process group.  An implementation that daemonizes (fork, ``setsid``, fork again: the
classic double fork) leaves that group and session, and its orphan is reparented to init:
one that did so on every call left 1,235 processes after a normal run.

The process hosting untrusted code (the worker, the stats callable worker, and, through this
module's ``__main__``, an external program) becomes a *child subreaper*
(``prctl(PR_SET_CHILD_SUBREAPER)``, Linux >= 3.4): orphans among its descendants are
reparented to it instead of init, so while it lives every process the implementation
started, daemon or not, is in its tree.  Then:

* ``kill_tree(pid)`` ends a tree from outside (``procs.stop`` before the group's SIGKILL):
  the descendants are found through ``/proc`` and killed, round after round until none is
  left (one forking meanwhile is found in the next round: its parent dies last);
* the host ends its own tree before it exits on its own (``kill_tree(os.getpid())``), since
  its orphans would otherwise go to init after all;
* ``reap_adopted()`` reaps the adopted orphans that have exited (zombies in another
  session), so a daemon per call does not pile up zombies during a run; the
  implementation's own children (same session) are left to the implementation to wait for.

``python audit/processes/subreaper.py PROGRAM ARGS...`` makes itself a subreaper and runs the program
as its child, passing its exit status on: external programs are started that way, so what
they daemonize ends when they do, even when they exit on their own at the end of the input.
Elsewhere than Linux nothing of this is available and daemons escape (docs/fault-catalogue.md).
"""

from __future__ import annotations

import os
import signal
import sys
import time
from typing import Optional

PR_SET_CHILD_SUBREAPER = 36


def become_subreaper() -> bool:
    """Make this process a child subreaper; False where the system has no such thing."""
    if not sys.platform.startswith("linux"):
        return False
    try:
        import ctypes

        libc = ctypes.CDLL(None, use_errno=True)
        return libc.prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) == 0
    except (OSError, AttributeError):
        return False


def _stat(pid: int) -> Optional[tuple[int, str, int]]:
    """(parent pid, state, session) of a process, from /proc/PID/stat (None: gone)."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as fh:
            data = fh.read()
    except OSError:
        return None
    fields = data[data.rfind(b")") + 2:].split()  # after the command name, which may hold spaces
    try:
        return int(fields[1]), fields[0].decode("ascii", "replace"), int(fields[3])
    except (IndexError, ValueError):
        return None


def _table() -> dict[int, tuple[int, str, int]]:
    out = {}
    try:
        names = os.listdir("/proc")
    except OSError:
        return out
    for name in names:
        if name.isdigit():
            st = _stat(int(name))
            if st is not None:
                out[int(name)] = st
    return out


def descendants(pid: int, table: Optional[dict] = None) -> list[int]:
    """Every live (not zombie) descendant of ``pid``, parents before their children."""
    table = _table() if table is None else table
    children: dict[int, list[int]] = {}
    for p, (ppid, _, _) in table.items():
        children.setdefault(ppid, []).append(p)
    out, todo = [], list(children.get(pid, []))
    while todo:
        p = todo.pop(0)
        if table[p][1] != "Z":
            out.append(p)
        todo.extend(children.get(p, []))
    return out


def kill_tree(pid: int, rounds: int = 100) -> int:
    """SIGKILL every descendant of ``pid`` (not ``pid`` itself), until a look at /proc finds
    none alive; the number killed.  Without /proc: 0."""
    killed = 0
    for _ in range(rounds):
        found = descendants(pid)
        if not found:
            break
        for p in reversed(found):  # children first: fewer get the chance to fork again
            try:
                os.kill(p, signal.SIGKILL)
                killed += 1
            except (ProcessLookupError, PermissionError):
                pass
        if pid == os.getpid():
            reap_adopted(any_session=True)
        time.sleep(0.001)  # let the killed ones die before the next look
    return killed


_CHILD_EXITED = [True]  # a child of this process may have exited since the last look


def watch_children() -> None:
    """Note every SIGCHLD, so that ``reap_adopted`` reads /proc only after a child of this
    process exited (a look at every process of the machine after each call of the
    implementation cost more system time than the audit itself)."""
    import signal as _signal

    def noted(signum, frame):
        _CHILD_EXITED[0] = True

    try:
        _signal.signal(_signal.SIGCHLD, noted)
    except (ValueError, OSError, AttributeError):  # not the main thread, or no SIGCHLD
        pass


def reap_adopted(any_session: bool = False) -> int:
    """Reap this process's exited children that are adopted orphans (another session; with
    ``any_session`` every exited child, when the host is ending anyway).  Never blocks.
    After ``watch_children``, /proc is read only when a child exited since the last call."""
    if not _CHILD_EXITED[0] and not any_session:
        return 0
    _CHILD_EXITED[0] = False
    table = _table()
    me = os.getpid()
    mine = table.get(me, (0, "", 0))[2]
    reaped = 0
    for p, (ppid, state, session) in table.items():
        if ppid == me and state == "Z" and (any_session or session != mine):
            try:
                os.waitpid(p, os.WNOHANG)
                reaped += 1
            except ChildProcessError:
                pass
    return reaped


def _outlive(child: int) -> None:
    """Wait for ``child`` (reaping adopted orphans meanwhile), kill what is left of the tree,
    and exit as the child did (a signal re-raised).  Never returns."""
    status = 0
    while True:
        try:
            pid, status = os.wait()
        except InterruptedError:  # pragma: no cover - PEP 475 retries
            continue
        except ChildProcessError:  # pragma: no cover - the child was reaped already
            status = 0
            break
        if pid == child:
            break
    kill_tree(os.getpid())
    reap_adopted(any_session=True)
    if os.WIFSIGNALED(status):
        sig = os.WTERMSIG(status)
        try:
            signal.signal(sig, signal.SIG_DFL)
        except (OSError, ValueError):  # SIGKILL, SIGSTOP: no handler to reset
            pass
        os.kill(os.getpid(), sig)
        os._exit(128 + sig)  # pragma: no cover - the signal ends this process first
    os._exit(os.WEXITSTATUS(status) if os.WIFEXITED(status) else 1)


def _watch(parent: int) -> None:
    """The parent died (even by SIGKILL, which no handler sees): end every process this one
    started (daemons included), then this process group."""
    while os.getppid() == parent:
        time.sleep(0.5)
    kill_tree(os.getpid())
    os.killpg(0, signal.SIGKILL)


#: Signals the host's parent ignores: the ones whose default is to end a process.
_IGNORED = ("SIGTERM", "SIGINT", "SIGHUP", "SIGQUIT", "SIGUSR1", "SIGUSR2", "SIGALRM")


def host_in_child() -> None:
    """Split this process in two before it loads any code under audit, and return in the
    child, which runs it; this process stays as the child's parent and never returns.

    Why: code under audit that signals its parent (``os.kill(os.getppid(), SIGTERM)`` or
    ``SIGSTOP``, a ``killpg`` of its parent's group) reached chrf-audit itself, which it
    could end or freeze (issue 29).  Its parent is now this process -- a child subreaper in
    the same session, which only waits and ignores the signals that would end it (chrf-audit
    ends it with SIGKILL): a signal to it ends or stops nothing of chrf-audit,
    whose own end of the protocol pipes sees the child's end as before (this process keeps
    no copy of them).  It exits as the child did, after killing what the child left, and
    ends the tree when chrf-audit dies."""
    become_subreaper()  # daemons of the code under audit are reparented here
    parent = os.getppid()
    child = os.fork()
    if child == 0:
        return
    for name in _IGNORED:  # what the child may send its parent ends nothing (chrf-audit kills
        signal.signal(getattr(signal, name), signal.SIG_IGN)  # this process with SIGKILL)
    null = os.open(os.devnull, os.O_RDWR)
    for fd in (0, 1):  # the protocol pipes: only the child holds them now
        os.dup2(null, fd)
    if os.getpgid(0) == os.getpid():  # our own group (the parent starts us in a new session)
        import threading

        threading.Thread(target=_watch, args=(parent,), daemon=True).start()
    _outlive(child)


def main(argv=None) -> int:
    """Run PROGRAM as this subreaper's child: its stdin, stdout and stderr are this process's
    (which lets go of its own copies, so the program's end of the pipes is the only one), its
    exit is this process's exit status (a signal re-raised), and whatever it started is killed
    when it ends.  Adopted orphans are reaped meanwhile."""
    import subprocess

    argv = sys.argv[1:] if argv is None else argv
    if not argv:
        print("usage: python audit/processes/subreaper.py PROGRAM [ARGS...]", file=sys.stderr)
        return 2
    become_subreaper()
    try:
        program = subprocess.Popen(argv)  # signals restored to their defaults, fds 0-2 inherited
    except OSError as exc:
        print(f"cannot run {argv[0]!r}: {exc.strerror or exc}", file=sys.stderr)
        return 127
    null = os.open(os.devnull, os.O_RDWR)
    for fd in (0, 1):
        os.dup2(null, fd)
    _outlive(program.pid)


if __name__ == "__main__":
    sys.exit(main())
