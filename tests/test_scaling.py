"""Judging grows linearly with the log: on the same corpus, 16x the questions take at most about 16x the work.

Measured as a ratio of CPU times in one process (never a wall-clock bound): logs of n and 16n questions are judged
in turn, three times, and the fastest run of each size counts. A linear path with fixed costs (the page index)
gives less than 16 (about 7 here); a step that scans the whole log once per question or per item gives 40 or more.
"""

from __future__ import annotations

import json
import time

import numpy as np
import pytest

from rag_metrics.experiment.evaluate import evaluate_log
from rag_metrics.io.corpus import load_corpus
from rag_metrics.io.golden import load_golden
from rag_metrics.io.logs import load_log

SIZES = (60, 960)
LIMIT = 12.0  # linear: below 16 (about 7 measured); a per-row scan of the log: about 40


def _write(folder, n_questions, *, n_docs=30, pages_per_doc=8, items=10, seed=0):
    rng = np.random.default_rng(seed)
    vocab = [f"w{i:03d}{chr(97 + i % 26)}" for i in range(800)]
    pages = {}
    with open(folder / "pages.jsonl", "w", encoding="utf-8") as f:
        for d in range(n_docs):
            for p in range(1, pages_per_doc + 1):
                text = " ".join(vocab[w] for w in rng.integers(0, len(vocab), 110)) + f" Handbook page {p}"
                pages[d, p] = text
                f.write(json.dumps({"doc_id": f"doc{d:03d}", "page": p, "text": text}) + "\n")
    rng = np.random.default_rng(seed + 1)  # the questions do not depend on the corpus's draws
    with open(folder / "golden.jsonl", "w", encoding="utf-8") as g, open(folder / "log.jsonl", "w", encoding="utf-8") as log:
        for q in range(n_questions):
            d, p = int(rng.integers(n_docs)), int(rng.integers(1, pages_per_doc + 1))
            g.write(json.dumps({"question_id": f"q{q:05d}", "question": f"question {q}?",
                                "gold_pages": [[f"doc{d:03d}", p]]}) + "\n")
            retrieved = []
            for r in range(items):
                dd = d if rng.random() < 0.5 else int(rng.integers(n_docs))
                pp = int(rng.integers(1, pages_per_doc + 1))
                text = pages[dd, pp]
                start = int(rng.integers(0, len(text) - 300))
                retrieved.append({"doc_id": f"doc{dd:03d}", "page": pp, "chunk_id": f"c{q}-{r}",
                                  "text": text[start:start + 300], "score": float(items - r)})
            log.write(json.dumps({"question_id": f"q{q:05d}", "question": f"question {q}?",
                                  "retrieved": retrieved}) + "\n")


@pytest.fixture(scope="module")
def logs(tmp_path_factory):
    out = {}
    for n in SIZES:
        folder = tmp_path_factory.mktemp(f"n{n}")
        _write(folder, n)
        corpus = load_corpus(folder / "pages.jsonl")
        out[n] = (load_golden(folder / "golden.jsonl", corpus=corpus), load_log(folder / "log.jsonl"), corpus)
    return out


def test_judging_grows_no_faster_than_the_log(logs):
    best = dict.fromkeys(SIZES, float("inf"))
    for _ in range(3):
        for n in SIZES:
            golden, log, corpus = logs[n]
            start = time.process_time()
            result = evaluate_log(golden, log, corpus)
            best[n] = min(best[n], time.process_time() - start)
            assert len(result.judged["overlap"]) == n * 10  # every item judged
    ratio = best[SIZES[1]] / best[SIZES[0]]
    assert ratio <= LIMIT, f"16x the questions took {ratio:.1f}x the CPU time (linear: below 16): {best}"
