"""Tracebacks and unbounded reads (issue 19, item 8): nested JSON from a program, huge
timeouts, files that are not regular files, limit variables that are not numbers."""

from __future__ import annotations

import os
import sys
import threading
import time
from pathlib import Path

import pytest

from audit.adapters import resolve
from audit.adapters.frames import TIMEOUT, read_frame, take_line
from audit.cli import main

HERE = Path(__file__).resolve().parent
NEVER = "no_such_module_for_chrf_audit:f"


@pytest.fixture
def here(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("GITHUB_STEP_SUMMARY", raising=False)
    (tmp_path / "cases").mkdir()
    return tmp_path


def _err(capsys, argv):
    code = main(argv)
    err = capsys.readouterr().err
    assert code == 2 and err.count("\n") == 1 and "Traceback" not in err, (code, err)
    return err


def test_a_program_answering_nested_json_is_an_invalid_answer_not_a_crash():
    """One answer line of 200,000 nested [: RecursionError in json.loads, which the adapter
    did not catch (the audit ended with exit 1 and a traceback)."""
    [a] = resolve(external=f"{sys.executable} {HERE / 'planted_external.py'}", timeout=10.0)
    with a:
        outs = a.sentence_scores([("nested", ["r"]), ("ab", ["r"])])
    # what the program printed is shown (issue 29 item 6), its first characters only
    prefix = "answer is not JSON (nested too deeply): '"
    assert outs[0].kind == "invalid" and outs[0].detail.startswith(prefix), outs[0].detail
    shown = outs[0].detail[len(prefix):]
    assert set(shown) == {"[", "'", "."} and shown.endswith("'...") and shown.count("[") == 80
    assert len(outs[0].detail) < 200
    assert (outs[1].kind, outs[1].value) == ("value", 2.0)  # the next call, on a fresh program


def test_a_hello_of_nested_json_is_no_hello(here, capsys):
    prog = here / "deep.py"
    prog.write_text("import json, sys\n"
                    "for line in sys.stdin:\n"
                    "    req = json.loads(line)\n"
                    "    if req['op'] == 'hello':\n"
                    "        print('[' * 200000, flush=True)\n"
                    "    else:\n"
                    "        print(json.dumps({'id': req['id'], 'score': 0.0}), flush=True)\n")
    code = main(["run", "--external", f"{sys.executable} {prog}", "--quiet", "--max-examples", "3",
                 "--cases", "cases", "--timeout", "10"])
    err = capsys.readouterr().err
    assert code == 1 and "Traceback" not in err


def test_a_huge_timeout_waits_in_slices(monkeypatch):
    """read_frame with 1e10 s (a CHRF_AUDIT_MAX_TIMEOUT raised that far) gave OverflowError from
    select(): now it waits for the answer like any other timeout."""
    r, w = os.pipe()
    try:
        threading.Timer(0.2, lambda: os.write(w, b'{"id": 1}\n')).start()
        frame, rest = read_frame(r, b"", take_line, 1e10)
        assert frame == '{"id": 1}' and rest == b""
        assert read_frame(r, b"", take_line, 0.01)[0] is TIMEOUT
    finally:
        os.close(r)
        os.close(w)


@pytest.mark.parametrize("env, value, message", [
    ("CHRF_AUDIT_MAX_TIMEOUT", "1e10", "CHRF_AUDIT_MAX_TIMEOUT='1e10': must be at most 1e+06 seconds"),
    ("CHRF_AUDIT_MAX_CHAR_ORDER", "abc", "CHRF_AUDIT_MAX_CHAR_ORDER='abc': not a number"),
    ("CHRF_AUDIT_MAX_FILE_BYTES", "-3", "CHRF_AUDIT_MAX_FILE_BYTES='-3': must be a positive finite number"),
])
def test_a_bad_limit_variable_is_an_error_even_when_unused(here, capsys, monkeypatch, env, value, message):
    """CHRF_AUDIT_MAX_CHAR_ORDER=abc was read only when --char-order was given: silently the
    default otherwise.  Every limit variable is checked when the command starts."""
    monkeypatch.setenv(env, value)
    assert message in _err(capsys, ["run", "--impl", NEVER, "--quiet", "--timeout", "1e9"
                                    if env == "CHRF_AUDIT_MAX_TIMEOUT" else "5"])


def _fifo(path: Path) -> Path:
    os.mkfifo(path)
    return path


def test_a_fifo_as_a_segment_file_is_refused_not_waited_on(here, capsys):
    (here / "ref.txt").write_text("a\n")
    _fifo(here / "sys.txt")
    assert "sys.txt: is a named pipe (FIFO), not a text file" in _err(
        capsys, ["impact", "sys.txt", "--ref", "ref.txt", "--resamples", "10"])


def test_a_cases_file_linked_to_dev_zero_is_refused_not_read(here, capsys):
    (here / "cases" / "zero.json").symlink_to("/dev/zero")
    (here / "mod.py").write_text("def f(h, r):\n    return 0.0\n")
    err = _err(capsys, ["run", "--impl", "mod:f", "--quiet", "--cases", "cases", "--max-examples", "1"])
    assert "zero.json: is a character device, not a JSON case file" in err


@pytest.mark.parametrize("flag, kind", [("--config", "a TOML configuration file"), ("--baseline", "a baseline")])
def test_a_fifo_as_configuration_or_baseline(here, capsys, flag, kind):
    _fifo(here / "x")
    (here / "pyproject.toml").write_text(f'[tool.chrf-audit]\n[[tool.chrf-audit.implementations]]\nimpl = "{NEVER}"\n')
    assert f"x: is a named pipe (FIFO), not {kind}" in _err(capsys, ["check", flag, "x"])


def test_files_larger_than_the_limit_are_refused(here, capsys, monkeypatch):
    monkeypatch.setenv("CHRF_AUDIT_MAX_FILE_BYTES", "10")
    (here / "ref.txt").write_text("a\n" * 6)
    (here / "sys.txt").write_text("a\n" * 6)
    assert "ref.txt: 12 bytes, more than the limit of 10 (CHRF_AUDIT_MAX_FILE_BYTES)" in _err(
        capsys, ["impact", "sys.txt", "--ref", "ref.txt", "--resamples", "10"])


def test_a_deeply_nested_baseline_is_invalid_json(here, capsys):
    (here / "b.json").write_text("[" * 200_000)
    assert "b.json: invalid JSON (nested too deeply)" in _err(capsys, ["check", "--impl", NEVER, "--baseline", "b.json"])


def test_a_fifo_planted_as_the_manifest_does_not_hang_the_reports(here):
    """A reports directory whose manifest is a FIFO: no manifest (nothing proven), no wait."""
    from audit.enrich import enrich
    from audit.commands.writing import write_reports
    from audit.files.report_set import MANIFEST
    from tests.fixtures.report_examples import example_result

    _fifo(here / "r" / MANIFEST) if (here / "r").mkdir() is None else None
    done = []
    t = threading.Thread(target=lambda: done.append(write_reports(enrich(example_result(sacrebleu=False)), here / "r")),
                         daemon=True)
    t.start()
    t.join(120)
    assert done, "write_reports is stuck on the FIFO"
    assert (here / "r" / "nltk.md").is_file() and (here / "r" / MANIFEST).is_file()
    assert not (here / "r" / MANIFEST).is_fifo()  # replaced by the real manifest
    time.sleep(0)
