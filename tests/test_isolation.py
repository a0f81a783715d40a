"""Isolation: planted implementations that raise, die, segfault, hang or return non-numbers
become Outcomes with their input; the batch finishes and later items still get values."""

import math
import sys
import time
from pathlib import Path

import pytest

from audit.adapters import AdapterError, resolve

HERE = Path(__file__).resolve().parent

BATCH = [
    ("a", "value"), ("raise", "exception"), ("bb", "value"), ("exit", "crash"),
    ("ccc", "value"), ("segv", "crash"), ("dddd", "value"), ("hang", "timeout"),
    ("eeeee", "value"), ("none", "invalid"), ("nan", "invalid"), ("inf", "invalid"),
    ("str", "invalid"), ("bool", "invalid"), ("int", "value"), ("print", "value"), ("f", "value"),
]


@pytest.fixture
def in_tests_dir(monkeypatch):
    monkeypatch.chdir(HERE)  # the current directory is importable (in the worker too)


def _check(outcomes, batch):
    assert len(outcomes) == len(batch)
    for (hyp, kind), out in zip(batch, outcomes):
        assert out.kind == kind, (hyp, out)
        if kind == "value":
            expected = {"int": 50.0, "print": 7.0}.get(hyp, float(len(hyp)))
            assert out.value == expected
        else:
            assert out.value is None


def test_planted_sentence_batch_isolated(in_tests_dir):
    [adapter] = resolve("planted_isolation:planted", timeout=1.0)
    with adapter:
        t0 = time.monotonic()
        outcomes = adapter.sentence_scores([(h, ["ref"]) for h, _ in BATCH])
        elapsed = time.monotonic() - t0
        _check(outcomes, BATCH)
        by = {h: o for (h, _), o in zip(BATCH, outcomes)}
        assert by["raise"].detail == "ZeroDivisionError: division by zero"
        assert by["exit"].detail == "process died: exit status 3"
        assert by["segv"].detail == "process died: signal 11 (SIGSEGV)"
        assert by["hang"].detail == "no answer within 1 s"
        assert by["none"].detail == "returned None" and by["none"].raw == "None"
        assert by["nan"].detail == "returned NaN"
        assert by["inf"].detail == "returned infinity"
        assert by["str"].raw == "'42'"
        assert by["bool"].raw == "True"
        # one timeout plus three worker restarts, not a multiple of the timeout
        assert elapsed < 1.0 + 3 * 1.5 + 1.0, elapsed
        assert adapter.restarts == 3
        # the worker is warm again afterwards
        assert adapter.sentence_scores([("xyz", ["r"])])[0].value == 3.0


def test_two_hangs_cost_one_timeout_each(in_tests_dir):
    [adapter] = resolve("planted_isolation:planted", timeout=0.5)
    with adapter:
        t0 = time.monotonic()
        out = adapter.sentence_scores([("hang", ["r"]), ("ab", ["r"]), ("hang", ["r"]), ("c", ["r"])])
        elapsed = time.monotonic() - t0
    assert [o.kind for o in out] == ["timeout", "value", "timeout", "value"]
    assert elapsed < 2 * 0.5 + 2 * 1.5, elapsed


def test_worker_dying_between_calls_is_restarted_silently(in_tests_dir):
    [adapter] = resolve("planted_isolation:planted", timeout=1.0)
    with adapter:
        assert adapter.sentence_scores([("later", ["r"])])[0].value == 1.0
        time.sleep(0.6)
        out = adapter.sentence_scores([("ab", ["r"]), ("abc", ["r"])])
        assert [o.value for o in out] == [2.0, 3.0]


def test_configure_variants_share_the_worker():
    [a] = resolve("nltk", timeout=2.0)
    v = a.configure(char_order=2)
    try:
        assert v.client is a.client
        assert v.sentence_scores([("ab", ["ab"])])[0].value == 100.0
    finally:
        v.close()
    assert a.client.proc is not None  # still used by a
    a.close()
    assert a.client.proc is None


def test_planted_corpus_isolated(in_tests_dir):
    [adapter] = resolve(corpus_impl="planted_isolation:planted_corpus", timeout=1.0)
    with adapter:
        assert adapter.supports.corpus and not adapter.supports.sentence
        out = adapter.corpus_scores([
            (["exit", "x"], [["r"], ["r"]]),
            (["a", "b", "c"], [["r"], ["r"], ["r"]]),
            (["raise"], [["r"]]),
            (["nan"], [["r"]]),
        ])
    assert [o.kind for o in out] == ["crash", "value", "exception", "invalid"]
    assert out[1].value == 3.0


def test_sentence_and_corpus_callables_form_one_adapter(in_tests_dir):
    adapters = resolve("planted_isolation:planted", corpus_impl="planted_isolation:planted_corpus")
    assert len(adapters) == 1
    with adapters[0] as a:
        assert a.supports.sentence and a.supports.corpus and a.supports.multi_reference
        assert a.sources["sentence"].qualname == "planted"
        assert a.sources["corpus"].line is not None
        assert a.sentence_scores([("ab", ["x", "y"])])[0].value == 2.0
        assert a.corpus_scores([(["a", "b"], [["x"], ["y", "z"]])])[0].value == 2.0


def test_scale_one_is_rescaled(in_tests_dir):
    [a] = resolve("planted_isolation:planted", overrides={"scale": 1})
    with a:
        out = a.sentence_scores([("ab", ["r"])])[0]
    assert out.value == 200.0 and out.raw == "2.0"


def test_in_process_mode_classifies_too(in_tests_dir):
    [a] = resolve("planted_isolation:planted", isolate=False)
    safe = [b for b in BATCH if b[1] not in ("crash", "timeout")]
    with a:
        _check(a.sentence_scores([(h, ["r"]) for h, _ in safe]), safe)


def test_external_program_misbehaving():
    cmd = f"{sys.executable} {HERE / 'planted_external.py'}"
    [a] = resolve(external=cmd, timeout=1.0)
    with a:
        assert a.version is None and a.claims.definition == "sacrebleu"  # no handshake: defaults
        batch = [("a", "value"), ("error", "exception"), ("bb", "value"), ("exit", "crash"),
                 ("ccc", "value"), ("hang", "timeout"), ("dddd", "value"), ("garbage", "invalid"),
                 ("eeeee", "value"), ("null", "invalid"), ("nan", "invalid"), ("f", "value")]
        t0 = time.monotonic()
        out = a.sentence_scores([(h, ["r"]) for h, _ in batch])
        elapsed = time.monotonic() - t0
        assert [o.kind for o in out] == [k for _, k in batch]
        assert [o.value for o in out if o.kind == "value"] == [1.0, 2.0, 3.0, 4.0, 5.0, 1.0]
        assert out[1].detail == "boom"
        assert out[3].detail == "process died: exit status 4"
        assert out[5].detail == "no answer within 1 s"
        assert out[10].detail == "returned NaN"
        assert elapsed < 1.0 + 3 * 1.0 + 1.0, elapsed


@pytest.mark.parametrize(
    "kwargs, message",
    [
        ({"impl": "foo:bar"}, "cannot import module 'foo' for --impl foo:bar: No module named 'foo'"),
        ({"impl": "planted_isolation:nope"}, "module 'planted_isolation' has no attribute 'nope'"),
        ({"impl": "planted_isolation:not_callable"}, "not a callable"),
        ({"impl": "planted_isolation:three_args"}, "cannot be called as function(hypothesis, references)"),
        ({"corpus_impl": "planted_isolation:three_args"}, "cannot be called as function(hypotheses, references)"),
        ({"impl": "bleu"}, "unknown implementation 'bleu' for --impl"),
        ({"impl": "foo:"}, "is not of the form package.module:function"),
        ({"corpus_impl": "nltk"}, "--corpus-impl expects package.module:function"),
        ({"external": "no-such-program-xyz --serve"}, "cannot start --external"),
        ({"impl": "nltk", "overrides": {"scale": 7}}, "scale must be 1 or 100"),
        ({"impl": "nltk", "overrides": {"colour": 1}}, "unknown claim(s) colour"),
    ],
)
@pytest.mark.parametrize("isolate", [True, False])
def test_bad_spec_is_one_line_adapter_error(in_tests_dir, kwargs, message, isolate):
    with pytest.raises(AdapterError) as info:
        resolve(**kwargs, isolate=isolate)
    text = str(info.value)
    assert message in text
    assert "\n" not in text


def test_module_that_kills_the_worker_on_import(in_tests_dir, tmp_path, monkeypatch):
    (tmp_path / "suicidal.py").write_text("import os\nos._exit(9)\ndef f(h, r):\n    return 1.0\n")
    monkeypatch.chdir(tmp_path)
    with pytest.raises(AdapterError, match="exit status 9"):
        resolve("suicidal:f", timeout=1.0)

