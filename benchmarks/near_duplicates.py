"""Benchmark: near-duplicate questions (rag_metrics.golden.flags.near_duplicates) against comparing every pair.

    python benchmarks/near_duplicates.py                          # 2,000 and 8,000 questions
    python benchmarks/near_duplicates.py --sizes 8000 50000 --reference 2000

Three kinds of question list, seeded:

* ``numbered``: ``question 0?``, ``question 1?``... as ``experiment_report.py`` writes them -- every question is a
  near-duplicate of its neighbours (``question 101?`` and ``question 102?`` share 10 of 12 trigrams);
* ``written``: a phrase of a page of the sample corpus in a question template (English, or Japanese characters), one
  question in eight an edited copy of an earlier one (a word dropped, case or punctuation changed, a letter typed
  wrong) -- what a generated golden set looks like;
* ``small vocabulary``: 9 openings and 2-7 words of 35 -- every trigram is frequent, the prefix filter's worst
  realistic case.

The all-pairs comparison (the definition) runs up to ``--reference`` questions; the pairs must be equal, and the
time ratio is printed. Times are wall seconds of one call, the threshold 0.7.
"""

from __future__ import annotations

import argparse
import sys
import random
import time

from pathlib import Path

from rag_metrics.golden.flags import _trigrams, near_duplicates

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))
from question_maker import realistic_questions  # noqa: E402 - the generator the tests use


def all_pairs(questions, threshold):
    grams = [_trigrams(q) for q in questions]
    pairs = []
    for j in range(len(grams)):
        for i in range(j):
            union = len(grams[i] | grams[j])
            sim = len(grams[i] & grams[j]) / union if union else 1.0
            if sim >= threshold:
                pairs.append((i, j, round(sim, 3)))
    return pairs


def numbered(n: int, seed: int = 0) -> list[str]:
    return [f"question {q}?" for q in range(n)]


def written(n: int, seed: int = 0) -> list[str]:
    return realistic_questions(n, seed)


def small_vocabulary(n: int, seed: int = 0) -> list[str]:
    rng = random.Random(seed)
    words = ("policy expense travel approve refund claim deadline manager receipt hotel flight reimbursed employee "
             "contract salary leave holiday sick parental insurance pension office laptop security password vpn badge "
             "parking meal allowance budget invoice vendor").split()
    starts = ["What is the", "How do I", "When are", "Who approves the", "Can I get", "Where do I find the",
              "How many days of", "Is there a limit on", "What happens if my"]
    return [f"{rng.choice(starts)} {' '.join(rng.choices(words, k=rng.randint(2, 7)))}?" for _ in range(n)]


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[2000, 8000])
    parser.add_argument("--reference", type=int, default=2000, help="largest size compared pair by pair")
    parser.add_argument("--threshold", type=float, default=0.7)
    args = parser.parse_args(argv)
    print("| questions | kind | pairs | near_duplicates s | all pairs s | ratio |")
    print("|---:|---|---:|---:|---:|---:|")
    for n in args.sizes:
        for name, make in (("numbered", numbered), ("written", written), ("small vocabulary", small_vocabulary)):
            qs = make(n)
            start = time.perf_counter()
            got = near_duplicates(qs, args.threshold)
            fast = time.perf_counter() - start
            slow = ratio = ""
            if n <= args.reference:
                start = time.perf_counter()
                expected = all_pairs(qs, args.threshold)
                seconds = time.perf_counter() - start
                if got != expected:
                    raise SystemExit(f"{n} {name}: the pairs differ from the all-pairs comparison")
                slow, ratio = f"{seconds:.2f}", f"{seconds / fast:.0f}x"
            print(f"| {n:,} | {name} | {len(got):,} | {fast:.2f} | {slow} | {ratio} |", flush=True)


if __name__ == "__main__":
    main()
