"""audit.files.textfiles, audit.impact and ``chrf-audit impact`` on small temporary files."""

from __future__ import annotations

import json
import random
from types import SimpleNamespace

import numpy as np
import pytest

from reference_impl import ChrfParams, corpus_score, sentence_score
from audit import cli
from audit.commands import impact as impact_cmd
from audit.enrich import enrich
from audit.errors import UsageError
from audit.impact import ranks, run_impact
from audit.files.textfiles import check_same_length, read_segments

WORDS = ("Der Hund sah die Katze auf der Matte , und dann lief er schnell nach Hause . "
         "Ein 28-jähriger Koch wurde heute in San Francisco gesehen !").split()


def _sentences(rng: random.Random, n: int) -> list[str]:
    return [" ".join(rng.choice(WORDS) for _ in range(rng.randint(3, 12))) for _ in range(n)]


def _noisy(rng: random.Random, refs: list[str], keep: float) -> list[str]:
    out = []
    for r in refs:
        toks = [t if rng.random() < keep else rng.choice(WORDS) for t in r.split()]
        out.append(" ".join(toks))
    return out


class StubAdapter:
    """A stand-in implementation: macro-average of exact sentence scores (like nltk's
    corpus_chrf) or, with ``additive=False``, the exact corpus score plus a small
    length-dependent error (not decomposable into segment scores)."""

    def __init__(self, additive=True, params=None):
        self.name = "stub" if additive else "stub-nonadditive"
        self._params = params or ChrfParams.make()
        self.claims = SimpleNamespace(params=lambda: self._params, scale=100)
        self.supports = SimpleNamespace(corpus=True, sentence=True, multi_reference=True)
        self.additive = additive
        self.closed = False
        self.calls = 0

    def corpus_scores(self, items):
        self.calls += 1
        p = self._params
        kw = dict(char_order=p.char_order, word_order=p.word_order, beta=p.beta,
                  definition=p.definition)
        out = []
        for hyps, refs in items:
            if self.additive:
                v = float(np.mean([sentence_score(h, r, **kw).score_float for h, r in zip(hyps, refs)]))
            else:
                v = corpus_score(hyps, refs, **kw).score_float + 0.01 * len(hyps) ** 0.5
            out.append(SimpleNamespace(kind="value", value=v, detail=""))
        return out

    def close(self):
        self.closed = True


@pytest.fixture
def corpus(tmp_path):
    rng = random.Random(42)
    refs = _sentences(rng, 40)
    files = {"ref.txt": refs, "good.txt": _noisy(rng, refs, 0.9),
             "mid.txt": _noisy(rng, refs, 0.6), "bad.txt": _noisy(rng, refs, 0.2)}
    paths = {}
    for name, lines in files.items():
        path = tmp_path / name
        path.write_text("\n".join(lines) + "\n", encoding="utf-8")
        paths[name] = path
    return paths, files


def _main(argv, monkeypatch, adapter):
    monkeypatch.setattr(cli, "COMMANDS", ["impact"])
    monkeypatch.setattr(impact_cmd, "_resolve_adapter", lambda args: adapter)
    return cli.main(["impact", *map(str, argv)])


# --------------------------------------------------------------------------- textfiles


def test_read_segments_strips_only_the_terminator(tmp_path):
    p = tmp_path / "t.txt"
    p.write_bytes("\ufeff  a b \r\n\tc\u00a0\n\nlast".encode("utf-8"))
    assert read_segments(p) == ["  a b ", "\tc\u00a0", "", "last"]
    p.write_bytes(b"one\ntwo\n")
    assert read_segments(p) == ["one", "two"]
    p.write_bytes(b"cr\rinside\n")
    assert read_segments(p) == ["cr\rinside"]


def test_read_segments_errors_name_file_line_and_column(tmp_path):
    p = tmp_path / "sys.txt"
    p.write_bytes(b"ok\n" * 16 + b"abc\xffdef\nmore\n")
    with pytest.raises(UsageError, match=r"sys\.txt line 17: invalid UTF-8 \(byte 0xff at column 4\)"):
        read_segments(p)
    with pytest.raises(UsageError, match="no such file"):
        read_segments(tmp_path / "missing.txt")
    with pytest.raises(UsageError, match="directory"):
        read_segments(tmp_path)


def test_check_same_length():
    assert check_same_length({"a": ["x", "y"], "b": ["1", "2"]}) == 2
    with pytest.raises(UsageError, match=r"b\.txt has 1 line but a\.txt has 2 lines"):
        check_same_length({"a.txt": ["x", "y"], "b.txt": ["1"]})
    with pytest.raises(UsageError, match="empty"):
        check_same_length({"a.txt": [], "b.txt": []})


# --------------------------------------------------------------------------- impact


def test_ranks():
    assert ranks([3.0, 1.0, 3.0, None, 2.0]) == [1, 4, 1, None, 3]


def test_impact_ok_path_table_and_json(corpus, tmp_path, monkeypatch, capsys):
    paths, files = corpus
    stub = StubAdapter()
    out = tmp_path / "impact.json"
    rc = _main(["--ref", paths["ref.txt"], paths["good.txt"], paths["mid.txt"], paths["bad.txt"],
                "--resamples", 200, "--seed", 3, "--json", out], monkeypatch, stub)
    assert rc == 0
    text = capsys.readouterr().out
    for name in ("good.txt", "mid.txt", "bad.txt", "reference [95% CI]", "stub"):
        assert name in text
    # run's and check's width (100 columns off a terminal), not 160 (issue 29 item 16)
    assert max(len(line) for line in text.splitlines()) <= 100
    data = json.loads(out.read_text(encoding="utf-8"))
    assert data["schema_version"] == 1 and data["kind"] == "impact"
    assert data["implementation"] == "stub" and data["segments"] == 40
    systems = {s["name"]: s for s in data["systems"]}
    refs = [[r] for r in files["ref.txt"]]
    for name in ("good.txt", "mid.txt", "bad.txt"):
        exact = corpus_score(files[name], refs).score_float
        s = systems[name]
        assert s["reference_score"] == pytest.approx(exact, abs=1e-9)
        assert s["ci_low"] <= exact <= s["ci_high"]
        assert s["difference"] == pytest.approx(s["implementation_score"] - exact)
    assert [systems[n]["rank_reference"] for n in ("good.txt", "mid.txt", "bad.txt")] == [1, 2, 3]
    assert len(data["pairs"]) == 3
    assert data["implementation_significance"].startswith("paired permutation")
    for p in data["pairs"]:
        assert 0 < p["reference_p"] <= 1 and 0 < p["implementation_p"] <= 1
    # well separated systems: every call significant, in the same direction, nothing changes
    assert all(p["reference_call"] == "a>b" for p in data["pairs"])
    assert data["changed_pairs"] == []
    assert stub.closed  # the command closes the adapter it resolved


def test_impact_is_deterministic(corpus):
    paths, files = corpus
    refs = [[r] for r in files["ref.txt"]]
    systems = {k: files[k] for k in ("good.txt", "mid.txt")}
    a = run_impact(systems, refs, StubAdapter(), resamples=100, seed=1).to_dict()
    b = run_impact(systems, refs, StubAdapter(), resamples=100, seed=1).to_dict()
    assert a == b


def test_non_decomposable_implementation_gets_ranking_only(corpus):
    paths, files = corpus
    refs = [[r] for r in files["ref.txt"]]
    systems = {k: files[k] for k in ("good.txt", "mid.txt", "bad.txt")}
    res = run_impact(systems, refs, StubAdapter(additive=False), resamples=100)
    assert res.implementation_significance.startswith("none")
    assert any("not the mean of its segment scores" in n for n in res.notes)
    assert all(p.implementation_p is None for p in res.pairs)
    assert all(s.difference == pytest.approx(0.01 * 40 ** 0.5) for s in res.systems)


def test_reversal_of_a_significant_call_is_reported(corpus):
    paths, files = corpus
    refs = [[r] for r in files["ref.txt"]]

    class Reversing(StubAdapter):
        def corpus_scores(self, items):
            outs = super().corpus_scores(items)
            return [SimpleNamespace(kind="value", value=100 - o.value, detail="") for o in outs]

    systems = {k: files[k] for k in ("good.txt", "bad.txt")}
    res = run_impact(systems, refs, Reversing(additive=False), resamples=100)
    (pair,) = res.pairs
    assert pair.reference_call == "a>b" and pair.implementation_call == "a<b"
    assert pair.changed and "reverses" in pair.change
    assert [s.rank_implementation for s in res.systems] == [2, 1]


def test_impact_invalid_utf8_exit_2_names_file_and_line(corpus, monkeypatch, capsys):
    paths, _ = corpus
    bad = paths["mid.txt"]
    lines = bad.read_bytes().split(b"\n")
    lines[2] = b"abc\xffdef"
    bad.write_bytes(b"\n".join(lines))
    rc = _main(["--ref", paths["ref.txt"], paths["good.txt"], bad], monkeypatch, StubAdapter())
    assert rc == 2
    err = capsys.readouterr().err
    assert "mid.txt line 3: invalid UTF-8 (byte 0xff at column 4)" in err
    assert "Traceback" not in err and len(err.strip().splitlines()) == 1


def test_impact_mismatched_counts_exit_2_names_both(corpus, monkeypatch, capsys):
    paths, files = corpus
    short = paths["bad.txt"]
    short.write_text("\n".join(files["bad.txt"][:37]) + "\n", encoding="utf-8")
    rc = _main(["--ref", paths["ref.txt"], paths["good.txt"], short], monkeypatch, StubAdapter())
    assert rc == 2
    err = capsys.readouterr().err
    assert "bad.txt has 37 lines" in err and "ref.txt has 40 lines" in err


def test_impact_bad_statistics_flags_exit_2(corpus, monkeypatch, capsys):
    paths, _ = corpus
    rc = _main(["--ref", paths["ref.txt"], paths["good.txt"], "--alpha", 2], monkeypatch, StubAdapter())
    assert rc == 2 and "--alpha" in capsys.readouterr().err


def test_impact_with_the_real_nltk_adapter(corpus, tmp_path, capsys):
    paths, files = corpus
    out = tmp_path / "nltk.json"
    import argparse  # a parser with only this command: cli may list commands still in progress

    parser = argparse.ArgumentParser()
    sub = parser.add_subparsers()
    impact_cmd.register(sub)
    ns = parser.parse_args(["impact", "--ref", str(paths["ref.txt"]), str(paths["good.txt"]),
                            str(paths["bad.txt"]), "--resamples", "100", "--json", str(out),
                            "--timeout", "60"])
    assert ns.func(ns) == 0
    data = json.loads(out.read_text(encoding="utf-8"))
    assert data["implementation"] == "nltk"
    assert "beta:3" in data["reference_signature"]
    # nltk's corpus_chrf is a macro-average of its sentence scores: exact AR is used
    assert data["implementation_significance"].startswith("paired permutation")


# --------------------------------------------------------------------------- impact study (run --impact-data)


def _write_corpus_dir(tmp_path, files):
    d = tmp_path / "data"
    d.mkdir()
    for name, lines in files.items():
        target = "reference.txt" if name == "ref.txt" else name
        (d / target).write_text("\n".join(lines) + "\n", encoding="utf-8")
    (d / "README.md").write_text("not a system\n", encoding="utf-8")
    return d


def test_load_impact_data_and_closest_systems(corpus, tmp_path):
    from audit.impact import closest_systems, load_impact_data

    _, files = corpus
    d = _write_corpus_dir(tmp_path, files)
    systems, refs = load_impact_data(d)
    assert list(systems) == ["bad", "good", "mid"] and len(refs) == 40 and refs[0] == [files["ref.txt"][0]]
    with pytest.raises(UsageError, match="no reference.txt"):
        load_impact_data(tmp_path)
    scores = {"a": 60.0, "b": 55.0, "c": 54.5, "d": 40.0, "e": 54.9}
    assert closest_systems(scores, None) == ["a", "b", "e", "c", "d"]
    assert closest_systems(scores, 3) == ["b", "e", "c"]
    assert closest_systems(scores, 2) == ["b", "e"]
    assert closest_systems(scores, 9) == ["a", "b", "e", "c", "d"]


def test_family_model_and_attribution_is_exact(corpus):
    from audit.impact import attribute_families, family_model

    _, files = corpus
    params = ChrfParams.make()
    assert family_model("corpus-macro-average", params)[1].macro
    assert family_model("whitespace-set-ascii", params)[0].ws == "whitespace-set-ascii"
    assert family_model("unicode-normalization", params) is None and family_model("crash", params) is None
    refs = [[r] for r in files["ref.txt"]]
    systems = {n: files[n] for n in ("good.txt", "mid.txt", "bad.txt")}
    impl = {n: float(np.mean([sentence_score(h, r).score_float for h, r in zip(hyps, refs)]))
            for n, hyps in systems.items()}  # the stub: a macro-average
    by_family, check = attribute_families(systems, refs, params, ["corpus-macro-average", "crash"], impl)
    assert check["complete"] is False and check["reproduces"] is None
    assert by_family["crash"]["attributed"] is False
    fam = by_family["corpus-macro-average"]
    assert fam["level"] == "corpus" and fam["segments_affected"] is None and fam["segments_total"] == 120
    for row in fam["systems"]:
        assert row["alone_score"] == pytest.approx(impl[row["name"]], abs=1e-9)
    by_family, check = attribute_families(systems, refs, params, ["corpus-macro-average"], impl)
    assert check["complete"] and check["reproduces"] and check["max_abs_error"] < 1e-9
    rows = by_family["corpus-macro-average"]["systems"]
    assert all(r["contribution"] == pytest.approx(r["alone_difference"]) for r in rows)


def _stub_result(name="stub", families=("corpus-macro-average",)):
    from audit.findings import AdapterSummary, AuditResult, Finding, Repro

    def finding(fam):
        repro = Repro(level="corpus", inputs={"hypotheses": ["a", "ab"], "references": [["a"], ["ac"]]},
                      expected=100 / 3, expected_fraction="100/3", actual=62.5, actual_raw="62.5", outcome="value")
        return Finding(implementation=name, family=fam, level="corpus", title="", claims={"beta": 2},
                       reference_signature="sig", implementation_signature="impl", minimal=repro,
                       explanation=[fam])

    return AuditResult(seed=0, max_examples=1, tolerance=1e-9, adapters=[
        AdapterSummary(name, None, {"beta": 2}, "sig", examples=1, findings=[finding(f) for f in families]),
        AdapterSummary("clean", None, {"beta": 2}, "sig", examples=1),
    ])


def test_impact_study_in_reports_markdown_and_schema(corpus, tmp_path):
    import jsonschema
    from audit.impact import skipped_record, study
    from audit.commands.writing import write_reports
    from audit.render import SCHEMA_PATH

    _, files = corpus
    d = _write_corpus_dir(tmp_path, files)
    from audit.impact import load_impact_data

    systems, refs = load_impact_data(d)
    rec = study(StubAdapter(), ["corpus-macro-average"], systems, refs, data="data", resamples=100, seed=1)
    assert rec["kind"] == "impact" and rec["status"] == "done" and rec["systems_studied"] == 3
    assert rec["model_check"]["reproduces"] is True
    assert rec["implementation_significance"].startswith("paired permutation")
    impact = {"stub": rec, "clean": skipped_record("clean", "no finding")}
    result = _stub_result()
    paths_a = write_reports(enrich(result, impact=impact), tmp_path / "a")
    paths_b = write_reports(enrich(result, impact=impact), tmp_path / "b")
    for pa, pb in zip(paths_a, paths_b):
        assert pa.read_bytes() == pb.read_bytes(), pa.name
    md = (tmp_path / "a" / "stub.md").read_text(encoding="utf-8")
    assert "## Impact on a corpus" in md and "### Systems" in md and "### Pairwise comparisons" in md
    assert ("Conclusions change" in md) or ("No conclusion changes" in md)
    assert "### Where the difference comes from" in md and "reproduce its corpus score on every system" in md
    assert md.index("## Impact on a corpus") < md.index("## `corpus-macro-average`")
    section = md[md.index("## `corpus-macro-average`"):]
    assert "### Impact on a corpus" in section and "It acts on the corpus aggregation itself" in section
    for name in ("good", "mid", "bad"):
        assert f"| {name} |" in md
    clean = (tmp_path / "a" / "clean.md").read_text(encoding="utf-8")
    assert "Not studied: no finding" in clean
    schema = json.loads(SCHEMA_PATH.read_text(encoding="utf-8"))
    doc = json.loads((tmp_path / "a" / "audit.json").read_text(encoding="utf-8"))
    validator = jsonschema.Draft202012Validator(schema)
    validator.validate(doc)
    impls = {i["implementation"]: i for i in doc["implementations"]}
    assert impls["stub"]["impact"]["verdict"] == rec["verdict"]
    assert doc["findings"][0]["impact"]["family"] == "corpus-macro-average"
    bad = json.loads(json.dumps(doc))
    del bad["implementations"][0]["impact"]["systems"]
    assert not validator.is_valid(bad)
    bad = json.loads(json.dumps(doc))
    bad["findings"][0]["impact"]["systems"][0]["alone_score"] = "x"
    assert not validator.is_valid(bad)


def test_impact_study_subset_and_ranking_only(corpus, tmp_path):
    from audit.impact import load_impact_data, study

    _, files = corpus
    systems, refs = load_impact_data(_write_corpus_dir(tmp_path, files))
    rec = study(StubAdapter(additive=False), ["unicode-normalization"], systems, refs, data="d",
                n_systems=2, resamples=50)
    assert rec["systems_studied"] == 2 and rec["systems_total"] == 3 and "closest together" in rec["selection"]
    assert rec["implementation_significance"].startswith("none")
    assert rec["by_family"]["unicode-normalization"]["attributed"] is False
    assert rec["model_check"]["complete"] is False


def test_run_impact_flags_are_validated(tmp_path, monkeypatch, capsys):
    monkeypatch.setattr(cli, "COMMANDS", ["run"])
    assert cli.main(["run", "--impl", "nltk", "--impact-data", str(tmp_path)]) == 2
    assert "no reference.txt" in capsys.readouterr().err
    assert cli.main(["run", "--impl", "nltk", "--impact-data", str(tmp_path), "--impact-systems", "1"]) == 2
    assert "--impact-systems must be an integer >= 2, got 1" in capsys.readouterr().err
