"""Adapter for an external program speaking the JSON-lines protocol (docs/external-protocol.md).

The program is started once and kept warm.  A batch is pipelined: a writer thread sends one
request line per item while this thread reads the answers in order, each within ``timeout``
seconds of the previous one.  A hang, a death, or a broken answer line costs that item (an
Outcome) and a restart of the program; the rest of the batch continues.
"""

from __future__ import annotations

import json
import os
import shlex
import shutil
import sys
from pathlib import Path
from typing import Callable, Optional

from ..errors import UsageError
from ..settings.limits import check_claims
from . import backends as B
from . import faults
from .base import CLAIM_FIELDS, Adapter, AdapterError, Claims, SourceLocation, Support, with_overrides
from .frames import EOF, TIMEOUT, Overlong, excerpt, take_line
from .supervisor import LOAD_FLOOR, Supervisor, Tenant

PROTOCOL_VERSION = 1
SUBREAPER = str(Path(__file__).resolve().parents[1] / "processes" / "subreaper.py")


def _runnable(command: str, program: str) -> None:
    """The program must exist and be executable (the launcher would only find out later);
    the message says what the path is when it is not a program (``/dev/null`` is a
    character device, not a missing file)."""
    if shutil.which(program) is not None:
        return
    why = "No such file or directory"
    if os.sep in program and os.path.lexists(program):
        import stat

        try:
            mode = os.stat(program).st_mode
        except OSError as e:
            mode, why = None, e.strerror or str(e)
        if mode is not None:
            kind = next((what for test, what in ((stat.S_ISDIR, "a directory"), (stat.S_ISCHR, "a character device"),
                                                 (stat.S_ISBLK, "a block device"), (stat.S_ISFIFO, "a named pipe (FIFO)"),
                                                 (stat.S_ISSOCK, "a socket")) if test(mode)), None)
            why = f"it is {kind}, not a program" if kind else "Permission denied (not executable)"
    raise AdapterError(f"cannot start --external {command!r}: {why}: {program!r}")


class ExternalProcess(Supervisor):
    """The program behind ``--external``: the protocol (hello, pipelined requests, answers
    matched to ids) on top of the ``Supervisor``'s process lifecycle."""

    standby = True  # a restarted program needs no set-up: a standby is just started ahead

    def __init__(self, command: str, timeout: float, startup_timeout: float = LOAD_FLOOR):
        try:
            argv = shlex.split(command)
        except ValueError as e:
            raise AdapterError(f"cannot parse --external {command!r}: {e}") from None
        if not argv:
            raise AdapterError("--external needs a command, got an empty string")
        _runnable(command, argv[0])
        # started through audit.processes.subreaper: the program is a child subreaper, so what it
        # daemonizes stays in its tree and is ended with it
        super().__init__([sys.executable, "-I", "-S", SUBREAPER, *argv], take_line, timeout, startup_timeout)
        self.command = command
        self._next_id = 1
        self.out_of_order = ""  # set once an answer carried another request's id

    def start(self) -> None:
        """Start the program unless it runs; AdapterError (a user mistake) when it cannot."""
        try:
            super().start()
        except OSError as e:
            raise AdapterError(
                f"cannot start --external {self.command!r}: {e.strerror or e}"
                + (f": {e.filename!r}" if getattr(e, "filename", None) else "")
            ) from None

    def hello(self) -> Optional[dict]:
        """The handshake answer, or None when the program does not implement it."""
        with self.lock:
            self.start()
            self.send_async(_encode({"id": 0, "op": "hello", "protocol": PROTOCOL_VERSION}))
            line = self.read(self.startup_timeout)
            if line is EOF:
                detail = self.exit_detail()
                tail = self.stderr_tail()
                self.kill()
                raise AdapterError(
                    f"--external {self.command!r} stopped before answering hello ({detail})"
                    + (f": {tail}" if tail else "")
                )
            if line is TIMEOUT or isinstance(line, Overlong):
                self.kill()  # a late answer (or the rest of a flood) would desynchronize the stream
                return None
            try:
                answer = json.loads(line)
            except (ValueError, RecursionError):  # 200,000 nested [ is not a hello either
                self.kill()
                return None
            if not isinstance(answer, dict) or answer.get("id") != 0 or "error" in answer:
                if not isinstance(answer, dict) or answer.get("id") != 0:
                    self.kill()
                return None
            return answer

    def run(self, op: str, params: dict, items: list) -> list[tuple]:
        with self.lock:
            try:
                line = self.faults.line(op)
                keys = [faults.item_key(params, item) for item in items]
                return line.run(items, keys, lambda sub, limit: self._attempt(op, params, sub, limit))
            except BaseException:  # KeyboardInterrupt mid-batch: answers still in flight
                self.kill()
                raise

    def _attempt(self, op: str, params: dict, items: list, limit: float) -> list[tuple]:
        """Send ``items`` (pipelined) to a running program and read their answers, up to the
        first untrusted one (``Supervisor.answers``)."""
        try:
            self.ensure()
        except AdapterError as e:
            return [(("crash", str(e)), False, 0.0) for _ in items]
        ids = list(range(self._next_id, self._next_id + len(items)))
        self._next_id += len(ids)
        lines = []
        for rid, item in zip(ids, items):
            req = {"id": rid, "op": op, "params": params}
            if op == "sentence":
                req["hypothesis"], req["references"] = item
            else:
                req["hypotheses"], req["references"] = item
            lines.append(_encode(req))
        self.send_async(b"".join(lines))
        return self.answers(len(items), lambda line, k: self._judge(line, ids[k], limit), limit)

    def _judge(self, line, rid: int, limit: Optional[float] = None) -> tuple:
        """(result, trusted) for the answer to request ``rid``."""
        limit = self.timeout if limit is None else limit
        lost = self.no_answer(line, limit)
        if lost is not None:
            if lost[0] == "timeout" and self.out_of_order:
                # it holds answers back: a protocol violation, not a hang
                return ("invalid", None, f"no answer within {limit:g} s, and this "
                        f"program answers out of order ({self.out_of_order})"), False
            return lost, False
        result, restart = _answer(line, rid)
        if restart and result[0] == "invalid" and "does not match request id" in result[2]:
            self.out_of_order = result[2]
        return result, not restart


def _check_hello(hello: dict) -> None:
    """The types of a hello answer's fields (docs/external-protocol.md); AdapterError naming
    the first wrong one.  The program is untrusted input: nothing it sends may raise elsewhere."""
    def kind(v):
        return {dict: "an object", list: "an array", str: "a string", bool: "a boolean"}.get(type(v), type(v).__name__)

    for key, want, what in (("claims", dict, "an object"), ("supports", dict, "an object"),
                            ("sources", dict, "an object"), ("accepts", list, "an array")):
        v = hello.get(key)
        if v is not None and not isinstance(v, want):
            raise AdapterError(f"{key} must be {what}, got {kind(v)} ({json.dumps(v)[:60]})")
    for k, v in (hello.get("supports") or {}).items():
        if k != "max_refs" and not isinstance(v, bool):  # max_refs: see _max_refs
            raise AdapterError(f"supports.{k} must be true or false, got {kind(v)}")
    for v in hello.get("accepts") or []:
        if not isinstance(v, str):
            raise AdapterError(f"accepts must list claim names (strings), got {kind(v)}")
    for k, v in (hello.get("sources") or {}).items():
        if not isinstance(v, dict):
            raise AdapterError(f"sources.{k} must be an object, got {kind(v)}")
    v = hello.get("version")
    if v is not None and (isinstance(v, (bool, dict, list))):
        raise AdapterError(f"version must be a string, got {kind(v)}")


def _max_refs(value, where: str) -> Optional[int]:
    """The handshake's ``supports.max_refs`` (null or an integer >= 1)."""
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise AdapterError(f"{where}: supports.max_refs in its hello answer must be an integer >= 1, got {value!r}")
    return value


def _claims(hello: dict, where: str) -> Claims:
    """What the hello answer claims (``scale`` may stand beside ``claims``)."""
    raw = dict(hello.get("claims") or {})
    if "scale" in hello and "scale" not in raw:
        raw["scale"] = hello["scale"]
    raw = {k: v for k, v in raw.items() if k in CLAIM_FIELDS}
    try:
        claims = Claims().replace(**raw)
        check_claims(raw)
    except (TypeError, ValueError, UsageError) as e:
        raise AdapterError(f"{where}: invalid claims in its hello answer: {e}") from None
    return claims


def _supports(hello: dict, where: str, max_refs: Optional[int]) -> Support:
    """What the hello answer supports; ``max_refs`` (``--max-refs``) given by the user wins."""
    sup = hello.get("supports") or {}
    supports = Support(sentence=bool(sup.get("sentence", True)), corpus=bool(sup.get("corpus", True)),
                       multi_reference=bool(sup.get("multi_reference", True)),
                       max_refs=_max_refs(sup.get("max_refs"), where))
    if not (supports.sentence or supports.corpus):
        raise AdapterError(f"{where}: its hello answer supports neither sentence nor corpus scores: nothing to audit")
    if max_refs is not None:
        supports = Support(supports.sentence, supports.corpus, max_refs > 1, max_refs)
    return supports


def _sources(hello: dict, command: str) -> dict:
    """level -> ``SourceLocation`` the hello answer gives (its fields checked one by one)."""
    sources = {}
    for key, loc in (hello.get("sources") or {}).items():
        if isinstance(loc, dict):
            line = loc.get("line")
            sources[key] = SourceLocation(
                module=str(loc.get("module") or command),
                qualname=str(loc.get("qualname") or loc.get("function") or key),
                file=loc.get("file") if isinstance(loc.get("file"), str) else None,
                line=line if isinstance(line, int) and not isinstance(line, bool) else None,
            )
    return sources


def _encode(obj) -> bytes:
    return (json.dumps(obj, ensure_ascii=True, allow_nan=False) + "\n").encode("ascii")


def _shown_id(value) -> str:
    try:
        return B.one_line(repr(value), 40)
    except RecursionError:  # a deeply nested "id"
        return "(a nested value)"


def _answer(line: str, expected_id: int) -> tuple:
    """(result, restart_needed) for one answer line; what the program wrote instead of an
    answer is shown in the detail (bounded, escaped: ``frames.excerpt``)."""
    shown = excerpt(line)
    if isinstance(line, Overlong):
        return ("invalid", B.one_line(line, 200), f"{line.why}: {shown}"), True
    try:
        answer = json.loads(line)
    except ValueError:
        return ("invalid", B.one_line(line, 200), f"answer is not JSON: {shown}"), True
    except RecursionError:  # a line of 200,000 nested [ (a stack, not an answer)
        return ("invalid", B.one_line(line, 200), f"answer is not JSON (nested too deeply): {shown}"), True
    if not isinstance(answer, dict):
        return ("invalid", B.one_line(line, 200), f"answer is not a JSON object: {shown}"), True
    if answer.get("id") != expected_id:
        return (
            ("invalid", B.one_line(line, 200),
             f"answer id {_shown_id(answer.get('id'))} does not match request id {expected_id}"),
            True,
        )
    if "error" in answer:
        return ("exception", B.one_line(str(answer["error"]))), False
    if "score" not in answer:
        return ("invalid", B.one_line(line, 200), f"answer has neither score nor error: {shown}"), False
    return B.classify(answer["score"]), False


class ExternalAdapter(Tenant, Adapter):
    def __init__(self, process: ExternalProcess, hello: Optional[dict], claims: Claims,
                 supports: Support, accepts: frozenset, version: Optional[str], sources: dict, *,
                 name: Optional[str] = None, accepts_surrogates: bool = False, spec: Optional[dict] = None,
                 record: Optional[Callable[[str], Optional[dict]]] = None):
        self.process = self._occupy(process)
        self._record = record  # the caller's source record (a survey registry's expression), or the program's
        self.name = name if name is not None else f"external:{process.command}"
        self.hello = hello
        self.claims = claims
        self.supports = supports
        self.accepts = frozenset(accepts)
        self.version = version
        self.sources = sources
        self.accepts_surrogates = accepts_surrogates
        self.spec = spec

    @classmethod
    def start(cls, command: str, timeout: float, *, name: Optional[str] = None, max_refs: Optional[int] = None,
              overrides: Optional[dict] = None, spec: Optional[dict] = None,
              record: Optional[Callable[[str, dict], Optional[dict]]] = None) -> "ExternalAdapter":
        """The program of ``command`` started and its hello read: what it claims (with the
        user's ``overrides`` on top), supports (at most ``max_refs`` references, when given)
        and accepts.  ``name``: the name in reports (default ``external:COMMAND``);
        ``record(level, sources)``: a finding's source record when the caller knows how the
        program's score is called better than the program (default: the program's command)."""
        process = ExternalProcess(command, timeout)
        where = f"--external {command!r}"
        try:
            hello = process.hello() or {}
            try:
                _check_hello(hello)
            except AdapterError as e:
                raise AdapterError(f"{where}: invalid hello answer: {e}") from None
            claims = with_overrides(_claims(hello, where), overrides or {}, name or f"external:{command}")
            supports = _supports(hello, where, max_refs)
        except AdapterError:
            process.kill()
            raise
        accepts = frozenset(a for a in (hello.get("accepts") or []) if a in CLAIM_FIELDS)
        version, sources = hello.get("version"), _sources(hello, command)
        return cls(process, hello or None, claims, supports, accepts, str(version) if version is not None else None,
                   sources, name=name, accepts_surrogates=hello.get("lone_surrogates") is True, spec=spec,
                   record=(lambda level: record(level, sources)) if record else None)

    def with_claims(self, claims: Claims) -> "ExternalAdapter":
        return ExternalAdapter(self.process, self.hello, claims, self.supports, self.accepts, self.version,
                               self.sources, name=self.name, accepts_surrogates=self.accepts_surrogates,
                               spec=self.spec, record=self._record)

    def source_record(self, level: str) -> Optional[dict]:
        """The command that reproduces it, and where the program says the score is computed
        (the caller's record instead, when it gave one)."""
        if self._record is not None:
            return self._record(level)
        out = {"call": "external", "command": self.process.command}
        loc = self.sources.get(level)
        if loc is not None:
            out.update(file=loc.portable_file, line=loc.line, function=loc.qualname)
        return out

    def _score(self, op: str, items: list) -> list[tuple]:
        return self._open_host().run(op, self.claims.to_dict(), items)
