"""pytest plugin: run a deterministic sample of pytest-gremlins' mutants, not all of them.

Loaded by ``benchmarks/mutation.py`` (``-p mutation_sample``).  pytest-gremlins has no sample
mode of its own; this plugin wraps the one function that builds the session's list of gremlins
(``pytest_gremlins.plugin._generate_gremlins``, pinned by the ``mutation`` extra) and keeps
``MUTATION_SAMPLE`` of them, chosen by ``random.Random(MUTATION_SEED)`` from the list sorted by
(file, line, operator, description): the same seed and source give the same mutants on any
machine; no clock decides.  ``MUTATION_SAMPLE`` 0 keeps every gremlin.  ``MUTATION_LINES``
(``file:line,file:line``), when set, keeps only the gremlins on those lines (to re-run survivors).

The instrumented sources still carry every mutation (switched off); only the list of gremlins
that get a test run shrinks.  If the hook is gone (a pytest-gremlins release renamed it), the
run stops with an error instead of silently testing every mutant.
"""

from __future__ import annotations

import os
import random

import pytest


def _key(gremlin) -> tuple:
    return (gremlin.file_path, gremlin.line_number, gremlin.operator_name, gremlin.description)


def sample(gremlins: list, size: int, seed: int) -> list:
    """The kept gremlins, in source order: ``size`` of them drawn by ``seed`` (0: all)."""
    ordered = sorted(gremlins, key=_key)
    if size <= 0 or size >= len(ordered):
        return ordered
    return sorted(random.Random(seed).sample(ordered, size), key=_key)


def _wanted_lines() -> set[tuple[str, int]] | None:
    raw = os.environ.get("MUTATION_LINES", "").strip()
    if not raw:
        return None
    wanted = set()
    for item in raw.split(","):
        path, _, line = item.strip().rpartition(":")
        wanted.add((os.path.normpath(path), int(line)))
    return wanted


def _on_wanted_line(gremlin, wanted: set[tuple[str, int]], rootdir: str) -> bool:
    rel = os.path.normpath(os.path.relpath(os.path.abspath(gremlin.file_path), rootdir))
    return (rel, gremlin.line_number) in wanted


@pytest.hookimpl(trylast=True)
def pytest_configure(config: pytest.Config) -> None:
    try:
        from pytest_gremlins import plugin
    except ImportError:  # pragma: no cover - the script checks the extra first
        raise pytest.UsageError("mutation_sample: pytest-gremlins is not installed (pip install -e '.[mutation]')")
    original = getattr(plugin, "_generate_gremlins", None)
    if original is None or getattr(original, "_mutation_sample", False):
        if original is None:
            raise pytest.UsageError("mutation_sample: pytest_gremlins.plugin._generate_gremlins is gone; "
                                    "this pytest-gremlins release is not the one the mutation extra pins")
        return
    size = int(os.environ.get("MUTATION_SAMPLE", "0"))
    seed = int(os.environ.get("MUTATION_SEED", "0"))
    wanted = _wanted_lines()
    rootdir = str(config.rootpath)

    def generate(gremlin_session, source_files, root):
        original(gremlin_session, source_files, root)
        kept = gremlin_session.gremlins
        if wanted is not None:
            kept = [g for g in kept if _on_wanted_line(g, wanted, rootdir)]
        gremlin_session.gremlins = sample(kept, size, seed)

    generate._mutation_sample = True
    plugin._generate_gremlins = generate
