"""Every user-named file (baseline, configuration, regression cases, segment files, diffs)
is read by one reader (audit.files.textfiles), so a bad file gives the same one-line errors
whichever command reads it."""

from __future__ import annotations

import pytest

from audit.gate import baseline
from audit.collect import cases
from audit.gate import config
from audit.errors import UsageError
from audit.files.textfiles import read_json, read_text


def _load_case_dir(path):
    return cases.load_cases(path.parent)


READERS = {
    "baseline": (lambda p: baseline.load(p), "baseline.json"),
    "config": (lambda p: config.load(p), "chrf-audit.toml"),
    "cases": (_load_case_dir, "case.json"),
}


@pytest.mark.parametrize("reader", sorted(READERS))
def test_invalid_utf8_names_file_and_line(tmp_path, reader):
    load, name = READERS[reader]
    path = tmp_path / name
    path.write_bytes(b"{\n\n  \"x\": \"caf\xe9\"\n}\n")
    with pytest.raises(UsageError) as info:
        load(path)
    assert str(info.value) == f"{path} line 3: invalid UTF-8 (byte 0xe9)"


@pytest.mark.parametrize("reader", ["baseline", "cases"])
def test_invalid_json_is_one_line(tmp_path, reader):
    load, name = READERS[reader]
    path = tmp_path / name
    path.write_text('{"accepted": [,]}\n', encoding="utf-8")
    with pytest.raises(UsageError) as info:
        load(path)
    message = str(info.value)
    assert message.startswith(f"{path}: invalid JSON (") and "\n" not in message


@pytest.mark.parametrize("reader", ["baseline", "config"])
def test_a_directory_is_refused_with_its_kind(tmp_path, reader):
    load, name = READERS[reader]
    path = tmp_path / name
    path.mkdir()
    kind = "a baseline" if reader == "baseline" else "a TOML configuration file"
    with pytest.raises(UsageError, match=rf": is a directory, not {kind}$"):
        load(path)


def test_read_text_keeps_content_and_read_json_parses(tmp_path):
    path = tmp_path / "x.json"
    path.write_text('{"a": "\u00e9\u20ac"}', encoding="utf-8")
    assert read_text(path, "a file") == '{"a": "\u00e9\u20ac"}'
    assert read_json(path, "a file") == {"a": "\u00e9\u20ac"}
    with pytest.raises(UsageError, match=r"missing\.json: no such file$"):
        read_json(tmp_path / "missing.json", "a file")
