"""ranx from the command line: load both TREC files with ranx, evaluate.

    python benchmarks/peers/ranx_run.py QRELS RUN
"""

import json
import sys

from ranx import Qrels, Run, evaluate

MEASURES = ["ndcg@10", "recall@100", "precision@10", "mrr", "hit_rate@5", "bpref"]


def main():
    qrels = Qrels.from_file(sys.argv[1], kind="trec")
    run = Run.from_file(sys.argv[2], kind="trec")
    print(json.dumps(evaluate(qrels, run, MEASURES)))


if __name__ == "__main__":
    main()
