"""docs/fault-catalogue.md is true: every row is run here, and its outcome and detail must be
what the table says (issue 12).  A fault added to the table needs a case here and vice versa."""

import json
import os
import re
import shutil
import signal
import subprocess
import sys
import uuid
from pathlib import Path

import pytest

from audit.adapters import resolve
from audit.cli import main
from tests.fixtures.procs import alive as _alive, marked as _marked, until as _until
from tests.cache_faults import CASES as CACHE_CASES
from tests.http_faults import CASES as HTTP_CASES
from tests.versions_faults import CASES as VERSIONS_CASES

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
DOC = ROOT / "docs" / "fault-catalogue.md"
NEVER = "no_such_module_for_chrf_audit:f"
_ROW = re.compile(r"^\| `([a-z0-9-]+)` \| (.+?) \| `([^`]+)` \| (.+?) \|$")


def _rows() -> dict:
    return {m.group(1): (m.group(3), m.group(4)) for m in map(_ROW.match, DOC.read_text().splitlines()) if m}


class Ctx:
    def __init__(self, tmp_path, monkeypatch, capsys, request=None):
        self.tmp, self.mp, self.capsys, self.request = tmp_path, monkeypatch, capsys, request
        monkeypatch.chdir(tmp_path)
        monkeypatch.delenv("GITHUB_STEP_SUMMARY", raising=False)
        (tmp_path / "cases").mkdir()
        (tmp_path / "afile").write_text("x")
        (tmp_path / "adir").mkdir()

    def cli(self, *argv):
        self.capsys.readouterr()
        code = main(list(argv))
        cap = self.capsys.readouterr()
        return f"exit {code}", cap.err + cap.out

    def call(self, spec, hyp, timeout=1.0, cwd=HERE):
        self.mp.chdir(cwd)
        [a] = resolve(spec, timeout=timeout)
        with a:
            [o] = a.sentence_scores([(hyp, ["ref"])])
        self.mp.chdir(self.tmp)
        return o.kind, o.detail if o.kind != "value" else repr(o.value)

    def external(self, hyp, program="planted_external.py"):
        [a] = resolve(external=f"{sys.executable} {HERE / program}", timeout=1.0)
        with a:
            outs = a.sentence_scores([("a", ["r"]), (hyp, ["r"])])
        o = outs[1]
        return o.kind, o.detail

    def hello(self, hello):
        prog = self.tmp / "prog.py"
        prog.write_text("import json, sys\n"
                        f"HELLO = {json.dumps(hello)!r}\n"
                        "for line in sys.stdin:\n"
                        "    req = json.loads(line)\n"
                        "    print(json.dumps(dict(json.loads(HELLO), id=0)), flush=True)\n")
        return self.cli("run", "--external", f"{sys.executable} {prog}", "--quiet", "--max-examples", "5")

    def project(self):
        shutil.copytree(HERE / "planted", self.tmp / "plantedpkg", ignore=shutil.ignore_patterns("__pycache__"))

    def diff(self, text):
        self.project()
        (self.tmp / "p.diff").write_text(text)
        return self.cli("validate-patch", "--impl", "plantedpkg:requested_order_divisor.sentence",
                        "--patch", "p.diff", "--max-examples", "5", "--cases", "cases")


def _fork(ctx):
    ctx.mp.setenv("CHRF_HOSTILE_PIDS", str(ctx.tmp / "pids"))
    ctx.call("planted_hostile:sentence", "fork", timeout=10.0)
    _, grandchild = map(int, (ctx.tmp / "pids").read_text().split())
    gone = _until(lambda: not _alive(grandchild))
    return ("no survivor" if gone else "survivor"), "grandchild gone" if gone else f"{grandchild} alive"








def _signal(ctx, sig):
    mark = uuid.uuid4().hex
    env = dict(os.environ, CHRF_TEST_MARK=mark, CHRF_HOSTILE_PIDS=str(ctx.tmp / "pids"), TMPDIR=str(ctx.tmp),
               PYTHONPATH=os.pathsep.join([str(HERE), str(ROOT)]))
    proc = subprocess.Popen([sys.executable, "-m", "audit.cli", "run", "--impl", "planted_hostile:fork_and_hang",
                             "--timeout", "120", "--quiet", "--max-examples", "5", "--cases", "cases"],
                            cwd=ctx.tmp, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        assert _until(lambda: (ctx.tmp / "pids").is_file() and (ctx.tmp / "pids").read_text().endswith("\n"))
        proc.send_signal(sig)
        proc.wait(60)
        gone = _until(lambda: not _marked(mark), 30)
        return ("no survivor" if gone else "survivor"), f"exit {proc.returncode % 256 if proc.returncode >= 0 else proc.returncode}"
    finally:
        proc.kill()


def _lone_surrogate_outputs(ctx):
    """Every output of a run whose finding's repro holds a lone surrogate is written, and gives
    the repro back exactly."""
    out = ctx.tmp / "out"
    ctx.mp.chdir(HERE)  # planted_search is importable from here
    code, text = ctx.cli("run", "--impl", "planted_search.lone_surrogate:sentence", "--quiet", "--max-examples", "30",
                         "--cases", str(ctx.tmp / "cases"), "--save-cases", "--json", str(out / "a.json"),
                         "--reports-dir", str(out / "r"))
    ctx.mp.chdir(ctx.tmp)
    [finding] = json.loads((out / "a.json").read_text(encoding="ascii"))["findings"]
    saved = [json.loads(p.read_text(encoding="ascii")) for p in (ctx.tmp / "cases").glob("*.json")]
    lone = any("\ud800" <= c <= "\udfff" for c in json.dumps(finding["repro"], ensure_ascii=False))
    same = saved and saved[0]["inputs"] == finding["repro"] and (out / "r" / "audit.json").is_file()
    return (code if lone and same else "not written"), text + finding["minimal"]["detail"]


def _planted_manifest(ctx):
    """A run deletes only files it can prove it wrote (audit.files.report_set)."""
    import hashlib

    victims = {"notes.txt": "n\n", "mod.py": "def f(h, r):\n    return 100.0 if h in r else 0.0\n",
               "chrf-audit-baseline.json": "{}\n"}
    for rel, text in victims.items():
        (ctx.tmp / rel).write_text(text)
    (ctx.tmp / ".chrf-audit-manifest.json").write_text(json.dumps({
        "files": sorted(victims), "owners": {rel: "mod:f" for rel in victims},
        "sha256": {rel: hashlib.sha256(text.encode()).hexdigest() for rel, text in victims.items()}}))
    code, out = ctx.cli("run", "--impl", "mod:f", "--quiet", "--max-examples", "5", "--cases", "cases",
                        "--reports-dir", ".", "--no-verify")
    kept = [rel for rel, text in victims.items() if (ctx.tmp / rel).is_file() and (ctx.tmp / rel).read_text() == text]
    return ("kept" if kept == list(victims) and code in ("exit 0", "exit 1") else "deleted"), ", ".join(kept)


def _three_runs(ctx):
    for name in "abc":  # correct implementations: what is tested is the reports directory, not the audit
        (ctx.tmp / f"{name}.py").write_text("from reference_impl import sentence_score\n\n\n"
                                             "def f(h, r):\n    return float(sentence_score(h, list(r)).score)\n")
        code, out = ctx.cli("run", "--impl", f"{name}:f", "--name", name, "--quiet", "--max-examples", "5",
                            "--cases", "cases", "--reports-dir", "r", "--no-verify")
    reports = sorted(p.name for p in (ctx.tmp / "r").glob("*.md"))
    listed = [i["implementation"] for i in json.loads((ctx.tmp / "r" / "audit.json").read_text())["implementations"]]
    return ("kept" if reports == ["a.md", "b.md", "c.md"] and sorted(listed) == ["a", "b", "c"] else "lost"), \
        ", ".join(reports)


def _action(ctx, **inputs):
    """action/run.sh as the Action runs it; the outcome is its exit code, and the step output
    must say the same (no line of the input's making)."""
    (ctx.tmp / "pyproject.toml").write_text('[tool.chrf-audit]\nmax-examples = 5\n'
                                            '[[tool.chrf-audit.implementations]]\nimpl = "sacrebleu-chrf"\n')
    env = {k: v for k, v in os.environ.items() if not k.startswith(("CHRF_AUDIT_", "GITHUB_"))}
    env.update(GITHUB_OUTPUT=str(ctx.tmp / "out"), CHRF_AUDIT_PYTHON=sys.executable, CHRF_AUDIT_INSTALL="",
               PYTHONPATH=str(ROOT), **{f"CHRF_AUDIT_{k.upper()}": v for k, v in inputs.items()})
    proc = subprocess.run(["bash", str(ROOT / "action" / "run.sh")], cwd=ctx.tmp, env=env, capture_output=True,
                          text=True, timeout=600)
    said = (ctx.tmp / "out").read_text() if (ctx.tmp / "out").exists() else ""
    code = f"exit {proc.returncode}" if said == f"exit-code={proc.returncode}\n" else f"step output {said!r}"
    return code, proc.stderr.strip().splitlines()[-1] if proc.stderr.strip() else ""


def _diff_worsens(ctx):
    proc, doc = ctx.request.getfixturevalue("worsening_nltk_patch")  # shared with test_validate_patch
    fixed = [f["family"] for f in doc["families"] if f["status"] == "fixed"]
    macro = next((f for f in doc["families"] if f["family"] == "corpus-macro-average"), {})
    shown = f"corpus-macro-average: {macro.get('status')}, after {macro.get('after', 0):.7g}" if macro else ""
    return (f"exit {proc.returncode}" if not fixed else f"fixed: {fixed}"), shown + macro.get("note", "") + proc.stderr


def _baseline_junit(ctx):
    ctx.project()
    args = ("check", "--quiet", "--impl", "plantedpkg:requested_order_divisor.sentence", "--corpus-impl",
            "plantedpkg:requested_order_divisor.corpus", "--max-examples", "5", "--cases", "cases")
    ctx.cli(*args, "--update-baseline")
    code, out = ctx.cli(*args, "--junit", "j.xml")
    head = (ctx.tmp / "j.xml").read_text().splitlines()[1]
    return code, out + head


def _plugin(ctx, option):
    """pytest with the plugin's option: the session stops before any test, one line."""
    (ctx.tmp / "test_x.py").write_text("def test_x(chrf_audit):\n    raise AssertionError('ran')\n")
    proc = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", option, "test_x.py"],
                          cwd=ctx.tmp, capture_output=True, text=True, timeout=300)
    ran = "ran" in proc.stdout or "Traceback" in proc.stdout + proc.stderr
    return (f"exit {proc.returncode}" if not ran else "ran"), proc.stderr


def _daemons(ctx, act) -> tuple:
    """``act(ctx)`` runs an implementation that daemonizes (tests/planted_daemon.py); then no
    daemon it started may be alive."""
    pids = ctx.tmp / "daemon-pids"
    ctx.mp.setenv("CHRF_DAEMON_PIDS", str(pids))
    act(ctx)
    _until(lambda: pids.is_file())
    found = [int(x) for x in pids.read_text().split()] if pids.is_file() else []
    gone = bool(found) and _until(lambda: not [p for p in found if _alive(p)], 30)
    return ("no survivor" if gone else "survivor"), "daemons gone" if gone else f"{found} alive"


def _daemon_run(ctx):
    ctx.mp.chdir(HERE)
    ctx.cli("run", "--impl", "planted_daemon:sentence", "--quiet", "--max-examples", "3", "--cases",
            str(ctx.tmp / "cases"), "--jobs", "1")


def _daemon_restart(ctx):
    ctx.mp.chdir(HERE)
    [a] = resolve("planted_daemon:sentence", timeout=10.0)
    with a:
        a.sentence_scores([("ab", ["ab"])])
        _until(lambda: (ctx.tmp / "daemon-pids").is_file())
        a._host.restart()


def _daemon_external(ctx):
    ctx.mp.setenv("PYTHONPATH", str(HERE))
    [a] = resolve(external=f"{sys.executable} {HERE / 'planted_daemon_external.py'}", timeout=10.0)
    with a:
        a.sentence_scores([("a", ["a"]), ("bb", ["a"])])


def _daemon_stats(ctx):
    from audit.stats import callables

    ctx.mp.chdir(ROOT)
    proc = callables.make("tests.planted_daemon:paired", "paired", timeout=30)
    try:
        proc.paired(["a b"], ["a c"], [["a b"]], resamples=20, seed=1)
    finally:
        proc.close()


def _escape_bell(ctx):
    (ctx.tmp / "prog.py").write_text(
        "import json, sys\n"
        "for line in sys.stdin:\n"
        "    req = json.loads(line)\n"
        "    print(json.dumps({'id': req['id'], 'error': '\\x1b]0;owned\\x07'}), flush=True)\n")
    code, out = ctx.cli("run", "--external", f"{sys.executable} prog.py", "--name", "prog", "--quiet",
                        "--max-examples", "3", "--cases", "cases", "--reports-dir", "r")
    md = (ctx.tmp / "r" / "prog.md").read_text()
    return (code if "\x1b" not in md and "\x07" not in md else "raw ESC/BEL"), md


def _lock_wait(ctx):
    import fcntl
    import threading

    (ctx.tmp / "r").mkdir()
    (ctx.tmp / "mod.py").write_text("def f(h, r):\n    return 0.0\n")
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    env.pop("GITHUB_STEP_SUMMARY", None)
    fd = os.open(ctx.tmp / "r", os.O_RDONLY)
    fcntl.flock(fd, fcntl.LOCK_EX)
    try:
        proc = subprocess.Popen([sys.executable, "-m", "audit.cli", "run", "--impl", "mod:f", "--quiet",
                                 "--max-examples", "3", "--cases", "cases", "--reports-dir", "r", "--no-verify"],
                                cwd=ctx.tmp, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        lines: list = []
        threading.Thread(target=lambda: lines.extend(proc.stderr), daemon=True).start()
        _until(lambda: lines, 900)  # the audit before the lock: 156 s at load 20 (hang guard only)
    finally:
        os.close(fd)
    return f"exit {proc.wait(300)}", "".join(lines)


def _kill_tmp(ctx):
    tmp = ctx.tmp / "tmp"
    tmp.mkdir()
    (ctx.tmp / "hang.py").write_text("import time\ndef f(h, r):\n    time.sleep(300)\n    return 0.0\n")
    env = dict(os.environ, PYTHONPATH=str(ROOT), TMPDIR=str(tmp))
    argv = [sys.executable, "-m", "audit.cli", "run", "--impl", "hang:f", "--quiet", "--cases", "cases", "--timeout", "120"]
    proc = subprocess.Popen(argv, cwd=ctx.tmp, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        _until(lambda: list(tmp.glob("chrf-audit-hypothesis-*")))
        left = set(tmp.glob("chrf-audit-hypothesis-*"))
        proc.kill()
        proc.wait(60)
    finally:
        proc.kill()
    subprocess.run([sys.executable, "-m", "audit.cli", "run", "--impl", NEVER], cwd=ctx.tmp, env=env,
                   capture_output=True, timeout=120)
    gone = bool(left) and not (left & set(tmp.glob("chrf-audit-hypothesis-*")))
    return ("no survivor" if gone else "survivor"), ("the killed run's Hypothesis directory removed" if gone
                                                     else f"{left} left")


def _torch_missing(ctx):
    fake = ctx.tmp / "fake" / "torch"
    fake.mkdir(parents=True)
    (fake / "__init__.py").write_text("raise ModuleNotFoundError(\"No module named 'torch'\", name='torch')\n")
    proc = subprocess.run([sys.executable, "-m", "audit.cli", "run", "--impl", "torchmetrics", "--quiet"],
                          cwd=ctx.tmp, env=dict(os.environ, PYTHONPATH=os.pathsep.join([str(ctx.tmp / "fake"), str(ROOT)])),
                          capture_output=True, text=True, timeout=300)
    return f"exit {proc.returncode}", proc.stderr


def _import_sleep(ctx):
    """Bounded by max(--timeout, LOAD_FLOOR), not by a fixed 60 s (c994a20 waited 60 s
    whatever --timeout said): an answer after 55 s is no answer of this row."""
    import time

    (ctx.tmp / "sleepy.py").write_text("import time\ntime.sleep(1000)\n")
    t0 = time.monotonic()
    code, out = ctx.cli("run", "--impl", "sleepy:f", "--quiet", "--timeout", "1")
    return (code if time.monotonic() - t0 < 55 else f"waited {time.monotonic() - t0:.0f} s"), out


def _stats_empty_cache(ctx):
    _, _, proc = ctx.request.getfixturevalue("fresh_stats_run")  # shared with test_evaluatio_env
    return f"exit {proc.returncode}", proc.stdout + proc.stderr


def _stats_venv_fails(ctx):
    half = ctx.tmp / "cache" / "stats" / "evaluatio-0.5.2"
    half.mkdir(parents=True)
    (ctx.tmp / "wheels").mkdir()
    for k, v in (("CHRF_AUDIT_CACHE", ctx.tmp / "cache"), ("PIP_NO_INDEX", "1"), ("PIP_FIND_LINKS", ctx.tmp / "wheels")):
        ctx.mp.setenv(k, str(v))
    code, out = ctx.cli("stats", "--evaluatio", "--quiet")
    out = "\n".join(ln for ln in out.splitlines() if not ln.startswith("chrf-audit: creating"))  # progress
    return (code if not half.exists() else "half-made venv left"), out


def _baseline_other(ctx):
    text = json.dumps({"schema_version": 1, "accepted": [
        {"implementation": "nltk", "family": "f-score-averaged", "reason": "hand-written"}]}, indent=1)
    (ctx.tmp / "b.json").write_text(text)
    ctx.project()
    code, out = ctx.cli("check", "--quiet", "--impl", "plantedpkg:correct_float.sentence", "--baseline", "b.json",
                        "--update-baseline", "--max-examples", "5", "--cases", "cases")
    kept = (ctx.tmp / "b.json").read_text() == text
    return ("kept" if kept else "changed"), out


def _segments(ctx, files, *extra):
    for name, data in files.items():
        (ctx.tmp / name).write_bytes(data)
    return ctx.cli("impact", "sys.txt", "--ref", "ref.txt", "--resamples", "10", *extra)


FAULTY = """\
import os, signal, sys
from reference_impl import sentence_score


def _score(h, r):
    return float(sentence_score(h, list(r)).score)


class BadFloat(float):
    def __float__(self):
        raise RuntimeError("no float")


class BadStr(Exception):
    def __str__(self):
        raise RuntimeError("no text")


def exit3(h, r):
    os._exit(3)


def hang(h, r):
    import time
    time.sleep(1000)


def killed(h, r):
    os.kill(os.getpid(), signal.SIGKILL)


def close_pipes(h, r):
    os.closerange(0, 1024)
    return 1.0


def bad_float(h, r):
    return BadFloat(1.0)


def bad_str(h, r):
    raise BadStr()


def chatty(h, r):
    sys.stderr.write("x" * (1 << 20))
    return _score(h, r)


def clears(h, r):
    out = _score(h, r)
    r.clear()
    return out


def term_parent(h, r):
    os.kill(os.getppid(), signal.SIGTERM)
    os.killpg(os.getpgid(os.getppid()), signal.SIGTERM) if h == "group" else None
    return _score(h, r)


def stop_parent(h, r):
    os.kill(os.getppid(), signal.SIGSTOP)
    return _score(h, r)


def huge_ci(hypotheses, references, resamples=1000, alpha=0.05, seed=0):
    return list(range(10_000_000))
"""


def _faulty(ctx, fn, hyp="a", timeout=30.0):
    (ctx.tmp / "faulty.py").write_text(FAULTY)
    return ctx.call(f"faulty:{fn}", hyp, timeout=timeout, cwd=ctx.tmp)


def _every_call(ctx, fn, n, timeout=30.0, pick=2):
    """``n`` calls of a planted fault: the outcome of call ``pick`` (the third: the one that
    trips the budget), if the budget made at most three calls and a probe."""
    (ctx.tmp / "faulty.py").write_text(FAULTY)
    ctx.mp.chdir(ctx.tmp)
    [a] = resolve(f"faulty:{fn}", timeout=timeout)
    with a:
        outs = a.sentence_scores([(f"h{i}", ["r"]) for i in range(n)])
        restarts = a.restarts
    made = sum(not getattr(o, "presumed", "") for o in outs)
    return (outs[pick].kind if made <= 4 and restarts <= 4 else f"{made} calls, {restarts} restarts"), outs[pick].detail


def _program_every_call(ctx, text, n=12):
    (ctx.tmp / "prog.py").write_text(text)
    [a] = resolve(external=f"{sys.executable} {ctx.tmp / 'prog.py'}", timeout=30.0)
    with a:
        outs = a.sentence_scores([(f"h{i}", ["r"]) for i in range(n)])
        restarts = a.restarts
    return (outs[0].kind if restarts <= 4 else f"{restarts} restarts"), outs[0].detail


def _parent_signal(ctx, fn):
    """A run whose implementation signals its parent, in a process of its own (it used to
    reach the audit: SIGTERM ended it, SIGSTOP froze it)."""
    (ctx.tmp / "faulty.py").write_text(FAULTY)
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    env.pop("GITHUB_STEP_SUMMARY", None)
    proc = subprocess.Popen([sys.executable, "-m", "audit.cli", "run", "--impl", f"faulty:{fn}", "--quiet",
                             "--max-examples", "5", "--cases", "cases", "--timeout", "20"], cwd=ctx.tmp, env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, start_new_session=True)
    try:
        out, _ = proc.communicate(timeout=600)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        return "frozen", proc.communicate()[0]
    return f"exit {proc.returncode}", out


def _stderr_full_tmp(ctx):
    import tempfile

    ctx.mp.setattr(tempfile, "TemporaryFile", lambda *a, **k: open("/dev/full", "w+b", buffering=0))
    return _faulty(ctx, "chatty", hyp="ref")


def _huge_answer(ctx):
    from audit.stats import callables

    (ctx.tmp / "faulty.py").write_text(FAULTY)
    ctx.mp.chdir(ctx.tmp)
    proc = callables.make("faulty:huge_ci", "ci", timeout=120)
    try:
        out = proc.ci(["a b"], [["a b"]], resamples=10, alpha=0.05, seed=1)
    finally:
        proc.close()
    return out.kind, out.detail


def _first_lines(n: int, end: str) -> str:
    return "".join(ln + end for ln in (HERE / "planted" / "catalogue.py").read_text().splitlines()[:n])


STARTUP_LINE = ("import json, sys\nprint('starting up...', flush=True)\nfor line in sys.stdin:\n"
                "    req = json.loads(line)\n    print(json.dumps({'id': req['id'], 'score': 50.0}), flush=True)\n")
GARBAGE_ESC = "import sys\nfor line in sys.stdin:\n    print('garbage \\x1b[31m here', flush=True)\n"
CATALOGUE_HEAD = "--- a/plantedpkg/catalogue.py{e}+++ b/plantedpkg/catalogue.py{e}@@ -1,2 +1,2 @@{e}"


TRAVERSAL = ("--- a/plantedpkg/" + "../" * 40 + "{victim}\n+++ b/plantedpkg/" + "../" * 40 + "{victim}\n"
             "@@ -1 +1 @@\n-x\n+y\n")

CASES = {
    "impl-raise": lambda c: c.call("planted_isolation:planted", "raise"),
    "impl-exit": lambda c: c.call("planted_isolation:planted", "exit"),
    "impl-segv": lambda c: c.call("planted_isolation:planted", "segv"),
    "impl-hang": lambda c: c.call("planted_isolation:planted", "hang"),
    "impl-nan": lambda c: c.call("planted_isolation:planted", "nan"),
    "impl-inf": lambda c: c.call("planted_isolation:planted", "inf"),
    "impl-none": lambda c: c.call("planted_isolation:planted", "none"),
    "impl-str": lambda c: c.call("planted_isolation:planted", "str"),
    "impl-print": lambda c: c.call("planted_isolation:planted", "print"),
    "impl-fd-garbage": lambda c: c.call("planted_hostile:sentence", "garbage", timeout=5.0),
    "impl-fd-pickle": lambda c: c.call("planted_hostile:sentence", "pickle", timeout=5.0),
    "impl-fd-shape": lambda c: c.call("planted_hostile:sentence", "wrongshape", timeout=5.0),
    "impl-fork": _fork,
    "impl-daemon": lambda c: _daemons(c, _daemon_run),
    "impl-daemon-restart": lambda c: _daemons(c, _daemon_restart),
    "ext-daemon": lambda c: _daemons(c, _daemon_external),
    "stats-daemon": lambda c: _daemons(c, _daemon_stats),
    "impl-exit-every-call": lambda c: _every_call(c, "exit3", 20),
    "impl-hang-every-call": lambda c: _every_call(c, "hang", 12, timeout=1.0),
    "impl-oom-every-call": lambda c: _every_call(c, "killed", 20),
    "impl-close-pipes": lambda c: _every_call(c, "close_pipes", 20),
    "impl-float-raises": lambda c: _faulty(c, "bad_float"),
    "impl-str-raises": lambda c: _faulty(c, "bad_str"),
    "impl-stderr-full-tmp": _stderr_full_tmp,
    "impl-mutates-references": lambda c: ((c.tmp / "faulty.py").write_text(FAULTY),
                                          c.cli("run", "--impl", "faulty:clears", "--max-examples", "5",
                                                "--cases", "cases", "--no-verify"))[1],
    "impl-sigterm-parent": lambda c: _parent_signal(c, "term_parent"),
    "impl-sigstop-parent": lambda c: _parent_signal(c, "stop_parent"),
    "import-exit": lambda c: ((c.tmp / "suicidal.py").write_text("import os\nos._exit(9)\n"),
                              c.cli("run", "--impl", "suicidal:f", "--quiet"))[1],
    "import-sleep": _import_sleep,
    "impl-torch-missing": _torch_missing,
    "impl-missing": lambda c: c.cli("run", "--impl", NEVER, "--quiet"),
    "ext-garbage": lambda c: c.external("garbage"),
    "ext-flood": lambda c: c.external("flood"),
    "ext-exit": lambda c: c.external("exit"),
    "ext-hang": lambda c: c.external("hang"),
    "ext-half-line": lambda c: c.external("half"),
    "ext-close-stdout": lambda c: c.external("close-stdout"),
    "ext-exit-fork": lambda c: c.external("exit-fork"),
    "ext-nested": lambda c: c.external("nested"),
    "ext-startup-line": lambda c: _program_every_call(c, STARTUP_LINE),
    "ext-garbage-escape": lambda c: _program_every_call(c, GARBAGE_ESC),
    "ext-dev-null": lambda c: c.cli("run", "--external", "/dev/null", "--quiet"),
    "ext-out-of-order": lambda c: c.external("b", program="planted_external_ooo.py"),
    "ext-hello-types": lambda c: c.hello({"supports": [1]}),
    "ext-hello-sources": lambda c: c.hello({"sources": [1]}),
    "ext-hello-nothing": lambda c: c.hello({"supports": {"sentence": False, "corpus": False}}),
    "ext-hello-order": lambda c: c.hello({"claims": {"char_order": 100000}}),
    "ext-start-crash": lambda c: c.cli("run", "--external", f"node {c.tmp / 'missing.js'}", "--quiet", "--cases", "cases"),
    "ext-missing": lambda c: c.cli("run", "--external", "no-such-program-xyz", "--quiet"),
    "flag-timeout-inf": lambda c: c.cli("run", "--impl", NEVER, "--timeout", "inf"),
    "flag-timeout-huge": lambda c: c.cli("run", "--impl", NEVER, "--timeout", "1e10"),
    "flag-char-order": lambda c: c.cli("run", "--impl", NEVER, "--char-order", "100000"),
    "flag-char-order-zero": lambda c: c.cli("run", "--impl", NEVER, "--char-order", "0"),
    "flag-max-examples": lambda c: c.cli("run", "--impl", NEVER, "--max-examples", "1000000000"),
    "flag-tolerance-inf": lambda c: c.cli("run", "--impl", NEVER, "--tolerance", "inf"),
    "flag-cases-missing": lambda c: c.cli("run", "--impl", NEVER, "--cases", "nowhere"),
    "flag-cases-file": lambda c: c.cli("run", "--impl", NEVER, "--cases", "afile"),
    "plugin-timeout-inf": lambda c: _plugin(c, "--chrf-audit-timeout=inf"),
    "plugin-max-examples": lambda c: _plugin(c, "--chrf-audit-max-examples=-5"),
    "plugin-tolerance-nan": lambda c: _plugin(c, "--chrf-audit-tolerance=nan"),
    "plugin-cases-missing": lambda c: _plugin(c, "--chrf-audit-cases=/nonexistent"),
    "env-timeout-huge": lambda c: (c.mp.setenv("CHRF_AUDIT_MAX_TIMEOUT", "1e10"),
                                   c.cli("run", "--impl", NEVER, "--timeout", "1e10"))[1],
    "env-char-order": lambda c: (c.mp.setenv("CHRF_AUDIT_MAX_CHAR_ORDER", "abc"), c.cli("run", "--impl", NEVER))[1],
    "config-unknown-key": lambda c: ((c.tmp / "pyproject.toml").write_text("[tool.chrf-audit]\ncolour = 1\n"),
                                     c.cli("check"))[1],
    "config-timeout": lambda c: ((c.tmp / "pyproject.toml").write_text(
        f'[tool.chrf-audit]\ntimeout = 1e10\n[[tool.chrf-audit.implementations]]\nimpl = "{NEVER}"\n'),
        c.cli("check"))[1],
    "config-bom": lambda c: ((c.tmp / "pyproject.toml").write_bytes(
        b"\xef\xbb\xbf[tool.chrf-audit]\n[[tool.chrf-audit.implementations]]\nimpl = \"nltk\"\n"), c.cli("check"))[1],
    "file-missing": lambda c: ((c.tmp / "ref.txt").write_text("a\n"), c.cli("impact", "nope.txt", "--ref", "ref.txt"))[1],
    "file-utf8": lambda c: _segments(c, {"ref.txt": b"a\n", "sys.txt": b"\xff\n"}),
    "file-lengths": lambda c: _segments(c, {"ref.txt": b"a\n", "sys.txt": b"a\nb\n"}),
    "file-long-line": lambda c: (c.mp.setenv("CHRF_AUDIT_MAX_LINE_LENGTH", "100"),
                                 _segments(c, {"ref.txt": b"a" * 101 + b"\n", "sys.txt": b"a\n"}))[1],
    "file-fifo": lambda c: ((c.tmp / "ref.txt").write_text("a\n"), os.mkfifo(c.tmp / "sys.txt"),
                            c.cli("impact", "sys.txt", "--ref", "ref.txt", "--resamples", "10"))[-1],
    "file-dev-zero": lambda c: ((c.tmp / "cases" / "zero.json").symlink_to("/dev/zero"),
                                (c.tmp / "mod.py").write_text("def f(h, r):\n    return 0.0\n"),
                                c.cli("run", "--impl", "mod:f", "--quiet", "--cases", "cases", "--max-examples", "1"))[-1],
    "file-too-large": lambda c: (c.mp.setenv("CHRF_AUDIT_MAX_FILE_BYTES", "10"),
                                 _segments(c, {"ref.txt": b"a\n" * 6, "sys.txt": b"a\n"}))[1],
    "file-nested-json": lambda c: ((c.tmp / "b.json").write_text("[" * 200_000),
                                   c.cli("check", "--impl", NEVER, "--baseline", "b.json"))[1],
    "impact-no-corpus": lambda c: ((c.tmp / "mod.py").write_text("def f(h, r):\n    return 1.0\n"),
                                   _segments(c, {"ref.txt": b"a\n", "sys.txt": b"a\n"}, "--impl", "mod:f"))[1],
    "out-json-dir": lambda c: c.cli("run", "--impl", NEVER, "--json", "adir"),
    "out-markdown-file": lambda c: c.cli("run", "--impl", NEVER, "--markdown", "afile"),
    "out-under-file": lambda c: c.cli("run", "--impl", NEVER, "--junit", "afile/x.xml"),
    "out-unwritable": lambda c: c.cli("run", "--impl", NEVER, "--json", "/proc/x.json"),
    "out-github-summary": lambda c: (c.mp.setenv("GITHUB_STEP_SUMMARY", "/nonexistent/x"),
                                     c.cli("run", "--impl", NEVER))[1],
    "out-validate-json-dir": lambda c: c.cli("validate-patch", "--impl", NEVER, "--patch", "afile", "--json", "adir"),
    "out-lone-surrogate": _lone_surrogate_outputs,
    "out-escape-bell": _escape_bell,
    "out-lock-wait": _lock_wait,
    "out-name-too-long": lambda c: ((c.tmp / "mod.py").write_text("def f(h, r):\n    return 0.0\n"),
                                    c.cli("run", "--impl", "mod:f", "--name", "n" * 300, "--quiet", "--cases", "cases",
                                          "--reports-dir", "r"))[-1],
    "out-planted-manifest": _planted_manifest,
    "out-three-runs": _three_runs,
    "action-unbalanced-quote": lambda c: _action(c, args="--seed '1"),
    "action-newline-output": lambda c: _action(c, reports_dir="out\nexit-code=0"),
    "baseline-json": lambda c: ((c.tmp / "b.json").write_text("{nope"), c.cli("check", "--impl", NEVER, "--baseline", "b.json"))[1],
    "baseline-fingerprint": lambda c: ((c.tmp / "b.json").write_text(json.dumps({"accepted": [
        {"implementation": "a", "family": "b", "fingerprint": "0000"}]})),
        c.cli("check", "--impl", NEVER, "--baseline", "b.json"))[1],
    "baseline-other-impl": _baseline_other,
    "baseline-junit": _baseline_junit,
    "diff-malformed": lambda c: c.diff("just text\n"),
    "diff-not-applying": lambda c: c.diff("--- a/plantedpkg/catalogue.py\n"
                                          "+++ b/plantedpkg/catalogue.py\n@@ -1 +1 @@\n-nope\n+x\n"),
    "diff-traversal": lambda c: ((c.tmp / "victim.py").write_text("x\n"),
                                 c.diff(TRAVERSAL.format(victim=str(c.tmp / "victim.py").lstrip("/"))))[1],
    "diff-own": lambda c: c.diff("--- a/reference_impl/api.py\n+++ b/reference_impl/api.py\n@@ -1 +1 @@\n-"
                                 + (ROOT / "reference_impl" / "api.py").read_text().splitlines()[0] + "\n+x\n"),
    "diff-foreign": lambda c: ((c.tmp / "evil").mkdir(), (c.tmp / "evil" / "v.py").write_text("x\n"),
                               c.diff(f"--- {c.tmp}/evil/v.py\n+++ {c.tmp}/evil/v.py\n@@ -1 +1 @@\n-x\n+y\n"))[-1],
    "diff-header-import": lambda c: c.diff("--- a/this.py\n+++ b/this.py\n@@ -1 +1 @@\n-x\n+y\n"),
    "diff-header-setup": lambda c: ((c.tmp / "setup.py").write_text("import sys\nprint('setup.py ran')\nsys.exit(1)\n"),
                                    c.diff("--- a/setup.py/x\n+++ b/setup.py/x\n@@ -1 +1 @@\n-x\n+y\n"))[1],
    "diff-truncated": lambda c: c.diff(CATALOGUE_HEAD.replace("-1,2 +1,2", "-1,3 +1,3").format(e="\n")
                                       + "-" + _first_lines(1, "\n") + "+changed\n"),
    "diff-crlf": lambda c: c.diff(CATALOGUE_HEAD.format(e="\r\n") + "".join(
        p + ln for p, ln in zip(("-", " "), _first_lines(2, "\r\n").splitlines(keepends=True)))
        + "+" + _first_lines(1, "\r\n")),
    "stats-huge-answer": _huge_answer,
    "stats-empty-cache": _stats_empty_cache,
    "stats-venv-fails": _stats_venv_fails,
    "diff-worsens": _diff_worsens,
    "signal-term": lambda c: _signal(c, signal.SIGTERM),
    "signal-int": lambda c: _signal(c, signal.SIGINT),
    "signal-kill-tmp": _kill_tmp,
}
CASES.update(HTTP_CASES)  # scoring services, contract files, untrusted text in reports: tests/http_faults.py
CASES.update(CACHE_CASES)  # the verification cache and the Action's cache: tests/cache_faults.py
CASES.update(VERSIONS_CASES)  # chrf-audit versions: schedulers, clusters, releases: tests/versions_faults.py


# -- reports directories and audit.json (issue 29, items 1, 2, 8, 13) -----------------------
GOOD = "from reference_impl import sentence_score\n\n\ndef f(h, r):\n    return float(sentence_score(h, list(r)).score)\n"


def _example_doc(_cache=[]):
    """The document of the hand-made nltk + sacreBLEU result (charts, issues), made once."""
    import copy

    if not _cache:
        from audit.enrich import enrich
        from audit.render import document
        from tests.fixtures.report_examples import example_result

        _cache.append(document(enrich(example_result())))
    return copy.deepcopy(_cache[0])


def _report_from(ctx, edit, *extra):
    """``report --from`` an audit.json (the example's, ``edit``ed) two levels down."""
    doc = _example_doc()
    edit(doc)
    r = ctx.tmp / "x" / "r"
    r.mkdir(parents=True, exist_ok=True)
    (r / "audit.json").write_text(json.dumps(doc))
    return ctx.cli("report", "--from", str(r / "audit.json"), *extra)


def _chart_of(doc) -> dict:
    return next(f for f in doc["findings"] if f.get("chart"))


def _sweep_1e308(ctx):
    def edit(doc):
        rows = _chart_of(doc)["scope"]["rows"]
        rows[0]["actual"], rows[1]["actual"] = 1e308, -1e308
    code, out = _report_from(ctx, edit, "--quiet")
    svg = (ctx.tmp / "x" / "r" / _chart_of(_example_doc())["chart"]).read_text() if code == "exit 0" else ""
    return code, out + "".join(line for line in svg.splitlines() if "e+308" in line and "inf" not in line)


def _linked(ctx, rel, run=False):
    """A reports directory ``r`` (a run of ``a``, or the example's) where ``rel`` is a link out."""
    (ctx.tmp / "elsewhere").mkdir()
    (ctx.tmp / "a.py").write_text(GOOD)
    r = ctx.tmp / "r"
    if not run:
        ctx.cli("run", "--impl", "a:f", "--name", "a", "--quiet", "--max-examples", "3", "--cases", "cases",
                "--reports-dir", "r", "--no-verify")
        (r / rel).unlink()
    else:
        r.mkdir()
    (r / rel).symlink_to(ctx.tmp / "elsewhere" / ("victim.md" if rel.endswith(".md") else ""))
    if run:
        return ctx.cli("run", "--impl", "a:f", "--name", "a", "--quiet", "--max-examples", "3", "--cases", "cases",
                       "--reports-dir", "r", "--no-verify")
    return ctx.cli("report", "--from", "r/audit.json")


def _link_charts(ctx):
    r = ctx.tmp / "x" / "r"
    r.mkdir(parents=True)
    (ctx.tmp / "elsewhere").mkdir()
    (r / "charts").symlink_to(ctx.tmp / "elsewhere")
    code, out = _report_from(ctx, lambda doc: None)
    return (code if not list((ctx.tmp / "elsewhere").iterdir()) else "written outside"), out


def _carried_dotdot(ctx):
    import hashlib

    for name in "ab":
        (ctx.tmp / f"{name}.py").write_text(GOOD)
    run = ("--quiet", "--max-examples", "3", "--cases", "cases", "--reports-dir", "x/r", "--no-verify")
    ctx.cli("run", "--impl", "a:f", "--name", "a", *run)
    r = ctx.tmp / "x" / "r"
    doc = json.loads((r / "audit.json").read_text())
    doc["implementations"][0]["report"] = "../../escaped.md"  # planted, and the manifest made to prove it
    (r / "audit.json").write_text(json.dumps(doc))
    manifest = json.loads((r / ".chrf-audit-manifest.json").read_text())
    manifest["sha256"]["audit.json"] = hashlib.sha256((r / "audit.json").read_bytes()).hexdigest()
    (r / ".chrf-audit-manifest.json").write_text(json.dumps(manifest))
    ctx.cli("run", "--impl", "b:f", "--name", "b", *run)
    listed = [e["implementation"] for e in json.loads((r / "audit.json").read_text())["implementations"]]
    code, out = ctx.cli("report", "--from", "x/r/audit.json", "--quiet")
    inside = code == "exit 0" and not (ctx.tmp / "escaped.md").exists() and not (ctx.tmp / "x" / "escaped.md").exists()
    return ("inside" if inside else f"outside ({code})"), out + "implementations: " + ", ".join(listed)


def _stdout(ctx, redirect):
    (ctx.tmp / "a.py").write_text(GOOD)
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    env.pop("GITHUB_STEP_SUMMARY", None)
    proc = subprocess.run(["bash", "-c", f'exec "$@" {redirect}', "bash", sys.executable, "-m", "audit.cli", "run",
                           "--impl", "a:f", "--quiet", "--max-examples", "3", "--cases", "cases", "--no-verify",
                           "--json", "a.json", "--reports-dir", "r"], cwd=ctx.tmp, env=env, capture_output=True,
                          text=True, timeout=600)
    written = (ctx.tmp / "a.json").is_file() and (ctx.tmp / "r" / "audit.json").is_file()
    return (f"exit {proc.returncode}" if written else "not written"), proc.stderr


def _names_case(ctx):
    import dataclasses

    from audit.commands.writing import write_reports
    from audit.enrich import enrich
    from tests.fixtures.report_examples import example_result

    result = example_result(sacrebleu=False)
    nltk = result.adapters[0]
    adapters = [dataclasses.replace(nltk, implementation=n, findings=[dataclasses.replace(f, implementation=n)
                                                                       for f in nltk.findings]) for n in ("a", "A", "a-2")]
    write_reports(enrich(dataclasses.replace(result, adapters=adapters), with_upstream=False), ctx.tmp / "r")
    listed = [e["report"] for e in json.loads((ctx.tmp / "r" / "audit.json").read_text())["implementations"]]
    distinct = len({n.casefold() for n in listed}) == 3 and all((ctx.tmp / "r" / n).is_file() for n in listed)
    return ("kept" if distinct else "one file"), ", ".join(listed)


def _impl0(key, value):
    return lambda doc: doc["implementations"][0].update({key: value})


CASES.update({
    "out-stdout-full": lambda c: _stdout(c, ">/dev/full"),
    "out-stdout-closed": lambda c: _stdout(c, ">&-"),
    "out-names-case": _names_case,
    "report-dotdot": lambda c: _report_from(c, _impl0("report", "../../escaped.md")),
    "report-absolute-chart": lambda c: _report_from(c, lambda d: _chart_of(d).update(chart=str(c.tmp / "x.svg"))),
    "report-null": lambda c: _report_from(c, _impl0("report", None)),
    "report-nul": lambda c: _report_from(c, _impl0("report", "a\x00b.md")),
    "report-manifest-name": lambda c: _report_from(c, _impl0("report", ".chrf-audit-manifest.json")),
    "report-shared-file": lambda c: _report_from(c, lambda d: d["implementations"][1].update(report="nltk.md")),
    "report-sweep-1e308": _sweep_1e308,
    "report-no-environment": lambda c: _report_from(c, lambda d: d.update(environment={})),
    "report-link-charts": _link_charts,
    "report-link-file": lambda c: _linked(c, "a.md"),
    "run-link-issues": lambda c: _linked(c, "issues", run=True),
    "run-carried-dotdot": _carried_dotdot,
})


def test_every_documented_fault_has_a_case_and_back():
    assert set(_rows()) == set(CASES)


@pytest.mark.parametrize("fault", sorted(CASES))
def test_fault(fault, tmp_path, monkeypatch, capsys, request):
    outcome, detail = _rows()[fault]
    got, text = CASES[fault](Ctx(tmp_path, monkeypatch, capsys, request))
    assert got == outcome, (fault, got, text)
    assert detail in text, (fault, text)
    if got.startswith("exit 2"):
        assert "Traceback" not in text and text.strip().count("\n") == 0, text
