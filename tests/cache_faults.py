"""The rows of docs/fault-catalogue.md about the verification cache (issue 39 item 4): each
case plants an entry where the committed nltk patch's verification is kept
(tests/fixtures/verify_entries.py) and returns (outcome, text) as tests/test_fault_catalogue.py
expects: ``miss`` when the verification was computed again and the result is not marked as
cached, ``used`` when the entry was taken (the text: what the reports then say);
``CASES`` is merged into its table."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

from tests.fixtures import verify_entries as V

ROOT = Path(__file__).resolve().parents[1]


def _entry(ctx, plant):
    from audit.render._doc import cache_note

    ctx.mp.setenv("CHRF_AUDIT_CACHE", str(ctx.tmp / "cache"))
    path = V.entry_path()
    path.parent.mkdir(parents=True)
    plant(path)
    made: list = []
    finished, got = V.bounded(lambda: V.cached(made))
    if not finished:
        return "blocked", "the read of the entry did not return"
    if got == V.SUMMARY and len(made) == 1:
        return "miss", f"computed again; status {got['status']!r}"
    return ("used" if got.get("from_cache") else "wrong"), f"{got['status']!r}{cache_note(got)}"


def _action(ctx):
    """action/run.sh with the job's CHRF_AUDIT_CACHE at a planted cache: the check (a stand-in
    interpreter that records what it was given) sees another, empty directory."""
    planted = ctx.tmp / "planted"
    (planted / "verify").mkdir(parents=True)
    (planted / "verify" / "entry.json").write_text("{}")
    stub = ctx.tmp / "python"
    stub.write_text('#!/bin/sh\nprintf "%s\\n" "$CHRF_AUDIT_CACHE" > "$SEEN"\nls -A "$CHRF_AUDIT_CACHE" >> "$SEEN"\n')
    stub.chmod(0o755)
    (ctx.tmp / "pyproject.toml").write_text('[tool.chrf-audit]\n')
    env = {k: v for k, v in os.environ.items() if not k.startswith(("CHRF_AUDIT_", "GITHUB_"))}
    env.update(CHRF_AUDIT_CACHE=str(planted), CHRF_AUDIT_PYTHON=str(stub), CHRF_AUDIT_INSTALL="",
               SEEN=str(ctx.tmp / "seen"), GITHUB_OUTPUT=str(ctx.tmp / "out"))
    subprocess.run(["bash", str(ROOT / "action" / "run.sh")], cwd=ctx.tmp, env=env, capture_output=True, timeout=120)
    seen = (ctx.tmp / "seen").read_text().splitlines()
    fresh = len(seen) == 1 and seen[0] != str(planted) and not Path(seen[0]).exists()
    return ("not read" if fresh else "read"), "an empty cache of the step's own, removed" if fresh else str(seen)


def _versions(ctx):
    """A hostile versions result in CHRF_AUDIT_CACHE and ~/.cache: not read; the project's is."""
    import json

    from audit.enrich.versions import results_for

    lie = {"package": "nltk", "families": {"requested-order-divisor": {"introduced": "3.10.4", "fixed": None}},
           "releases": [{"version": "3.10.3", "status": "audited", "families": []},
                        {"version": "3.10.4", "status": "audited", "families": ["requested-order-divisor"]}]}
    for where in (ctx.tmp / "cache", ctx.tmp / "home" / ".cache" / "chrf-audit"):
        (where / "versions").mkdir(parents=True)
        (where / "versions" / "nltk.json").write_text(json.dumps(lie))
    ctx.mp.setenv("CHRF_AUDIT_CACHE", str(ctx.tmp / "cache"))
    ctx.mp.setenv("HOME", str(ctx.tmp / "home"))
    planted = results_for(["nltk"])
    (ctx.tmp / "reports" / "versions").mkdir(parents=True)
    (ctx.tmp / "reports" / "versions" / "nltk.json").write_bytes((ROOT / "reports" / "versions" / "nltk.json").read_bytes())
    project = results_for(["nltk"]).get("nltk") or {}
    ok = planted == {} and project.get("families", {}).get("requested-order-divisor", {}).get("introduced") is None
    return ("not read" if ok else "read"), f"used: {project.get('_source')}"


def _status_path(ctx):
    """A verification whose library tests cannot run, the message naming this interpreter."""
    import sys

    from audit.patches import summary
    from audit.patches.validate import Validation
    from tests.fixtures.machine_paths import machine_paths

    side = {"passed": 0, "failed": 0, "error": f"{sys.executable}: No module named pytest"}
    v = Validation(implementation="nltk", patch="suggested patch", source=None, files=[], before_versions={},
                   after_versions={}, library_tests={"files": [], "before": side, "after": side, "broken": None})
    status = summary(v, [])["status"]
    return ("hidden" if not machine_paths(status) else "shown"), status


def _first_install(ctx):
    """What `pip install -e .` (the README's first command) installs: pytest among it."""
    from importlib import metadata

    runtime = [r for r in metadata.requires("chrf-audit") or [] if "extra ==" not in r]
    found = [r for r in runtime if r.split(">")[0].split("=")[0].strip() == "pytest"]
    return ("installed" if found else "missing"), ", ".join(found)


CASES = {
    "verify-machine-path": _status_path,
    "install-without-pytest": _first_install,
    "cache-versions": _versions,
    "cache-fifo": lambda c: _entry(c, os.mkfifo),
    "cache-link": lambda c: _entry(c, V.PLANTED["symlink-to-a-valid-entry"]),
    "cache-huge": lambda c: _entry(c, V.PLANTED["huge"]),
    "cache-deep": lambda c: _entry(c, V.PLANTED["deep-json"]),
    "cache-types": lambda c: _entry(c, V.PLANTED["verified-as-a-string"]),
    "cache-markup": lambda c: _entry(c, V.PLANTED["verified-with-escapes-and-html-in-its-status"]),
    "cache-key": lambda c: _entry(c, V.PLANTED["key-mismatch"]),
    "cache-foreign-repro": lambda c: _entry(c, V.PLANTED["a-repro-the-audit-never-had"]),
    "cache-well-formed": lambda c: _entry(c, lambda p: p.write_text(V.entry(dict(
        V.SUMMARY, verified=False, status="not verified: planted")))),
    "action-planted-cache": _action,
}
