"""The units of a survey: one per registry implementation, each carrying everything its result
depends on, and the key under which a finished unit is kept (``<cache>/survey/units/KEY.json``):
a hash of the unit and of chrf-audit's own code and curated cases, so that a unit is redone
exactly when something that changes its result changed (``runner.py``)."""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Optional

from ..settings import options
from ..settings.cache import cache_root
from ..versions.index import IndexOptions
from .registry import Implementation

#: inputs of the second route per implementation x configuration
DIFFERENTIAL = 60
_ROOT = Path(__file__).resolve().parents[2]


@dataclass
class Request:
    names: tuple = ()
    seed: int = options.default("seed")
    max_examples: int = options.BUDGET
    tolerance: float = options.default("tolerance")
    timeout: float = options.default("timeout")
    cases: Optional[str] = None
    hypothesis_profile: Optional[str] = None
    differential: int = DIFFERENTIAL
    pythons: tuple = ()
    index: IndexOptions = field(default_factory=IndexOptions)
    scheduler: Optional[str] = None
    worker_wait: float = options.default("worker_wait")
    jobs: Optional[int] = None
    quiet: bool = False
    registry: Optional[tuple] = None  # the implementations (None: the packaged registry)
    registry_path: Optional[str] = None  # --registry FILE (None: the packaged registry)


def slug(config: str) -> str:
    return config.lower()


def targets(impl: Implementation) -> list[dict]:
    """The protocol server's spec of each configuration (``audit.versions.server``)."""
    from ..versions.targets import targets as builtin_targets

    out = []
    for c in impl.configurations:
        if c.adapter is not None:
            spec = builtin_targets(impl.package, impl=c.adapter)[1][0]
        else:
            spec = {"name": f"{impl.name}-{slug(c.name)}",
                    "backend": {"kind": "expression", "setup": impl.setup, "sentence": c.sentence,
                                "corpus": c.corpus, "distribution": impl.package, "source": impl.source,
                                "name": impl.name},
                    "claims": dict(c.claims),
                    "supports": {"sentence": c.sentence is not None, "corpus": c.corpus is not None,
                                 "multi_reference": c.max_refs is None or c.max_refs > 1, "max_refs": c.max_refs},
                    "accepts": []}
        out.append(dict(spec, configuration=c.name))
    return out


#: what never runs in a unit: the commands, the survey's document, table and runner, and the
#: registry (each unit carries its own entry)
_NOT_IN_UNITS = ("audit/commands/", "audit/survey/document.py", "audit/survey/runner.py", "audit/render/survey.py",
                 "audit/survey/registry.json")


def _code_digest() -> str:
    """chrf-audit's code and curated cases: a change there may change any unit's result."""
    h = hashlib.sha256()
    for base in ("audit", "reference_impl", "cases"):
        for p in sorted((_ROOT / base).rglob("*")):
            rel = p.relative_to(_ROOT).as_posix()
            if rel.startswith(_NOT_IN_UNITS):
                continue
            if p.is_file() and p.suffix in (".py", ".json") and "__pycache__" not in p.parts:
                h.update(p.relative_to(_ROOT).as_posix().encode() + b"\0" + p.read_bytes() + b"\0")
    return h.hexdigest()


def units(req: Request, implementations) -> list[dict]:
    code = _code_digest()
    out = []
    for impl in implementations:
        if impl.skip:
            continue
        unit = {"kind": "survey", "name": impl.name, "distribution": impl.package, "version": impl.version,
                "python": list(impl.python), "beside": list(impl.requirements), "targets": targets(impl),
                "seed": req.seed, "max_examples": req.max_examples, "tolerance": req.tolerance,
                "timeout": max(req.timeout, impl.timeout or 0), "cases": req.cases, "hypothesis_profile": req.hypothesis_profile,
                "differential": req.differential, "pythons": list(req.pythons), "index": req.index.to_dict()}
        digest = hashlib.sha256((json.dumps(unit, sort_keys=True, default=str) + code).encode()).hexdigest()
        out.append(dict(unit, token=digest[:16]))
    return out


def kept(unit: dict) -> Path:
    """Where a finished unit's result is kept."""
    return cache_root() / "survey" / "units" / f"{unit['name']}-{unit['token']}.json"
