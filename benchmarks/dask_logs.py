"""Benchmark: a retrieval log judged and evaluated out of core on a local Dask cluster, peak memory per worker as the
log grows.

    python benchmarks/dask_logs.py --data /tmp/dasklogs --sizes 20000 50000 200000 --sample 10000

The data are the experiment-report benchmark's (``benchmarks/experiment_report.py``, :func:`make_data`): 5,000 pages
(250 documents of 20), and per question 20 logged items of ~1,000 characters with page metadata, so every item is
judged by the document, page and overlap judges. The data of N questions are the first N lines of any larger
size's (the generator is seeded and draws question by question), so the sizes are written once as prefixes of the
largest: ``DATA/N/{pages,golden,log}.jsonl``.

For each size, a fresh ``LocalCluster`` of ``--workers`` single-threaded worker processes, each with a memory limit
(``--memory-limit``, default 1 GB: Dask's nanny restarts a worker that passes 95% of it; the worker processes' IDs
are compared before and after, so a restart is reported), runs ``evaluate_log(golden, log, pages, engine="dask")``:
the log is read in byte ranges of whole records on the workers, judged and evaluated there, per-question values
reduced (:mod:`rag_metrics.experiment.distributed_logs`). Reported: wall seconds, each worker's peak resident
memory (``ru_maxrss`` of the worker process, read on the worker at the end), and the peak of this process (the
client: it reads the golden set and the pages, never the log). Each size runs in its own process, so the client's
peak is its own.

``--sample N`` evaluates size N both ways -- on the cluster and in one process (``engine="local"``) -- and checks
that every per-question value (each judge, document level), the summary and the failure rows are identical.
"""

from __future__ import annotations

import argparse
import json
import logging
import os
import resource
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent


def _worker_peak_mb() -> float:
    import resource as r

    return r.getrusage(r.RUSAGE_SELF).ru_maxrss / 1024


def _prefix(src: Path, dst: Path, n: int) -> None:
    """The first ``n`` questions of the data in ``src`` (golden set and log), the same pages."""
    dst.mkdir(parents=True, exist_ok=True)
    os.link(src / "pages.jsonl", dst / "pages.jsonl") if not (dst / "pages.jsonl").exists() else None
    for name in ("golden.jsonl", "log.jsonl"):
        with open(src / name, "rb") as f, open(dst / f"{name}.part", "wb") as out:
            for i, line in enumerate(f):
                if i >= n:
                    break
                out.write(line)
        os.replace(dst / f"{name}.part", dst / name)


def ensure_data(root: Path, sizes: list) -> None:
    """``root/N`` for every size: the largest made by the generator (unless present), the others its prefixes."""
    sys.path.insert(0, str(HERE))
    from experiment_report import make_data

    largest = max(sizes)
    big = root / str(largest)
    if not (big / "log.jsonl").exists():
        big.mkdir(parents=True, exist_ok=True)
        make_data(big, largest)
    for n in sizes:
        if not (root / str(n) / "log.jsonl").exists():
            _prefix(big, root / str(n), n)


def one(folder: Path, workers: int, memory_limit: str, compare: bool) -> dict:
    """One size on a fresh local cluster (this process is the client)."""
    import numpy as np
    from dask.distributed import Client, LocalCluster

    from rag_metrics.experiment.evaluate import evaluate_log
    from rag_metrics.io.corpus import load_corpus
    from rag_metrics.io.golden import load_golden

    log = str(folder / "log.jsonl")
    corpus = load_corpus(folder / "pages.jsonl")
    golden = load_golden(folder / "golden.jsonl", corpus=corpus)
    read_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    cluster = LocalCluster(n_workers=workers, threads_per_worker=1, processes=True, memory_limit=memory_limit,
                           dashboard_address=":0", silence_logs=logging.ERROR)
    with Client(cluster) as client:
        pids = client.run(os.getpid)
        start = time.perf_counter()
        result = evaluate_log(golden, log, corpus, engine="dask", scheduler=cluster.scheduler_address)
        wall = time.perf_counter() - start
        peaks = sorted(client.run(_worker_peak_mb).values())
        restarted = client.run(os.getpid) != pids
    cluster.close()
    summary = result.evaluation.summary_dict()
    out = {"questions": len(golden.questions), "log_mb": Path(log).stat().st_size / 1e6, "wall_s": wall,
           "worker_peak_mb": peaks, "client_peak_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
           "client_after_reading_mb": read_mb, "workers_restarted": restarted,
           "ranges": result.settings["read"]["ranges"], "primary": result.primary,
           "means": {m: summary[m]["mean"] for m in result.headline_measures}}
    if compare:
        start = time.perf_counter()
        alone = evaluate_log(golden, log, corpus)
        out["one_process_s"] = time.perf_counter() - start
        same = set(alone.pages) == set(result.pages)
        for a, b in [(alone.pages[n], result.pages[n]) for n in alone.pages] + [(alone.document, result.document)]:
            same = same and a.per_question.equals(b.per_question) and a.questions == b.questions and all(
                np.array_equal(a.values[m], b.values[m], equal_nan=True) for m in a.values)
            same = same and np.array_equal(a.n_relevant, b.n_relevant) and np.array_equal(a.n_retrieved,
                                                                                           b.n_retrieved)
        out["identical_per_question"] = bool(same)
        out["identical_summary"] = bool(alone.summary().equals(result.summary()))
        out["identical_failures"] = bool(alone.failures.equals(result.failures))
    return out


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--data", default="/tmp/dasklogs")
    parser.add_argument("--sizes", type=int, nargs="+", default=[20000, 50000, 200000])
    parser.add_argument("--sample", type=int, default=10000, help="size checked against one process (0: none)")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--memory-limit", default="1GB")
    parser.add_argument("--one", help=argparse.SUPPRESS)
    parser.add_argument("--compare", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    root = Path(args.data)
    if args.one:
        print(json.dumps(one(Path(args.one), args.workers, args.memory_limit, args.compare)))
        return
    jobs = ([(args.sample, True)] if args.sample else []) + [(n, False) for n in args.sizes]
    ensure_data(root, [n for n, _ in jobs])
    rows = []
    for n, compare in jobs:
        cmd = [sys.executable, __file__, "--one", str(root / str(n)), "--workers", str(args.workers),
               "--memory-limit", args.memory_limit] + (["--compare"] if compare else [])
        out = subprocess.run(cmd, check=True, capture_output=True, text=True).stdout
        row = json.loads(out.strip().splitlines()[-1])
        print(json.dumps(row), file=sys.stderr, flush=True)
        rows.append(row)
    print("| questions | log file | ranges | wall s | peak RSS per worker (MB) | client peak (MB) | restarted |")
    print("|---:|---:|---:|---:|---|---:|---|")
    for r in rows:
        peaks = ", ".join(f"{p:.0f}" for p in r["worker_peak_mb"])
        print(f"| {r['questions']:,} | {r['log_mb']:,.0f} MB | {r['ranges']} | {r['wall_s']:.1f} | {peaks} | "
              f"{r['client_peak_mb']:.0f} | {'yes' if r['workers_restarted'] else 'no'} |")
    for r in rows:
        if "identical_per_question" in r:
            print(f"\n{r['questions']:,} questions on the cluster vs one process ({r['one_process_s']:.1f} s): "
                  f"per-question values identical: {r['identical_per_question']}; summary identical: "
                  f"{r['identical_summary']}; failure rows identical: {r['identical_failures']}")


if __name__ == "__main__":
    main()
