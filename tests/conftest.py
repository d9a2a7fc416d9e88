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
