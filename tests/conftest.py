import os
import sys
from pathlib import Path

import pytest
from hypothesis import settings

from rag_metrics.io.corpus import load_corpus
from rag_metrics.io.golden import load_golden

# CI gets a fixed, moderate budget; locally the default profile is the same, so runs are comparable.
settings.register_profile("ci", max_examples=150, deadline=None, derandomize=True)
settings.register_profile("dev", max_examples=150, deadline=None)
settings.load_profile("ci" if os.environ.get("CI") else "dev")


@pytest.fixture(scope="module")
def corpus():
    """The sample corpus (data/corpus)."""
    return load_corpus(sample=True)


@pytest.fixture(scope="module")
def golden(corpus):
    """The sample golden set (data/golden.jsonl), checked against the sample corpus."""
    return load_golden(corpus=corpus, sample=True)


def pytest_configure(config):
    config.addinivalue_line("markers", "llamaindex_files: needs LlamaIndex's PDF reader (llama-index-readers-file, "
                            "which requires pandas<3): runs in .venv-lowest, which `make test-lowest` makes")


def pytest_runtest_setup(item):
    """A test marked ``llamaindex_files`` runs where LlamaIndex's PDF reader is installed; elsewhere it is skipped
    with the reason -- unless RAG_METRICS_REQUIRE_LLAMAINDEX=1 (set by `make test-lowest` in .venv-lowest), where a
    missing reader is a failure, never a silent skip."""
    if item.get_closest_marker("llamaindex_files") is None:
        return
    try:
        import llama_index.readers.file  # noqa: F401
    except ImportError:
        if os.environ.get("RAG_METRICS_REQUIRE_LLAMAINDEX") == "1":
            pytest.fail("llama-index-readers-file is not installed, and this environment must run its tests")
        pytest.skip("LlamaIndex's PDF reader (pandas<3) runs in .venv-lowest: `make test-lowest` runs this test there")


@pytest.fixture(scope="session")
def kernel_pool():
    """Warm kernels for this test process (tests/warm_kernel.py): ``with kernel_pool.serving(): ...`` runs every
    notebook of the block on one, for module-scoped builds; function-scoped tests use ``warm_kernels``."""
    from warm_kernel import KernelPool

    pool = KernelPool()
    yield pool
    pool.close()


@pytest.fixture
def warm_kernels(kernel_pool):
    """Every notebook this test runs in-process (``build_report``, ``build_experiment_report``, ``rag-metrics
    report`` through ``main``) runs on a warm kernel: for tests whose subject is not a kernel's start-up."""
    with kernel_pool.serving():
        yield kernel_pool


def pytest_addoption(parser):
    parser.addoption("--only-reaching-pinned", action="store_true",
                     help="run only the tests that tests/dependency_map.json shows reaching a pinned dependency or "
                          "starting a process, and those it cannot vouch for (new, or their files changed since): "
                          "the lowest-versions run (tools/dependency_map.py)")
    parser.addoption("--notebook-runs", choices=("all", "one", "rest"), default="all",
                     help="tests/test_notebooks.py's sweep of notebook parameters: all of it (the default), one run "
                          "per notebook (its first random draw: `make test`), or every other run (`make "
                          "test-notebook-runs`, which .ci/run calls): 'one' and 'rest' together are 'all'")
    parser.addoption("--max-examples-cap", type=int, default=None,
                     help="run each hypothesis property with at most this many examples (`make test-lowest`: the "
                          "properties search with their full budget in .venv; under the lowest versions each runs "
                          "its pinned code path with a smaller sample)")


SWEEP = "tests/test_notebooks.py::test_every_notebook_runs_and_says_nothing_false["


def _sweep_item_kept(nodeid: str, runs: str) -> bool:
    """Whether ``--notebook-runs=runs`` keeps this test: only the sweep's runs are split, every other test stays."""
    if runs == "all" or not nodeid.startswith(SWEEP):
        return True
    first = nodeid.endswith("-random0]")
    return first if runs == "one" else not first


def _cap_examples(items, cap: int) -> None:
    """Lower each hypothesis test's ``max_examples`` to ``cap`` (its other settings kept)."""
    from hypothesis import settings as settings_

    for item in items:
        test = getattr(getattr(item, "obj", None), "__func__", getattr(item, "obj", None))
        current = getattr(test, "_hypothesis_internal_use_settings", None)
        if getattr(test, "is_hypothesis_test", False) and current is not None and current.max_examples > cap:
            test._hypothesis_internal_use_settings = settings_(current, max_examples=cap)


def pytest_collection_modifyitems(config, items):
    """``--notebook-runs``: the part of the notebook sweep asked for; ``--max-examples-cap``: smaller hypothesis
    samples; ``--only-reaching-pinned``: deselect the tests the dependency map shows reach no pinned package."""
    runs = config.getoption("--notebook-runs")
    if runs != "all":
        config.hook.pytest_deselected(items=[item for item in items if not _sweep_item_kept(item.nodeid, runs)])
        items[:] = [item for item in items if _sweep_item_kept(item.nodeid, runs)]
    if config.getoption("--max-examples-cap") is not None:
        _cap_examples(items, config.getoption("--max-examples-cap"))
    if not config.getoption("--only-reaching-pinned"):
        return
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tools"))
    try:
        from dependency_map import MAP, select
    finally:
        sys.path.pop(0)
    skippable, stale = select([item.nodeid for item in items], MAP)
    keep = [item for item in items if item.nodeid not in skippable]
    config.hook.pytest_deselected(items=[item for item in items if item.nodeid in skippable])
    items[:] = keep
    config._only_reaching_pinned = (len(skippable), len(stale))


@pytest.hookimpl(optionalhook=True)
def pytest_xdist_node_collection_finished(node, ids):
    """Under xdist the workers select; the controller counts, among what they kept, the tests the map cannot vouch
    for (once: every worker collects the same)."""
    config = node.config
    if config.getoption("--only-reaching-pinned") and not hasattr(config, "_only_reaching_pinned"):
        sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tools"))
        try:
            from dependency_map import MAP, select
        finally:
            sys.path.pop(0)
        config._only_reaching_pinned = (None, len(select(ids, MAP)[1]))


def pytest_terminal_summary(terminalreporter, config):
    counts = getattr(config, "_only_reaching_pinned", None)
    if counts is not None:
        skipped = "" if counts[0] is None else f"{counts[0]} tests reach no pinned package (deselected); "
        terminalreporter.write_line(
            f"dependency map: {skipped}{counts[1]} tests are new or ran files changed since the map was made, and "
            "ran here whatever they reach (`make dependency-map` remakes the map)")
