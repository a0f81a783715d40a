"""Four planted packages in a local package index (no network) and a survey registry naming them,
for ``chrf-audit survey`` end to end (tests/test_survey.py):

* ``chrf-survey-correct``: chrF as sacreBLEU computes it (character orders 1..6, beta 2, one
  reference; the source of ``planted_versions``);
* ``chrf-survey-buggy``: the same, averaged over the six requested orders
  (``requested-order-divisor``);
* ``chrf-survey-elsewhere``: the correct code, installable only on another interpreter than
  chrf-audit's own (``Requires-Python: !=X.Y.*``): the survey finds one that takes it;
* ``chrf-survey-shadow``: a module named ``sacrebleu`` (it shadows sacreBLEU in its environment)
  whose ``sentence_chrf`` keeps whitespace as characters: the second route's control must be
  the real sacreBLEU of chrf-audit's environment, not this one.

Wheels are byte for byte the same every time (fixed zip dates).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from tests import planted_versions as V

OWN = "%d.%d" % sys.version_info[:2]
CORRECT = V.source("1.0", buggy=False)
BUGGY = V.source("1.1", buggy=True)
SHADOW = CORRECT.replace('    text = "".join(text.split())\n', "") + "\n\ndef sentence_chrf(hypothesis, references):\n" \
    "    return sentence(hypothesis, references)\n"
#: distribution -> (module, source, Requires-Python)
PACKAGES = {
    "chrf-survey-correct": ("chrf_survey_correct", CORRECT, ">=3.8"),
    "chrf-survey-buggy": ("chrf_survey_buggy", BUGGY, ">=3.8"),
    "chrf-survey-elsewhere": ("chrf_survey_elsewhere", CORRECT, f"!={OWN}.*"),
    "chrf-survey-shadow": ("sacrebleu", SHADOW, ">=3.8"),
}


def wheel(dest: Path, dist: str, module: str, source: str, requires: str) -> Path:
    stem = dist.replace("-", "_")
    info = f"{stem}-1.0.dist-info"
    files = {
        f"{module}/__init__.py": source.encode(),
        f"{info}/METADATA": f"Metadata-Version: 2.1\nName: {dist}\nVersion: 1.0\nRequires-Python: {requires}\n".encode(),
        f"{info}/WHEEL": b"Wheel-Version: 1.0\nGenerator: chrf-audit-tests\nRoot-Is-Purelib: true\nTag: py3-none-any\n",
    }
    record = "\n".join([V._record_line(n, d) for n, d in files.items()] + [f"{info}/RECORD,,"]) + "\n"
    files[f"{info}/RECORD"] = record.encode()
    path = dest / f"{stem}-1.0-py3-none-any.whl"
    import zipfile

    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as z:
        for name, data in files.items():
            z.writestr(zipfile.ZipInfo(name, date_time=(2020, 1, 1, 0, 0, 0)), data)
    return path


def build_index(root: Path) -> str:
    """The four wheels under ``root/wheels`` and a PEP 503 index under ``root/simple``; its URL."""
    wheels = root / "wheels"
    wheels.mkdir(parents=True, exist_ok=True)
    names = []
    for dist, (module, source, requires) in PACKAGES.items():
        w = wheel(wheels, dist, module, source, requires)
        page = root / "simple" / dist
        page.mkdir(parents=True, exist_ok=True)
        (page / "index.html").write_text(f'<html><body><a href="../../wheels/{w.name}" '
                                         f'data-requires-python="{requires.replace(">", "&gt;")}">{w.name}</a>'
                                         "</body></html>\n")
        names.append(f'<a href="{dist}/">{dist}</a>')
    (root / "simple" / "index.html").write_text("<html><body>" + "".join(names) + "</body></html>\n")
    return (root / "simple").as_uri()


def _entry(name: str, dist: str, module: str, kind: str = "own", **extra) -> dict:
    return {"name": name, "package": dist, "version": "1.0", "kind": kind, "licence": "Apache-2.0",
            "tracker": f"https://example.invalid/{name}/issues", "docs_claim": "chrF as sacreBLEU computes it",
            "setup": f"from {module} import sentence", "source": f"{module}:sentence",
            "configurations": [{"name": "chrF", "claims": {"definition": "sacrebleu"}, "max_refs": 1,
                                "sentence": "sentence(hypothesis, references)"}], **extra}


def registry(path: Path) -> Path:
    doc = {"implementations": [
        _entry("correct", "chrf-survey-correct", "chrf_survey_correct"),
        _entry("buggy", "chrf-survey-buggy", "chrf_survey_buggy"),
        _entry("elsewhere", "chrf-survey-elsewhere", "chrf_survey_elsewhere"),
        _entry("shadow", "chrf-survey-shadow", "sacrebleu", shadows="sacrebleu"),
        {**_entry("hub-only", "chrf-survey-hub", "x"), "skip": "fetches its script from a hub at run time"},
    ], "searched": {"npm": "nothing planted there"}}
    path.write_text(json.dumps(doc, indent=1), encoding="utf-8")
    return path
