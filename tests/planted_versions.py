"""A planted package with releases, built as wheels into a local package index (no network):
``chrf-planted-versions``, whose ``sentence(hypothesis, references)`` computes chrF (the
sacreBLEU definition, character orders 1..6, beta 2, the first reference) correctly, except in
the releases marked buggy, where precision and recall are averaged over all six requested
orders instead of the effective ones (``requested-order-divisor``; shows on any input shorter
than six characters).

``RELEASES``: 1.0 correct, 1.1 and 1.2 buggy (1.2 changes a comment), 1.3 fixed: the bug is
introduced in the 2nd release and fixed in the 4th.  ``BISECT_RELEASES`` adds patch releases
around them (9 in all, the bug in the 4th to the 7th), for ``--bisect`` to need fewer audits
than releases.  Wheels are written byte for byte the same every time (fixed zip dates), so a
release's cached environment serves every test of a session.
"""

from __future__ import annotations

import base64
import hashlib
import zipfile
from pathlib import Path

DIST = "chrf-planted-versions"
MODULE = "chrf_planted_versions"
IMPL = f"{MODULE}:sentence"
FAMILY = "requested-order-divisor"

RELEASES = {"1.0": False, "1.1": True, "1.2": True, "1.3": False}
BISECT_RELEASES = {"1.0": False, "1.0.1": False, "1.0.2": False, "1.1": True, "1.1.1": True, "1.2": True,
                   "1.2.1": True, "1.3": False, "1.3.1": False}

SOURCE = '''\
"""chrF (sacreBLEU definition, character orders 1..6, beta 2) of one hypothesis against its
first reference, on 0..100.  Release {version}."""

from collections import Counter

ORDER = 6
BETA = 2


def _grams(text, n):
    text = "".join(text.split())
    return Counter(text[i:i + n] for i in range(len(text) - n + 1))


def sentence(hypothesis, references, beta=BETA):
    reference = references[0]
    precisions, recalls = [], []
    for n in range(1, ORDER + 1):
        hyp, ref = _grams(hypothesis, n), _grams(reference, n)
        hyp_count, ref_count = sum(hyp.values()), sum(ref.values())
        if hyp_count and ref_count:
            matches = sum((hyp & ref).values())
            precisions.append(matches / hyp_count)
            recalls.append(matches / ref_count)
    if not precisions:
        return 0.0
{divisor}
    p, r = sum(precisions) / divisor, sum(recalls) / divisor
    if p + r == 0:
        return 0.0
    return 100 * (1 + beta ** 2) * p * r / (beta ** 2 * p + r)
'''
CORRECT = "    divisor = len(precisions)  # the effective orders"
BUGGY = "    divisor = ORDER"


def source(version: str, buggy: bool) -> str:
    divisor = BUGGY if buggy else CORRECT
    if version.startswith("1.2"):
        divisor = "    # averaged over the orders\n" + divisor
    return SOURCE.format(version=version, divisor=divisor)


def _record_line(name: str, data: bytes) -> str:
    digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
    return f"{name},sha256={digest},{len(data)}"


def wheel(dest: Path, version: str, buggy: bool) -> Path:
    info = f"{MODULE}-{version}.dist-info"
    files = {
        f"{MODULE}/__init__.py": SPECIAL.get(version, source(version, buggy)).encode(),
        f"{info}/METADATA": (f"Metadata-Version: 2.1\nName: {DIST}\nVersion: {version}\nRequires-Python: "
                             f"{'<3' if version in PY2_ONLY else '>=3.8'}\n").encode(),
        f"{info}/WHEEL": b"Wheel-Version: 1.0\nGenerator: chrf-audit-tests\nRoot-Is-Purelib: true\nTag: py3-none-any\n",
    }
    record = "\n".join([_record_line(n, d) for n, d in files.items()] + [f"{info}/RECORD,,"]) + "\n"
    files[f"{info}/RECORD"] = record.encode()
    path = dest / f"{MODULE}-{version}-py3-none-any.whl"
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as z:
        for name, data in files.items():
            z.writestr(zipfile.ZipInfo(name, date_time=(2020, 1, 1, 0, 0, 0)), data)
    return path


def build_index(root: Path, releases: dict = RELEASES) -> str:
    """Wheels under ``root/wheels`` and a PEP 503 index under ``root/simple``; its URL."""
    wheels = root / "wheels"
    wheels.mkdir(parents=True, exist_ok=True)
    page = root / "simple" / DIST
    page.mkdir(parents=True, exist_ok=True)
    links = []
    for version, buggy in releases.items():
        w = wheel(wheels, version, buggy)
        links.append(f'<a href="../../wheels/{w.name}">{w.name}</a><br/>')
    (page / "index.html").write_text("<!DOCTYPE html>\n<html><body>\n" + "\n".join(links) + "\n</body></html>\n")
    (root / "simple" / "index.html").write_text(f'<html><body><a href="{DIST}/">{DIST}</a></body></html>\n')
    return (root / "simple").as_uri()


# -- running chrf-audit versions on it from the tests ------------------------------------------
BROKEN = "0.9"  # a release whose module cannot be imported (skipped, with the reason)
BROKEN_SOURCE = 'raise ImportError("planted: release 0.9 cannot be imported")\n'
HANGING = "0.8"  # a release whose import never ends
#: releases no interpreter can install (Requires-Python <3: pip refuses them on every Python 3)
PY2_ONLY = ("0.1", "0.2", "0.3", "0.4", "0.5")
SPECIAL = {BROKEN: BROKEN_SOURCE, HANGING: "import time\n\ntime.sleep(3600)  # planted: the import hangs\n"}
ROOT = Path(__file__).resolve().parents[1]


def shared_cache(tmp_path_factory) -> Path:
    """The release environments' cache, shared by every test (and xdist worker) of a session:
    each environment is built once, under its lock."""
    import os

    base = tmp_path_factory.getbasetemp()
    cache = (base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base) / "versions-cache"
    cache.mkdir(exist_ok=True)
    return cache


def env(cache: Path) -> dict:
    """The CLI's environment: the shared cache, and none of the machine's pip configuration
    (the planted index is given with --index-url: no network)."""
    import os

    out = {k: v for k, v in os.environ.items() if not k.startswith(("PIP_", "UV_"))}
    out.update(CHRF_AUDIT_CACHE=str(cache), PIP_CONFIG_FILE=os.devnull, PYTHONPATH=str(ROOT), NO_COLOR="1")
    return out


def argv(index_url: str, spec: str, *extra) -> list:
    import sys

    return [sys.executable, "-m", "audit.cli", "versions", DIST, spec, "--impl", IMPL, "--max-refs", "1",
            "--index-url", index_url, "--max-examples", "10", "--quiet", *extra]
