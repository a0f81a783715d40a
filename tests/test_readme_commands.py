"""Every command of the README runs, from an empty cache (issue 19): a fresh machine gets
what the README promises.

The commands are read from README.md itself (its ``sh`` blocks and the ``chrf-audit ...``
spans of its prose); a command added there fails ``test_every_readme_command_is_run``
until it is run here.  Each runs as written, in a temporary project directory holding what
the README takes for granted (``tests/docs_harness.py``: ``mypkg.chrf`` scoring as it claims,
``fix.diff``, segment files, ``examples/chrf.js``, the CI recipe's pyproject.toml), with
``CHRF_AUDIT_CACHE`` an empty directory, once per session (docs/ pages showing the same
command share the run: ``test_docs_commands``); the README's sample output is compared with
what its command prints.  ``chrf-audit stats`` is the session's ``fresh_stats_run`` (it creates evaluatio's
venv); the ``--impact-data`` study needs the WMT17 data (third-party, never committed) and is
a ``slow`` test.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from tests.docs_harness import README, ROOT, Runner, commands, output_matches, sample_outputs
from tests.fixtures.machine_paths import machine_paths, rendered_reports

WMT17 = ROOT.parent / "shared" / "data" / "wmt17-en-de"


def readme_commands() -> list[str]:
    """The ``chrf-audit`` commands of the README, in order (a leading ``.venv/bin/`` and the
    install steps before it dropped)."""
    return [c for c in commands(README) if c.startswith("chrf-audit ")]


def _torch() -> bool:
    import importlib.util

    return importlib.util.find_spec("torch") is not None and importlib.util.find_spec("torchmetrics") is not None


#: command -> (exit codes the README promises, a text the output must hold)
EXPECTED = {
    "chrf-audit run": ({1}, "nltk"),  # "it does: nltk 3.10.4 has four bugs"
    "chrf-audit run --impl mypkg.chrf:sentence --corpus-impl mypkg.chrf:corpus --beta 3 --scale 1 --name mypkg":
        ({0}, "mypkg"),
    # the default claims (beta 2, scale 100) are not mypkg's: findings, not a usage error
    "chrf-audit run --impl mypkg.chrf:sentence --max-refs 1": ({1}, "mypkg.chrf"),
    # it honours the parameters it takes: the findings are the claims' (beta 2, scale 100), no
    # parameter-ignored-* among them
    "chrf-audit run --impl mypkg.chrf:sentence --accepts char_order,beta": ({1}, "mypkg.chrf"),
    'chrf-audit run --external "node examples/chrf.js"': ({0}, "no finding"),
    "chrf-audit run --impl torchmetrics": ({0, 1}, "torchmetrics") if _torch() else
        ({2}, "install it with pip install -e '.[torchmetrics]' in the chrf-audit checkout"),
    "chrf-audit validate-patch --impl nltk --patch fix.diff": ({0}, "FIXED          nltk  whitespace-set-white-space"),
    "chrf-audit impact --ref reference.txt sys1.txt sys2.txt sys3.txt --impl nltk": ({0}, "sys3.txt"),
    "chrf-audit check --update-baseline": ({0}, "updated"),
    "chrf-audit check --strict": ({0}, "check passed"),
    # the reports `chrf-audit run` wrote, re-rendered from their audit.json
    "chrf-audit report --from reports/audit.json": ({0}, "nltk"),
}
#: fresh_stats_run: `chrf-audit stats --reports-dir DIR` from an empty cache
SHARED = {"chrf-audit stats --reports-dir reports/stats", "chrf-audit stats"}
SLOW = {"chrf-audit run --impact-data ../shared/data/wmt17-en-de --reports-dir reports/wmt17"}
#: test_readme_http_command: against the README's example service
HTTP = "chrf-audit run --http http://127.0.0.1:8000/ --contract chrf-plus-plus-compute@1.0.0"
#: test_readme_http_command too: the same service's MCP tool
MCP = "chrf-audit run --mcp http://127.0.0.1:8000/mcp --tool chrf-plus-plus-compute@1.0.0"


def test_every_readme_command_is_run():
    assert set(readme_commands()) == set(EXPECTED) | SHARED | SLOW | {HTTP, MCP}


@pytest.mark.parametrize("command", [c for c in readme_commands() if c in EXPECTED])
def test_readme_command(command, docs_runner):
    if command == "chrf-audit check --strict" and not (docs_runner.project / "chrf-audit-baseline.json").exists():
        docs_runner.run("chrf-audit check --update-baseline")  # the README's order
    if command.startswith("chrf-audit report") and not (docs_runner.project / "reports" / "audit.json").exists():
        docs_runner.run("chrf-audit run")  # the README's order: the run wrote reports/
    codes, text = EXPECTED[command]
    proc = docs_runner.run(command)
    out = proc.stdout + proc.stderr
    assert proc.returncode in codes and text in out, (proc.returncode, out[-3000:])
    assert "Traceback" not in out and "parameter-ignored" not in out


def test_readme_sample_output_is_what_the_command_prints(docs_runner):
    """"What it tells you": the README's sample is the first command's output, line for
    line (the installed versions aside), run from a temporary directory."""
    [(command, sample)] = sample_outputs(README)
    assert command in EXPECTED and len(sample) > 10
    proc = docs_runner.run(command)
    assert output_matches(sample, proc.stdout), proc.stdout


def test_output_matching_is_strict():
    assert output_matches(["a 1.2.3", "b ... c"], "a 9.9.9\nb x y c\n")
    assert output_matches(["a", "...", "z"], "a\nb\nc\nz\n")
    assert not output_matches(["a", "b"], "a\nb\nc\n")  # a line more
    assert not output_matches(["a 1.2.3", "b"], "a 1.2.3\nB\n")


def test_readme_http_command(docs_runner, tmp_path):
    """The README's service audit against the README's example service
    (``examples/chrf_service.py``, started as docs/http.md says, on a free port rather than
    8000, which this machine may be using): the reference service meets its contract."""
    service = subprocess.Popen([sys.executable, "examples/chrf_service.py", "--port", "0"], cwd=docs_runner.project,
                               stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    try:
        first = service.stdout.readline()
        assert first.startswith("listening on "), first
        url = first.split("listening on ", 1)[1].strip()
        proc = docs_runner.run(HTTP.replace("http://127.0.0.1:8000/", url))
        out = proc.stdout + proc.stderr
        assert proc.returncode == 0 and "no finding" in out, (proc.returncode, out[-3000:])
        assert "Traceback" not in out
        # what docs/http.md says this run shows
        assert "22 of 22 promises kept" in out and "82.872637" in out, out[-3000:]
        # and the README's MCP command against the same service (its tool at /mcp)
        proc = docs_runner.run(MCP.replace("http://127.0.0.1:8000/", url))
        out = proc.stdout + proc.stderr
        assert proc.returncode == 0 and "no finding" in out and "22 of 22 promises kept" in out, out[-3000:]
        assert "Traceback" not in out
    finally:
        service.terminate()
        service.wait(timeout=30)


def test_readme_stats_command(fresh_stats_run):
    """`chrf-audit stats` (the README's, with --reports-dir) from an empty cache: both
    libraries reported, exit 1 (sacreBLEU's interval crashes on a two-segment corpus)."""
    cache, out, proc = fresh_stats_run
    assert proc.returncode == 1 and (out / "sacrebleu.md").is_file() and (out / "evaluatio.md").is_file()


@pytest.mark.slow
def test_readme_impact_data_command(tmp_path):
    """The WMT17 study (its run time: reports/README.md): needs the third-party data beside
    the checkout."""
    assert WMT17.is_dir(), f"the WMT17 data (never committed) is needed in {WMT17}"
    work = tmp_path / "checkout"
    work.mkdir()
    (tmp_path / "shared").mkdir()
    os.symlink(WMT17.parent, tmp_path / "shared" / "data")
    [command] = SLOW
    proc = Runner(work, tmp_path).run(command)
    assert proc.returncode == 1 and (work / "reports" / "wmt17" / "nltk.md").is_file(), proc.stderr[-3000:]


def test_ci_runs_exactly_the_readmes_test_command_with_durations():
    """CI (``.ci/run``) runs the README's test command as written, and that command prints
    the 25 slowest tests (issue 29 item 17: CI must show where its time goes)."""
    [line] = [c for c in README.read_text(encoding="utf-8").splitlines() if c.startswith("python3 -m venv") and "-m pytest" in c]
    ci = (ROOT / ".ci" / "run").read_text().strip().splitlines()[-1]
    assert ci == line, (ci, line)
    assert line.split("-m pytest", 1)[1].split() == ["-q", "--durations=25"]


#: what differs between two machines in a line of a report: an installed release's version
#: (three or more parts: regex 2026.11.19, CPython 3.11.7), the platform (audit.json only) and,
#: in the manifest, each file's hash
_VERSIONS = [(re.compile(r"\b\d+(?:\.\d+){2,}\b"), "V"), (re.compile(r'"platform": "[^"]*"'), '"platform": P'),
             (re.compile(r"\b[0-9a-f]{64}\b"), "H")]


def _versionless(line: str) -> str:
    for rx, by in _VERSIONS:
        line = rx.sub(by, line)
    return line


def _checkout(where: Path) -> Path:
    """A copy of this checkout's files (tracked, and new ones not ignored: what a clone of the
    commit under test holds), committed in a repository of its own."""
    listed = subprocess.run(["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"], cwd=ROOT,
                            capture_output=True, check=True).stdout.decode().split("\0")
    for rel in filter(None, listed):
        if (ROOT / rel).is_file():
            (where / rel).parent.mkdir(parents=True, exist_ok=True)
            (where / rel).write_bytes((ROOT / rel).read_bytes())
    git = ["git", "-c", "user.name=t", "-c", "user.email=t@example.invalid"]
    for argv in (["init", "-q"], ["add", "-A"], ["commit", "-q", "-m", "checkout"]):
        subprocess.run([*git, *argv], cwd=where, check=True, capture_output=True)
    return where


@pytest.mark.index
def test_the_first_command_in_a_fresh_venv_gives_the_committed_reports(tmp_path):
    """Issue 39 item 9: the README's first command as written (a new venv, ``pip install -e .``
    without the test extra, ``chrf-audit run``), in a copy of this checkout, from an empty
    cache: every patch is verified as in the committed reports (e24fcbf's install lacked pytest:
    each became "not verified ... No module named pytest", with the venv's path), ``git status``
    shows only committed reports changed, each only in lines that differ by a version, and no
    report holds a path of the machine."""
    [first] = [c for c in README.read_text(encoding="utf-8").splitlines()
               if c.startswith("python3 -m venv") and c.endswith("chrf-audit run")]
    assert "[test]" not in first
    work = _checkout(tmp_path / "checkout")
    env = {k: v for k, v in os.environ.items()
           if k not in ("PYTHONPATH", "VIRTUAL_ENV", "GITHUB_STEP_SUMMARY", "COLUMNS") and not k.startswith("CHRF_AUDIT_")}
    # python3 is this interpreter (the committed reports name its version), the cache empty
    env.update(PATH=os.pathsep.join([str(Path(sys.executable).parent), env.get("PATH", "")]),
               CHRF_AUDIT_CACHE=str(tmp_path / "empty-cache"))
    proc = subprocess.run(["bash", "-c", first], cwd=work, env=env, capture_output=True, text=True, timeout=3600)
    assert proc.returncode == 1 and "Traceback" not in proc.stderr, proc.stderr[-3000:]
    status = subprocess.run(["git", "status", "--porcelain", "--untracked-files=all"], cwd=work, capture_output=True,
                            text=True, check=True).stdout.splitlines()
    assert all(line.startswith(" M reports/") for line in status), status  # nothing else written or deleted
    for line in status:
        rel = line[3:]
        old = subprocess.run(["git", "show", f"HEAD:{rel}"], cwd=work, capture_output=True, text=True,
                             check=True).stdout.splitlines()
        new = (work / rel).read_text(encoding="utf-8").splitlines()
        differing = [(a, b) for a, b in zip(old, new) if _versionless(a) != _versionless(b)]
        assert len(old) == len(new) and not differing, (rel, len(old), len(new), differing[:3])
    for rel, text in rendered_reports(work / "reports").items():
        assert not machine_paths(text, extra=(tmp_path,)), (rel, machine_paths(text, extra=(tmp_path,)))
