import os

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
                            "which requires pandas<3): runs in .venv-lowest, which `make test` makes")


def pytest_runtest_setup(item):
    """A test marked ``llamaindex_files`` runs where LlamaIndex's PDF reader is installed; elsewhere it is skipped
    with the reason -- unless RAG_METRICS_REQUIRE_LLAMAINDEX=1 (set by `make test` in .venv-lowest), where a missing
    reader is a failure, never a silent skip."""
    if item.get_closest_marker("llamaindex_files") is None:
        return
    try:
        import llama_index.readers.file  # noqa: F401
    except ImportError:
        if os.environ.get("RAG_METRICS_REQUIRE_LLAMAINDEX") == "1":
            pytest.fail("llama-index-readers-file is not installed, and this environment must run its tests")
        pytest.skip("LlamaIndex's PDF reader (pandas<3) runs in .venv-lowest: `make test` runs this test there")
