"""What nltk documents about its chrF, what its tracker (and sacreBLEU's) already says, and the
gates its repository runs on a change: the record the issue files cite (``records.Knowledge``).

The documented quotes are nltk 3.10.4's docstrings, verbatim.  Every related issue and pull
request was read on its tracker before it was written here (number, title, state, year), and
each carries lines of its thread quoted verbatim.  The gates are nltk's develop branch's
``.pre-commit-config.yaml`` (commit 00fabc8), its ``ruff.toml`` and the ``[isort]`` section of
the ``tox.ini`` nltk 3.10.4's sdist ships; its CI runs ``pytest --doctest-modules nltk``
(CONTRIBUTING.md), and the sdist ships no chrF unit test.
"""

from __future__ import annotations

from .nltk_patches import DEFINITION, DIVISOR, FAVG, MACRO, WS
from .records import BUG, DEFINITION as DEFINITION_DIFFERENCE, Documented, FamilyNote, Gate, Gates, IssueNote, \
    Knowledge, Related

NLTK, SACREBLEU = "nltk/nltk", "mjpost/sacrebleu"

#: nltk's ruff.toml (develop), verbatim but for its comments
_RUFF_TOML = '''\
target-version = "py310"

[lint]
ignore = ["E402", "E721", "E731", "E741", "F401", "F403", "F405", "F821", "F841"]

[lint.per-file-ignores]
"nltk/test/**" = ["F811"]
'''
_PRE_COMMIT = "nltk/nltk .pre-commit-config.yaml (develop, 00fabc8)"

GATES = Gates(
    where=f"{_PRE_COMMIT}, ruff.toml (develop, 152be06) and tox.ini [isort] (the 3.10.4 sdist's)",
    gates=(
        Gate("fix-byte-order-marker", ("fix-byte-order-marker", "{file}"), "pre-commit-hooks==6.0.0",
             configured=f"{_PRE_COMMIT}: pre-commit/pre-commit-hooks v6.0.0"),
        Gate("trailing-whitespace", ("trailing-whitespace-fixer", "{file}"), "pre-commit-hooks==6.0.0",
             configured=f"{_PRE_COMMIT}: pre-commit/pre-commit-hooks v6.0.0"),
        Gate("end-of-file-fixer", ("end-of-file-fixer", "{file}"), "pre-commit-hooks==6.0.0",
             configured=f"{_PRE_COMMIT}: pre-commit/pre-commit-hooks v6.0.0"),
        Gate("pyupgrade", ("pyupgrade", "--py310-plus", "{file}"), "pyupgrade==3.21.2",
             configured=f"{_PRE_COMMIT}: asottile/pyupgrade v3.21.2, --py310-plus"),
        Gate("black", ("black", "-q", "{file}"), "black==25.11.0", configured=f"{_PRE_COMMIT}: psf/black 25.11.0"),
        Gate("isort", ("isort", "-q", "--filter-files", "{file}"), "isort==6.1.0",
             configured=f"{_PRE_COMMIT}: pycqa/isort 6.1.0, --filter-files; tox.ini [isort] profile=black"),
        Gate("ruff", ("ruff", "check", "--fix", "-q", "{file}"), "ruff==0.15.6",
             configured=f"{_PRE_COMMIT}: astral-sh/ruff-pre-commit v0.15.6, --fix; ruff.toml"),
    ),
    config_files={"ruff.toml": _RUFF_TOML, "tox.ini": "[isort]\nprofile=black\n"},
    not_run=(("requirements-txt-fixer, check-yaml", "no requirements or YAML file is patched"),
             ("nltk's local hooks (tools/check_*.py: regex through nltk.redos, sandboxed open, pickle, eval, print, "
              "CSV, JSON)", "repository scripts the sdist does not ship")),
)

#: corpus_chrf against sacreBLEU's CHRF on random corpora (the DEFINITION issue's check): run
#: by the verification on the patched copy, its output printed in the issue
CHECK = '''\
# corpus_chrf against sacreBLEU's CHRF at nltk's parameters (max_len=6, beta=3) on 300 random
# corpora of 1 to 3 sentences; it needs the patched nltk and sacrebleu
import random

from nltk.translate.chrf_score import corpus_chrf
from sacrebleu.metrics import CHRF

sacrebleu = {"CHRF()": CHRF(char_order=6, word_order=0, beta=3),
             "CHRF(eps_smoothing=True)": CHRF(char_order=6, word_order=0, beta=3, eps_smoothing=True)}
rng = random.Random(0)
texts = lambda k: ["".join(rng.choice("ab c") for _ in range(rng.randrange(13))) for _ in range(k)]
corpora = [(texts(k), texts(k)) for k in (rng.randrange(1, 4) for _ in range(300))]
for kw in ({"effective_order": True}, {"order_average": "precision_recall"}, {"average": "micro"},
           {"effective_order": True, "order_average": "precision_recall", "average": "micro"}):
    gaps = [[abs(100 * corpus_chrf(refs, hyps, **kw) - m.corpus_score(hyps, [refs]).score) for hyps, refs in corpora]
            for m in sacrebleu.values()]
    print(", ".join(f"{k}={v!r}" for k, v in kw.items()) + ": differs from " + " and ".join(
        f"{name} in {sum(g > 1e-9 for g in gap)} of {len(corpora)} (by up to {max(gap):.2f} points)"
        for name, gap in zip(sacrebleu, gaps)))
'''

KNOWLEDGE = Knowledge(
    documented=Documented(
        where="nltk/translate/chrf_score.py, the docstrings of sentence_chrf and corpus_chrf",
        quotes=(
            "The code should output results equivalent to running CHRF++ with the following options: -nw 0 -b 3",
            ":param ignore_whitespace: ignore whitespace characters in scoring",
            "Calculates the corpus level CHRF (Character n-gram F-score), it is the macro-averaged value of the "
            "sentence/segment level CHRF score.",
        ),
        definition="chrF as Popović's chrF++.py computes it with -nw 0 -b 3 (per-order F-scores averaged over "
                   "every order from min_len to max_len), with whitespace characters ignored, and the corpus score "
                   "the mean of the sentence scores (chrF++.py's avgF)",
    ),
    parameters={"char_order": "max_len", "beta": "beta", "whitespace": "ignore_whitespace (negated)"},
    dependencies=("regex",),
    functions={"sentence": "sentence_chrf", "corpus": "corpus_chrf"},
    # the minimal repro ("aaaaa" + U+001E against "aaaaaa") leaves 5 characters once fixed, so
    # the divisor starts to matter; with 6 on both sides every other family is inert
    repros={WS: (("sentence", {"hypothesis": "aaaaaa", "references": ["aaaaaa\u001e"]}),
                 ("corpus", {"hypotheses": ["aaaaaa"], "references": [["aaaaaa\u001e"]]})),
           # two segments of different length, each scoring 100 or nothing: only the averaging differs
           MACRO: (("corpus", {"hypotheses": ["aaaaaa", ""], "references": [["aaaaaa"], [""]]}),)},
    gates=GATES,
    related=(
        Related(NLTK, 2069, "pull request", "Chrf bug fixes", "merged", 2018, families=(DIVISOR, FAVG, MACRO),
                note="made nltk's chrF follow chrF++.py (macro averages over the orders and over the sentences); its "
                     "review proposed the `average=` keyword this patch adds and agreed that the micro average would "
                     "make the better default, which the merged code did not do",
                quotes=(("ales-t", "I changed the implementation, now it outputs identical results for all the test "
                                   "examples in the source file."),
                        ("alvations", "Regarding macro vs micro average, we can do better than the original "
                                      "implementation by allowing a parameter with `average=\"macro\"` as default."),
                        ("ales-t", "Based on your comments and the code, it now seems to me that micro average would "
                                   "make more sense as the default."))),
        Related(NLTK, 3577, "pull request", "fix(translate): guard ZeroDivisionError in corpus_chrf, sentence_ribes "
                "and corpus_ribes on empty inputs", "open", 2026, families=(DIVISOR, FAVG, MACRO),
                note="overlaps this issue's patch in corpus_chrf: it returns 0.0 for an empty corpus before the "
                     "division by the number of sentences, a division the patch's branch for the new keywords makes "
                     "too; whichever is merged second puts the guard before both",
                quotes=(("faizzyhon", "early-return `0.0` when `num_sents == 0`"),)),
        Related(NLTK, 3833, "pull request", "Route nltk.translate regexes through nltk.redos (CWE-1333/CWE-400)",
                "merged", 2026, families=(WS,),
                note="routed chrf_score.py's `re.sub` through nltk.redos, which runs the regex module, whose `\\s` "
                     "lacks U+001C..U+001F: the change 3.10.4 brought",
                quotes=(("alvations", "No behaviour change: the same patterns are compiled and matched, only the DoS "
                                      "bound is added."),)),
        Related(SACREBLEU, 121, "issue", "Sentence CHRF silently accepts single reference as string", "closed", 2021,
                families=(DIVISOR,),
                note="where the effective-order versus 1e-16 smoothing difference between sacreBLEU and chrF++.py "
                     "was found",
                quotes=(("martinpopel", "The current chrF++ implementation does not compute the effective order"),)),
        Related(SACREBLEU, 144, "issue", "chrF not compatible with chrF++, Moses and NLTK for sentence-level "
                "smoothing", "closed", 2021, families=(DIVISOR,),
                note="sacreBLEU's maintainers on the same difference; sacreBLEU 2.0 added CHRF(eps_smoothing=True) "
                     "for chrF++.py's and nltk's smoothing and kept effective orders as its default",
                quotes=(("ozancaglayan", "To summarize, sacreBLEU applies effective order smoothing whereas others "
                                         "smooth with small value `eps`."),)),
    ),
    issues={
        DEFINITION[0]: IssueNote(
            kind=DEFINITION_DIFFERENCE, function="sentence_chrf and corpus_chrf",
            title="three documented differences from sacreBLEU's chrF, and opt-in keywords that give sacreBLEU's "
                  "scores",
            lead="These are definition differences, not bugs against nltk's documentation: its docstring promises "
                 "\"results equivalent to running CHRF++ with the following options: -nw 0 -b 3\" and a "
                 "macro-averaged corpus score, and nltk computes them. sacreBLEU's default CHRF(), the chrF most "
                 "papers report, differs from that definition in three ways, each shown below with its repro. The "
                 "patch adds a keyword for each, every default keeping today's scores; each keyword's docstring "
                 "says what it computes alone, and the docstrings recommend the combination that is sacreBLEU's "
                 "chrF.",
            consequence="nltk's scores cannot be compared with the chrF papers report from sacreBLEU: an output "
                        "shorter than max_len characters is deflated, most scores differ by a fraction of a point, "
                        "and a corpus score weighs every sentence the same whatever its length.",
            default_change="Making sacreBLEU's behaviour the default would change nearly every score and break the "
                           "promise of chrF++.py's results, so the patch keeps the defaults; the review of nltk PR "
                           "#2069 (below) leaned towards the micro average as the corpus default, which a later "
                           "release could adopt.",
            combination="`effective_order=True, order_average=\"precision_recall\"` (and `average=\"micro\"` for "
                        "corpus_chrf): sacreBLEU's `CHRF(char_order=max_len, word_order=0, beta=beta)`",
            check=CHECK,
            check_holds="average='micro': differs from CHRF() in 0 of 300 ",
            related=((NLTK, 2069), (SACREBLEU, 144), (SACREBLEU, 121), (NLTK, 3577))),
    },
    notes={
        DIVISOR: FamilyNote(
            kind=DEFINITION_DIFFERENCE, function="sentence_chrf",
            title="chrF of an output shorter than max_len is averaged over all max_len orders, up to 6x below "
                  "sacreBLEU's default",
            lead="sentence_chrf averages the per-order F-scores over every order from min_len to max_len, as "
                 "chrF++.py (and sacreBLEU's CHRF(eps_smoothing=True)) does; sacreBLEU's default CHRF() averages "
                 "over the orders with n-grams on both sides only, so an output shorter than max_len characters "
                 "(after whitespace removal) scores lower here, a correct one-character output a max_len-th of "
                 "sacreBLEU's value.",
            consequence="Short outputs (single words, labels, numbers) are deflated against sacreBLEU's default; "
                        "outputs of max_len characters or more are not affected.",
            option=("effective_order", True), related=((SACREBLEU, 144), (SACREBLEU, 121), (NLTK, 2069))),
        FAVG: FamilyNote(
            kind=DEFINITION_DIFFERENCE, function="sentence_chrf",
            title="chrF averages the per-order F-scores, where sacreBLEU's default averages precision and recall",
            lead="sentence_chrf computes an F-score per order and averages them, as chrF++.py does; sacreBLEU's "
                 "default CHRF() averages precision and recall over the orders and combines them into one F-score. "
                 "Wherever precision and recall differ across orders the two differ, usually by a fraction of a "
                 "point.",
            consequence="nltk's scores cannot be compared with sacreBLEU's to the decimals papers report.",
            option=("order_average", "precision_recall"), related=((NLTK, 2069),)),
        MACRO: FamilyNote(
            kind=DEFINITION_DIFFERENCE, function="corpus_chrf",
            title="corpus chrF is the mean of the sentence scores, not the score of the summed n-gram statistics",
            lead="corpus_chrf is \"the macro-averaged value of the sentence/segment level CHRF score\" (chrF++.py's "
                 "avgF), as documented; sacreBLEU (and chrF++.py's own document-level score) sums the n-gram "
                 "statistics over the corpus and scores them once, so here every sentence weighs the same whatever "
                 "its length.",
            consequence="Corpus scores differ from sacreBLEU's, and system rankings can change.",
            option=("average", "micro"), related=((NLTK, 2069), (NLTK, 3577))),
        WS: FamilyNote(
            kind=BUG, function="sentence_chrf",
            title="chrF with ignore_whitespace=True scores U+001C..U+001F as characters",
            lead="This breaks what nltk documents: ignore_whitespace is \"ignore whitespace characters in "
                 "scoring\", and U+001C..U+001F are whitespace to Python (str.isspace(), str.split() and the re "
                 "module's \\s). _preprocess removes whitespace with redos.sub(r\"\\s+\", \"\", sent), which runs "
                 "the regex module, whose \\s lacks these four characters: they stay in the text and are scored.",
            consequence="A text holding one of them scores lower than the same text without it, as the repro "
                        "below shows.",
            related=((NLTK, 3833),)),
    },
)
