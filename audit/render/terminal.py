"""The table shown after a run: implementation x family, minimal repro, expected, actual,
difference, laid out for 80 to 200 columns.

* 150 columns and more: one line per finding, every column side by side;
* narrower: two lines per finding, the implementation and the family on the first (both
  whole as far as the width allows), the repro and the three numbers on the second.

Nothing is wrapped inside a name: a value wider than its column is elided in the middle
("external:python3 …/chrfpp_wrapper.py"), so both ends stay readable; the full values are in
the reports.  A metamorphic finding's expected value is the implementation's own score on
the untransformed input (no reference is involved), marked ``*`` with a footnote.
A pure function of the document (audit.json) and two facts about the terminal the caller
finds out (``audit.files.outputs.terminal_facts``): its width and whether to colour (not when
NO_COLOR is set or the output is not a terminal).  Colour is plain ANSI SGR.
"""

from __future__ import annotations

import textwrap

from ._doc import families, findings_of, is_metamorphic
from ._text import REPRO_KEY, corpus_repro, fit_line, num, quoted, repro_text, signed, terminal_line
from .contract_table import terminal_lines

MIN_WIDTH, MAX_WIDTH, WIDE = 80, 200, 150
NUM_W = 10  # expected, actual, difference
GAP = "  "
OWN_MARK = "*"


def elide(text: str, width: int) -> str:
    """``text`` in at most ``width`` characters, elided in the middle with one "…"."""
    if width <= 0:
        return ""
    if len(text) <= width:
        return text
    if width == 1:
        return "…"
    head = (width - 1 + 1) // 2
    tail = width - 1 - head
    return text[:head] + "…" + (text[-tail:] if tail else "")


def repro_cell(inputs: dict, width: int) -> str:
    """A repro in ``width`` characters: a sentence repro keeps both its hypothesis and its
    references readable (each elided in the middle, in half the room); a corpus repro is
    elided in the middle."""
    full = repro_text(inputs)
    if len(full) <= width or "hypothesis" not in inputs:
        return elide(full, width)
    hyp = quoted(inputs["hypothesis"])
    refs = ", ".join(quoted(r) for r in inputs.get("references", []))
    room = width - len("hyp  ref ")
    if room < 8:
        return elide(full, width)
    h_w = min(len(hyp), max(room // 2, room - len(refs)))
    return f"hyp {elide(hyp, h_w)} ref {elide(refs, room - h_w)}"


def _numbers(f: dict) -> tuple[str, str, str]:
    m = f["minimal"]
    expected = num(m["expected"], 7) + (OWN_MARK if is_metamorphic(f) else "")
    actual = num(m["actual"], 7) if m["outcome"] == "value" and m["actual"] is not None else m["outcome"]
    return elide(expected, NUM_W), elide(actual, NUM_W), elide(signed(m.get("difference"), 4), NUM_W)


def table_lines(findings, width: int) -> list[tuple[str, str]]:
    """The table as (text, role) lines, role in "title", "head", "rule", "row", "note"; every
    line fits ``width`` (clamped to 80..200).  ``findings``: the document's finding records."""
    width = max(MIN_WIDTH, min(MAX_WIDTH, int(width)))
    # a row per family and level; the families (``_doc.families``, each implementation's) counted beside them
    n, k = len(findings), sum(len(families([f for f in findings if f["implementation"] == impl]))
                              for impl in dict.fromkeys(f["implementation"] for f in findings))
    out = [(f"chrF audit: {n} finding{'s' if n != 1 else ''} ({k} famil{'y' if k == 1 else 'ies'})", "title")]
    names = [terminal_line(f["implementation"]) for f in findings]
    fams = [f["family"] for f in findings]
    nums_w = 3 * NUM_W + 3 * len(GAP)
    heads = ("expected".rjust(NUM_W), "actual".rjust(NUM_W), "difference".rjust(NUM_W))
    if width >= WIDE:
        fam_w = min(max(len(x) for x in fams + ["family"]), 44)
        # the implementation and the repro share what is left, the name at most half
        impl_w = min(max(len(x) for x in names + ["implementation"]),
                     max(14, (width - fam_w - 2 * len(GAP) - nums_w) // 2))
        repro_w = width - impl_w - fam_w - 2 * len(GAP) - nums_w
        repro_w = min(repro_w, max(len("minimal repro"), *(len(repro_text(f["minimal"]["inputs"])) for f in findings)))
        head = GAP.join(["implementation".ljust(impl_w)[:impl_w], "family".ljust(fam_w),
                         "minimal repro".ljust(repro_w), *heads])
        out += [(head, "head"), ("-" * width, "rule")]
        for f in findings:
            cells = [elide(terminal_line(f["implementation"]), impl_w).ljust(impl_w),
                     elide(f["family"], fam_w).ljust(fam_w), repro_cell(f["minimal"]["inputs"], repro_w).ljust(repro_w)]
            cells += [x.rjust(NUM_W) for x in _numbers(f)]
            out.append((GAP.join(cells), "row"))
    else:
        indent = "    "
        repro_w = width - len(indent) - nums_w
        repro_w = min(repro_w, max(len("minimal repro"), *(len(repro_text(f["minimal"]["inputs"])) for f in findings)))
        impl_w = min(max(len(x) for x in names), max(16, width - 2 - max(len(x) for x in fams)), width // 2)
        out += [(elide("implementation" + GAP + "family", width), "head"),
                (indent + "minimal repro".ljust(repro_w) + GAP + GAP.join(heads), "head"),
                ("-" * width, "rule")]
        for f in findings:
            name = elide(terminal_line(f["implementation"]), impl_w)
            out.append((name + GAP + elide(f["family"], width - len(name) - len(GAP)), "row"))
            nums = GAP.join(x.rjust(NUM_W) for x in _numbers(f))
            out.append((indent + repro_cell(f["minimal"]["inputs"], repro_w).ljust(repro_w) + GAP + nums, "row"))
    if any(is_metamorphic(f) for f in findings):
        note = (f"{OWN_MARK} metamorphic: expected is the implementation's own score before the "
                "transformation; the reference's value is in the report")
        out += [(line, "note") for line in textwrap.wrap(note, width, subsequent_indent="  ")]
    if any(corpus_repro(f["minimal"]["inputs"]) for f in findings):
        out += [(line, "note") for line in textwrap.wrap(REPRO_KEY, width, subsequent_indent="  ")]
    return [(line.rstrip(), role) for line, role in out]


#: ANSI SGR of each role (colour on); "ok": a clean implementation, "broken": a broken promise
STYLES = {"title": "1", "head": "1", "rule": "", "row": "", "note": "2", "ok": "32", "broken": "31", "": ""}


def lines(doc: dict, width: int) -> list[tuple[str, str]]:
    """Everything printed after a run, as (text, role) lines: the table, each fitted model,
    each service contract, the clean implementations."""
    width = max(MIN_WIDTH, min(MAX_WIDTH, int(width)))
    out: list[tuple[str, str]] = []
    findings = doc["findings"]
    if findings:
        out += table_lines(findings, width)
    for entry in doc["implementations"]:
        impl = entry["implementation"]
        if findings_of(doc, impl):
            for level, fit in (entry.get("fit") or {}).items():
                out += [(line, "") for line in textwrap.wrap(terminal_line(fit_line(impl, level, fit)), width,
                                                             subsequent_indent="    ",
                                                             break_long_words=False, break_on_hyphens=False)]
        out += _contract_roles(terminal_lines(impl, entry.get("contract"), width))
    for entry in doc["implementations"]:
        if not findings_of(doc, entry["implementation"]):
            version = entry.get("version")
            out.append((terminal_line(f"{entry['implementation']}{' ' + version if version else ''}: no finding "
                                      f"({entry['examples']} inputs)"), "ok"))
    if not doc["implementations"]:
        out.append(("no implementation audited", ""))
    return out


def _contract_roles(contract: list[str]) -> list[tuple[str, str]]:
    """A contract's lines with their roles: a broken promise's row, and the lines it is
    continued on (wrapped under its indent, ``contract_table._fit``), are "broken"."""
    out, broken = [], False
    for line in contract:
        broken = line.startswith("  BROKEN") or (broken and line.startswith(" " * 6))
        out.append((line, "broken" if broken else ""))
    return out


def render(doc: dict, *, width: int = 100, color: bool = False) -> dict[str, bytes]:
    """{"terminal.txt": bytes}: the text shown after a run, ``width`` columns (80..200), ANSI
    colour when ``color``.  Each line passes ``terminal_line`` last: whatever a field held (a name,
    a version, a service's answer), no control character reaches the terminal but the
    colour this renderer adds."""
    text = "".join((f"\x1b[{STYLES[role]}m{terminal_line(line)}\x1b[0m" if color and STYLES[role]
                    else terminal_line(line)) + "\n" for line, role in lines(doc, width))
    return {"terminal.txt": text.encode("utf-8", "backslashreplace")}
