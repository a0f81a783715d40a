"""The private Hypothesis hooks (audit.settings.hypothesis_hooks) still exist and still take
effect (issue 34 item 4): a Hypothesis release that renames or ignores one fails here, by
name, not as a changed repro somewhere else."""

from __future__ import annotations

import ast
import inspect
import math
from pathlib import Path

from hypothesis import Phase, given, settings, seed, strategies as st
from hypothesis.database import InMemoryExampleDatabase

from audit.settings import hypothesis_hooks as hooks

ROOT = Path(__file__).resolve().parents[1]


def test_the_hooks_exist():
    from hypothesis import configuration as conf
    from hypothesis.internal.conjecture import engine, providers

    assert isinstance(engine.MAX_SHRINKING_SECONDS, (int, float))
    assert callable(providers._get_local_constants) and callable(providers.Constants)
    assert hasattr(conf, "__hypothesis_home_directory") and hasattr(conf, "__hypothesis_home_directory_default")


def test_no_wall_clock_takes_effect_and_restores():
    from hypothesis.internal.conjecture import engine, providers

    before = (engine.MAX_SHRINKING_SECONDS, providers._get_local_constants)
    with hooks.no_wall_clock():
        assert engine.MAX_SHRINKING_SECONDS == math.inf
        local = providers._get_local_constants()
        assert not any(len(getattr(local, f)) for f in ("integers", "floats", "bytes", "strings"))
    assert (engine.MAX_SHRINKING_SECONDS, providers._get_local_constants) == before
    # Hypothesis still reads both names where it decides (a name it no longer reads: no effect)
    assert "MAX_SHRINKING_SECONDS" in inspect.getsource(engine)
    uses = [n for n in ast.walk(ast.parse(inspect.getsource(providers)))
            if isinstance(n, ast.Name) and n.id == "_get_local_constants" and isinstance(n.ctx, ast.Load)]
    assert uses, "providers no longer calls _get_local_constants"


def test_use_database_replays_the_saved_choices_under_seed():
    """``@seed`` turns the database off; ``use_database`` puts ours back: the reuse phase runs
    the choice sequence saved under the key first."""
    seen = []
    db = InMemoryExampleDatabase()
    db.save(b"key.secondary", hooks.choices_to_bytes((123456789,)))

    @settings(max_examples=1, phases=[Phase.reuse], database=None)
    @given(st.integers())
    def probe(n):
        seen.append(n)

    hooks.use_database(seed(0)(probe), db, b"key")()
    assert seen[:1] == [123456789]


def test_current_choices_are_the_examples_draws():
    drawn = []

    @settings(max_examples=3, database=None, derandomize=True)
    @given(st.integers(0, 1000))
    def probe(n):
        drawn.append((n, hooks.current_choices()))

    probe()
    assert drawn and all(choices == (n,) for n, choices in drawn)


def test_home_chosen_reads_the_configured_home(tmp_path):
    from hypothesis import configuration as conf

    previous = hooks.home_directory()
    try:
        conf.set_hypothesis_home_dir(tmp_path)
        assert hooks.home_chosen() and Path(hooks.home_directory()) == tmp_path
    finally:
        conf.set_hypothesis_home_dir(previous)


def test_every_private_hook_is_in_the_one_module():
    """No other module of audit/ reaches into Hypothesis's internals."""
    private = ("hypothesis.internal", "hypothesis.control", "_hypothesis_internal", "__hypothesis_home",
               "choices_to_bytes", "_get_local_constants", "MAX_SHRINKING_SECONDS")
    offenders = []
    for path in sorted((ROOT / "audit").rglob("*.py")):
        if path.name == "hypothesis_hooks.py":
            continue
        tree = ast.parse(path.read_text(encoding="utf-8"))
        docs = {id(n.body[0].value) for n in ast.walk(tree) if isinstance(n, (ast.Module, ast.FunctionDef, ast.ClassDef))
                and n.body and isinstance(n.body[0], ast.Expr) and isinstance(n.body[0].value, ast.Constant)}
        for node in ast.walk(tree):
            text = (node.module if isinstance(node, ast.ImportFrom) else
                    " ".join(a.name for a in node.names) if isinstance(node, (ast.Import, ast.ImportFrom)) else
                    node.attr if isinstance(node, ast.Attribute) else
                    node.value if isinstance(node, ast.Constant) and isinstance(node.value, str)
                    and id(node) not in docs else "")
            if isinstance(node, ast.ImportFrom):  # the hooks module's own names are its public face
                text = "" if (node.module or "").endswith("hypothesis_hooks") else \
                    f"{node.module} " + " ".join(a.name for a in node.names)
            if any(p in (text or "") for p in private):
                offenders.append(f"{path.relative_to(ROOT)}:{node.lineno}")
    assert offenders == []
