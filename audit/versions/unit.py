"""One unit of ``chrf-audit versions``: one release, installed into its environment and audited
there through the external-program adapter, at the run's seed and budget.

``run_unit(unit, say)`` takes and returns plain JSON data, so a Dask worker on another machine
runs it as well as this process: the result depends only on the unit (package, version,
implementations, seed, budget, tolerance, cases) and on the interpreter the release installs
with, never on which worker ran it or when.  Besides the families found it carries the text
of the audited functions' files in that release (relative to site-packages), from which the
root-cause diff between two releases is made (``matrix.py``): the worker's environments need
not be visible to the process that writes the reports.

A release that cannot be installed or imported with any interpreter is ``skipped`` with one
line saying why; so is one whose audit cannot start or fails for a reason of its own.
"""

from __future__ import annotations

import json
import re
import shlex
from pathlib import Path
from typing import Callable, Optional

from ..adapters.supervisor import LOAD_FLOOR
from ..errors import UsageError
from ..processes.stderr_lines import one_line
from . import envs, remembered
from .index import IndexOptions

SERVER = Path(__file__).with_name("server.py")
#: the most bytes of one source file a unit returns (a root-cause module, not a data file)
MAX_SOURCE = 2_000_000


def server_command(python: Path, spec: dict, describe: bool = False) -> list[str]:
    return [str(python), "-I", str(SERVER), *(["--describe"] if describe else []),
            json.dumps(spec, sort_keys=True, ensure_ascii=True)]


def describe_release(python: Path, spec: dict, timeout: float) -> dict:
    """Import the release in its environment (the first implementation's backend): its
    description, or Unusable with the import error.  A hang costs what it costs in ``run``:
    ``max(--timeout, LOAD_FLOOR)`` seconds (it was 600)."""
    r = envs.run(server_command(python, spec, describe=True), timeout=max(timeout, LOAD_FLOOR), cwd=spec["cwd"])
    try:
        found = json.loads((r.stdout or "").strip().splitlines()[-1])
    except (ValueError, IndexError):
        found = {"error": one_line(r.stderr or f"exit status {r.returncode}", 300)}
    if "error" in found:  # an import error stays (remembered); a hang or a lack of memory may pass
        raise envs.Unusable(f"cannot import it: {found['error']}",
                            lasting=remembered.lasting(f"{r.stderr}\n{r.stdout}\n{found['error']}"))
    return found


_ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]|[\x00-\x08\x0b-\x1f\x7f]|\*{3,}")


def _skipped(unit: dict, reason: str) -> dict:
    reason = _ANSI.sub("", reason)  # an import error's colours and banners (nltk's resource errors)
    return {"version": unit["version"], "status": "skipped", "reason": one_line(reason, 400), "families": [],
            "findings": [], "python": None, "sources": {}}


def _environment(unit: dict, say) -> tuple[Optional[Path], Optional[dict], str]:
    """(venv, its marker, "") or (None, None, why not) after trying each interpreter."""
    index = IndexOptions(unit["index"].get("index_url"), tuple(unit["index"].get("find_links") or ()))
    reasons = []
    spec = unit["targets"][0]
    for interp in envs.interpreters(tuple(unit.get("pythons") or ())):
        try:
            venv, info = envs.prepare(unit["distribution"], unit["version"], interp, index,
                                      lambda py: describe_release(py, spec, unit["timeout"]), say=say)
            return venv, info, ""
        except envs.Unusable as exc:
            reasons.append(str(exc))
    if not reasons:
        return None, None, f"no Python {envs.MIN_PYTHON[0]}.{envs.MIN_PYTHON[1]}+ interpreter found on this machine"
    return None, None, reasons[0] + (f" (and with {len(reasons) - 1} more interpreters)" if len(reasons) > 1 else "")


def _sources(venv: Path, adapters) -> dict:
    """{file relative to site-packages: text} of the files holding the audited functions."""
    out: dict = {}
    roots = [p.resolve() for p in (venv / "lib").glob("python*/site-packages")]
    for a in adapters:
        for loc in a.sources.values():
            if not loc.file:
                continue
            path = Path(loc.file).resolve()
            for root in roots:
                if path.is_relative_to(root) and path.is_file() and path.stat().st_size <= MAX_SOURCE:
                    out[path.relative_to(root).as_posix()] = path.read_text(encoding="utf-8", errors="replace")
    return out


def run_unit(unit: dict, say: Callable[[str], None] = lambda m: None) -> dict:
    """Install and audit one release; the result (see the module's docstring)."""
    # the server runs in an empty directory: nothing of the caller's directory can shadow the
    # release (a callable's module is looked up there too), and no release sees its own
    # environment as "the current directory" (nltk 3.10.1 refuses to import then)
    workdir = envs.empty_dir()
    unit = dict(unit, targets=[dict(t, cwd=str(workdir)) for t in unit["targets"]])
    say(f"preparing {unit['distribution']} {unit['version']}")
    venv, info, why = _environment(unit, say)
    if venv is None:
        return _skipped(unit, why)
    from ..adapters.base import AdapterError
    from ..adapters.external import ExternalAdapter
    from ..collect.runner import run_audit

    python = venv / "bin" / "python"
    adapters, unsupported, limits = [], [], {}
    try:
        for spec in unit["targets"]:
            try:
                a = ExternalAdapter.start(shlex.join(server_command(python, spec)), unit["timeout"], name=spec["name"])
            except (AdapterError, UsageError) as exc:
                return _skipped(unit, f"cannot start its audit: {exc}")
            why = (a.hello or {}).get("unsupported")
            if why:  # the release cannot compute these claims: said, not audited
                unsupported.append({"implementation": spec["name"], "reason": one_line(str(why), 400)})
                a.close()
                a.process.kill()
                continue
            if (a.hello or {}).get("limits"):
                limits[spec["name"]] = one_line(str(a.hello["limits"]), 400)
            adapters.append(a)
        if not adapters:
            return _skipped(unit, unsupported[0]["reason"] + (
                f" (and {len(unsupported) - 1} more implementations unsupported)" if len(unsupported) > 1 else ""))
        say(f"auditing {unit['distribution']} {unit['version']}")
        cases = unit.get("cases")
        result = run_audit(adapters, seed=unit["seed"], max_examples=unit["max_examples"],
                           tolerance=unit["tolerance"], hypothesis_profile=unit.get("hypothesis_profile"),
                           cases_dir=Path(cases) if cases else None, jobs=1)
        findings = sorted({(f.implementation, f.family, f.level) for f in result.findings})
        # what the release could not audit as asked (only when there is some: a release
        # that computes everything asked has the same result as before these keys existed)
        narrowed = ({"unsupported": unsupported} if unsupported else {}) | ({"limits": limits} if limits else {})
        return {**narrowed, "version": unit["version"], "status": "audited", "reason": None,
                "families": sorted({f for _, f, _ in findings}),
                "findings": [{"implementation": i, "family": f, "level": lv} for i, f, lv in findings],
                "python": info.get("python"), "sources": _sources(venv, adapters),
                "functions": {k: loc.qualname for a in adapters for k, loc in (a.sources or {}).items()}}
    finally:
        for a in adapters:
            a.close()
            # the audit's re-configured variants still share the server: it ends with the unit
            # (a Dask worker runs unit after unit)
            a.process.kill()
