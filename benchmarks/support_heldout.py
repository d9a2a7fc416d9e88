"""The support judge measured once per release on a held-out set it was not built on, beside its development figure.

The protocol (docs/answer_support.md, "Measured on what it was not built on"):

* **development set** -- ``data/support/claims.jsonl``: labelled by the judge's builders; tune on it;
* **held-out set** -- ``data/support/heldout/``: 130 answers (202 claims, ten kinds, English and Japanese) written
  and labelled by an annotator who never read the judge's code or its errors, before the judge was changed
  (``labels_a.jsonl``); a second annotator labelled 72 of its claims blind (``labels_b.jsonl``): people's agreement
  with each other is the ceiling a judge is read against.

Printed (and written to ``benchmarks/support_heldout.md`` with ``--write``): claim-level Cohen's kappa with its
interval (:func:`rag_metrics.stats.agreement.cohen_kappa`), answer-level kappa -- fully supported vs not, the judge
splitting each answer itself as in a report -- and the three-level one (supported / partial / unsupported, with a
percentile bootstrap interval), accuracy per kind with each kind's share, and the human-human kappa. Every run of
the same code gives the same figures (seeded).

    .venv/bin/python benchmarks/support_heldout.py            # print
    .venv/bin/python benchmarks/support_heldout.py --write    # and update benchmarks/support_heldout.md
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd
from sklearn.metrics import cohen_kappa_score

from rag_metrics.experiment.support import read_support_set
from rag_metrics.io.corpus import data_dir, load_corpus
from rag_metrics.judging.support import OfflineSupportJudge, answer_support, context_passages, support_of_answer
from rag_metrics.stats.agreement import cohen_kappa

HELDOUT = data_dir() / "support" / "heldout"
LEVEL = {"full": "supported", "partial": "partial", "none": "unsupported", "no claims": "unsupported"}


def read_jsonl(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def heldout(corpus):
    """``(claims, answers)``: one row per labelled claim (kind, language, question, claim, passages, human) and per
    answer (kind, answer, passages, human level)."""
    rows = read_jsonl(HELDOUT / "answers.jsonl")
    labels = {r.get("claim_id") or r.get("answer_id"): r for r in read_jsonl(HELDOUT / "labels_a.jsonl")}
    claims, answers = [], []
    for r in rows:
        passages = context_passages([{"doc_id": d, "pages": [p]} for d, p in r["context"]], corpus)
        answers.append({"answer_id": r["answer_id"], "kind": r["kind"], "language": r["language"],
                        "question": r["question"], "answer": r["answer"], "passages": passages,
                        "human": labels[r["answer_id"]]["answer_label"]})
        claims += [{"claim_id": c["claim_id"], "kind": r["kind"], "language": r["language"], "question": r["question"],
                    "claim": c["claim"], "passages": passages, "human": bool(labels[c["claim_id"]]["supported"])}
                   for c in r["claims"]]
    return pd.DataFrame(claims), pd.DataFrame(answers)


def development(corpus) -> pd.DataFrame:
    claims = read_support_set(data_dir() / "support" / "claims.jsonl")
    passages = [context_passages([{"doc_id": d, "pages": [p]} for d, p in ctx], corpus) for ctx in claims["context"]]
    return pd.DataFrame({"claim_id": claims["claim_id"], "kind": claims["kind"], "language": claims["language"],
                         "question": None, "claim": claims["claim"], "passages": passages,
                         "human": claims["supported"].astype(bool)})


def judge_claims(judge, claims: pd.DataFrame) -> np.ndarray:
    """Each claim judged with its question where the set has one (the development set has none)."""
    return np.array([bool(judge.judge(c, p, question=q)["supported"])
                     for c, p, q in zip(claims["claim"], claims["passages"], claims["question"])])


def bootstrap_kappa(a, b, *, n: int = 2000, seed: int = 0) -> tuple[float, float, float]:
    """Multi-class Cohen's kappa (scikit-learn) with a 95% percentile bootstrap interval over items."""
    a, b = np.asarray(a), np.asarray(b)
    point = float(cohen_kappa_score(a, b))
    rng = np.random.default_rng(seed)
    draws = []
    for _ in range(n):
        i = rng.integers(0, len(a), len(a))
        if len(set(a[i]) | set(b[i])) > 1:
            draws.append(cohen_kappa_score(a[i], b[i]))
    low, high = np.percentile(draws, [2.5, 97.5])
    return point, float(low), float(high)


def fmt(k) -> str:
    if isinstance(k, tuple):
        return f"{k[0]:.3f} [{k[1]:.3f}, {k[2]:.3f}]"
    return "undefined" if k.kappa is None else f"{k.kappa:.3f} [{k.low:.3f}, {k.high:.3f}]"


def measure(judge, corpus) -> dict:
    claims, answers = heldout(corpus)
    dev = development(corpus)
    start = time.perf_counter()
    claims["judge"] = judge_claims(judge, claims)
    levels = [LEVEL[answer_support(support_of_answer(a, p, judge, question=q))]
              for a, p, q in zip(answers["answer"], answers["passages"], answers["question"])]
    seconds = time.perf_counter() - start
    answers["judge"] = levels
    dev["judge"] = judge_claims(judge, dev)
    per_kind = claims.assign(right=claims["judge"] == claims["human"]).groupby("kind").agg(
        claims=("right", "size"), accuracy=("right", "mean"))
    per_kind["share"] = per_kind["claims"] / len(claims)
    answer_kind = answers.assign(right=(answers["judge"] == "supported") == (answers["human"] == "supported")) \
        .groupby("kind")["right"].mean()
    per_kind["answer accuracy"] = answer_kind
    return {
        "claim kappa (held-out)": cohen_kappa(claims["human"], claims["judge"]),
        "claim kappa (development)": cohen_kappa(dev["human"], dev["judge"]),
        "answer kappa, fully supported or not (held-out)": cohen_kappa(answers["human"] == "supported",
                                                                       answers["judge"] == "supported"),
        "answer kappa, three levels (held-out)": bootstrap_kappa(answers["human"], answers["judge"]),
        "per_kind": per_kind, "n_claims": len(claims), "n_answers": len(answers), "n_dev": len(dev),
        "seconds": seconds,
    }


def human_agreement() -> tuple | None:
    path = HELDOUT / "labels_b.jsonl"
    if not path.exists():
        return None
    a = {r["claim_id"]: bool(r["supported"]) for r in read_jsonl(HELDOUT / "labels_a.jsonl") if "claim_id" in r}
    b = {r["claim_id"]: bool(r["supported"]) for r in read_jsonl(path)}
    ids = [i for i in b if i in a]
    return cohen_kappa([a[i] for i in ids], [b[i] for i in ids]), len(ids), sum(a[i] == b[i] for i in ids)


def report(results: dict, people) -> str:
    lines = ["| figure | judge: offline |", "|---|---|"]
    for key in ("claim kappa (development)", "claim kappa (held-out)", "answer kappa, fully supported or not "
                "(held-out)", "answer kappa, three levels (held-out)"):
        lines.append(f"| {key} | {fmt(results[key])} |")
    if people is not None:
        k, n, same = people
        lines.append(f"| people with each other, {n} held-out claims ({same} of {n} the same) | {fmt(k)} |")
    lines.append(f"| judging the held-out set ({results['n_answers']} answers, {results['n_claims']} claims) | "
                 f"{results['seconds']:.2f} s |")
    lines += ["", "| kind | claims | share | claim accuracy | answer accuracy (fully supported or not) |",
              "|---|---|---|---|---|"]
    for kind, row in results["per_kind"].sort_values("accuracy").iterrows():
        lines.append(f"| {kind} | {int(row['claims'])} | {row['share']:.2f} | {row['accuracy']:.2f} | "
                     f"{row['answer accuracy']:.2f} |")
    return "\n".join(lines)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--write", action="store_true", help="update benchmarks/support_heldout.md")
    ap.add_argument("--speed", type=int, metavar="N", help="also time judging N answers (the held-out ones repeated)")
    args = ap.parse_args(argv)
    corpus = load_corpus(data_dir() / "corpus")
    if args.speed:
        _, answers = heldout(corpus)
        judge, rows = OfflineSupportJudge(), answers.sample(args.speed, replace=True, random_state=0)
        start = time.perf_counter()
        for a, p, q in zip(rows["answer"], rows["passages"], rows["question"]):
            support_of_answer(a, p, judge, question=q)
        print(f"judged {args.speed:,} answers in {time.perf_counter() - start:.1f} s")
    table = report(measure(OfflineSupportJudge(), corpus), human_agreement())
    print(table)
    if args.write:
        out = Path(__file__).with_suffix(".md")
        text = out.read_text(encoding="utf-8") if out.exists() else ""
        head = text.split("<!-- figures -->")[0] if "<!-- figures -->" in text else "# The support judge on a " \
            "held-out set\n\n"
        out.write_text(f"{head}<!-- figures -->\n{table}\n", encoding="utf-8")
        print(f"wrote {out}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
