"""Issue 41's naming rules at the level of the model's scan (as tests/test_precision_rules.py),
each held to the adversarial implementation built to fool it (tests/planted_adversarial):

* a runtime's own character semantics (C, Java, JavaScript, Rust) are members of the text-stage
  axes, named with the runtime behaviour they are, not another family that agrees on most
  characters (at e24fcbf js_port was named format-characters-deleted and, at the corpus
  level, whitespace-set-white-space);
* a rival that differs from the bug only on one input class is not named (nbsp_kept keeps
  U+00A0, whose other whitespace Java's set also removes);
* two bugs together are not named as a third family that matches their combination
  (nfkc_ascii: NFKC with ASCII whitespace removed is whitespace-set-white-space on most
  whitespace; e24fcbf named it at the corpus level).
"""

from __future__ import annotations

import importlib

import pytest

from audit.collect import fitting
from tests.test_precision_rules import _unit

PACKAGE = "tests.planted_adversarial"


def _scan(module: str, level: str) -> tuple[set, dict]:
    """(families fitted by the scan and judged again, family -> evidence)."""
    u = _unit(module, level)
    try:
        fitting.scan(u)
        fitting.settle(u)
    finally:
        u.adapter.close()
    evidence = {fams[0]: str(ev) for (lv, fams), ev in u.model.evidence.items() if lv == level and len(fams) == 1}
    return set(u.model.families()), evidence


@pytest.mark.parametrize("level", ["sentence", "corpus"])
@pytest.mark.parametrize("module, runtime", [
    ("c_port", {"whitespace-set-ascii": "C isspace() in the C locale",
                "lowercase-mapping-not-python": "C tolower() in the C locale", "utf8-bytes": "byte strings"}),
    ("java_port", {"whitespace-set-java": "Java Character.isWhitespace",
                   "utf16-code-units": "Java and JavaScript strings"}),
    ("js_port", {"whitespace-set-javascript": "JavaScript \\s", "utf16-code-units": "Java and JavaScript strings"}),
    ("rust_port", {"whitespace-set-white-space": "Rust char::is_whitespace"}),
])
def test_a_port_is_named_by_its_runtimes_behaviours(module, runtime, level):
    bugs = set(importlib.import_module(f"{PACKAGE}.{module}").BUGS)
    fitted, evidence = _scan(module, level)
    assert fitted == bugs, (module, level, sorted(fitted))
    for family, words in runtime.items():
        assert words in evidence[family], (family, evidence[family])


@pytest.mark.parametrize("level", ["sentence", "corpus"])
@pytest.mark.parametrize("module, fool", [("nbsp_kept", "whitespace-set-java"),
                                          ("nfkc_ascii", "whitespace-set-white-space")])
def test_a_rival_on_one_class_or_a_combination_is_not_named(module, fool, level):
    mod = importlib.import_module(f"{PACKAGE}.{module}")
    fitted, _ = _scan(module, level)
    assert fool not in fitted and fitted <= set(mod.BUGS), (module, level, sorted(fitted))
