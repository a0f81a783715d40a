"""`chrf-audit run` from the command line: exit codes, one-line errors, the JSON core."""

import json

from audit.cli import main


def test_sacrebleu_conforms_exit_0(tmp_path, capsys):
    out = tmp_path / "a.json"
    assert main(["run", "--impl", "sacrebleu-chrf", "--max-examples", "10", "--quiet", "--json", str(out)]) == 0
    doc = json.loads(out.read_text())
    assert doc["schema_version"] and doc["findings"] == []


def test_nltk_divisor_from_cases_exit_1(tmp_path, capsys):
    out = tmp_path / "a.json"
    assert main(["run", "--impl", "nltk", "--max-examples", "3", "--quiet", "--no-verify", "--json", str(out)]) == 1
    findings = {(f["family"], f["level"]): f for f in json.loads(out.read_text())["findings"]}
    f = findings["requested-order-divisor", "sentence"]
    assert f["level"] == "sentence" and len(f["repro"]["hypothesis"]) == 1
    assert f["repro"]["references"] == [f["repro"]["hypothesis"]]
    assert f["expected_fraction"] == "100/1" and abs(f["actual"] - 100 / 6) < 1e-9
    assert f["outcome"] == "value"


def test_usage_errors_are_one_line_exit_2(tmp_path, capsys):
    bad = tmp_path / "cases"
    bad.mkdir()
    (bad / "x.json").write_text('[{"level": "sentence", "inputs": {"hypothesis": "a"}}]')
    for argv, needle in [
        (["run", "--impl", "nosuchpkg.mod:fn"], "cannot import module 'nosuchpkg.mod'"),
        (["run", "--impl", "nltk", "--beta", "-1"], "beta must be > 0"),
        (["run", "--impl", "nltk", "--max-examples", "0"], "--max-examples must be >= 1"),
        (["run", "--impl", "nltk", "--cases", str(bad)], "case 1: sentence inputs need"),
    ]:
        assert main(argv) == 2
        err = capsys.readouterr().err.strip()
        assert needle in err and "Traceback" not in err and len(err.splitlines()) == 1, err


def test_two_audits_at_the_same_time_write_identical_json(tmp_path):
    """Two processes competing for the same cores (and a third run with --jobs 2) give the
    same report: no search decision reads the clock."""
    import subprocess
    import sys

    def start(name, jobs):
        return subprocess.Popen([sys.executable, "-m", "audit.cli", "run", "--impl", "nltk", "--max-examples", "15",
                                 "--quiet", "--no-verify", "--jobs", str(jobs), "--json", str(tmp_path / name)],
                                stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)

    procs = [start("a.json", 1), start("b.json", 1), start("c.json", 2)]
    for p in procs:
        _, err = p.communicate(timeout=600)
        assert p.returncode == 1, err.decode()
    docs = [json.loads((tmp_path / n).read_text()) for n in ("a.json", "b.json", "c.json")]
    for d in docs:
        d.pop("environment", None)
    assert docs[0] == docs[1] == docs[2]
    assert {f["family"] for f in docs[0]["findings"]} >= {"requested-order-divisor"}
