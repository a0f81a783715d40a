"""The rows of docs/fault-catalogue.md about outcomes named right and text from outside
(issue 39, items 7, 8 and 12): each case returns (outcome, text) as
tests/test_fault_catalogue.py expects; ``CASES`` is merged into its table."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import types
from pathlib import Path

from tests.fixtures.markup import CONTROL, injected, run_markup
from tests.http_faults import BUILT_IN, _audit
from tests.http_services import running

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
GOOD = "from reference_impl import sentence_score\n\n\ndef f(h, r):\n    return float(sentence_score(h, list(r)).score)\n"


def _markup_reports(ctx):
    """tests/planted_markup.py audited with every output: nothing it says adds structure,
    HTML or a control character to a report, standard output or standard error."""
    proc = run_markup(ctx.tmp, "--reports-dir", "r", "--json", "a.json")
    doc = json.loads((ctx.tmp / "r" / "audit.json").read_text())
    written = {str(p.relative_to(ctx.tmp / "r")): p.read_text() for p in (ctx.tmp / "r").rglob("*.md")}
    wrong = injected(written, doc) + [name for name, data in (("stdout", proc.stdout), ("stderr", proc.stderr))
                                      if CONTROL.search(data.decode())]
    issue = written.get("issues/planted_markup/exception.md", "")
    actual = next((line for line in issue.splitlines() if line.startswith("- **Actual:**")), "")
    return (f"exit {proc.returncode}" if not wrong else "injected"), "\n".join(wrong) or actual


def _markup_import(ctx):
    """A module whose import raises an error holding ESC, OSC and markup: the one line."""
    proc = run_markup(ctx.tmp, "--quiet", CHRF_MARKUP_IMPORT="1")
    err = proc.stderr.decode()
    return (f"exit {proc.returncode}" if not CONTROL.search(err) else "raw control characters"), err


def _contract_key(ctx):
    """A contract file whose key holds a screen clear: the differences printed before the
    audit show it escaped (``terminal_line``)."""
    doc = json.loads(json.dumps(BUILT_IN))
    doc["metric"]["\x1b[2Jx\x1b]8;;https://evil.example/\x07"] = 1
    (ctx.tmp / "c.json").write_text(json.dumps(doc))
    with running("healthy") as served:
        code, out = ctx.cli("run", "--http", served, "--contract", "c.json", "--max-examples", "3", "--quiet")
    return (code if not CONTROL.search(out) else "raw control characters"), out


def _full(ctx, module, *outputs):
    """A run whose writes of ``module`` (``inside``: a reports directory; ``outputs``: --json)
    fail with ENOSPC, as on a full disk (every write descriptor is /dev/full's)."""
    from audit.files import inside, outputs as out_module

    def full_fdopen(fd, *args, **kwargs):
        os.close(fd)
        return open("/dev/full", "wb", buffering=0)
    target = inside if module == "inside" else out_module
    proxy = types.SimpleNamespace(**{k: getattr(os, k) for k in dir(os) if not k.startswith("__")})
    proxy.fdopen = full_fdopen
    ctx.mp.setattr(target, "os", proxy)
    (ctx.tmp / "a.py").write_text(GOOD)
    return ctx.cli("run", "--impl", "a:f", "--quiet", "--max-examples", "3", "--cases", "cases", "--no-verify", *outputs)


def _fresh_crash(ctx):
    """tests/planted_fresh_crash.py: processes started after its first 5 answers die; the
    fresh workers replaying its repros are such processes."""
    ctx.mp.setenv("CHRF_FRESH_MARK", str(ctx.tmp / "mark"))
    return _finding_of(ctx, "planted_fresh_crash:sentence", ("crash", "stateful", "nondeterminism"))


def _finding_of(ctx, spec, families):
    """The outcome and detail of the first finding of ``families`` a run of ``spec`` reports."""
    ctx.mp.chdir(HERE)  # the planted modules are importable from here
    try:
        code, out = ctx.cli("run", "--impl", spec, "--quiet", "--max-examples", "10", "--cases",
                            str(ctx.tmp / "cases"), "--json", str(ctx.tmp / "a.json"), "--no-verify")
    finally:
        ctx.mp.chdir(ctx.tmp)
    doc = json.loads((ctx.tmp / "a.json").read_text()) if (ctx.tmp / "a.json").is_file() else {"findings": []}
    found = [f for fam in families for f in doc["findings"] if f["family"] == fam]
    if not found:
        return f"{code}, no finding of {families}", out
    return found[0]["minimal"]["outcome"], f"{found[0]['family']}: {found[0]['minimal']['detail']}"


def _service_issue_title(ctx):
    """The upstream issue of a service's finding (no library record): its title reads as a
    sentence after its subject."""
    code, _, out = _audit(ctx, "no-effective-order", "--quiet", "--reports-dir", "r", "--no-verify")
    titles = [p.read_text().splitlines()[0] for p in sorted((ctx.tmp / "r" / "issues").rglob("*.md"))]
    return code, "\n".join(titles) or out


def _broken_piped(ctx):
    """The findings table piped (not a terminal: 100 columns): every BROKEN row says whole
    what broke it, its lines joined as a reader reads them."""
    code, _, out = _audit(ctx, "no-effective-order")
    rows, row = [], None
    for line in out.splitlines():
        if line.startswith("  BROKEN"):
            row = [line]
            rows.append(row)
        elif row is not None and line.startswith(" " * 6):
            row.append(line.strip())
        else:
            row = None
    return code, "\n".join(" ".join(r) for r in rows) or out


def _plugin_families(ctx):
    """The pytest plugin's failure for one family found at both levels."""
    ctx.project()
    (ctx.tmp / "test_x.py").write_text(
        "def test_x(chrf_audit):\n"
        "    chrf_audit.check('plantedpkg:requested_order_divisor.sentence',\n"
        "                     corpus_impl='plantedpkg:requested_order_divisor.corpus')\n")
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(ctx.tmp), str(ROOT)]))
    proc = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "no:xdist",
                           "--chrf-audit-max-examples=10", "--chrf-audit-cases=cases", "test_x.py"],
                          cwd=ctx.tmp, capture_output=True, text=True, timeout=600, env=env)
    return f"exit {proc.returncode}", proc.stdout


CASES = {
    "out-markup-everywhere": _markup_reports,
    "out-markup-import": _markup_import,
    "contract-key-escape": _contract_key,
    "out-full-reports": lambda c: _full(c, "inside", "--reports-dir", "r"),
    "out-full-json": lambda c: _full(c, "outputs", "--json", "a.json"),
    "flag-name-newline": lambda c: ((c.tmp / "a.py").write_text(GOOD),
                                    c.cli("run", "--impl", "a:f", "--name", "a\nb", "--quiet"))[1],
    "flag-name-escape": lambda c: ((c.tmp / "a.py").write_text(GOOD),
                                   c.cli("run", "--impl", "a:f", "--name", "a\x1b]8;;https://e.example/\x07b"))[1],
    "replay-fresh-crash": _fresh_crash,
    "impl-crash-second-call": lambda c: _finding_of(c, "planted_fresh_crash:alternate", ("crash", "nondeterminism")),
    "http-issue-title": _service_issue_title,
    "http-broken-piped": _broken_piped,
    "plugin-family-count": _plugin_families,
}
