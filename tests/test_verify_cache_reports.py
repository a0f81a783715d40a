"""A verdict read from the verification cache says so in every report that shows it, and no
text of a verification reaches a report as markup (issue 39 item 4): audit.json
(``patch.verification.from_cache``, in the schema), the markdown report, the upstream issue
file and the combined patch's file.  The document is the committed reports/audit.json (with a
combined patch added where a test needs one: nltk has none, its one bug fix and its opt-in
keywords being separate fixes that stack)."""
import copy
import json
from pathlib import Path

import jsonschema
import pytest

from audit.render import SCHEMA_PATH, issues, markdown, terminal
from tests.fixtures.markup import html, structure

ROOT = Path(__file__).resolve().parents[1]
DOC = json.loads((ROOT / "reports" / "audit.json").read_text(encoding="utf-8"))
FAMILY = "requested-order-divisor"
NOTE = "This verdict is from the cache (chrf-audit 0.9.1)"
HOSTILE = "\x1b]8;;https://evil.example/\x07click\x1b]8;;\x07\x1b[2J <img src=x onerror=alert(1)> **x**\n# heading\n```"


def _doc(edit) -> dict:
    doc = copy.deepcopy(DOC)
    for f in doc["findings"]:
        f.get("patch", {}) and f["patch"].get("verification", {}).pop("from_cache", None)
    for e in doc["implementations"]:
        (e.get("combined_patch") or {}).get("verification", {}).pop("from_cache", None)
    edit(doc)
    return doc


def _patches(doc, family=FAMILY):
    return [f["patch"] for f in doc["findings"] if f["implementation"] == "nltk" and f["family"] == family]


def _nltk(doc) -> dict:
    return next(e for e in doc["implementations"] if e["implementation"] == "nltk")


def _cached(doc):
    for p in _patches(doc):
        p["verification"]["from_cache"] = {"chrf_audit": "0.9.1"}


def test_a_verdict_from_the_cache_says_so_and_from_which_version():
    doc = _doc(_cached)
    jsonschema.Draft202012Validator(json.loads(SCHEMA_PATH.read_text(encoding="utf-8"))).validate(doc)
    report = markdown.render(doc)["nltk.md"].decode()
    section = report.split(f"## `{FAMILY}`", 1)[1].split("\n## ", 1)[0]
    assert f"**Patch:** **verified**" in section and NOTE in section
    assert report.count(NOTE) == 1  # the other families' verdicts were computed in this run
    issue = issues.render(doc)[f"issues/nltk/{FAMILY}.md"].decode()
    assert "**Checked** on a patched copy" in issue and NOTE in issue
    assert NOTE not in issues.render(doc)["issues/nltk/whitespace-set-white-space.md"].decode()
    plain = markdown.render(_doc(lambda d: None))["nltk.md"].decode()
    assert "from the cache" not in plain


def _combined(doc) -> dict:
    """A combined patch of the nltk entry, as a library with two fixes has one."""
    ws = _patches(doc, "whitespace-set-white-space")[0]
    combined = {"diff": ws["diff"], "families": ["whitespace-set-white-space", FAMILY], "files": ["x.py"],
                "verified": True, "verification": copy.deepcopy(ws["verification"])}
    _nltk(doc)["combined_patch"] = combined
    return combined


def test_the_combined_patchs_verdict_from_the_cache_says_so():
    doc = _doc(lambda d: _combined(d)["verification"].update(from_cache={"chrf_audit": "0.9.1"}))
    report = markdown.render(doc)["nltk.md"].decode()
    assert NOTE in report.split("**All at once:**", 1)[1].split("\n", 1)[0]
    assert NOTE in issues.render(doc)["issues/nltk/all-families.md"].decode()


def test_from_cache_has_a_shape_in_the_schema():
    doc = _doc(lambda d: _patches(d)[0]["verification"].update(from_cache={"chrf_audit": 1}))
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.Draft202012Validator(json.loads(SCHEMA_PATH.read_text(encoding="utf-8"))).validate(doc)


def _hostile_as(doc, text: str):
    for p in _patches(doc):
        p["verified"] = False
        p["verification"].update(verified=False, status="not verified: " + text, from_cache={"chrf_audit": text})
    _combined(doc)["verification"].update(verified=False, status="not verified: " + text)


def _hostile(doc):
    _hostile_as(doc, HOSTILE)


@pytest.mark.parametrize("path", ["nltk.md", f"issues/nltk/{FAMILY}.md", "issues/nltk/all-families.md"])
def test_a_verifications_texts_reach_no_report_as_markup(path):
    """A status (an error message from a patched library, or a cache entry's) and a version
    from a cache entry: no terminal escape, no HTML, no heading, no fence in any report."""
    doc = _doc(_hostile)
    text = {**markdown.render(doc), **issues.render(doc)}[path].decode()
    assert "\x1b" not in text and "\x07" not in text
    # as CommonMark reads it: no HTML, and no markup of its own (the <img>, the **x**'s emphasis)
    # beside what the report of the same verdict in plain words has
    plain_doc = _doc(lambda d: _hostile_as(d, "not verified because x"))
    plain_text = {**markdown.render(plain_doc), **issues.render(plain_doc)}[path].decode()
    assert not html(text) and structure(text) == structure(plain_text)
    shown = [line for line in text.splitlines() if "evil.example" in line]
    assert shown and all("```" not in line and "# heading" in line for line in shown)  # one line, no fence
    assert not any(line.startswith("# heading") for line in text.splitlines())


def test_the_terminal_shows_no_verification_text():
    out = terminal.render(_doc(_hostile), width=100)["terminal.txt"].decode()
    assert "\x1b" not in out and "<img" not in out and "evil.example" not in out
