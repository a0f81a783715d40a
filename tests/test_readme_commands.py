"""Every command of the README runs, from an empty cache (issue 19): a fresh machine gets
what the README promises.

The commands are read from README.md itself (its ``sh`` blocks and the ``chrf-audit ...``
spans of its prose); a command added there fails ``test_every_readme_command_is_run``
until it is run here.  Each runs as written, in a project directory holding what the README
takes for granted (``mypkg.chrf`` scoring as it claims, ``fix.diff``, segment files,
``examples/chrf.js``, the CI recipe's pyproject.toml), with ``CHRF_AUDIT_CACHE`` an empty
directory.  ``chrf-audit stats`` is the session's ``fresh_stats_run`` (it creates evaluatio's
venv); the ``--impact-data`` study needs the WMT17 data (third-party, never committed) and is
a ``slow`` test.
"""

from __future__ import annotations

import os
import re
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
README = ROOT / "README.md"
WMT17 = ROOT.parent / "shared" / "data" / "wmt17-en-de"


def readme_commands() -> list[str]:
    """The ``chrf-audit`` commands of the README, in order (a leading ``.venv/bin/`` and the
    install steps before it dropped)."""
    text = README.read_text(encoding="utf-8")
    found = []
    for block in re.findall(r"```(?:sh|bash)\n(.*?)```", text, re.S):
        for line in block.splitlines():
            line = line.strip()
            if line.startswith("#") or "chrf-audit " not in line + " ":
                continue
            cmd = re.split(r"\s+#", line)[0].split("&&")[-1].strip()
            found.append(cmd.replace(".venv/bin/chrf-audit", "chrf-audit"))
    found += re.findall(r"`(chrf-audit [^`]+)`", text)
    return list(dict.fromkeys(c for c in found if c.startswith("chrf-audit ")))


MYPKG = '''"""What the README calls mypkg: a chrF that is what it claims (beta 3, scale 1)."""
from reference_impl import corpus_score, sentence_score


def sentence(hypothesis, references, char_order=6, beta=3):
    return float(sentence_score(hypothesis, list(references), char_order=char_order, beta=beta).score) / 100


def corpus(hypotheses, references):
    return float(corpus_score(list(hypotheses), [list(r) for r in references], beta=3).score) / 100
'''

# the README's CI recipe
PYPROJECT = '''[tool.chrf-audit]
max-examples = 100
[[tool.chrf-audit.implementations]]
impl = "mypkg.chrf:sentence_chrf"
corpus-impl = "mypkg.chrf:corpus_chrf"
beta = 3
scale = 1
'''


@pytest.fixture(scope="module")
def project(tmp_path_factory) -> Path:
    from audit import upstream

    d = tmp_path_factory.mktemp("readme-project")
    (d / "mypkg").mkdir()
    (d / "mypkg" / "__init__.py").write_text("")
    (d / "mypkg" / "chrf.py").write_text(MYPKG + "\nsentence_chrf, corpus_chrf = sentence, corpus\n")
    (d / "pyproject.toml").write_text(PYPROJECT)
    (d / "fix.diff").write_text(upstream.patch("nltk", "requested-order-divisor"))
    shutil.copytree(ROOT / "examples", d / "examples")
    (d / "reference.txt").write_text("The cat sat on the mat.\nA dog barks.\nIt rains today.\n")
    (d / "sys1.txt").write_text("The cat sat on the mat.\nA dog barked.\nIt rains.\n")
    (d / "sys2.txt").write_text("A cat sat on a mat.\nThe dog barks.\nToday it rains.\n")
    (d / "sys3.txt").write_text("cat mat\ndog\nrain\n")
    return d


def _run(command: str, cwd: Path, tmp_path: Path) -> subprocess.CompletedProcess:
    """``chrf-audit ...`` as the README writes it, from an empty cache."""
    argv = shlex.split(command)
    assert argv[0] == "chrf-audit"
    cache = tmp_path / "empty-cache"
    cache.mkdir(exist_ok=True)
    env = dict(os.environ, CHRF_AUDIT_CACHE=str(cache), PYTHONPATH=str(ROOT))
    env.pop("GITHUB_STEP_SUMMARY", None)
    return subprocess.run([sys.executable, "-m", "audit.cli", *argv[1:]], cwd=cwd, env=env, capture_output=True,
                          text=True, timeout=1800)


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
        ({2}, "install it with pip install 'chrf-audit[torchmetrics]'"),
    "chrf-audit validate-patch --impl nltk --patch fix.diff": ({0}, "FIXED          nltk  requested-order-divisor"),
    "chrf-audit impact --ref reference.txt sys1.txt sys2.txt sys3.txt --impl nltk": ({0}, "sys3.txt"),
    "chrf-audit check --update-baseline": ({0}, "updated"),
    "chrf-audit check --strict": ({0}, "check passed"),
}
#: fresh_stats_run: `chrf-audit stats --reports-dir DIR` from an empty cache
SHARED = {"chrf-audit stats --reports-dir reports/stats", "chrf-audit stats"}
SLOW = {"chrf-audit run --impact-data ../shared/data/wmt17-en-de --reports-dir reports/wmt17"}
#: test_readme_http_command: against the README's example service
HTTP = "chrf-audit run --http http://127.0.0.1:8000/ --contract chrf-plus-plus-compute@1.0.0"


def test_every_readme_command_is_run():
    assert set(readme_commands()) == set(EXPECTED) | SHARED | SLOW | {HTTP}


@pytest.mark.parametrize("command", [c for c in readme_commands() if c in EXPECTED])
def test_readme_command(command, project, tmp_path):
    if command == "chrf-audit check --strict" and not (project / "chrf-audit-baseline.json").exists():
        _run("chrf-audit check --update-baseline", project, tmp_path)  # the README's order
    codes, text = EXPECTED[command]
    proc = _run(command, project, tmp_path)
    out = proc.stdout + proc.stderr
    assert proc.returncode in codes and text in out, (proc.returncode, out[-3000:])
    assert "Traceback" not in out and "parameter-ignored" not in out


def test_readme_http_command(project, tmp_path):
    """The README's service audit against the README's example service
    (``examples/chrf_service.py``, started as docs/http.md says, on a free port rather than
    8000, which this machine may be using): the reference service meets its contract."""
    service = subprocess.Popen([sys.executable, "examples/chrf_service.py", "--port", "0"], cwd=project,
                               stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    try:
        first = service.stdout.readline()
        assert first.startswith("listening on "), first
        url = first.split("listening on ", 1)[1].strip()
        proc = _run(HTTP.replace("http://127.0.0.1:8000/", url), project, tmp_path)
        out = proc.stdout + proc.stderr
        assert proc.returncode == 0 and "no finding" in out, (proc.returncode, out[-3000:])
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
    """The WMT17 study (about 4 minutes): needs the third-party data beside the checkout."""
    assert WMT17.is_dir(), f"the WMT17 data (never committed) is needed in {WMT17}"
    work = tmp_path / "checkout"
    work.mkdir()
    (tmp_path / "shared").mkdir()
    os.symlink(WMT17.parent, tmp_path / "shared" / "data")
    [command] = SLOW
    proc = _run(command, work, tmp_path)
    assert proc.returncode == 1 and (work / "reports" / "wmt17" / "nltk.md").is_file(), proc.stderr[-3000:]
