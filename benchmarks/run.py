"""Benchmark: rag-metrics vs pytrec_eval vs ranx on the same TREC files, in one run.

    make bench                      # installs the 'bench' extra, generates the data, runs this
    python benchmarks/run.py --sizes 1000 10000 100000 --repeat 3

Each tool runs as a fresh process from the command line (whole process: start-up, imports,
parsing, evaluation), measuring nDCG@10, Recall@100, P@10, RR, hit@5 and bpref (rag-metrics also Judged@10). Reported: median
wall time and peak resident memory (RSS, from wait4) over --repeat runs, and the ratio of
each peer to rag-metrics. Then a per-query agreement check against pytrec_eval: every value
of every question with at least one relevant document must agree to 1e-9 (questions
without one are undefined here and 0 in trec_eval, by design).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
BIN = Path(sys.executable).parent
PAIRS = {"ndcg@10": "ndcg_cut_10", "recall@100": "recall_100", "precision@10": "P_10", "mrr": "recip_rank", "hit@5": "success_5",
         "bpref": "bpref"}
OURS_ONLY = ["judged@10"]  # no peer computes it here; rag-metrics pays for it in the timing


def measure(cmd) -> tuple[float, float]:
    """Wall seconds and peak RSS (MB) of one fresh process."""
    start = time.perf_counter()
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - start
    if os.waitstatus_to_exitcode(status) != 0:
        raise RuntimeError(f"{cmd[0]} failed: {proc.stderr.read().decode()[-500:]}")
    return wall, usage.ru_maxrss / 1024


def tools(qrels, run):
    ours = [str(BIN / "rag-metrics"), "evaluate", qrels, run, *sum((["-m", m] for m in [*PAIRS, *OURS_ONLY]), [])]
    return {
        "rag-metrics": ours,
        "pytrec_eval": [sys.executable, str(HERE / "peers" / "pytrec_eval_run.py"), qrels, run],
        "ranx": [sys.executable, str(HERE / "peers" / "ranx_run.py"), qrels, run],
    }


def agreement(qrels, run) -> tuple[int, float]:
    """Questions compared and the largest absolute difference against pytrec_eval."""
    with tempfile.TemporaryDirectory() as tmp:
        theirs_path = Path(tmp) / "trec.json"
        subprocess.run([sys.executable, str(HERE / "peers" / "pytrec_eval_run.py"), qrels, run, "--per-query",
                        str(theirs_path)], check=True, stdout=subprocess.DEVNULL)
        theirs = json.loads(theirs_path.read_text())
        ours = json.loads(subprocess.run(tools(qrels, run)["rag-metrics"] + ["--format", "json", "--per-query"],
                                         check=True, capture_output=True, text=True).stdout)["per_query"]
    compared, worst = 0, 0.0
    for q, values in ours.items():
        if q not in theirs or values["mrr"] is None:
            continue
        compared += 1
        for mine, trec in PAIRS.items():
            worst = max(worst, abs(values[mine] - theirs[q][trec]))
    return compared, worst


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sizes", type=int, nargs="+", default=[1000, 10000, 100000])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--data", default=str(HERE / "data"))
    parser.add_argument("--skip", nargs="*", default=[], help="tools to leave out, e.g. ranx")
    args = parser.parse_args()
    rows = []
    for n in args.sizes:
        qrels, run = f"{args.data}/qrels_{n}.txt", f"{args.data}/run_{n}.txt"
        if not Path(run).exists():
            subprocess.run([sys.executable, str(HERE / "generate.py"), "--questions", str(n), "--out", args.data], check=True)
        results = {}
        for name, cmd in tools(qrels, run).items():
            if name in args.skip:
                continue
            if name == "ranx":
                measure(cmd)  # warm numba's on-disk cache once, as a user's second run would be
            runs = [measure(cmd) for _ in range(args.repeat)]
            results[name] = (statistics.median(w for w, _ in runs), statistics.median(m for _, m in runs))
            print(f"{n:>7} {name:<12} {results[name][0]:7.2f} s {results[name][1]:7.0f} MB", file=sys.stderr)
        compared, worst = agreement(qrels, run)
        rows.append((n, Path(run).stat().st_size / 1e6, results, compared, worst))
    ours = "rag-metrics"
    print("| questions | run file | tool | wall s | peak MB | peer / rag-metrics (time) | peer / rag-metrics (memory) |")
    print("|---:|---:|---|---:|---:|---:|---:|")
    for n, size, results, _, _ in rows:
        for name, (wall, mem) in results.items():
            ratio_t = "" if name == ours else f"{wall / results[ours][0]:.1f}x"
            ratio_m = "" if name == ours else f"{mem / results[ours][1]:.1f}x"
            print(f"| {n:,} | {size:.0f} MB | {name} | {wall:.2f} | {mem:.0f} | {ratio_t} | {ratio_m} |")
    print()
    for n, _, _, compared, worst in rows:
        print(f"agreement with pytrec_eval at {n:,} questions: {compared:,} questions compared, "
              f"largest difference {worst:.1e}")


if __name__ == "__main__":
    main()
