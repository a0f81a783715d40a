"""Hand-written SVG charts (no plotting library): a small line chart and a grouped bar chart.

Deterministic output: fixed size, fixed number formatting, no ids or timestamps.
"""

from __future__ import annotations

import math
from typing import Optional, Sequence
from xml.sax.saxutils import escape as _xml_escape

from ._text import visible

WIDTH, HEIGHT = 640, 360
MARGIN = {"left": 64, "right": 150, "top": 40, "bottom": 64}
COLORS = ["#1f77b4", "#d62728", "#2ca02c", "#9467bd"]


def _xml(s) -> str:
    """Text content of the SVG: XML-escaped, control characters (invalid in XML) as \\uXXXX."""
    return _xml_escape(visible(str(s), keep=""))


def _f(x: float) -> str:
    return f"{x:.2f}".rstrip("0").rstrip(".")


def _nice_ticks(lo: float, hi: float, n: int = 5) -> list[float]:
    if hi <= lo:
        hi = lo + 1
    raw = hi / n - lo / n  # not (hi - lo) / n: the span of -1e308..1e308 is no float
    mag = 10 ** math.floor(math.log10(raw))
    step = next(m * mag for m in (1, 2, 2.5, 5, 10) if m * mag >= raw)
    start = math.floor(lo / step) * step
    ticks, t = [], start
    while t <= hi + step * 1e-9 and math.isfinite(t):  # near the largest float the next tick is infinity
        ticks.append(round(t, 10))
        t += step
    return ticks


def _scale(lo: float, hi: float, top: float, bottom: float):
    """v -> the y coordinate of v on an axis from lo (at ``bottom``) to hi (at ``top``).  Near
    the largest float (a sweep value of 1e308 from the implementation) the span or the product
    is no float: then the halves, which keep it finite."""
    lo, hi = float(lo), float(hi)  # ticks may be ints (10 ** k steps): no int beyond the floats

    def y(v: float) -> float:
        v = float(v)
        d, span = v - lo, hi - lo
        if math.isfinite((bottom - top) * d) and math.isfinite(span):
            return bottom - (bottom - top) * d / span
        return bottom - (bottom - top) * ((v / 2 - lo / 2) / (hi / 2 - lo / 2))
    return y


def _label(v: float) -> str:
    return format(v, ".4g")


def _frame(title: str, x_label: str, y_label: str) -> list[str]:
    return [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{WIDTH}" height="{HEIGHT}" '
        f'viewBox="0 0 {WIDTH} {HEIGHT}" font-family="Helvetica, Arial, sans-serif" font-size="11">',
        f'<rect x="0" y="0" width="{WIDTH}" height="{HEIGHT}" fill="#ffffff"/>',
        f'<text x="{WIDTH / 2:.0f}" y="22" text-anchor="middle" font-size="14" font-weight="bold">{_xml(title)}</text>',
        f'<text x="{MARGIN["left"] + (WIDTH - MARGIN["left"] - MARGIN["right"]) / 2:.0f}" y="{HEIGHT - 14}" '
        f'text-anchor="middle">{_xml(x_label)}</text>',
        f'<text x="16" y="{MARGIN["top"] + (HEIGHT - MARGIN["top"] - MARGIN["bottom"]) / 2:.0f}" text-anchor="middle" '
        f'transform="rotate(-90 16 {MARGIN["top"] + (HEIGHT - MARGIN["top"] - MARGIN["bottom"]) / 2:.0f})">{_xml(y_label)}</text>',
    ]


def _axes(out: list[str], ticks: list[float], y) -> None:
    x0, x1 = MARGIN["left"], WIDTH - MARGIN["right"]
    for t in ticks:
        yy = y(t)
        out.append(f'<line x1="{x0}" y1="{_f(yy)}" x2="{x1}" y2="{_f(yy)}" stroke="#e5e5e5"/>')
        out.append(f'<text x="{x0 - 6}" y="{_f(yy + 4)}" text-anchor="end">{_label(t)}</text>')
    yb = HEIGHT - MARGIN["bottom"]
    out.append(f'<line x1="{x0}" y1="{yb}" x2="{x1}" y2="{yb}" stroke="#333333"/>')
    out.append(f'<line x1="{x0}" y1="{MARGIN["top"]}" x2="{x0}" y2="{yb}" stroke="#333333"/>')


def _legend(out: list[str], names: Sequence[str], dashed: Sequence[bool]) -> None:
    x = WIDTH - MARGIN["right"] + 14
    for i, name in enumerate(names):
        y = MARGIN["top"] + 10 + 18 * i
        dash = ' stroke-dasharray="5 3"' if dashed[i] else ""
        out.append(f'<line x1="{x}" y1="{y}" x2="{x + 22}" y2="{y}" stroke="{COLORS[i % len(COLORS)]}" stroke-width="2"{dash}/>')
        out.append(f'<text x="{x + 28}" y="{y + 4}">{_xml(name)}</text>')


def _y_range(series) -> tuple[float, float]:
    vals = [v for _, ys in series for v in ys if v is not None and math.isfinite(v)]
    lo = min([0.0] + vals)
    hi = max([1.0] + vals)
    return lo, hi


def line_chart(title: str, x_label: str, y_label: str, xs: Sequence, series: Sequence[tuple[str, Sequence[Optional[float]]]]) -> str:
    """Line chart; ``series`` is [(name, ys)], the first drawn dashed (the expected values)."""
    lo, hi = _y_range(series)
    ticks = _nice_ticks(lo, hi)
    lo, hi = ticks[0], ticks[-1]
    x0, x1 = MARGIN["left"], WIDTH - MARGIN["right"]
    yt, yb = MARGIN["top"], HEIGHT - MARGIN["bottom"]
    n = len(xs)

    def x(i):
        return x0 + (x1 - x0) * (i + 0.5) / max(n, 1)

    y = _scale(lo, hi, yt, yb)
    out = _frame(title, x_label, y_label)
    _axes(out, ticks, y)
    step = max(1, math.ceil(n / 12))
    for i, xv in enumerate(xs):
        if i % step == 0:
            out.append(f'<text x="{_f(x(i))}" y="{yb + 16}" text-anchor="middle">{_xml(str(xv))}</text>')
    for k, (name, ys) in enumerate(series):
        color = COLORS[k % len(COLORS)]
        dash = ' stroke-dasharray="5 3"' if k == 0 and len(series) > 1 else ""
        pts = [(x(i), y(v)) for i, v in enumerate(ys) if v is not None and math.isfinite(v)]
        if len(pts) > 1:
            path = " ".join(f"{_f(px)},{_f(py)}" for px, py in pts)
            out.append(f'<polyline points="{path}" fill="none" stroke="{color}" stroke-width="2"{dash}/>')
        for px, py in pts:
            out.append(f'<circle cx="{_f(px)}" cy="{_f(py)}" r="3" fill="{color}"/>')
    _legend(out, [s[0] for s in series], [k == 0 and len(series) > 1 for k in range(len(series))])
    out.append("</svg>")
    return "\n".join(out) + "\n"


def bar_chart(title: str, x_label: str, y_label: str, xs: Sequence, series: Sequence[tuple[str, Sequence[Optional[float]]]]) -> str:
    """Grouped bar chart (one group per x, one bar per series); x labels rotated."""
    lo, hi = _y_range(series)
    ticks = _nice_ticks(lo, hi)
    lo, hi = ticks[0], ticks[-1]
    x0, x1 = MARGIN["left"], WIDTH - MARGIN["right"]
    yt, yb = MARGIN["top"], HEIGHT - MARGIN["bottom"]
    n, k = len(xs), max(1, len(series))
    group = (x1 - x0) / max(n, 1)
    bar = group * 0.8 / k

    y = _scale(lo, hi, yt, yb)
    out = _frame(title, x_label, y_label)
    _axes(out, ticks, y)
    for i, xv in enumerate(xs):
        cx = x0 + group * (i + 0.5)
        out.append(f'<text x="{_f(cx)}" y="{yb + 8}" text-anchor="end" font-size="8" '
                   f'transform="rotate(-60 {_f(cx)} {yb + 8})">{_xml(str(xv))}</text>')
        for j, (_, ys) in enumerate(series):
            v = ys[i]
            if v is None or not math.isfinite(v):
                continue
            bx = x0 + group * i + group * 0.1 + bar * j
            top, base = y(max(v, lo)), y(max(lo, 0.0))
            out.append(f'<rect x="{_f(bx)}" y="{_f(min(top, base))}" width="{_f(bar)}" '
                       f'height="{_f(abs(base - top))}" fill="{COLORS[j % len(COLORS)]}"/>')
    _legend(out, [s[0] for s in series], [False] * len(series))
    out.append("</svg>")
    return "\n".join(out) + "\n"


def scope_chart(implementation: str, family: str, sweep: dict) -> str:
    xs = [r["x"] for r in sweep["rows"]]
    series = [("reference", [r["expected"] for r in sweep["rows"]]),
              (implementation, [r["actual"] for r in sweep["rows"]])]
    title = f"{implementation}: {family}"
    if sweep.get("kind") == "bar":
        return bar_chart(title, sweep["x_label"], "score (0..100)", xs, series)
    return line_chart(title, sweep["x_label"], "score (0..100)", xs, series)


def render(doc: dict) -> dict[str, bytes]:
    """{"charts/<report>-<family>.svg": bytes}: each finding's sweep chart (once per path)."""
    out: dict[str, bytes] = {}
    for f in doc["findings"]:
        if f.get("scope") and f.get("chart") and f["chart"] not in out:
            out[f["chart"]] = scope_chart(f["implementation"], f["family"], f["scope"]).encode("utf-8", "backslashreplace")
    return out
