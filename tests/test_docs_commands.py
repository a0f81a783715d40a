"""Every command and sample output of docs/*.md is executed (issue 23, item 6), from the
docs project directory (``tests/docs_harness.py``: a temporary directory, never the
repository root), and what the docs say it prints is compared with what it prints.

Each command of the docs is in exactly one of the tables below, so that a command added
to a page fails ``test_every_docs_command_is_classified`` until it is run here:

* ``SAME_AS_README``: the same command as the README's, run once by ``test_readme_commands``
  in the same directory (its output is compared here with what the page shows);
* ``RUN``: run here, with what it must print;
* ``TEMPLATES``: a command that names the reader's own code or placeholders (``mylib``,
  ``~/src/nltk``, ``URL``): checked by chrf-audit's own parser (every flag exists and takes
  the value given); running them costs minutes of audits (docs/stats.md's procedures,
  validate-patch's two audits), beyond the docs tests' budget;
* ``NAMES``: a command named in prose (``chrf-audit check`` is the gate): it exists.

The pins of pre-commit and the GitHub Action examples name commits of this repository
(``git rev-parse``), and the install lines install from the repository.
"""

from __future__ import annotations

import json
import os
import re
import shlex
import subprocess
import sys

import pytest

from audit.cli import COMMANDS, build_parser
from tests.docs_harness import DOCS, README, ROOT, commands, output_matches, sample_outputs
from tests.test_readme_commands import EXPECTED as README_EXPECTED
from tests.test_readme_commands import HTTP as README_HTTP
from tests.test_readme_commands import MCP as README_MCP
from tests.test_readme_commands import SHARED as README_STATS

SAME_AS_README = set(README_EXPECTED) | README_STATS | {README_HTTP, README_MCP}
#: command -> (exit code, a text the output must hold)
RUN = {
    # the pre-commit hook's entry (.pre-commit-hooks.yaml), in the README's project
    "chrf-audit check --quiet": (0, "check passed"),
}
TEMPLATES = {
    "chrf-audit report --from audit.json",
    "chrf-audit validate-patch --impl nltk --source ~/src/nltk",
    "chrf-audit validate-patch --impl mypkg.chrf:sentence_chrf --corpus-impl mypkg.chrf:corpus_chrf "
    "--beta 3 --scale 1 --patch fix.diff --json validation.json",
    "chrf-audit stats --external CMD",
    "chrf-audit run --http URL --contract CONTRACT",
    "chrf-audit run --http http://127.0.0.1:8000/ --contract auto",
    "chrf-audit run --mcp URL --tool chrf-plus-plus-compute@1.0.0",
    "chrf-audit run --mcp URL --tool NAME@VERSION",
    "chrf-audit run --hypothesis-profile NAME",
    "chrf-audit check --hypothesis-profile NAME",
    "chrf-audit validate-patch --hypothesis-profile NAME",
    "chrf-audit stats --reference",
    "chrf-audit stats --sacrebleu",
    "chrf-audit stats --ci mylib.stats:chrf_ci --paired mylib.stats:chrf_test --accepts resamples,seed",
    "chrf-audit stats --ci mylib.stats:chrf_ci --draw numpy-choice",
    'chrf-audit stats --external "node my_stats.js"',
    # docs/versions.md: each installs releases and audits them (minutes), tested in
    # tests/test_versions*.py on a planted package
    "chrf-audit versions nltk 3.10.3..3.10.4 --json out.json",
    "chrf-audit versions sacrebleu 1.5.1,2.0.0,2.6.0 --markdown reports/versions",
    "chrf-audit versions mypkg 1.0..2.0 --impl mypkg.chrf:sentence --beta 3 --scale 1",
    "chrf-audit versions nltk all --bisect --scheduler tcp://scheduler-host:8786",
    # docs/survey.md: installs and audits a dozen packages (minutes); tests/test_survey.py runs
    # the command on planted packages
    "chrf-audit survey --json survey.json",
    "chrf-audit survey fastchrf lm-eval --max-examples 40 --reports-dir reports/survey",
    "chrf-audit survey --registry mine.json --scheduler tcp://scheduler-host:8786",
    "chrf-audit run --impl LIBRARY",
}
NAMES = {"chrf-audit check", "chrf-audit run", "chrf-audit validate-patch", "chrf-audit stats", "chrf-audit versions",
         "chrf-audit survey"}


def docs_commands() -> list[str]:
    return list(dict.fromkeys(c for page in DOCS for c in commands(page)))


def test_every_docs_command_is_classified():
    found = set(docs_commands())
    tables = [SAME_AS_README, set(RUN), TEMPLATES, NAMES]
    assert found <= set().union(*tables), sorted(found - set().union(*tables))
    assert set(RUN) | TEMPLATES | NAMES <= found  # nothing stale in the tables
    assert sum(len(t) for t in tables[1:]) == len(set().union(*tables[1:]))  # in one table only
    assert not found & SAME_AS_README - set(RUN) - TEMPLATES - NAMES - set(README_EXPECTED) - README_STATS - \
        {README_HTTP, README_MCP}


@pytest.mark.parametrize("command", sorted(TEMPLATES))
def test_template_commands_parse(command):
    """A template's flags exist and take its values (argparse exits 2 otherwise)."""
    argv = shlex.split(command)[1:]
    args = build_parser().parse_args(argv)
    assert args.command == argv[0]


def test_named_commands_exist():
    for name in NAMES:
        for sub in name.split("chrf-audit ", 1)[1].split(" / "):
            assert sub.replace("-", "_") in COMMANDS, name


@pytest.mark.parametrize("command", sorted(RUN))
def test_docs_command(command, docs_runner):
    if "check" in command and not (docs_runner.project / "chrf-audit-baseline.json").exists():
        docs_runner.run("chrf-audit check --update-baseline")  # docs/ci.md's workflow
    code, text = RUN[command]
    proc = docs_runner.run(command)
    out = proc.stdout + proc.stderr
    assert proc.returncode == code and text in out and "Traceback" not in out, (proc.returncode, out[-3000:])


def test_docs_sample_outputs_are_what_the_commands_print(docs_runner):
    """Each ``$ chrf-audit ...`` block of docs/ (docs/ci.md's validate-patch, the same
    command as the README's) is the command's output, line for line."""
    samples = [(page.name, cmd, lines) for page in DOCS for cmd, lines in sample_outputs(page)]
    assert [(p, c) for p, c, _ in samples] == [("ci.md", "chrf-audit validate-patch --impl nltk --patch fix.diff")]
    for _, command, lines in samples:
        assert command in SAME_AS_README | set(RUN)
        proc = docs_runner.run(command)
        assert output_matches(lines, proc.stdout), proc.stdout


PLANTED_DIVISOR = '''"""A chrF that divides by the requested orders (tests/planted)."""
from tests.planted import requested_order_divisor as _planted


def sentence_chrf(hypothesis, references):
    return _planted.sentence(hypothesis, references)
'''


def test_ci_md_pytest_failure_is_what_the_plugin_prints(tmp_path):
    """docs/ci.md's pytest failure: the plugin's message for the test it names, on a chrF
    with the divisor bug, run by pytest in a project directory."""
    text = (ROOT / "docs" / "ci.md").read_text(encoding="utf-8")
    head = "and level (here `"
    call = text.split(head, 1)[1].split("`", 1)[0]
    sample = text.split(head, 1)[1].split("```\n", 1)[1].split("```", 1)[0].splitlines()
    (tmp_path / "mypkg").mkdir()
    (tmp_path / "mypkg" / "__init__.py").write_text("")
    (tmp_path / "mypkg" / "chrf.py").write_text(PLANTED_DIVISOR)
    (tmp_path / "test_lib.py").write_text(f"def test_chrf_conforms(chrf_audit):\n    {call}\n")
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(tmp_path), str(ROOT)]))
    env.pop("CI", None)  # pytest's summary repeats the message in full under CI
    proc = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "test_lib.py"],
                          cwd=tmp_path, env=env, capture_output=True, text=True, timeout=600)
    assert proc.returncode == 1, proc.stdout[-3000:]
    message = proc.stdout.split(" test_chrf_conforms _", 1)[1].split("\n", 1)[1].split("=" * 10, 1)[0]
    assert output_matches(sample, message), message


#: docs/ci.md's configuration mistakes: (pyproject.toml, command) per line of its sample
CONFIG_ERRORS = [
    ("[tool.chrf-audit]\nmax_examples = 100\n", "chrf-audit check"),
    ("[tool.chrf-audit]\n[[tool.chrf-audit.implementations]]\nimpl = \"mypkg.chrf:sentence_chrf\"\nscale = 10\n",
     "chrf-audit check"),
    (None, "chrf-audit check --impl mypkg.chrff:sentence_chrf"),
]


def test_ci_md_configuration_mistakes_are_what_check_prints(docs_runner, tmp_path):
    text = (ROOT / "docs" / "ci.md").read_text(encoding="utf-8")
    block = text.split("Mistakes are reported on one line, naming the key, with exit 2:\n\n```\n", 1)[1]
    lines = block.split("```", 1)[0].splitlines()
    assert len(lines) == len(CONFIG_ERRORS)
    for n, (line, (config, command)) in enumerate(zip(lines, CONFIG_ERRORS)):
        where = docs_runner.project
        if config is not None:
            where = tmp_path / str(n)
            where.mkdir()
            (where / "pyproject.toml").write_text(config)
        proc = docs_runner.run(command, where)
        assert proc.returncode == 2 and output_matches([line], proc.stderr), (line, proc.stderr)


def test_protocol_examples_are_what_examples_chrf_js_answers(tmp_path):
    """docs/external-protocol.md's requests, sent to examples/chrf.js: its answers are the
    page's, and its hello answer holds the page's."""
    text = (ROOT / "docs" / "external-protocol.md").read_text(encoding="utf-8")
    blocks = [[json.loads(line) for line in b.splitlines()] for b in re.findall(r"```json\n(.*?)```", text, re.S)
              if "{...}" not in b]
    requests, answers, hello = blocks[0], blocks[1], blocks[2][0]
    lines = [json.dumps({"id": 0, "op": "hello", "protocol": 1})] + [json.dumps(r) for r in requests]
    proc = subprocess.run(["node", "examples/chrf.js"], cwd=ROOT, input="\n".join(lines) + "\n",
                          capture_output=True, text=True, timeout=60)
    got = [json.loads(line) for line in proc.stdout.splitlines()]
    assert proc.returncode == 0 and got[1:] == answers, proc.stdout
    assert {k: got[0][k] for k in hello} == hello


SHA = re.compile(r"^[0-9a-f]{40}$")


def _pins() -> list[tuple[str, str]]:
    """(file, ref) of every pin of chrf-audit in the docs, examples and action.yml:
    ``uses: .../chrf-audit@REF``, ``git+...chrf-audit@REF`` and pre-commit's ``rev: REF``."""
    files = [README, *DOCS, ROOT / "action.yml", *sorted((ROOT / "examples").glob("*.yml"))]
    pins = []
    for f in files:
        text = f.read_text(encoding="utf-8")
        pins += [(f.name, ref) for ref in re.findall(r"chrf-audit@([^\s\"'`]+)", text)]
        pins += [(f.name, ref) for ref in re.findall(r"^\s*rev: (\S+)", text, re.M)]
    return pins


def test_pins_name_commits_of_this_repository():
    pins = _pins()
    assert {f for f, _ in pins} >= {"README.md", "ci.md", "action.yml", "github-action-uses.yml", "github-actions.yml"}
    for f, ref in pins:
        assert SHA.match(ref), (f, ref)  # a full commit: a branch moves, and no release is tagged
        proc = subprocess.run(["git", "rev-parse", "--verify", "--quiet", f"{ref}^{{commit}}"], cwd=ROOT,
                              capture_output=True, text=True)
        assert proc.returncode == 0 and proc.stdout.strip() == ref, (f, ref, proc.stderr)
        for path in ("action.yml", ".pre-commit-hooks.yaml"):  # what the pin is used for is there
            assert subprocess.run(["git", "cat-file", "-e", f"{ref}:{path}"], cwd=ROOT).returncode == 0, (ref, path)


_PIP = re.compile(r"pip install((?:[ \t]+(?:\"[^\"\n]*\"|'[^'\n]*'|(?!in\b)[^\s#`|()'\"]+))+)")  # up to prose: "... in the checkout"


def _from_the_index(line: str) -> list[str]:
    """The requirements of a ``pip install`` line that name chrf-audit on the package index
    (``chrf-audit``, ``'chrf-audit[extra]'``; ``"chrf-audit @ git+...@<commit>"`` is the
    repository)."""
    return [arg for m in _PIP.finditer(line) for arg in shlex.split(m.group(1))
            if re.fullmatch(r"chrf-audit(\[[\w,]+\])?", arg)]


def test_install_lines_install_from_the_repository():
    """No ``pip install chrf-audit`` from the package index: chrf-audit is not on it."""
    assert _from_the_index("pip install chrf-audit") == ["chrf-audit"]
    assert _from_the_index("x `pip install 'chrf-audit[service]'` y") == ["chrf-audit[service]"]
    assert _from_the_index('pip install -e . "chrf-audit @ git+https://h/o/chrf-audit@abc" # chrf-audit') == []
    files = [README, *DOCS, ROOT / "action.yml", *sorted((ROOT / "examples").glob("*"))]
    for f in files:
        for line in f.read_text(encoding="utf-8").splitlines():
            assert not _from_the_index(line), (f.name, line)
