"""Where the unit suite's time goes: pytest's ``--durations=0`` output grouped by cause (benchmarks/test_time.md).

Usage, from the repository's root:
    .venv/bin/python -m pytest -q -p no:cacheprovider --durations=0 --durations-min=0 tests > durations.log
    .venv/bin/python tools/test_time.py durations.log [--top 80]

Each test's call is put under the first cause that fits it (read from the test's own source and its fixtures, by
collecting the suite once without running it):

- the notebook parameter sweep (tests/test_notebooks.py's runs of every notebook under other parameters);
- report builds on warm kernels (a test that uses the ``warm_kernels``, ``kernel_pool`` or ``warm_kernel`` fixture);
- report builds on fresh kernels (its source calls ``build_report``, ``build_experiment_report``,
  ``execute_notebook``, ``tools/run_notebooks.py`` or the ``report`` command);
- subprocesses (its source starts a process: ``subprocess``, ``sys.executable``);
- hypothesis properties (``@given``);
- everything else.

Setup and teardown are listed apart: a module- or session-scoped fixture's build is charged to the first test that
uses it, so the largest setups name the fixtures worth sharing, and a function-scoped fixture rebuilt per test shows
as many similar setups in one module.
"""

from __future__ import annotations

import argparse
import contextlib
import inspect
import io
import re
import sys
from collections import defaultdict

import pytest

LINE = re.compile(r"^\s*([0-9.]+)s (setup|call|teardown)\s+(\S.*)$")
WARM = {"warm_kernels", "kernel_pool", "warm_kernel"}
FRESH = re.compile(r"build_report|build_experiment_report|execute_notebook|run_notebooks\.py|\[\"report\"|'report'")
SPAWN = re.compile(r"subprocess\.|sys\.executable")
CAUSES = ["notebook parameter sweep", "report builds, warm kernels", "report builds, fresh kernels", "subprocesses",
          "hypothesis properties", "other"]


def parse(text: str) -> dict[str, dict[str, float]]:
    """``{nodeid: {"setup": s, "call": s, "teardown": s}}`` from pytest's durations lines."""
    out: dict[str, dict[str, float]] = defaultdict(lambda: {"setup": 0.0, "call": 0.0, "teardown": 0.0})
    for line in text.splitlines():
        m = LINE.match(line)
        if m:
            out[m.group(3).strip()][m.group(2)] += float(m.group(1))
    return dict(out)


class _Classifier:
    def __init__(self):
        self.cause: dict[str, str] = {}

    def pytest_collection_modifyitems(self, items):
        for item in items:
            self.cause[item.nodeid] = classify(item)


def classify(item) -> str:
    """The cause a collected test's call time is put under (the first that fits)."""
    if "test_every_notebook_runs_and_says_nothing_false" in item.nodeid:
        return CAUSES[0]
    if WARM & set(item.fixturenames):
        return CAUSES[1]
    try:
        source = inspect.getsource(item.function)
    except (OSError, TypeError):
        source = ""
    if FRESH.search(source):
        return CAUSES[2]
    if SPAWN.search(source):
        return CAUSES[3]
    if getattr(item.function, "is_hypothesis_test", False):
        return CAUSES[4]
    return CAUSES[5]


def causes(nodeids, args=("tests",)) -> dict[str, str]:
    """Each node id's cause, by collecting ``args`` in this process."""
    plugin = _Classifier()
    with contextlib.redirect_stdout(io.StringIO()):  # the collection's listing is not part of the table
        pytest.main(["-q", "--collect-only", "-p", "no:cacheprovider", *args], plugins=[plugin])
    return {n: plugin.cause.get(n, CAUSES[5]) for n in nodeids}


def table(times: dict[str, dict[str, float]], cause: dict[str, str], top: int) -> str:
    """The Markdown tables: seconds by cause, then the ``top`` slowest tests and setups."""
    groups: dict[str, list] = {c: [0, 0.0] for c in CAUSES}
    setup_total = sum(t["setup"] + t["teardown"] for t in times.values())
    for nodeid, t in times.items():
        g = groups[cause.get(nodeid, CAUSES[5])]
        g[0] += 1
        g[1] += t["call"]
    total = sum(g[1] for g in groups.values()) + setup_total
    lines = ["| cause | tests | call s | share |", "|---|---:|---:|---:|"]
    for c in CAUSES:
        n, s = groups[c]
        lines.append(f"| {c} | {n} | {s:.0f} | {s / total:.0%} |")
    lines.append(f"| setup and teardown (fixtures) | | {setup_total:.0f} | {setup_total / total:.0%} |")
    lines.append(f"| **all** | {len(times)} | {total:.0f} | |")
    lines += ["", f"The {top} slowest phases:", "", "| s | phase | test | cause |", "|---:|---|---|---|"]
    phases = sorted(((t[p], p, n) for n, t in times.items() for p in ("setup", "call", "teardown")), reverse=True)
    for s, p, n in phases[:top]:
        lines.append(f"| {s:.1f} | {p} | `{n}` | {cause.get(n, CAUSES[5]) if p == 'call' else 'fixture'} |")
    return "\n".join(lines)


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("durations", help="a file holding pytest's --durations=0 output")
    parser.add_argument("--top", type=int, default=80)
    args = parser.parse_args(argv)
    with open(args.durations, encoding="utf-8") as f:
        times = parse(f.read())
    print(table(times, causes(list(times)), args.top))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
