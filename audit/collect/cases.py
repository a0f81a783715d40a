"""Curated regression cases (``cases/*.json``): loading with validation, applicability to
an adapter, and saving minimal repros as new cases."""

from __future__ import annotations

from pathlib import Path
from typing import Optional

from ..files import jsontext
from ..findings import AuditResult
from ..files.textfiles import read_json
from ..settings import options


def load_cases(cases_dir) -> list[tuple[str, dict]]:
    """Curated regression cases: JSON files holding one case or a list of cases (``cases_dir``:
    a directory, None for none, or the option table's ``DEFAULT_CASES``)."""
    cases_dir = options.replayed(cases_dir)
    if cases_dir is None or not Path(cases_dir).is_dir():
        return []
    out = []
    for path in sorted(Path(cases_dir).glob("*.json")):
        data = read_json(path, "a JSON case file")
        for i, case in enumerate(data if isinstance(data, list) else [data]):
            problem = _case_problem(case)
            if problem:
                from ..errors import UsageError

                raise UsageError(f"{path}: case {i + 1}: {problem}")
            out.append((f"cases/{path.name}", case))
    return out


def _texts(value) -> bool:
    return isinstance(value, list) and all(isinstance(t, str) for t in value)


def _case_problem(case) -> Optional[str]:
    """Why a case is malformed (None when it is fine): the same shapes as the JSON report."""
    if not isinstance(case, dict):
        return "a case must be a JSON object"
    level, inputs = case.get("level", "sentence"), case.get("inputs")
    if not isinstance(inputs, dict):
        return "'inputs' must be an object"
    if level == "sentence":
        if not isinstance(inputs.get("hypothesis"), str) or not _texts(inputs.get("references")) \
                or not inputs["references"]:
            return "sentence inputs need 'hypothesis' (string) and 'references' (non-empty list of strings)"
    elif level == "corpus":
        hyps, refs = inputs.get("hypotheses"), inputs.get("references")
        if not _texts(hyps) or not hyps or not isinstance(refs, list) or len(refs) != len(hyps) \
                or not all(_texts(r) and r for r in refs):
            return ("corpus inputs need 'hypotheses' (non-empty list of strings) and 'references' "
                    "(one non-empty list of strings per hypothesis)")
    else:
        return f"'level' must be 'sentence' or 'corpus', not {level!r}"
    return None


def _applicable(adapter, level: str, inputs: dict) -> bool:
    sup = adapter.supports
    if level == "sentence":
        return sup.sentence and sup.takes(len(inputs["references"]))
    if not sup.corpus:
        return False
    return all(sup.takes(len(r)) for r in inputs["references"])


def case_file_name(implementation: str, family: str, level: str) -> str:
    """The file a finding's repro is saved as: one per (implementation, family, level)."""
    slug = "".join(ch if ch.isalnum() or ch in "-+" else "-" for ch in implementation)
    return f"{slug}--{family}" + ("" if level == "sentence" else f"--{level}") + ".json"


def save_findings_as_cases(result: AuditResult, cases_dir: Path) -> list[Path]:
    """Write each finding's minimal repro as a regression case (existing files are kept)."""
    cases_dir.mkdir(parents=True, exist_ok=True)
    written = []
    for f in result.findings:
        path = cases_dir / case_file_name(f.implementation, f.family, f.level)
        name = path.stem
        if path.exists():
            continue
        case = {
            "id": name,
            "level": f.level,
            "inputs": f.minimal.inputs,
            "claims": f.claims,
            "origin": f"chrf-audit run: minimal repro of {f.family} in {f.implementation}",
            "expected_fraction": f.minimal.expected_fraction,
        }
        path.write_text(jsontext.dumps(case), encoding="ascii")
        written.append(path)
    return written
