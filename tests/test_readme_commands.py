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
import subprocess
import sys

import pytest

from tests.docs_harness import README, ROOT, Runner, commands, output_matches, sample_outputs

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
