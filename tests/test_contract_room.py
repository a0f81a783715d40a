"""The contract's run lives in ``audit/contract`` (issue 43, item 3): its loop, its state
checks, its findings and table, and the private helpers they use are that folder's own;
``audit/collect`` only schedules the run (draws the inputs from the search's strategies, then
one call of ``audit.contract.checks.check_service``).

Why: when the search's stage drives the contract's loop (it once ran it against ``contract/``
in five down-and-up round trips and imported ``contract.probes._score`` twice), neither side can
be read or changed apart."""

from __future__ import annotations

from pathlib import Path

from tests.fixtures.imports import import_targets

ROOT = Path(__file__).resolve().parents[1]


def _imported(root: Path, folder: str) -> list[tuple[str, str, str]]:
    """(module file, module imported, name taken) of every name a module under
    ``root/audit/folder`` takes from ``audit.contract`` (``import audit.contract.x``: name "*")."""
    out = []
    for path in sorted((root / "audit" / folder).rglob("*.py")):
        rel = path.relative_to(root).with_suffix("")
        is_pkg = rel.name == "__init__"
        module = ".".join(rel.parts[:-1] if is_pkg else rel.parts)
        for mod, names in import_targets(path.read_text(encoding="utf-8"), module, is_pkg):
            if mod == "audit.contract" or mod.startswith("audit.contract."):
                out += [(path.relative_to(root).as_posix(), mod, n) for n in (names or ["*"])]
    return out


def _private(root: Path) -> list[tuple[str, str, str]]:
    """Names with a leading underscore taken from ``audit.contract`` by modules outside it."""
    folders = sorted(p.name for p in (root / "audit").iterdir() if p.is_dir() and p.name != "contract")
    return [i for f in folders for i in _imported(root, f) if i[2].startswith("_")]


def test_collect_only_schedules_the_contract_run():
    assert {(mod, name) for _, mod, name in _imported(ROOT, "collect")} == {("audit.contract.checks", "check_service")}


def test_no_module_outside_contract_takes_a_private_name_of_it():
    assert _private(ROOT) == []


def test_the_scan_sees_a_private_helper_taken_from_collect(tmp_path):
    """The two checks above can fail: the import the old run made is found by both."""
    (tmp_path / "audit" / "collect").mkdir(parents=True)
    (tmp_path / "audit" / "collect" / "service_contract.py").write_text(
        "from ..contract.checks import check_service\n"
        "def f():\n    from ..contract.probes import _score\n", encoding="utf-8")
    assert _imported(tmp_path, "collect") == [
        ("audit/collect/service_contract.py", "audit.contract.checks", "check_service"),
        ("audit/collect/service_contract.py", "audit.contract.probes", "_score")]
    assert _private(tmp_path) == [("audit/collect/service_contract.py", "audit.contract.probes", "_score")]
