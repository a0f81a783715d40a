"""The pipeline's direction: collect (audit) -> enrich -> render.  The renderers
(``audit/render/``) are pure functions of their input: they import nothing that audits,
looks at an upstream library, calls an implementation or starts a process.  Checked on the
source (every import statement, inside functions too) and at run time (rendering in a fresh
process loads none of it)."""

from __future__ import annotations

import ast
import json
import subprocess
import sys
from pathlib import Path

import pytest

from tests.fixtures.imports import import_targets

ROOT = Path(__file__).resolve().parents[1]
REPORT = ROOT / "audit" / "render"

#: what a renderer must not import (modules and everything below them)
FORBIDDEN = (
    "audit.upstream", "audit.collect.runner", "audit.adapters", "audit.patches", "audit.enrich",
    "audit.collect.parallel", "audit.processes.owner", "audit.collect.search", "audit.impact", "audit.diagnose.classify", "audit.collect.checker",
    "audit.collect.metamorphic", "audit.cli", "audit.commands", "audit.files.outputs", "audit.files.report_set", "audit.files.locking",
    "audit.collect.fitting", "audit.stats", "audit.http", "audit.collect.service_contract",
    "audit.contract.checks", "audit.contract.state",
    "nltk", "sacrebleu", "torchmetrics", "torch", "subprocess", "multiprocessing", "concurrent",
)


def imports_of(source: str, module: str, is_pkg: bool = False) -> set[str]:
    """Every module an import statement of ``source`` (the module ``module``) names, relative
    imports resolved; ``from a import b`` counts as ``a.b`` too (b may be a module)."""
    out: set[str] = set()
    for mod, names in import_targets(source, module, is_pkg):
        out.add(mod)
        out.update(f"{mod}.{a}" for a in names or ())
    return out


def violations(source: str, module: str) -> list[str]:
    return sorted(m for m in imports_of(source, module, is_pkg=module == "audit.render")
                  if any(m == f or m.startswith(f + ".") for f in FORBIDDEN))


def _report_modules():
    for path in sorted(REPORT.glob("*.py")):
        name = "audit.render" if path.stem == "__init__" else f"audit.render.{path.stem}"
        yield name, path


@pytest.mark.parametrize("name,path", list(_report_modules()), ids=lambda x: str(x))
def test_renderers_import_nothing_that_audits(name, path):
    assert violations(path.read_text(encoding="utf-8"), name) == []


#: what reading the environment looks like in a renderer's source: it gets these facts as arguments
ENVIRONMENT_READS = ("environ", "getenv", "get_terminal_size", "isatty", "stdout", "stderr", "open", "Console",
                     # the working directory (os.getcwd, Path.cwd, os.path.abspath) and file reads
                     "getcwd", "getcwdb", "cwd", "abspath", "read_text", "read_bytes",
                     # the clock: time.monotonic/perf_counter/..., datetime.now/utcnow/today, date.today
                     "monotonic", "monotonic_ns", "perf_counter", "perf_counter_ns", "time_ns", "process_time",
                     "localtime", "gmtime", "ctime", "now", "utcnow", "today")
#: modules a renderer does not import: they read the environment, the terminal or the clock
ENVIRONMENT_MODULES = ("os", "shutil", "sys", "platform", "rich", "time")


def environment_reads(source: str) -> list[str]:
    """Names and attributes of ``source`` that read the environment, the terminal, the clock,
    the working directory or files, and imports of the modules that do (os, shutil, sys,
    platform, rich, time)."""
    out = []
    for node in ast.walk(ast.parse(source)):
        name = node.attr if isinstance(node, ast.Attribute) else node.id if isinstance(node, ast.Name) else None
        if name in ENVIRONMENT_READS:
            out.append(name)
        elif isinstance(node, ast.Attribute) and node.attr == "time" and isinstance(node.value, ast.Name) \
                and node.value.id == "time":
            out.append("time.time")
        if isinstance(node, ast.Import):
            out += [a.name for a in node.names if a.name.split(".")[0] in ENVIRONMENT_MODULES]
        elif isinstance(node, ast.ImportFrom) and node.module and node.module.split(".")[0] in ENVIRONMENT_MODULES:
            out.append(node.module)
            out += [a.name for a in node.names if a.name in ENVIRONMENT_READS]
    return sorted(out)


#: reads that a renderer still makes, each with the issue that moves it out.  A test below fails
#: once the read is gone, so that the allowance goes with it.
KNOWN_READS: dict[str, list[str]] = {}  # (json_report.build's clock went to the command: issue 34 item 5)


@pytest.mark.parametrize("name,path", list(_report_modules()), ids=lambda x: str(x))
def test_renderers_read_no_environment(name, path):
    """No renderer reads os.environ, the terminal size, stdout or a file: the terminal's width
    and colour and the step summary's path come in as arguments (``audit.files.outputs`` finds
    them out and writes every byte)."""
    assert environment_reads(path.read_text(encoding="utf-8")) == KNOWN_READS.get(name, [])


def test_known_reads_are_still_there():
    """An allowance of KNOWN_READS outlives the read it allows: remove it."""
    modules = dict(_report_modules())
    for name, reads in KNOWN_READS.items():
        assert name in modules and environment_reads(modules[name].read_text(encoding="utf-8")) == reads, name


def test_the_environment_scan_catches_what_it_is_for():
    planted = {
        "import os\nx = os.environ.get('GITHUB_STEP_SUMMARY')\n": ["environ", "os"],
        "from os import getenv\n": ["getenv", "os"],
        "import shutil\nw = shutil.get_terminal_size().columns\n": ["get_terminal_size", "shutil"],
        "from rich.console import Console\n": ["Console", "rich.console"],
        "def f(p):\n    return open(p).read()\n": ["open"],
        "import sys\nsys.stdout.isatty()\n": ["isatty", "stdout", "sys"],
        "def render(doc, width):\n    return {'t': str(width).encode()}\n": [],
        # issue 34 probe (d): the clock, the working directory and file reads
        "import time\nstamp = time.time()\n": ["time", "time.time"],
        "import time\nt = time.monotonic(), time.perf_counter()\n": ["monotonic", "perf_counter", "time"],
        "from time import perf_counter\n": ["perf_counter", "time"],
        "from datetime import datetime\nx = datetime.now()\n": ["now"],
        "import datetime\nx = datetime.datetime.utcnow()\n": ["utcnow"],
        "from datetime import date\nx = date.today()\n": ["today"],
        "import os\nhere = os.getcwd()\n": ["getcwd", "os"],
        "from pathlib import Path\nhere = Path.cwd()\n": ["cwd"],
        "def f(p):\n    return p.read_text(encoding='utf-8')\n": ["read_text"],
        "def f(p):\n    return p.read_bytes()\n": ["read_bytes"],
        "def f(p):\n    with p.open() as fh:\n        return fh.read()\n": ["open"],
        "from datetime import date\ndef f(d: date):\n    return d.isoformat()\n": [],
    }
    for src, want in planted.items():
        assert environment_reads(src) == sorted(want), src


def test_the_check_catches_what_it_is_for():
    """Planted renderer sources: each forbidden import, relative, absolute, inside a function
    or as ``from .. import upstream``, is caught; harmless ones are not."""
    planted = {
        "from .. import upstream\n": ["audit.upstream"],
        "from ..upstream.sweeps import sweep\n": ["audit.upstream.sweeps", "audit.upstream.sweeps.sweep"],
        "def f():\n    from ..enrich.verification import _verify\n": [
            "audit.enrich.verification", "audit.enrich.verification._verify"],
        "import audit.adapters.resolver as r\n": ["audit.adapters.resolver"],
        "from audit.collect import runner\n": ["audit.collect.runner"],
        "import nltk.translate.chrf_score\n": ["nltk.translate.chrf_score"],
        "from concurrent.futures import ThreadPoolExecutor\n": [
            "concurrent.futures", "concurrent.futures.ThreadPoolExecutor"],
        "from ..enriched import EnrichedResult\nfrom ._text import num\nfrom ..families import title\n": [],
        "from ..upstreams import x\n": [],  # a prefix of a name is not the module
    }
    for src, want in planted.items():
        assert violations(src, "audit.render.planted") == want, src
    assert violations("from . import upstream\n", "audit.planted") == ["audit.upstream"]


def test_rendering_loads_nothing_that_audits(tmp_path):
    """In a fresh process: an EnrichedResult made by hand is rendered to every format, and
    none of the forbidden modules is loaded afterwards."""
    code = r'''
import json, sys
from audit.enriched import EnrichedResult, FindingDetails
from audit.findings import AdapterSummary, AuditResult, Finding, Repro
from audit.render import document, github, render_reports, terminal
m = Repro(level="sentence", inputs={"hypothesis": "a", "references": ["a"]}, expected=100.0,
          expected_fraction="100", actual=50.0, actual_raw="0.5", outcome="value")
f = Finding(implementation="x", family="unexplained", level="sentence", title="t", claims={}, reference_signature="",
            implementation_signature="", minimal=m)
res = AuditResult(0, 1, 1e-9, [AdapterSummary("x", "1.0", {}, "sig", findings=[f])])
sweep = {"dimension": "d", "x_label": "n", "kind": "line", "level": "sentence", "rows": [
    {"x": 1, "inputs": {"hypothesis": "a", "references": ["a"]}, "expected": 100.0, "expected_fraction": "100",
     "actual": 50.0, "difference": -50.0}]}
e = EnrichedResult(res, {"chrf_audit": "0", "reference_impl": "0", "python": "p", "platform": "q", "packages": {}},
                   {("x", "unexplained", "sentence"): FindingDetails(
                       "print(1)\n", "python", None, {"diff": "--- a/x\n+++ b/x\n", "description": "d", "verified": None},
                       sweep)})
doc = document(e)
files = render_reports(doc)
terminal.render(doc, width=100, color=False)
github.render(doc, ["check passed"])
paths = [__import__("pathlib").Path(p) for p in files]
loaded = sorted(m for m in sys.modules if any(m == p or m.startswith(p + ".") for p in json.loads(sys.argv[2])))
print(json.dumps({"loaded": loaded, "files": sorted(p.name for p in paths)}))
'''
    proc = subprocess.run([sys.executable, "-c", code, str(tmp_path), json.dumps(FORBIDDEN)],
                          capture_output=True, text=True, cwd=ROOT, timeout=300)
    assert proc.returncode == 0, proc.stderr
    got = json.loads(proc.stdout.strip().splitlines()[-1])
    assert got["files"] == ["audit.json", "junit.xml", "unexplained.md", "x-unexplained.svg", "x.md"]
    # the standard library's own use of these (none expected) would show here as well
    assert got["loaded"] == []


def test_the_enriched_result_is_plain_data():
    """audit/enriched.py, which the renderers import, imports nothing of the audit."""
    src = (ROOT / "audit" / "enriched.py").read_text(encoding="utf-8")
    assert not [m for m in imports_of(src, "audit.enriched") if m == "audit" or m.startswith("audit.")]
