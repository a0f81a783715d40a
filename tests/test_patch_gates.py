"""A library's gates on a patched file (issue 42 item 3, ``audit.patches.gates``): each tool runs
in a copy of the repository's layout beside the configuration files, in the mode that rewrites
the file, and passes only when it exits 0 and leaves the file as it was; a pattern gate fails on
a matching line; tools that cannot be installed leave every tool gate "not run" and the patch
"not checked", never verified.  Stand-in tools here (the real ones, at the versions the records
pin, run on the committed patches: tests/test_committed_issues.py)."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from audit.patches import gates as G
from audit.upstream import nltk_record, torchmetrics_record
from audit.upstream.records import Gate, Gates

TOOL = """#!{python}
import pathlib, sys
args = sys.argv[1:]
path = pathlib.Path(args[-1])
assert pathlib.Path("{config}").is_file(), "the configuration is beside the layout"
assert path.parts[0] == "{layout}", path
if "{mode}" == "rewrite":
    path.write_text(path.read_text() + "# reformatted\\n")
sys.exit({rc})
"""


def _tool(bin_dir: Path, name: str, mode: str = "keep", rc: int = 0) -> None:
    script = bin_dir / name
    script.write_text(TOOL.format(python=sys.executable, config="pyproject.toml", layout="src", mode=mode, rc=rc))
    script.chmod(0o755)


def _trees(tmp_path: Path) -> tuple[Path, Path]:
    for side in ("site", "copy"):
        (tmp_path / side / "pkg").mkdir(parents=True)
        (tmp_path / side / "pkg" / "__init__.py").write_text("")
    (tmp_path / "site" / "pkg" / "m.py").write_text("x = 1\n")
    (tmp_path / "copy" / "pkg" / "m.py").write_text("x = 2  # noqa\n")
    return tmp_path / "site", tmp_path / "copy"


RECORD = Gates(where="pkg's .pre-commit-config.yaml", layout="src", config_files={"pyproject.toml": "[tool.x]\n"},
               gates=(Gate("keeps", ("keeps", "{file}"), "keeps==1"), Gate("rewrites", ("rewrites", "{file}"), "r==1"),
                      Gate("fails", ("fails", "{file}"), "f==1"),
                      Gate("python-check-blanket-noqa", pattern=r"(?i)# noqa(?!: )")),
               not_run=(("check-yaml", "no YAML file is patched"),))


def test_each_gate_passes_only_when_the_tool_exits_0_and_leaves_the_file(tmp_path, monkeypatch):
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    _tool(bin_dir, "keeps")
    _tool(bin_dir, "rewrites", mode="rewrite")
    _tool(bin_dir, "fails", rc=1)
    monkeypatch.setattr(G, "ensure", lambda reqs: (bin_dir, None))
    site, copy = _trees(tmp_path)
    got = G.run_gates(RECORD, site, copy, ["pkg/m.py"])
    after = {g["gate"]: (g["result"], g["detail"]) for g in got["after"]}
    assert after["keeps"] == ("passed", None)
    assert after["rewrites"] == ("failed", "it rewrites 1 line(s)")
    assert after["fails"][0] == "failed"
    assert after["python-check-blanket-noqa"] == ("failed", "line 1 matches '(?i)# noqa(?!: )'")
    before = {g["gate"]: g["result"] for g in got["before"]}
    assert before["python-check-blanket-noqa"] == "passed"  # the released file has no blanket noqa
    assert got["not_run"] == ["check-yaml: no YAML file is patched"]
    assert (copy / "pkg" / "m.py").read_text() == "x = 2  # noqa\n"  # the patched copy is never rewritten
    assert G.verdict_problem(got).startswith("the patched file fails rewrites, fails, python-check-blanket-noqa "
                                             "(it rewrites 1 line(s); the released file fails it too)")


def test_tools_that_cannot_be_installed_make_the_patch_not_checked(tmp_path, monkeypatch):
    monkeypatch.setattr(G, "ensure", lambda reqs: (None, "cannot install keeps==1: no matching distribution"))
    site, copy = _trees(tmp_path)
    got = G.run_gates(RECORD, site, copy, ["pkg/m.py"])
    assert [g["result"] for g in got["after"]] == ["not run", "not run", "not run", "failed"]
    assert G.verdict_problem(got) == "not checked: keeps, rewrites, fails (cannot install keeps==1: no matching " \
                                     "distribution)"
    assert G.verdict_problem(None) == "not checked: the library's gates (no record of them)"


@pytest.mark.parametrize("record", [nltk_record.GATES, torchmetrics_record.GATES], ids=["nltk", "torchmetrics"])
def test_the_records_pin_every_tool_and_say_where_they_are_configured(record):
    """Each tool gate names a pinned requirement (the version the repository configures) and
    where it is configured; the requirements are what the tools' environment installs."""
    for gate in record.gates:
        assert gate.configured and (gate.pattern or ("==" in gate.requirement and gate.argv[-1] == "{file}"))
    assert record.requirements() == sorted({g.requirement for g in record.gates if g.requirement} | set(record.extras))
