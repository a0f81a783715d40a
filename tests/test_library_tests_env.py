"""The library's own tests run with the library's pytest settings, not the caller's: a
PYTEST_ADDOPTS naming a plugin of the caller's (a profiler in CI) made every library test
"could not run" and every patch unverified."""
import sys

from audit.patches import library_tests


def test_the_callers_pytest_settings_do_not_reach_the_librarys_tests(tmp_path, monkeypatch):
    monkeypatch.setenv("PYTEST_ADDOPTS", "-p no_such_plugin_of_the_caller")
    monkeypatch.setenv("PYTEST_PLUGINS", "no_such_plugin_of_the_caller")
    (tmp_path / "test_one.py").write_text("def test_one():\n    assert 1 + 1 == 2\n")
    rc, out, err = library_tests._call([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "test_one.py"],
                                       None, tmp_path, 120.0)
    assert rc == 0, (out, err)
    assert "1 passed" in out
