"""Benchmark: a TREC run evaluated out of core on a local Dask cluster, peak memory per worker as the input grows.

    python benchmarks/generate.py --questions 10000 100000 1000000 --out /tmp/trec     # once (3.3 GB at 1M)
    python benchmarks/dask_scale.py --data /tmp/trec --sizes 100000 1000000 --sample 10000

For each size, a fresh ``LocalCluster`` of ``--workers`` single-threaded worker processes, each with a memory limit
(``--memory-limit``, default 1 GB: Dask's nanny restarts a worker that passes 95% of it, so a run that finishes
stayed under it), evaluates ``qrels_N.txt`` / ``run_N.txt`` with ``evaluate_trec(..., engine="dask")``: the run is
split by question on the workers (:func:`rag_metrics.measures.distributed.evaluate_split`). Reported: wall
seconds, each worker's peak resident memory (``ru_maxrss`` of the worker process, read on the worker at the end),
and the peak of this process (the client: it reads the qrels, as every Dask path does, and holds the per-question
values). Each size runs in its own process so that the client's peak is its own.

``--sample N`` evaluates ``qrels_N`` / ``run_N`` both ways -- split on the cluster (forced, whatever the size) and
in one process -- and checks that every per-question value and the summary are identical.
"""

from __future__ import annotations

import argparse
import json
import logging
import resource
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
MEASURES = ["ndcg@10", "recall@100", "precision@10", "mrr", "hit@5", "bpref", "judged@10"]


def _worker_peak_mb() -> float:
    import resource as r

    return r.getrusage(r.RUSAGE_SELF).ru_maxrss / 1024


def one(data: Path, n: int, workers: int, memory_limit: str, force_split: bool, compare: bool) -> dict:
    """One size on a fresh local cluster (this process is the client)."""
    import numpy as np
    from dask.distributed import Client, LocalCluster

    from rag_metrics import evaluate_trec
    from rag_metrics.measures import distributed

    if force_split:
        distributed.SPLIT_BYTES = 0
    qrels, run = str(data / f"qrels_{n}.txt"), str(data / f"run_{n}.txt")
    cluster = LocalCluster(n_workers=workers, threads_per_worker=1, processes=True, memory_limit=memory_limit,
                           dashboard_address=":0", silence_logs=logging.ERROR)
    with Client(cluster) as client:
        start = time.perf_counter()
        ev = evaluate_trec(qrels, run, MEASURES, engine="dask", scheduler=cluster.scheduler_address)
        wall = time.perf_counter() - start
        peaks = sorted(client.run(_worker_peak_mb).values())
    cluster.close()
    out = {"questions": n, "run_mb": Path(run).stat().st_size / 1e6, "wall_s": wall, "worker_peak_mb": peaks,
           "client_peak_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
           "engine": ev.settings["engine"], "summary": {m: float(ev.summary.loc[m, "mean"]) for m in MEASURES}}
    if compare:
        start = time.perf_counter()
        alone = evaluate_trec(qrels, run, MEASURES)
        out["one_process_s"] = time.perf_counter() - start
        same = ev.questions == alone.questions and all(
            np.array_equal(ev.values[m], alone.values[m], equal_nan=True) for m in MEASURES)
        same = same and (ev.n_retrieved == alone.n_retrieved).all() and (ev.n_relevant == alone.n_relevant).all()
        out["identical_per_question"] = bool(same)
        out["identical_summary"] = bool(ev.summary.equals(alone.summary))
    return out


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--data", default=str(HERE / "data"))
    parser.add_argument("--sizes", type=int, nargs="+", default=[100000, 1000000])
    parser.add_argument("--sample", type=int, default=10000, help="size checked against one process (0: none)")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--memory-limit", default="1GB")
    parser.add_argument("--one", type=int, help=argparse.SUPPRESS)
    parser.add_argument("--compare", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    data = Path(args.data)
    if args.one:
        print(json.dumps(one(data, args.one, args.workers, args.memory_limit, args.compare, args.compare)))
        return
    rows = []
    jobs = ([(args.sample, True)] if args.sample else []) + [(n, False) for n in args.sizes]
    for n, compare in jobs:
        if not (data / f"run_{n}.txt").exists():
            subprocess.run([sys.executable, str(HERE / "generate.py"), "--questions", str(n), "--out", str(data)],
                           check=True)
        cmd = [sys.executable, __file__, "--data", str(data), "--one", str(n), "--workers", str(args.workers),
               "--memory-limit", args.memory_limit] + (["--compare"] if compare else [])
        out = subprocess.run(cmd, check=True, capture_output=True, text=True).stdout
        row = json.loads(out.strip().splitlines()[-1])
        print(json.dumps(row), file=sys.stderr)
        rows.append(row)
    print("| questions | run file | wall s | peak RSS per worker (MB) | client peak (MB) | engine |")
    print("|---:|---:|---:|---|---:|---|")
    for r in rows:
        peaks = ", ".join(f"{p:.0f}" for p in r["worker_peak_mb"])
        print(f"| {r['questions']:,} | {r['run_mb']:,.0f} MB | {r['wall_s']:.1f} | {peaks} | "
              f"{r['client_peak_mb']:.0f} | {r['engine']} |")
    for r in rows:
        if "identical_per_question" in r:
            print(f"\n{r['questions']:,} questions split on the cluster vs one process ({r['one_process_s']:.1f} s): "
                  f"per-question values identical: {r['identical_per_question']}; summary identical: "
                  f"{r['identical_summary']}")


if __name__ == "__main__":
    main()
