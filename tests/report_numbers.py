"""Re-deriving the numbers of a markdown report from its audit.json (issue 23: numbers from one
place).  Independent of the renderers: it knows only the document and what a rounding is."""

from __future__ import annotations

import re
from fractions import Fraction

#: a number as a reader sees it: optional sign, digits, optional decimals and exponent
NUMBER = re.compile(r"(?<![\w.])[-+−]?\d+(?:\.\d+)?(?:e[-+]?\d+)?(?![\w])")
#: links, anchors and inline/fenced code whose content is a JSON string verbatim (checked apart)
LINK = re.compile(r"\]\([^)]*\)")


def _walk(obj, numbers: list, strings: list) -> None:
    if isinstance(obj, bool):
        return
    if isinstance(obj, (int, float)):
        numbers.append(obj)
    elif isinstance(obj, str):
        strings.append(obj)
        if re.fullmatch(r"-?\d+(/\d+)?", obj):
            numbers.append(float(Fraction(obj)))
    elif isinstance(obj, dict):
        for k, v in obj.items():
            strings.append(str(k))
            _walk(v, numbers, strings)
    elif isinstance(obj, list):
        numbers.append(len(obj))
        for v in obj:
            _walk(v, numbers, strings)


def sources(doc: dict) -> tuple[list[float], set[str]]:
    """Every number of the document (values, fractions, list lengths) and every numeric token
    inside its strings (versions, signatures, evidence, code)."""
    numbers: list = []
    strings: list = []
    _walk(doc, numbers, strings)
    tokens = {t.lstrip("+-") for s in strings for t in NUMBER.findall(s)}
    return numbers, tokens


def is_rounding(token: str, x: float) -> bool:
    """``token`` is ``x`` as printed with the digits the token shows (or its repr)."""
    t = token.replace("−", "-").lstrip("+")
    try:
        v = float(t)
    except ValueError:
        return False
    if v == x or repr(x) == t:
        return True
    mantissa = t.split("e")[0]
    decimals = len(mantissa.split(".")[1]) if "." in mantissa else 0
    exp = int(t.split("e")[1]) if "e" in t else 0
    step = 10.0 ** (exp - decimals)
    if abs(v - x) <= step / 2 * (1 + 1e-9):
        return True
    # significant-digit rounding of a large value printed without decimals
    return False


def underived(markdown: str, doc: dict, prose: tuple = ()) -> list[str]:
    """The numbers of ``markdown`` that are neither a rounding of a number of ``doc`` nor a
    token of one of its strings (nor of ``prose``: fixed text such as a citation's year)."""
    numbers, tokens = sources(doc)
    tokens |= {t.lstrip("+-") for s in prose for t in NUMBER.findall(s)}
    text = LINK.sub("]()", markdown)
    bad = []
    for token in NUMBER.findall(text):
        bare = token.lstrip("+-−")
        if bare in tokens or any(is_rounding(token, x) for x in numbers):
            continue
        bad.append(token)
    return bad
