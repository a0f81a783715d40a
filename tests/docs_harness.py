"""What the docs tests share (``test_readme_commands``, ``test_docs_commands``): the commands
and sample outputs of README.md and docs/*.md read from the files themselves, a project
directory holding what the docs take for granted, and one run per command (a command the
README and a doc page both show runs once, from that temporary directory, never the
repository root)."""

from __future__ import annotations

import os
import re
import shlex
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
README = ROOT / "README.md"
DOCS = sorted((ROOT / "docs").glob("*.md"))


def code_blocks(text: str) -> list[tuple[str, str]]:
    """(language, body) of each fenced code block, fences paired line by line."""
    blocks, lang, body = [], None, []
    for line in text.splitlines():
        if line.startswith("```"):
            if lang is None:
                lang, body = line[3:].strip(), []
            else:
                blocks.append((lang, "\n".join(body) + "\n"))
                lang = None
        elif lang is not None:
            body.append(line)
    return blocks


def sh_commands(text: str) -> list[str]:
    """The ``chrf-audit`` lines of the ``sh`` blocks (continuation lines joined, comments,
    a leading ``.venv/bin/`` and the install steps before ``&&`` dropped)."""
    found = []
    for block in (body for lang, body in code_blocks(text) if lang in ("sh", "bash")):
        for line in block.replace("\\\n", " ").splitlines():
            line = line.strip()
            if line.startswith("#") or "chrf-audit " not in line + " ":
                continue
            cmd = re.split(r"\s+#", line)[0].split("&&")[-1].strip()
            found.append(" ".join(cmd.replace(".venv/bin/chrf-audit", "chrf-audit").split()))
    return [c for c in found if c.startswith("chrf-audit ")]


def span_commands(text: str) -> list[str]:
    return re.findall(r"`(chrf-audit [^`]+)`", text)


def commands(path: Path) -> list[str]:
    text = path.read_text(encoding="utf-8")
    return list(dict.fromkeys(sh_commands(text) + span_commands(text)))


def sample_outputs(path: Path) -> list[tuple[str, list[str]]]:
    """(command, output lines) of each plain code block that starts with ``$ chrf-audit ...``."""
    out = []
    for lang, body in code_blocks(path.read_text(encoding="utf-8")):
        lines = body.splitlines()
        if not lang and lines and lines[0].startswith("$ chrf-audit "):
            out.append((lines[0][2:], lines[1:]))
    return out


_VERSION = re.compile(r"\b\d+\.\d+\.\d+\b")


def output_matches(sample: list[str], actual: str) -> bool:
    """Whether the output ``actual`` is the sample, line for line: versions (``3.10.4``)
    stand for whatever is installed, ``...`` inside a line for any text, and a line that is
    only ``...`` for any lines."""
    parts = []
    for line in sample:
        if line.strip() == "...":
            parts.append(r"(?:[^\n]*\n)*?")
            continue
        rx = re.escape(_VERSION.sub("X.Y.Z", line.rstrip())).replace(r"\.\.\.", "[^\n]*?")
        parts.append(rx + r"[ \t]*\n")
    got = _VERSION.sub("X.Y.Z", actual.rstrip("\n") + "\n")
    return re.fullmatch("".join(parts), got) is not None


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


def make_project(d: Path) -> Path:
    """A project directory holding what the docs take for granted: ``mypkg.chrf`` scoring as
    it claims, ``fix.diff`` (nltk's whitespace patch, a bug fix), segment files, ``examples/``, the CI
    recipe's pyproject.toml."""
    from audit import upstream

    (d / "mypkg").mkdir(parents=True)
    (d / "mypkg" / "__init__.py").write_text("")
    (d / "mypkg" / "chrf.py").write_text(MYPKG + "\nsentence_chrf, corpus_chrf = sentence, corpus\n")
    (d / "pyproject.toml").write_text(PYPROJECT)
    (d / "fix.diff").write_text(upstream.patch("nltk", "whitespace-set-white-space"))
    shutil.copytree(ROOT / "examples", d / "examples")
    (d / "reference.txt").write_text("The cat sat on the mat.\nA dog barks.\nIt rains today.\n")
    (d / "sys1.txt").write_text("The cat sat on the mat.\nA dog barked.\nIt rains.\n")
    (d / "sys2.txt").write_text("A cat sat on a mat.\nThe dog barks.\nToday it rains.\n")
    (d / "sys3.txt").write_text("cat mat\ndog\nrain\n")
    return d


class Runner:
    """Runs ``chrf-audit ...`` as the docs write it, in the project directory (or ``cwd``),
    each time from an empty ``CHRF_AUDIT_CACHE``; a command is run once per directory."""

    def __init__(self, project: Path, scratch: Path):
        self.project, self.scratch = project, scratch
        self._done: dict = {}

    def run(self, command: str, cwd: Path | None = None, *, again: bool = False) -> subprocess.CompletedProcess:
        cwd = cwd or self.project
        key = (command, str(cwd))
        if again or key not in self._done:
            argv = shlex.split(command)
            assert argv[0] == "chrf-audit"
            cache = Path(tempfile.mkdtemp(prefix="empty-cache-", dir=self.scratch))
            env = dict(os.environ, CHRF_AUDIT_CACHE=str(cache), PYTHONPATH=str(ROOT))
            env.pop("GITHUB_STEP_SUMMARY", None)
            env.pop("COLUMNS", None)  # the samples are what a pipe gets (100 columns), whatever runs the tests
            self._done[key] = subprocess.run([sys.executable, "-m", "audit.cli", *argv[1:]], cwd=cwd, env=env,
                                             capture_output=True, text=True, timeout=1800)
        return self._done[key]
