"""Record which tests reach a pinned dependency, so .venv-lowest runs only those (`make test-lowest`).

.venv-lowest exists to test the lower bounds pyproject.toml declares (tools/lowest_constraints.py pins them). A test
whose code never runs a pinned package -- say a check of the architecture, or a CSV reader written in the standard
library -- gives the same result under any version of them, so running it there again proves nothing new. This
script runs the suite once under a profiler and writes tests/dependency_map.json: for each test that passed, the
first pinned distribution whose code ran while it ran (its own setup, call and teardown, and the setup of every
wider-scoped fixture it uses, even when another test set that fixture up first) -- or that it started another
process (whose code it cannot see: such a test always counts as reaching everything) -- and, for a test that reaches
none, the project files it ran (rag_metrics/, tests/), by content hash. Profiling stops for the rest of a test once
it reaches one: whatever else it runs, it runs in .venv-lowest.

Usage, from the repository's root, in the environment the selection is for (`make dependency-map`):
    .venv-lowest/bin/python tools/dependency_map.py [pytest arguments, default: tests]
Tests left out of the run (``--ignore``, ``--deselect``) are absent from the map, so they run in .venv-lowest.

The selection (:func:`select`, used by tests/conftest.py's ``--only-reaching-pinned``) is conservative: a test runs
unless the map says it reached no pinned package and started no process, and every project file it ran is unchanged
since the map was made. New tests, tests whose code or whose path through the package changed, and every test once
the pinned list itself changes, run -- so a stale map costs time, never coverage. ``stale`` lists those; the
lowest-versions run prints the count, and regenerating the map brings it back to zero.

What the profiler sees: every Python function's file, and the module of every built-in function called from Python
(``numpy.asarray``, a method of an ndarray). It does not see a C type's operators called without a Python call
(``a + b`` on two arrays made elsewhere); a test whose only contact with a pinned package were such an operator
would be skipped in .venv-lowest.
"""

from __future__ import annotations

import hashlib
import json
import re
import sys
import threading
from importlib import metadata
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
MAP = ROOT / "tests" / "dependency_map.json"
OWN = ("rag_metrics", "tests")  # the project's folders whose files the map hashes
SPAWN = "(a subprocess)"  # in a test's "reaches": it started a process, whose imports nobody traced
_SPAWNERS = {("posix", "fork"), ("posix", "system"), ("posix", "posix_spawn"), ("posix", "posix_spawnp"),
             ("_posixsubprocess", "fork_exec"), ("posix", "execv"), ("posix", "execve")}


def _norm(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def pinned() -> list[str]:
    """The distributions .venv-lowest constrains (tools/lowest_constraints.py: each ``==`` pin and each cap)."""
    sys.path.insert(0, str(ROOT / "tools"))
    try:
        import lowest_constraints as lc
    finally:
        sys.path.pop(0)
    import tomllib

    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    lines = lc.lowest(lc.requirements(project)) + lc.TEST_ONLY
    return sorted({_norm(re.match(r"[A-Za-z0-9_.\-]+", line).group(0)) for line in lines})


def file_hash(path: Path) -> str:
    """The first 16 hex digits of the file's SHA-256 (what the map compares)."""
    return hashlib.sha256(path.read_bytes()).hexdigest()[:16]


class _Reach:
    """What ran during one test or one wider-scoped fixture: labels ``d:<dist>``, ``f:<file>`` and SPAWN.
    ``reached``: a pinned package ran or a process started -- it runs in .venv-lowest whatever else it runs, so the
    profiler is off for the rest of it (the files it ran matter only to a test that reaches nothing)."""

    def __init__(self):
        self.labels: set[str] = set()
        self.reached = False


class Recorder:
    """A pytest plugin: profiles each test and each wider-scoped fixture's setup, and keeps what each reached."""

    def __init__(self, dists: list[str]):
        self.dists = set(dists)
        top = {}
        for module, names in metadata.packages_distributions().items():
            for name in names:
                if _norm(name) in self.dists:
                    top[module] = "d:" + _norm(name)
        self._top = top  # top-level import name -> label of a pinned distribution
        self._site = sorted({str(Path(p).resolve()) for p in sys.path if p and Path(p).is_dir()}, key=len,
                            reverse=True)
        self._files: dict[str, str | bool] = {}
        self._modules: dict[str, str | bool] = {}
        self._stack: list[_Reach] = []
        self._fixtures: dict[tuple[str, str], set[str]] = {}
        self.tests: dict[str, set[str]] = {}
        self.hashes: dict[str, str] = {}
        self.failed: set[str] = set()

    # -- classification, cached per file and per module
    def _file_label(self, filename: str):
        label = self._files.get(filename)
        if label is None:
            label = False
            path = Path(filename)
            if path.is_absolute():
                path = path.resolve()
                try:
                    rel = path.relative_to(ROOT)
                except ValueError:
                    rel = None
                if rel is not None and rel.parts and rel.parts[0] in OWN:
                    label = "f:" + rel.as_posix()
                    self.hashes.setdefault(rel.as_posix(), file_hash(path))  # as it ran, not as it ends
                else:
                    for site in self._site:
                        if str(path).startswith(site + "/"):
                            first = Path(str(path)[len(site) + 1:]).parts[0]
                            label = self._top.get(first.removesuffix(".py"), False) or self._top.get(
                                first.split(".")[0], False)
                            break
            self._files[filename] = label
        return label

    def _module_label(self, module: str):
        label = self._modules.get(module)
        if label is None:
            label = self._top.get(module.split(".")[0], False)
            self._modules[module] = label
        return label

    def _profile(self, frame, event, arg):
        if not self._stack or self._stack[-1].reached:
            return
        if event == "call":
            label = self._file_label(frame.f_code.co_filename)
        elif event == "c_call":
            module = getattr(arg, "__module__", None)
            if module is None:
                owner = getattr(arg, "__self__", None)
                module = type(owner).__module__ if owner is not None else None
            if not isinstance(module, str):  # a C module may put itself there, not its name
                module = getattr(module, "__name__", None)
                if not isinstance(module, str):
                    return
            if (module, getattr(arg, "__name__", "")) in _SPAWNERS:
                label = SPAWN
            else:
                label = self._module_label(module)
        else:
            return
        if label:
            top = self._stack[-1]
            top.labels.add(label)
            if not label.startswith("f:"):
                top.reached = True
                self._switch(False)

    def _switch(self, on: bool) -> None:
        threading.setprofile(self._profile if on else None)
        sys.setprofile(self._profile if on else None)

    def _push(self):
        self._stack.append(_Reach())
        self._switch(True)  # a fixture set up inside a test that reached already is profiled on its own

    def _pop(self) -> set[str]:
        reach = self._stack.pop()
        if self._stack:
            parent = self._stack[-1]
            parent.labels |= reach.labels
            parent.reached = parent.reached or reach.reached
            self._switch(not parent.reached)
        else:
            self._switch(False)
        return reach.labels

    # -- pytest hooks
    @pytest.hookimpl(hookwrapper=True)
    def pytest_fixture_setup(self, fixturedef, request):
        if fixturedef.scope == "function":
            yield
            return
        self._push()
        try:
            yield
        finally:
            self._fixtures[(fixturedef.argname, fixturedef.baseid)] = self._pop()

    @pytest.hookimpl(hookwrapper=True)
    def pytest_runtest_protocol(self, item, nextitem):
        self._push()
        try:
            yield
        finally:
            labels = self._pop()
            for name in item.fixturenames:
                for fixturedef in item._fixtureinfo.name2fixturedefs.get(name, ()):
                    labels |= self._fixtures.get((fixturedef.argname, fixturedef.baseid), set())
            if item.nodeid not in self.failed:
                self.tests[item.nodeid] = labels

    def pytest_runtest_logreport(self, report):
        """Only a test that passed enters the map: one that failed, skipped or xfailed may have stopped before what
        it reaches when it passes (absent from the map, it runs in .venv-lowest)."""
        if report.outcome != "passed" or hasattr(report, "wasxfail"):
            self.failed.add(report.nodeid)
            self.tests.pop(report.nodeid, None)


def write_map(recorder: Recorder, dists: list[str], path: Path = MAP) -> dict:
    """The map as JSON: pinned list and versions, project files by hash, and per test what it reached."""
    files = sorted({label[2:] for labels in recorder.tests.values() for label in labels if label.startswith("f:")})
    index = {f: i for i, f in enumerate(files)}
    sets: dict[tuple, int] = {}
    tests = {}
    for nodeid, labels in sorted(recorder.tests.items()):
        own = tuple(sorted(index[label[2:]] for label in labels if label.startswith("f:")))
        tests[nodeid] = {"reaches": sorted(label[2:] if label.startswith("d:") else label
                                           for label in labels if not label.startswith("f:")),
                         "files": sets.setdefault(own, len(sets))}
    versions = {}
    for name in dists:
        try:
            versions[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            versions[name] = None
    out = {"made_by": "tools/dependency_map.py", "python": sys.executable.rsplit("/", 3)[-3],
           "pinned": dists, "versions": versions,
           "files": {f: recorder.hashes[f] for f in files},
           "file_sets": [list(s) for s in sorted(sets, key=sets.get)], "tests": tests}
    path.write_text(json.dumps(out, indent=0, sort_keys=False) + "\n", encoding="utf-8")
    return out


def select(nodeids: list[str], path: Path = MAP) -> tuple[set[str], list[str]]:
    """``(skippable, stale)``: the node ids the map shows reach no pinned package, start no process and ran only
    project files unchanged since; and those it cannot vouch for (absent, or a file they ran changed). Every node
    id in neither list reaches a pinned package. A map made for another pinned list vouches for nothing."""
    data = json.loads(path.read_text(encoding="utf-8"))
    if data["pinned"] != pinned():
        return set(), list(nodeids)
    changed = {f for f, h in data["files"].items() if not (ROOT / f).is_file() or file_hash(ROOT / f) != h}
    names = list(data["files"])
    dirty = {i for i, s in enumerate(data["file_sets"]) if any(names[f] in changed for f in s)}
    skippable, stale = set(), []
    for nodeid in nodeids:
        entry = data["tests"].get(nodeid)
        if entry is not None and entry["reaches"]:
            continue  # runs there, whatever changed since
        if entry is None or entry["files"] in dirty:
            stale.append(nodeid)
        else:
            skippable.add(nodeid)
    return skippable, stale


def main(argv: list[str]) -> int:
    dists = pinned()
    recorder = Recorder(dists)
    code = pytest.main(["-q", "-p", "no:cacheprovider", *(argv or ["tests"])], plugins=[recorder])
    if code not in (0, 1):  # interrupted, or no test ran
        print("the run did not complete: the map is not written", file=sys.stderr)
        return code
    data = write_map(recorder, dists)
    reaching = sum(1 for t in data["tests"].values() if t["reaches"])
    print(f"{MAP.relative_to(ROOT)}: {len(data['tests'])} tests, {reaching} reach a pinned package or start a "
          f"process, {len(data['tests']) - reaching} reach none; {len(recorder.failed)} did not pass and are left "
          "out (they run in .venv-lowest)")
    return code


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
