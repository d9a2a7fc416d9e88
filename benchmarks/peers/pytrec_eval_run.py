"""pytrec_eval from the command line, as its users run it: parse both files into dicts, evaluate.

    python benchmarks/peers/pytrec_eval_run.py QRELS RUN [--per-query OUT.json]
"""

import json
import sys

import pytrec_eval

MEASURES = {"ndcg_cut.10", "recall.100", "P.10", "recip_rank", "success.5", "bpref"}


def evaluate(qrels_path, run_path):
    """Both files parsed into dicts and evaluated: pytrec_eval's per-query results."""
    qrels, run = {}, {}
    with open(qrels_path) as f:
        for line in f:
            q, _, d, r = line.split()
            qrels.setdefault(q, {})[d] = int(r)
    with open(run_path) as f:
        for line in f:
            q, _, d, _, s, _ = line.split()
            run.setdefault(q, {})[d] = float(s)
    return pytrec_eval.RelevanceEvaluator(qrels, MEASURES).evaluate(run)


def main():
    result = evaluate(sys.argv[1], sys.argv[2])
    if "--per-query" in sys.argv:
        with open(sys.argv[sys.argv.index("--per-query") + 1], "w") as f:
            json.dump(result, f)
    means = {m: sum(v[m] for v in result.values()) / len(result) for m in next(iter(result.values()))}
    print(json.dumps(means))


if __name__ == "__main__":
    main()
