"""The dependency map that chooses what .venv-lowest runs (tools/dependency_map.py): it is made for today's pins,
its selection runs whatever it cannot vouch for, and its recorder sees what a test reaches."""

import json
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tools"))
import dependency_map as dm  # noqa: E402

sys.path.remove(str(ROOT / "tools"))


def test_the_map_is_made_for_the_pins_of_today():
    """Stale pins make a stale map: pyproject.toml's lower bounds moved, or the map was made elsewhere than in
    .venv-lowest -- `make dependency-map` remakes it."""
    from packaging.version import Version

    data = json.loads(dm.MAP.read_text(encoding="utf-8"))
    assert data["pinned"] == dm.pinned(), "the pinned list changed since the map was made: make dependency-map"
    project = __import__("tomllib").loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    sys.path.insert(0, str(ROOT / "tools"))
    try:
        import lowest_constraints as lc
    finally:
        sys.path.remove(str(ROOT / "tools"))
    for pin in lc.lowest(lc.requirements(project)):
        name, version = pin.split("==")
        made = data["versions"].get(dm._norm(name))
        assert made is not None and Version(made) == Version(version), (
            f"the map was made with {name} {made}, .venv-lowest pins {version}: make dependency-map")
    assert data["tests"], "an empty map vouches for nothing"


def _map(tmp_path, tests, *, files=None, pinned=None):
    own = "tests/conftest.py"
    data = {"pinned": pinned if pinned is not None else dm.pinned(), "versions": {},
            "files": files if files is not None else {own: dm.file_hash(ROOT / own)},
            "file_sets": [[0]], "tests": tests}
    path = tmp_path / "map.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    return path


def test_selection_skips_only_what_the_map_vouches_for(tmp_path):
    path = _map(tmp_path, {"t::plain": {"reaches": [], "files": 0}, "t::pandas": {"reaches": ["pandas"], "files": 0},
                           "t::spawns": {"reaches": [dm.SPAWN], "files": 0}})
    skippable, stale = dm.select(["t::plain", "t::pandas", "t::spawns", "t::new"], path)
    assert skippable == {"t::plain"} and stale == ["t::new"]


def test_a_changed_file_or_other_pins_make_the_map_vouch_for_nothing_it_touched(tmp_path):
    changed = _map(tmp_path, {"t::plain": {"reaches": [], "files": 0}}, files={"tests/conftest.py": "0" * 16})
    assert dm.select(["t::plain"], changed) == (set(), ["t::plain"])
    other_pins = _map(tmp_path, {"t::plain": {"reaches": [], "files": 0}}, pinned=["numpy"])
    assert dm.select(["t::plain"], other_pins) == (set(), ["t::plain"])


SAMPLE = '''
import subprocess
import sys

import pytest


def test_plain():
    assert sorted([3, 1]) == [1, 3]


def test_numpy_through_a_builtin():
    import numpy
    assert numpy.asarray([1]).shape == (1,)


def test_pandas():
    import pandas
    assert pandas.Series([1, 2]).sum() == 3


def test_a_process():
    subprocess.run([sys.executable, "-c", "pass"], check=True)


@pytest.fixture(scope="module")
def frame():
    import pandas
    return pandas.DataFrame({"a": [1]}).to_dict()


def test_uses_the_fixture_first(frame):
    assert frame


def test_uses_the_fixture_later(frame):
    assert frame["a"] == {0: 1}


def test_fails():
    import pandas
    assert pandas.Series([1]).sum() == 2
'''

DRIVER = '''
import json, sys
sys.path.insert(0, sys.argv[1])
import pytest
import dependency_map as dm
recorder = dm.Recorder(dm.pinned())
pytest.main(["-q", "-p", "no:cacheprovider", sys.argv[2]], plugins=[recorder])
print("MAP=" + json.dumps({k.split("::")[-1]: sorted(v) for k, v in recorder.tests.items()}))
'''


def test_the_recorder_sees_pinned_code_processes_and_wider_fixtures(tmp_path):
    """Run in a process of its own, so the recorder's profiler never meets the one making the real map."""
    (tmp_path / "test_sample.py").write_text(textwrap.dedent(SAMPLE), encoding="utf-8")
    done = subprocess.run([sys.executable, "-c", DRIVER, str(ROOT / "tools"), str(tmp_path / "test_sample.py")],
                          capture_output=True, text=True, cwd=tmp_path, timeout=300)
    line = [x for x in done.stdout.splitlines() if x.startswith("MAP=")]
    assert line, done.stdout[-2000:] + done.stderr[-2000:]
    found = json.loads(line[0][4:])
    assert found["test_plain"] == []
    assert found["test_numpy_through_a_builtin"] == ["d:numpy"]
    assert "d:pandas" in found["test_pandas"]
    assert found["test_a_process"] == [dm.SPAWN]
    assert "d:pandas" in found["test_uses_the_fixture_first"] and "d:pandas" in found["test_uses_the_fixture_later"]
    assert "test_fails" not in found  # a test that did not pass is left out: it runs in .venv-lowest


def test_the_lowest_run_selects_with_the_map():
    """The Makefile's lowest-versions run passes the option conftest.py defines."""
    makefile = (ROOT / "Makefile").read_text(encoding="utf-8")
    assert "--only-reaching-pinned" in makefile.split("test-lowest:", 1)[1].split("\n\n", 1)[0]
