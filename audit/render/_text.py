"""Text helpers shared by the renderers: escaping, truncation, numbers, slugs."""

from __future__ import annotations

import re
import unicodedata
from typing import Optional


def _unseen(ch: str) -> bool:
    """A character a reader cannot see on its own: not printable (controls, format characters
    such as U+200B and U+FEFF, whitespace other than U+0020, surrogates) or a combining mark
    (U+0301 in NFD "e\u0301" would print as "é", the same as NFC's one character)."""
    return not ch.isprintable() or unicodedata.category(ch).startswith("M")


def escape(s: str, limit: Optional[int] = None) -> str:
    """Characters a reader sees as they are, everything else (``_unseen``: control and format
    characters, whitespace other than U+0020, surrogates, combining marks) as \\uXXXX;
    backslash doubled.  Truncated to ``limit`` characters of output with a trailing ellipsis."""
    out = []
    for ch in s:
        if ch == "\\":
            out.append("\\\\")
        elif not _unseen(ch):
            out.append(ch)
        else:
            cp = ord(ch)
            out.append(f"\\u{cp:04x}" if cp <= 0xFFFF else f"\\U{cp:08x}")
    text = "".join(out)
    if limit is not None and len(text) > limit:
        text = text[: max(0, limit - 1)] + "…"
    return text


def visible(s: str, keep: str = "\n\t") -> str:
    """Text for a terminal or a document: every non-printable character (C0/C1 controls such
    as ESC and BEL, surrogates, line separators, ...) except those in ``keep`` as \\uXXXX,
    everything else unchanged (backslashes too: for text that is escaped already, or whose
    backslashes are its own).  Implementation names, error texts and versions come from the
    implementation under audit: an ESC in them must not reach the reader's terminal."""
    if s.isprintable():
        return s
    return "".join(ch if ch.isprintable() or ch in keep
                   else (f"\\u{ord(ch):04x}" if ord(ch) <= 0xFFFF else f"\\U{ord(ch):08x}") for ch in s)


def terminal_line(s) -> str:
    """Untrusted text (a name, an error, a program's stderr, a service's answer) in a line on
    the terminal, standard output or error: the one terminal helper.  Every character a
    terminal acts on or a reader cannot see (ESC, BEL, CR, the newline, C1 controls, format
    characters such as U+202E) as \\uXXXX (``visible``): it stays one line and moves, colours
    or links nothing."""
    return visible(str(s), keep="")


def quoted(s: str, limit: Optional[int] = None) -> str:
    return '"' + escape(s, None if limit is None else max(1, limit - 2)) + '"'


#: The key of ``repro_text``'s corpus notation, printed under a table that shows one.
REPRO_KEY = ('repro key: hyp "h" ref "r1", "r2": a sentence and its references; N seg: "h"→"r1"/"r2"; ...: '
             'a corpus of N segments, each hypothesis → its references (/ between references, ; between segments)')


def corpus_repro(inputs: dict) -> bool:
    """Whether ``repro_text`` writes these inputs in the corpus notation."""
    return "hypothesis" not in inputs


def repro_text(inputs: dict, limit: Optional[int] = None) -> str:
    """One-line rendering of a repro's inputs (escaped); the corpus notation: ``REPRO_KEY``."""
    if "hypothesis" in inputs:
        refs = inputs.get("references", [])
        text = f"hyp {quoted(inputs['hypothesis'])} ref " + ", ".join(quoted(r) for r in refs)
    else:
        hyps = inputs.get("hypotheses", [])
        refs = inputs.get("references", [])
        segs = [f"{quoted(h)}→" + "/".join(quoted(r) for r in rs) for h, rs in zip(hyps, refs)]
        text = f"{len(hyps)} seg: " + "; ".join(segs)
    if limit is not None and len(text) > limit:
        text = text[: limit - 1] + "…"
    return text


def num(x: Optional[float], digits: int = 10) -> str:
    if x is None:
        return "—"
    return format(x, f".{digits}g")


def signed(x: Optional[float], digits: int = 6) -> str:
    if x is None:
        return "—"
    return format(x, f"+.{digits}g")


#: what markdown acts on inside a line: a table's cell border, a code span, HTML or an
#: autolink (a ``<`` before a letter, ``/``, ``!`` or ``?``: "p < 0.05" is text), a link, an
#: image or a link definition (a ``]`` before ``(``, ``[`` or ``:``: "[0.2, 0.3]" is text),
#: emphasis (every ``*``; a ``_`` not inside a word: ``sentence_chrf`` is text) and an entity
#: reference (``&lt;`` would show ``<``); each shown as itself by a backslash
_INLINE = re.compile(r"[|`*]|<(?=[A-Za-z/!?])|\](?=[(\[:])|(?<![A-Za-z0-9])_|_(?![A-Za-z0-9])|&(?=#?[A-Za-z0-9]+;)")
#: a code span as CommonMark reads one: a run of backticks, text, the same run
_CODE_SPAN = re.compile(r"(?<!`)(`+)(?!`)(.+?)(?<!`)\1(?!`)")
#: what makes the start of a line a block: a heading, a quote, a fence, a list item, a
#: thematic break, a setext underline (CommonMark's block starts; ``<`` and backticks are
#: escaped anywhere)
_BLOCK_START = re.compile(r"(#{1,6}|[-+*]|\d{1,9}[.)])(?=[ \t]|$)|>|~~~|([-*_])[ \t]*(\2[ \t]*){2,}$|=+[ \t]*$")


def md_cell(s, limit: Optional[int] = None) -> str:
    """Untrusted text (an implementation's name, version or error text, a contract's key, a
    service's answer) inside a line of markdown: a sentence, a title, a table cell, a list
    item.  The one markdown helper of inline text: one line, what a reader cannot see as
    \\uXXXX (``escape``: no newline, no control character), each character markdown acts on
    inside a line (``_INLINE``) and a block marker at its start backslash-escaped, so that it
    renders as the text itself wherever the line puts it.  ``limit``: characters of the text
    kept (``escape``'s)."""
    text = _INLINE.sub(r"\\\g<0>", escape(str(s).replace("\n", " ").lstrip(" "), limit))
    if _BLOCK_START.match(text):
        digits = len(text) - len(text.lstrip("0123456789"))
        text = text[:digits] + "\\" + text[digits:]  # "1\\. x", "\\# x": the character itself
    return text


def md_prose(s) -> str:
    """Text that marks code as code spans (a record's note, a quoted line of an upstream
    thread: ``the `else` branch``) inside a line of markdown: each code span kept as one
    (``md_code``: inert whatever it holds), everything else as ``md_cell`` escapes it."""
    s, out, pos = str(s).replace("\n", " "), [], 0
    for m in _CODE_SPAN.finditer(s):
        if m.start() > pos:
            out.append(md_cell(s[pos:m.start()]) if pos == 0 else _INLINE.sub(r"\\\g<0>", escape(s[pos:m.start()])))
        out.append(md_code(m.group(2)))
        pos = m.end()
    if pos < len(s) or not out:
        out.append(md_cell(s[pos:]) if pos == 0 else _INLINE.sub(r"\\\g<0>", escape(s[pos:])))
    return "".join(out)


def md_code(s) -> str:
    """Untrusted text as inline code (in a sentence or a table cell): non-printable
    characters as \\uXXXX, pipes escaped (a table's cell border), and fenced by one backtick
    more than its longest run of backticks, so that no text ends the span early."""
    s = visible(str(s), keep="").replace("|", "\\|")
    fence = "`" * (1 + max((len(run) for run in re.findall("`+", s)), default=0))
    pad = " " if s.startswith("`") or s.endswith("`") else ""
    return f"{fence}{pad}{s}{pad}{fence}"


def md_fence(text: str, language: str = "") -> list[str]:
    """Untrusted text (a repro snippet, a diff, a source excerpt, a command) as the lines of
    a fenced code block: non-printable characters but the newline and the tab as \\uXXXX
    (``visible``), fenced by backticks longer than any run of them in the text, so that no
    line of it closes the block, opens another or becomes a heading."""
    body = visible(str(text).rstrip("\n"), keep="\n\t")
    fence = "`" * max(3, 1 + max((len(run) for run in re.findall("`+", body)), default=0))
    return [fence + re.sub(r"[^\w+.-]", "", str(language)), *body.split("\n"), fence]


def md_table(header: list[str], rows: list[list[str]], align: Optional[list[str]] = None) -> list[str]:
    """A markdown table as lines (cells already escaped)."""
    align = align or ["---"] * len(header)
    out = ["| " + " | ".join(header) + " |", "| " + " | ".join(align) + " |"]
    out += ["| " + " | ".join(r) + " |" for r in rows]
    return out


def slug(name: str) -> str:
    # "chrf++" -> "chrfpp": the pluses are what tells chrF++ from chrF apart
    s = re.sub(r"[^A-Za-z0-9._-]+", "-", name.replace("+", "p")).strip("-.")
    return s or "implementation"


def unique_slugs(names: list[str]) -> dict[str, str]:
    """A file-name slug per name, no two the same ignoring case (one file on a
    case-insensitive file system): a repeated slug gets -2, -3, ... (``a``, ``A``, ``a-2`` are
    ``a``, ``A-2``, ``a-2-2``, not two ``a-2``)."""
    used: set[str] = set()
    out = {}
    for n in names:
        if n in out:
            continue
        base = cand = slug(n)
        k = 1
        while cand.lower() in used:
            k += 1
            cand = f"{base}-{k}"
        used.add(cand.lower())
        out[n] = cand
    return out


def fit_line(implementation: str, level: str, fit: dict) -> str:
    """The fitted model of one implementation at one level, in one sentence, with its scope:
    "nltk, sentence: reference + a + b reproduces 203 of 203 observed scores, on inputs of 16
    classes; never tried: none" (and what it leaves out, when anything)."""
    model = " + ".join(["reference", *fit.get("model", [])])
    n, m = fit.get("explained", 0), fit.get("observed", 0)
    rest = "" if n == m else f": {m - n} score{'s' if m - n != 1 else ''} remain{'s' if m - n == 1 else ''} unexplained"
    line = f"{implementation}, {level}: {model} reproduces {n} of {m} observed score{'s' if m != 1 else ''}{rest}"
    scope = fit.get("scope")
    if scope is not None:
        tried, never = scope.get("classes", []), scope.get("never_tried", [])
        line += (f", on inputs of {len(tried)} input class{'es' if len(tried) != 1 else ''}; never tried: "
                 f"{', '.join(never) if never else 'none'}")
        refused = scope.get("refused") or {}
        if refused:
            # the implementation's own message: no control character of it reaches a terminal
            line += "; refused by the implementation: " + ", ".join(f"{c} ({visible(str(why)[:120], keep='')})"
                                                                     for c, why in refused.items())
    if fit.get("leaves_out"):
        line += "; leaves out: " + "; ".join(fit["leaves_out"])
    if "behind" in fit:
        line += ("; behind it, the catalogued families were judged on inputs where it is inert (" +
                 ", ".join(fit["behind"]) + ")" if fit["behind"] else
                 "; no input region was found where it is inert: what it hides stays unnamed")
    return line
