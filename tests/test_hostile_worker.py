"""The worker protocol carries data only (issue 12, item 5): whatever an implementation writes
to the inherited result descriptor is parsed as data and becomes an invalid-output outcome for
that item; a pickle payload that ran code in the main process (c994a20) is inert."""

import json
from pathlib import Path

import pytest

from audit.adapters import resolve
from audit.adapters.frames import BadFrame, _take_frame, valid_description, valid_result

HERE = Path(__file__).resolve().parent


@pytest.fixture
def in_tests_dir(monkeypatch):
    monkeypatch.chdir(HERE)


@pytest.mark.parametrize("trigger", ["garbage", "pickle", "partial", "wrongshape"])
def test_writes_to_the_protocol_descriptor_are_invalid_output(in_tests_dir, tmp_path, monkeypatch, trigger):
    mark = tmp_path / "code-ran"
    monkeypatch.setenv("CHRF_HOSTILE_MARK", str(mark))
    [adapter] = resolve("planted_hostile:sentence", timeout=5.0)
    with adapter:
        outs = adapter.sentence_scores([("ab", ["r"]), (trigger, ["r"]), ("abcd", ["r"])])
    assert [o.kind for o in outs] == ["value", "invalid", "value"], outs
    assert outs[0].value == 2.0 and outs[2].value == 4.0  # the batch goes on with a fresh worker
    assert not mark.exists()  # nothing the worker sent was executed here
    assert adapter.restarts == 1


def test_frame_parser_is_data_only():
    frame, rest = _take_frame(b'["item",0,["value",1.5,"1.5"]]\n["x"')
    assert frame == ["item", 0, ["value", 1.5, "1.5"]] and rest == b'["x"'
    assert _take_frame(b'["item"') is None  # incomplete
    for raw, why in [(b"\x80garbage\n", "not JSON"), (b'{"a": 1}\n', "not a frame"), (b"[1]\n", "not a frame"),
                     (b"[" * 100000 + b"\n", "not JSON")]:
        bad, _ = _take_frame(raw)
        assert isinstance(bad, BadFrame) and why in bad.why
    bad, rest = _take_frame(b"x" * (2 << 20))
    assert isinstance(bad, BadFrame) and "longer than" in bad.why and rest == b""


@pytest.mark.parametrize("result, expected", [
    (["value", 12.5, "12.5"], ("value", 12.5, "12.5")),
    (["value", 3, "3"], ("value", 3.0, "3")),
    (["exception", "ZeroDivisionError"], ("exception", "ZeroDivisionError")),
    (["invalid", None, "returned None"], ("invalid", None, "returned None")),
    (["value", True, "True"], None), (["value", float("nan"), "nan"], None), (["value", "1", "1"], None),
    (["crash", "x"], None), (["exception"], None), ("value", None), ([], None), ({"value": 1}, None),
])
def test_valid_result(result, expected):
    assert valid_result(result) == expected


def test_valid_description():
    ok = {"version": "1.0", "sources": {"sentence": ["m", "f", "/x.py", 3]}}
    assert valid_description(ok) == {"version": "1.0", "sources": {"sentence": ("m", "f", "/x.py", 3)}}
    for bad in [{"version": 1}, {"sources": {"s": ["m"]}}, {"sources": [1]}, [],
                {"sources": {"s": ["m", "f", None, True]}}]:
        assert valid_description(bad) is None, bad


def test_worker_frames_are_json_lines():
    from audit.adapters.worker import encode

    line = encode(["item", 0, ["value", 1.0, "héllo\n\ud800"]])
    assert line.endswith(b"\n") and line.count(b"\n") == 1 and line.isascii()
    assert json.loads(line)[2][2] == "héllo\n\ud800"
