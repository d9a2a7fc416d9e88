"""Seeded synthetic TREC qrels/run pairs for the speed benchmark.

    python benchmarks/generate.py --questions 1000 10000 100000 --out benchmarks/data

Per question: 100 results (ranked by score, written in trec_eval order except that equal
scores are written in ascending document order, as many tools do), scores rounded to 2
decimals so that about half a tie per question occurs, ~5 judged-relevant documents with
graded labels 1-3 plus judged non-relevant ones, and ~2% of questions with no relevant
document at all. Document IDs come from a shared pool, as in a real collection.
"""

from __future__ import annotations

import argparse
from pathlib import Path

import numpy as np

RESULTS = 100
POOL = 2_000_000


def generate(n_questions: int, out: Path, seed: int = 0) -> tuple[Path, Path]:
    rng = np.random.default_rng(seed + n_questions)
    out.mkdir(parents=True, exist_ok=True)
    qrels_path, run_path = out / f"qrels_{n_questions}.txt", out / f"run_{n_questions}.txt"
    with open(qrels_path, "w") as qrels, open(run_path, "w") as run:
        for start in range(0, n_questions, 5000):
            n = min(5000, n_questions - start)
            docs = rng.integers(0, POOL, size=(n, RESULTS + 20))
            # unique docs per question: resample the few collisions
            for i in range(n):
                row = np.unique(docs[i])
                while row.size < RESULTS + 20:
                    row = np.unique(np.r_[row, rng.integers(0, POOL, RESULTS + 20 - row.size)])
                docs[i] = rng.permutation(row)
            scores = np.round(np.sort(rng.gamma(2.0, 3.0, size=(n, RESULTS)), axis=1)[:, ::-1], 2)
            q_lines, r_lines = [], []
            for i in range(n):
                qid = f"q{start + i}"
                retrieved = docs[i, :RESULTS]
                order = np.lexsort((retrieved, -scores[i]))  # ties in ascending doc order
                for rank, j in enumerate(order, start=1):
                    r_lines.append(f"{qid} Q0 d{retrieved[j]} {rank} {scores[i, j]:.2f} bench\n")
                no_relevant = rng.random() < 0.02
                judged = rng.choice(RESULTS + 20, size=12, replace=False)  # some judged docs were never retrieved
                labels = rng.choice([1, 1, 2, 3], size=12) if not no_relevant else np.zeros(12, dtype=int)
                labels[5:] = 0  # ~5 relevant, the rest judged non-relevant
                for j, label in zip(judged, labels):
                    q_lines.append(f"{qid} 0 d{docs[i, j]} {label}\n")
            qrels.writelines(q_lines)
            run.writelines(r_lines)
    return qrels_path, run_path


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--questions", type=int, nargs="+", default=[1000, 10000, 100000])
    parser.add_argument("--out", default=str(Path(__file__).parent / "data"))
    args = parser.parse_args()
    for n in args.questions:
        q, r = generate(n, Path(args.out))
        print(f"{n:>7} questions: {q} ({q.stat().st_size / 1e6:.1f} MB), {r} ({r.stat().st_size / 1e6:.1f} MB)")


if __name__ == "__main__":
    main()
