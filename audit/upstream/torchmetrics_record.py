"""What torchmetrics documents about its chrF, what its tracker already says, and the gates its
repository runs on a change (the record the issue files cite, ``records.Knowledge``).

The quotes are torchmetrics 1.9.0's source, verbatim; each related issue and pull request was
read on the tracker before it was written here, with lines of its thread quoted verbatim.  The
gates are the ``.pre-commit-config.yaml`` and ``pyproject.toml`` of the v1.9.0 tag (commit
700261d; unchanged on master at 2026-08-21 but for a docformatter interpreter pin); the sdist
ships neither them nor a chrF unit test, so the patched module's doctests are its tests here.
"""

from __future__ import annotations

from .records import BUG, DEFINITION, Documented, FamilyNote, Gate, Gates, Knowledge, Related

TM = "Lightning-AI/torchmetrics"
HYP, UNMATCHED, FLOAT = ("hypothesis-ngrams-where-reference-has-none", "unmatched-segment-reference-dropped",
                         "float32-arithmetic")

#: the settings of pyproject.toml (v1.9.0) the tools read: [tool.ruff], [tool.codespell],
#: [tool.docformatter], their values verbatim without the comments
_PYPROJECT = '''\
[tool.ruff]
target-version = "py39"
line-length = 120
format.preview = true
lint.select = ["D", "E", "F", "I", "N", "S", "UP", "W"]
lint.extend-select = ["A", "ANN", "B", "C4", "EXE", "ISC", "PERF", "PIE", "PLE", "PT", "PYI", "Q", "RET", "RUF",
                      "SIM", "T10", "TID", "YTT"]
lint.ignore = ["D100", "D104", "D107", "E731", "EXE002", "ISC001"]
lint.per-file-ignores."src/**" = ["ANN401", "S310", "UP006", "UP035"]
lint.mccabe.max-complexity = 10
lint.pydocstyle.convention = "google"

[tool.codespell]
quiet-level = 3
ignore-words-list = "rouge, mape, wil, fpr, raison, archiv, lins"

[tool.docformatter]
recursive = true
wrap-summaries = 119
wrap-descriptions = 120
blank = true
'''
_PRE_COMMIT = "Lightning-AI/torchmetrics .pre-commit-config.yaml (v1.9.0)"
_HOOKS = f"{_PRE_COMMIT}: pre-commit/pre-commit-hooks v5.0.0"
_PYGREP = f"{_PRE_COMMIT}: pre-commit/pygrep-hooks v1.10.0"

GATES = Gates(
    where=f"{_PRE_COMMIT} and pyproject.toml (v1.9.0, 700261d)",
    layout="src",
    gates=(
        Gate("end-of-file-fixer", ("end-of-file-fixer", "{file}"), "pre-commit-hooks==5.0.0", configured=_HOOKS),
        Gate("trailing-whitespace", ("trailing-whitespace-fixer", "{file}"), "pre-commit-hooks==5.0.0",
             configured=_HOOKS),
        Gate("check-docstring-first", ("check-docstring-first", "{file}"), "pre-commit-hooks==5.0.0",
             configured=_HOOKS),
        Gate("codespell", ("codespell", "--write-changes", "{file}"), "codespell==2.4.1",
             configured=f"{_PRE_COMMIT}: codespell-project/codespell v2.4.1, --write-changes; [tool.codespell]"),
        Gate("docformatter", ("docformatter", "--in-place", "{file}"), "docformatter==1.7.7",
             configured=f"{_PRE_COMMIT}: PyCQA/docformatter v1.7.7, --in-place; [tool.docformatter]"),
        # pre-commit's pygrep hooks: a regular expression searched line by line
        Gate("python-check-blanket-noqa", pattern=r"(?i)# noqa(?!: )", configured=_PYGREP),
        Gate("python-no-log-warn", pattern=r"(?<!warnings)\.warn\(", configured=_PYGREP),
        Gate("text-unicode-replacement-char", pattern="\ufffd", configured=_PYGREP),
        Gate("ruff", ("ruff", "check", "--fix", "-q", "{file}"), "ruff==0.12.2",
             configured=f"{_PRE_COMMIT}: astral-sh/ruff-pre-commit v0.12.2, ruff --fix; [tool.ruff]"),
        Gate("ruff-format", ("ruff", "format", "-q", "{file}"), "ruff==0.12.2",
             configured=f"{_PRE_COMMIT}: astral-sh/ruff-pre-commit v0.12.2, ruff-format (preview); [tool.ruff]"),
    ),
    config_files={"pyproject.toml": _PYPROJECT},
    extras=("tomli",),  # docformatter and codespell read pyproject.toml through it
    not_run=(("python-check-mock-methods", "the patch adds no mock"),
             ("check-yaml, check-toml, prettier, mdformat, sphinx-lint, pyproject-fmt, validate-pyproject, "
              "check-executables-have-shebangs, check-case-conflict, check-added-large-files, detect-private-key",
              "no such file is patched")),
)

KNOWLEDGE = Knowledge(
    documented=Documented(
        where="torchmetrics/functional/text/chrf.py, its header and the chrf_score docstring",
        quotes=(
            "The code is derived from https://github.com/m-popovic/chrF/blob/6d3c384/chrF%2B%2B.py",
            "This implementation follows the implementations from https://github.com/m-popovic/chrF and "
            "https://github.com/mjpost/sacrebleu/blob/master/sacrebleu/metrics/chrf.py.",
        ),
        definition="chrF/chrF++ as Popović's chrF++.py and sacreBLEU compute it (the corpus score from the "
                   "n-gram statistics summed over the segments)",
    ),
    parameters={"char_order": "n_char_order", "word_order": "n_word_order", "beta": "beta",
                "lowercase": "lowercase", "whitespace": "whitespace"},
    dependencies=("torch",),
    functions={"sentence": "chrf_score", "corpus": "CHRFScore"},
    gates=GATES,
    related=(
        Related(TM, 3480, "issue", "chrF drops the reference n-grams of a zero-scoring sentence, inflating the "
                "corpus score", "closed", 2026, families=(UNMATCHED, HYP),
                note="reports unmatched-segment-reference-dropped, reported after 1.9.0; it names the unconditional "
                     "addition of the hypothesis n-grams this issue is about, for a segment that matches nothing only",
                quotes=(("Kayvan-Zahiri", "`chrf_score` and `CHRFScore` throw away a sentence's reference n-grams "
                                          "whenever the hypothesis shares no character or word n-gram with any of "
                                          "its references."),
                        ("Kayvan-Zahiri", "while still adding the hypothesis n-grams unconditionally"))),
        Related(TM, 3481, "pull request", "Fix chrF dropping the reference n-grams of a zero-scoring sentence",
                "merged", 2026, fixed_in="", families=(UNMATCHED, HYP),
                note="fixes unmatched-segment-reference-dropped by keeping the first reference when none scores "
                     "above 0 (1.9.0 is the newest release on the package index); on a torchmetrics with it, the "
                     "patch below's `else` branch (the first reference's orders when no reference matches) "
                     "recomputes what the chosen reference then already is, and can go",
                quotes=(("Kayvan-Zahiri", "The fix keeps the first reference unconditionally, which is what "
                                          "sacrebleu does with its `best_f_score = -1.0` sentinel."),)),
    ),
    notes={
        HYP: FamilyNote(
            kind=BUG, function="CHRFScore",
            title="corpus chrF counts a segment's hypothesis n-grams of orders its reference has none of",
            lead="This breaks what torchmetrics documents: its chrF is \"derived from\" chrF++.py and \"follows\" "
                 "chrF++.py and sacreBLEU, and both add a segment's hypothesis n-grams to the corpus totals only "
                 "for the orders its chosen reference has n-grams of; torchmetrics adds them for every order, so "
                 "corpus precision drops. It shows in chrF (n_word_order=0) and chrF++ (n_word_order=2) alike: "
                 "one repro for each below.",
            consequence="Every segment whose reference is shorter than an order it scores (short references: one "
                        "word, a number) lowers the corpus precision of that order, so the corpus score is too low.",
            related=((TM, 3481), (TM, 3480))),
        UNMATCHED: FamilyNote(
            kind=BUG, function="CHRFScore",
            title="corpus chrF drops the reference n-grams of a segment that matches no reference",
            lead="This breaks what torchmetrics documents (chrF++.py's and sacreBLEU's corpus statistics).",
            consequence="Corpus recall is inflated by every segment that matches none of its references.",
            fixed_upstream=(TM, 3481)),
        FLOAT: FamilyNote(
            kind=DEFINITION, function="chrf_score",
            title="chrF is computed in float32",
            lead="A definition difference of arithmetic: torchmetrics computes in float32 tensors, where "
                 "chrF++.py and sacreBLEU compute in float64.",
            consequence="Scores differ from chrF++.py's by about 1e-7 relative."),
    },
)
