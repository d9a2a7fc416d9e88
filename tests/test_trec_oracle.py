"""Per-query agreement with trec_eval (pytrec-eval-terrier) on random qrels/runs.

The random data has score ties (tie order matters), graded and negative labels,
unjudged documents, questions without any relevant document, questions judged but
absent from the run, and questions in the run but not judged. Where the two
definitions agree (a question with at least one relevant document that is in the
run), every value must equal trec_eval's to 1e-9.
"""

import json
import random
import subprocess
import sys

import pytest

pytest.importorskip("pytrec_eval")

from rag_metrics import evaluate, parse_measure  # noqa: E402
from rag_metrics.io.trec import read_qrels, read_run  # noqa: E402

CUTOFFS = (1, 3, 5, 10)
# ours -> trec_eval
PAIRS = {f"recall@{k}": f"recall_{k}" for k in CUTOFFS}
PAIRS |= {f"precision@{k}": f"P_{k}" for k in CUTOFFS}
PAIRS |= {f"hit@{k}": f"success_{k}" for k in CUTOFFS}
PAIRS |= {f"ndcg@{k}": f"ndcg_cut_{k}" for k in CUTOFFS}
PAIRS |= {f"map@{k}": f"map_cut_{k}" for k in CUTOFFS}
PAIRS |= {"mrr": "recip_rank", "map": "map", "ndcg": "ndcg", "rprec": "Rprec", "bpref": "bpref",
          "num_rel": "num_rel", "num_ret": "num_ret", "hits": "num_rel_ret"}
TREC_MEASURES = {
    "recall." + ",".join(map(str, CUTOFFS)),
    "P." + ",".join(map(str, CUTOFFS)),
    "success." + ",".join(map(str, CUTOFFS)),
    "ndcg_cut." + ",".join(map(str, CUTOFFS)),
    "map_cut." + ",".join(map(str, CUTOFFS)),
    "recip_rank",
    "map",
    "ndcg",
    "Rprec",
    "bpref",
    "num_rel",
    "num_ret",
    "num_rel_ret",
}


def trec_eval_oracle(qrels, run, measures, relevance_level=1):
    """pytrec_eval's per-query values, computed in a fresh process.

    pytrec_eval keeps state between evaluators in one process (cvangysel/pytrec_eval
    #38, #49): here a second RelevanceEvaluator in the same process hung
    intermittently on the same data. One evaluator per process avoids it.
    """
    code = (
        "import json, sys, pytrec_eval\n"
        "a = json.load(sys.stdin)\n"
        "ev = pytrec_eval.RelevanceEvaluator(a['qrels'], set(a['measures']), relevance_level=a['level'])\n"
        "json.dump(ev.evaluate(a['run']), sys.stdout)\n"
    )
    payload = json.dumps({"qrels": qrels, "run": run, "measures": sorted(measures), "level": relevance_level})
    done = subprocess.run([sys.executable, "-c", code], input=payload, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def random_case(seed, n_questions=40, n_docs=30):
    rng = random.Random(seed)
    qrels, run = {}, {}
    for q in range(n_questions):
        qid = f"q{q}"
        docs = [f"d{d}" for d in range(n_docs)]
        if rng.random() < 0.9:  # judged
            judged = rng.sample(docs, rng.randint(1, 12))
            labels = [-1, 0, 0, 1, 1, 2, 3]
            if rng.random() < 0.1:
                labels = [-1, 0]  # no relevant document at all
            qrels[qid] = {d: rng.choice(labels) for d in judged}
        if rng.random() < 0.9:  # retrieved
            retrieved = rng.sample(docs, rng.randint(0 if rng.random() < 0.05 else 1, 20))
            scores = [0.5, 1.0, 1.5, 2.0, 2.5] if rng.random() < 0.5 else None
            run[qid] = {d: (rng.choice(scores) if scores else round(rng.uniform(0, 10), 3)) for d in retrieved}
    return qrels, {q: r for q, r in run.items() if r}


def write_files(tmp_path, qrels, run):
    qp, rp = tmp_path / "qrels.txt", tmp_path / "run.txt"
    qp.write_text("".join(f"{q} 0 {d} {r}\n" for q, docs in qrels.items() for d, r in docs.items()))
    lines = []
    for q, docs in run.items():
        # File rank deliberately disagrees with the score order: trec_eval ignores it.
        for i, (d, s) in enumerate(docs.items(), start=1):
            lines.append(f"{q} Q0 {d} {i} {s} tag\n")
    rp.write_text("".join(lines))
    return qp, rp


def merged_cases(seeds):
    qrels, run = {}, {}
    for seed in seeds:
        q, r = random_case(seed)
        qrels |= {f"s{seed}_{k}": v for k, v in q.items()}
        run |= {f"s{seed}_{k}": v for k, v in r.items()}
    return qrels, run


def fast_per_question(qp, rp, min_rel, small):
    """The columnar readers alone: the small-file route, or the block reader in 4 kB blocks."""
    import pandas as pd

    from rag_metrics import Qrels, evaluator
    from rag_metrics.io.trec_fast import code_run_fast

    prepared = evaluator(Qrels.from_file(qp), list(PAIRS), level="chunk", min_rel=min_rel)
    result = prepared.evaluation(code_run_fast(prepared.qrels, rp, block_bytes=4096, small=small))
    assert result.settings["engine"] == ("fast/small" if small else "fast")
    return pd.DataFrame({m: result.values[m] for m in PAIRS}, index=list(result.questions))


@pytest.mark.parametrize("path", ["general", "fast/small", "fast"])
@pytest.mark.parametrize("min_rel", [1, 2])
def test_per_query_values_equal_trec_eval(tmp_path, min_rel, path):
    qrels, run = merged_cases(range(12))
    qp, rp = write_files(tmp_path, qrels, run)
    if path.startswith("fast"):
        ours = fast_per_question(qp, rp, min_rel, small=path == "fast/small")
    else:
        ours = evaluate(
            read_qrels(qp).rename(columns={"doc_id": "chunk_id"}),
            read_run(rp).rename(columns={"doc_id": "chunk_id"}),
            list(PAIRS),
            level="chunk",
            min_rel=min_rel,
        ).per_question
    theirs = trec_eval_oracle(qrels, run, TREC_MEASURES, relevance_level=min_rel)

    compared = 0
    for qid, values in theirs.items():
        if not any(label >= min_rel for label in qrels[qid].values()):
            # trec_eval scores 0 here; this project says undefined (None), excluded and counted.
            undefined = [m for m in PAIRS if parse_measure(m).spec.undefined_without_relevant]
            assert ours.loc[qid, undefined].isna().all() and ours.loc[qid, [m for m in PAIRS if m not in undefined]].notna().all()
            continue
        for mine, trec in PAIRS.items():
            if min_rel != 1 and mine.startswith("ndcg"):
                continue  # trec_eval's nDCG ignores the relevance level; ours does not (documented)
            assert ours.loc[qid, mine] == pytest.approx(values[trec], abs=1e-9), (qid, mine)
            compared += 1
    assert compared > 3000

    # Judged questions missing from the run: trec_eval (without -c) skips them; ours is an empty ranking.
    for qid in set(qrels) - set(run):
        if any(label >= min_rel for label in qrels[qid].values()):
            assert ours.loc[qid, "recall@5"] == 0.0 and ours.loc[qid, "mrr"] == 0.0


def test_tie_order_matches_trec_eval(tmp_path):
    # Equal scores: trec_eval ranks the larger document ID (string order) first.
    qrels = {"q": {"d1": 1}}
    run = {"q": {"d1": 3.0, "d2": 3.0, "d10": 3.0}}
    qp, rp = write_files(tmp_path, qrels, run)
    ranked = read_run(rp)["doc_id"].tolist()
    assert ranked == ["d2", "d10", "d1"]
    theirs = trec_eval_oracle(qrels, run, {"recip_rank"})["q"]["recip_rank"]
    ours = evaluate(read_qrels(qp), read_run(rp), ["mrr"]).per_question.loc["q", "mrr"]
    assert ours == theirs == pytest.approx(1 / 3)
