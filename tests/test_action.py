"""The GitHub Action (action.yml, composite): its script action/run.sh run locally with the
environment the action gives it, against real configurations: exit codes, the step output,
the job summary and the reports."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SCRIPT = ROOT / "action" / "run.sh"

def _run(tmp_path: Path, config_text: str | None, **inputs) -> tuple[int, dict, str, str]:
    work = tmp_path / "repo"
    work.mkdir(exist_ok=True)
    if config_text is not None:
        (work / "pyproject.toml").write_text(config_text, encoding="utf-8")
    out, summary = tmp_path / "github_output", tmp_path / "step_summary"
    env = {k: v for k, v in os.environ.items() if not k.startswith(("CHRF_AUDIT_", "GITHUB_"))}
    env.update(GITHUB_OUTPUT=str(out), GITHUB_STEP_SUMMARY=str(summary), CHRF_AUDIT_PYTHON=sys.executable,
               CHRF_AUDIT_INSTALL="", PYTHONPATH=str(ROOT))
    env.update({f"CHRF_AUDIT_{k.upper()}": v for k, v in inputs.items()})
    proc = subprocess.run(["bash", str(SCRIPT)], cwd=work, env=env, capture_output=True, text=True, timeout=900)
    outputs = dict(line.split("=", 1) for line in out.read_text().splitlines()) if out.exists() else {}
    return proc.returncode, outputs, summary.read_text() if summary.exists() else "", proc.stderr


def test_action_yml_declares_the_inputs_and_runs_the_script():
    text = (ROOT / "action.yml").read_text(encoding="utf-8")
    assert re.search(r"^runs:\n  using: composite$", text, re.M)
    assert 'run: bash "${{ github.action_path }}/action/run.sh"' in text
    for name in ("config", "strict", "baseline", "reports-dir", "args", "install"):
        assert re.search(rf"^  {name}:\n    description: ", text, re.M), name
        env = f"CHRF_AUDIT_{name.upper().replace('-', '_')}: ${{{{ inputs.{name} }}}}"
        assert env in text, env
    assert "exit-code:" in text
    workflow = (ROOT / "examples" / "github-action-uses.yml").read_text(encoding="utf-8")
    assert re.search(r"- uses: \S+/chrf-audit@\S+", workflow) and "config: pyproject.toml" in workflow


CONFORMING = """
[tool.chrf-audit]
max-examples = 5
[[tool.chrf-audit.implementations]]
impl = "sacrebleu-chrf"
"""

NLTK = """
[tool.chrf-audit]
max-examples = 5
[[tool.chrf-audit.implementations]]
impl = "nltk"
"""


def test_conforming_implementation_passes(tmp_path):
    code, outputs, summary, err = _run(tmp_path, CONFORMING, strict="true")
    assert code == 0, err
    assert outputs == {"exit-code": "0", "reports-dir": "chrf-audit-reports"}
    assert summary.startswith("## chrF audit") and "No finding." in summary
    reports = tmp_path / "repo" / "chrf-audit-reports"
    assert (reports / "audit.json").is_file() and (reports / "junit.xml").is_file()
    assert "--strict" in err  # the command line is echoed


def test_new_findings_fail_with_the_summary(tmp_path):
    code, outputs, summary, err = _run(tmp_path, NLTK, args="--no-verify --seed '0'", reports_dir="out dir")
    assert code == 1, err
    assert outputs["exit-code"] == "1" and outputs["reports-dir"] == "out dir"
    assert "requested-order-divisor" in summary
    assert (tmp_path / "repo" / "out dir" / "nltk.md").is_file()


def test_unbalanced_quote_in_args_fails_the_step(tmp_path):
    """An args input shlex cannot split (issue 19, item 4): exit 2 with one line, no
    traceback, and the check never runs without the user's arguments."""
    code, outputs, summary, err = _run(tmp_path, CONFORMING, args="--seed '1")
    assert code == 2 and outputs == {"exit-code": "2"}, (outputs, err)
    assert "cannot split input args: No closing quotation" in err and "Traceback" not in err
    assert summary == "" and not (tmp_path / "repo" / "chrf-audit-reports").exists()


def test_a_reports_dir_with_a_newline_cannot_inject_step_outputs(tmp_path):
    code, outputs, summary, err = _run(tmp_path, NLTK, reports_dir="out\nexit-code=0")
    assert code == 2 and outputs == {"exit-code": "2"}, outputs
    assert (tmp_path / "github_output").read_text() == "exit-code=2\n"
    assert "input 'reports-dir' must be one line" in err


def test_args_keep_words_with_spaces_and_newlines(tmp_path):
    """Each shell word reaches chrf-audit whole: a name with spaces is that name; a name
    holding a newline reaches it whole too, and is refused in one line (issue 39 item 8: a
    name is one printable line), exit 2."""
    (tmp_path / "repo").mkdir()
    (tmp_path / "repo" / "mod.py").write_text("from reference_impl import sentence_score\n"
                                              "def f(h, r):\n    return float(sentence_score(h, r).score)\n")
    code, outputs, summary, err = _run(tmp_path, CONFORMING, args="--no-verify --name 'my  chrf x' --impl mod:f")
    assert code in (0, 1) and outputs["exit-code"] == str(code), err
    doc = (tmp_path / "repo" / "chrf-audit-reports" / "audit.json").read_text()
    assert '"implementation": "my  chrf x"' in doc
    code, outputs, summary, err = _run(tmp_path, CONFORMING, args="--no-verify --name 'my\nchrf x' --impl mod:f")
    assert code == 2 and outputs["exit-code"] == "2"
    assert "--name must be one line of printable characters" in err and "got 'my\\nchrf x'" in err, err
    assert "Traceback" not in err


@pytest.mark.parametrize("config, inputs, needle", [
    (None, {}, "no configuration file 'pyproject.toml'"),
    (CONFORMING, {"strict": "maybe"}, "input 'strict' must be true or false"),
    ("[tool.chrf-audit]\nmax-exampels = 5\n", {}, "unknown key 'max-exampels'"),
])
def test_configuration_errors_exit_2(tmp_path, config, inputs, needle):
    code, outputs, summary, err = _run(tmp_path, config, **inputs)
    assert code == 2 and outputs.get("exit-code") == "2"
    assert needle in err and "Traceback" not in err


def test_the_action_reads_no_cache_another_run_or_branch_left(tmp_path):
    """Issue 39 item 4: the check runs with an empty CHRF_AUDIT_CACHE of the step's own,
    removed afterwards, whatever the job's CHRF_AUDIT_CACHE or the runner's ~/.cache hold: a
    verification cache another branch wrote is never read.  The interpreter is a stand-in that
    records what the check would see."""
    planted = tmp_path / "planted-cache"
    (planted / "verify").mkdir(parents=True)
    (planted / "verify" / ("0" * 64 + ".json")).write_text("{}")
    home = tmp_path / "home"
    (home / ".cache" / "chrf-audit" / "verify").mkdir(parents=True)
    seen = tmp_path / "seen"
    stub = tmp_path / "python"
    stub.write_text('#!/bin/sh\nprintf "%s\\n" "$CHRF_AUDIT_CACHE" > "$SEEN"\nls -A "$CHRF_AUDIT_CACHE" >> "$SEEN"\n')
    stub.chmod(0o755)
    work = tmp_path / "repo"
    work.mkdir()
    (work / "pyproject.toml").write_text(CONFORMING, encoding="utf-8")
    env = {k: v for k, v in os.environ.items() if not k.startswith(("CHRF_AUDIT_", "GITHUB_"))}
    env.update(HOME=str(home), SEEN=str(seen), CHRF_AUDIT_CACHE=str(planted), CHRF_AUDIT_PYTHON=str(stub),
               CHRF_AUDIT_INSTALL="", GITHUB_OUTPUT=str(tmp_path / "out"))
    proc = subprocess.run(["bash", str(SCRIPT)], cwd=work, env=env, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    [used] = seen.read_text().splitlines()  # the directory, and nothing in it
    assert Path(used).is_absolute() and used != str(planted) and not used.startswith(str(home))
    assert not Path(used).exists()  # removed with the step
