"""What an upstream documents and what its tracker already knows: plain records a library
module fills in and the enrich stage copies into the document (audit.json), where the issue
files read them.

* ``Documented``: the definition the library's own documentation claims, quoted;
* ``FamilyNote``: how a family stands against that claim: a **bug** (it breaks what the
  library documents) or a **definition difference** (the library meets another definition:
  which ones it matches and which it differs from), with the issue's title, its first
  paragraph, the concrete consequence and, for a definition difference, a sentence on
  changing the default;
* ``Related``: an upstream issue or pull request (number, title, state, the release that
  fixed it), each read on the tracker before it was written here, with a short line quoted
  verbatim from its thread that supports what the record says of it; a family's note names
  the records it relates to;
* ``Gates``: the formatter and linters the library's repository runs on a change (its
  pre-commit or lint configuration, with the versions it pins), which a patch must pass
  (``audit.patches.gates`` runs them).

``--related FILE`` lets a user give the same records for any other implementation
(``load_related``).
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Optional

BUG, DEFINITION = "bug", "definition difference"


@dataclass(frozen=True)
class Related:
    repository: str  # "nltk/nltk"
    number: int
    kind: str  # "issue" | "pull request"
    title: str
    state: str  # "open" | "closed" | "merged"
    year: Optional[int] = None
    #: the release that fixed it, "" when merged but in no release yet, None when not a fix
    fixed_in: Optional[str] = None
    #: the families it is about (empty: the function in general)
    families: tuple = ()
    note: str = ""  # one sentence: what it says that matters here
    #: short lines of its thread, verbatim, that support ``note``: ((who wrote it, the line), ...)
    quotes: tuple = ()

    @property
    def url(self) -> str:
        return f"https://github.com/{self.repository}/{'pull' if self.kind == 'pull request' else 'issues'}/{self.number}"

    def to_dict(self) -> dict:
        d = asdict(self)
        d["families"] = list(self.families)
        d["quotes"] = [list(q) for q in self.quotes]
        d["url"] = self.url
        return d


@dataclass(frozen=True)
class Gate:
    """One formatter or linter a library's repository runs on a change: ``argv`` is run from
    the root of a copy of the repository's layout (``{file}``: the patched file there), in the
    mode that rewrites the file, as pre-commit runs it; it passes when it exits 0 and leaves
    the file unchanged.  A ``pattern`` gate (pre-commit's pygrep hooks) fails on a line
    matching the regular expression."""

    name: str  # "black"
    argv: tuple = ()  # ("black", "{file}"): the first word is the tool's command
    requirement: str = ""  # the pip requirement the configuration pins ("black==25.11.0")
    pattern: str = ""
    configured: str = ""  # where the repository configures it, with its pin


@dataclass(frozen=True)
class Gates:
    """A library's gates, as its repository configures them."""

    where: str  # the configuration read (file, commit)
    gates: tuple  # Gate, in the order the configuration runs them
    #: the configuration files the tools read, written at the root of the copy
    config_files: dict = field(default_factory=dict)
    #: the module's directory inside the repository, above the package ("src" for torchmetrics)
    layout: str = ""
    #: (hook, why) configured hooks that are not run on a patch
    not_run: tuple = ()
    #: further pip requirements the tools need (a TOML reader)
    extras: tuple = ()

    def requirements(self) -> list[str]:
        return sorted({g.requirement for g in self.gates if g.requirement} | set(self.extras))

    def to_dict(self) -> dict:
        return {"where": self.where, "gates": [g.name for g in self.gates], "not_run": [list(n) for n in self.not_run]}


@dataclass(frozen=True)
class Documented:
    where: str  # "nltk/translate/chrf_score.py, the docstrings of sentence_chrf and corpus_chrf"
    quotes: tuple  # the documentation's own words, verbatim
    definition: str  # what that makes the claimed definition, in one sentence

    def to_dict(self) -> dict:
        return {"where": self.where, "quotes": list(self.quotes), "definition": self.definition}


@dataclass(frozen=True)
class FamilyNote:
    kind: str  # BUG | DEFINITION
    title: str  # the issue title after "<library> <function>: " (names chrF and the symptom)
    function: str  # the library's function the repro calls ("sentence_chrf")
    lead: str  # the first paragraph: bug against the documentation, or definition difference
    consequence: str
    #: a definition difference: the sentence on changing the default (the patch keeps it)
    default_change: str = ""
    #: the keyword the opt-in patch adds and its opt-in value, e.g. ("effective_order", True)
    option: Optional[tuple] = None
    related: tuple = ()  # (repository, number) of the Related records it cites
    #: fixed upstream after the audited release: reported, not filed as new
    fixed_upstream: Optional[tuple] = None

    def to_dict(self) -> dict:
        d = asdict(self)
        d["related"] = [list(r) for r in self.related]
        d["option"] = list(self.option) if self.option else None
        d["fixed_upstream"] = list(self.fixed_upstream) if self.fixed_upstream else None
        return d


@dataclass(frozen=True)
class IssueNote:
    """The issue of a patch that fixes several families (each keeps its ``FamilyNote``): its
    title, first paragraph and consequence; ``combination``: what the patch's keywords are
    together (a named definition), and ``check``: a program that compares the patched
    library with that definition's implementation on random inputs (its output is recorded
    by the verification and printed in the issue)."""

    kind: str
    title: str
    function: str
    lead: str
    consequence: str
    default_change: str = ""
    combination: str = ""
    check: str = ""
    #: a fragment of a line of the check's output that says the claim holds
    check_holds: str = ""
    related: tuple = ()

    def to_dict(self) -> dict:
        d = asdict(self)
        d["related"] = [list(r) for r in self.related]
        return d


@dataclass(frozen=True)
class Knowledge:
    """Everything an upstream's record holds (``Upstream.knowledge``)."""

    documented: Optional[Documented] = None
    notes: dict = field(default_factory=dict)  # family -> FamilyNote
    related: tuple = ()  # Related records
    #: the claim names the audit uses -> the library's own parameter names ("char_order" -> "max_len")
    parameters: dict = field(default_factory=dict)
    #: distributions whose version matters for the findings ("regex", "torch")
    dependencies: tuple = ()
    #: the functions per level ("sentence": "sentence_chrf")
    functions: dict = field(default_factory=dict)
    #: family -> ((level, inputs), ...): issue repros to try when the audit's minimal repro
    #: does not hold after the family's patch alone (each checked by replay, before and after)
    repros: dict = field(default_factory=dict)
    #: the formatter and linters its repository runs (``Gates``), None: not known
    gates: Optional[Gates] = None
    #: the first family of a patch that fixes several -> the issue that patch is (``IssueNote``)
    issues: dict = field(default_factory=dict)


def related_for(knowledge: Knowledge, family: str) -> list[dict]:
    """The related records a family's note cites, then those about the family."""
    note = knowledge.notes.get(family)
    wanted = list(note.related) if note else []
    out = [r for key in wanted for r in knowledge.related if (r.repository, r.number) == tuple(key)]
    out += [r for r in knowledge.related if family in r.families and r not in out]
    return [r.to_dict() for r in out]


def load_related(path) -> list[dict]:
    """``--related FILE``: a JSON list of records (``repository``, ``number``, ``kind``,
    ``title``, ``state``, optional ``year``, ``fixed_in``, ``families``, ``note``, ``quotes``:
    [[who, line], ...]); a malformed file is one line, exit 2."""
    import json

    from ..errors import UsageError
    from ..files.textfiles import read_text

    text = read_text(path, "--related")
    try:
        data = json.loads(text)
    except ValueError as exc:
        raise UsageError(f"--related {path}: not JSON ({exc})") from None
    if not isinstance(data, list):
        raise UsageError(f"--related {path}: expected a JSON list of records")
    out = []
    for i, rec in enumerate(data, 1):
        if not isinstance(rec, dict):
            raise UsageError(f"--related {path}: record {i} is not an object")
        missing = [k for k in ("repository", "number", "kind", "title", "state") if k not in rec]
        if missing:
            raise UsageError(f"--related {path}: record {i} lacks {', '.join(missing)}")
        if isinstance(rec["number"], bool) or not isinstance(rec["number"], int) or rec["number"] < 1:
            raise UsageError(f"--related {path}: record {i}: number must be a positive integer")
        fams = rec.get("families", [])
        if not isinstance(fams, list) or not all(isinstance(f, str) for f in fams):
            raise UsageError(f"--related {path}: record {i}: families must be a list of family ids")
        extra = sorted(set(rec) - {"repository", "number", "kind", "title", "state", "year", "fixed_in",
                                   "families", "note", "quotes"})
        if extra:
            raise UsageError(f"--related {path}: record {i}: unknown key(s) {', '.join(extra)}")
        quotes = rec.get("quotes", [])
        if not isinstance(quotes, list) or not all(isinstance(q, list) and len(q) == 2 and all(isinstance(x, str) for x in q)
                                                   for q in quotes):
            raise UsageError(f"--related {path}: record {i}: quotes must be a list of [who, line] pairs of strings")
        out.append(Related(str(rec["repository"]), rec["number"], str(rec["kind"]), str(rec["title"]),
                           str(rec["state"]), rec.get("year"), rec.get("fixed_in"), tuple(fams),
                           str(rec.get("note", "")), tuple(tuple(q) for q in quotes)).to_dict())
    return out
