"""Benchmark: rag-metrics vs pytrec_eval vs ranx on the same TREC files, in one run.

    make bench                      # installs the 'bench' extra, generates the data, runs this
    python benchmarks/run.py --sizes 1000 10000 100000 --repeat 3
    python benchmarks/run.py --sizes 1000 100000 --repeat 7 --skip ranx --priority             # as quiet as it gets
    python benchmarks/run.py --sizes 1000 100000 --repeat 7 --skip ranx --priority --busy 1    # one core kept busy

Each tool runs as a fresh process from the command line (whole process: start-up, imports,
parsing, evaluation), measuring nDCG@10, Recall@100, P@10, RR, hit@5 and bpref (rag-metrics also Judged@10).
The tools take turns (one run of each, then the next round), so that a change in the machine's load hits
them alike. Reported: median wall time and peak resident memory (RSS, from wait4) over --repeat rounds,
the range of the time ratio over the rounds, and the ratio of each peer to rag-metrics. Then a per-query
agreement check against pytrec_eval: every value of every question with at least one relevant document
must agree to 1e-9 (questions without one are undefined here and 0 in trec_eval, by design).

Before measuring, the package is byte-compiled (``compileall``), as an installed package is: a run with
``PYTHONDONTWRITEBYTECODE`` set would otherwise compile rag-metrics' sources in every process while the
peers load their compiled files.

Load: ``--busy N`` keeps N cores busy with a spinning process during the measurements (the load statement
in docs/metrics.md); ``--priority`` runs every measured process in its own scheduling group at the highest
priority (Linux, as root: autogroup and process nice -20), so that on a machine shared with other work
each measured process still gets a core -- the closest to a quiet machine a busy one allows. Without it
the numbers include whatever else the machine is doing.
"""

from __future__ import annotations

import argparse
import compileall
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
PRIORITY = 'echo -20 > /proc/$$/autogroup && exec nice -n -20 "$@"'


def measure(cmd, priority: bool = False) -> tuple[float, float]:
    """Wall seconds and peak RSS (MB) of one fresh process."""
    if priority:
        cmd = ["setsid", "bash", "-c", PRIORITY, "bash", *cmd]
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


IN_PROCESS = r"""
import json, statistics, sys, time
sys.path.insert(0, sys.argv[4])
import pytrec_eval_run
import rag_metrics
qrels, run, repeat = sys.argv[1], sys.argv[2], int(sys.argv[3])
measures = json.loads(sys.argv[5])

def ours():
    return rag_metrics.evaluate_trec(qrels, run, measures)

def theirs():
    return pytrec_eval_run.evaluate(qrels, run)

times = {"rag-metrics": [], "pytrec_eval": []}
for _ in range(repeat + 1):  # the first round warms the caches of both, then is dropped
    for name, work in (("rag-metrics", ours), ("pytrec_eval", theirs)):
        start = time.perf_counter()
        work()
        times[name].append(time.perf_counter() - start)
print(json.dumps({name: statistics.median(t[1:]) for name, t in times.items()}))
"""


def in_process(qrels, run, repeat: int, priority: bool = False) -> dict:
    """Median seconds of the work alone -- read both files and evaluate, imports done -- in one process that
    alternates the two tools (no start-up, no imports: what a notebook or a server pays per evaluation)."""
    cmd = [sys.executable, "-c", IN_PROCESS, qrels, run, str(repeat), str(HERE / "peers"),
           json.dumps([*PAIRS, *OURS_ONLY])]
    if priority:
        cmd = ["setsid", "bash", "-c", PRIORITY, "bash", *cmd]
    out = subprocess.run(cmd, check=True, capture_output=True, text=True).stdout
    return json.loads(out.strip().splitlines()[-1])


def busy(n: int, priority: bool = False) -> list:
    """``n`` processes spinning on a core each (ended by the caller), at the measured processes' priority."""
    cmd = [sys.executable, "-c", "while True: pass"]
    if priority:
        cmd = ["setsid", "bash", "-c", PRIORITY, "bash", *cmd]
    return [subprocess.Popen(cmd) for _ in range(n)]


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sizes", type=int, nargs="+", default=[1000, 10000, 100000])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--data", default=str(HERE / "data"))
    parser.add_argument("--skip", nargs="*", default=[], help="tools to leave out, e.g. ranx")
    parser.add_argument("--priority", action="store_true", help="measured processes at scheduler priority -20 "
                                                                "(Linux, root)")
    parser.add_argument("--busy", type=int, default=0, metavar="N", help="keep N cores busy while measuring")
    args = parser.parse_args()
    import rag_metrics

    compileall.compile_dir(str(Path(rag_metrics.__file__).parent), quiet=1)
    print(f"load average {os.getloadavg()[0]:.1f}; cores {os.cpu_count()}; priority {args.priority}; "
          f"busy cores {args.busy}", file=sys.stderr)
    rows, inside = [], []
    for n in args.sizes:
        qrels, run = f"{args.data}/qrels_{n}.txt", f"{args.data}/run_{n}.txt"
        if not Path(run).exists():
            subprocess.run([sys.executable, str(HERE / "generate.py"), "--questions", str(n), "--out", args.data], check=True)
        cmds = {name: cmd for name, cmd in tools(qrels, run).items() if name not in args.skip}
        if "ranx" in cmds:
            measure(cmds["ranx"])  # warm numba's on-disk cache once, as a user's second run would be
        spinning = busy(args.busy, args.priority)
        try:
            runs = {name: [] for name in cmds}
            for _ in range(args.repeat):  # the tools take turns
                for name, cmd in cmds.items():
                    runs[name].append(measure(cmd, args.priority))
                    print(f"{n:>7} {name:<12} {runs[name][-1][0]:7.2f} s {runs[name][-1][1]:7.0f} MB", file=sys.stderr)
        finally:
            for p in spinning:
                p.kill()
        results = {name: (statistics.median(w for w, _ in r), statistics.median(m for _, m in r), [w for w, _ in r])
                   for name, r in runs.items()}
        compared, worst = agreement(qrels, run)
        rows.append((n, Path(run).stat().st_size / 1e6, results, compared, worst))
        if "pytrec_eval" in cmds:
            inside.append((n, in_process(qrels, run, args.repeat, args.priority)))
    ours = "rag-metrics"
    print("| questions | run file | tool | wall s | peak MB | peer / rag-metrics (time) | range over rounds | "
          "peer / rag-metrics (memory) |")
    print("|---:|---:|---|---:|---:|---:|---:|---:|")
    for n, size, results, _, _ in rows:
        for name, (wall, mem, walls) in results.items():
            if name == ours:
                print(f"| {n:,} | {size:.0f} MB | {name} | {wall:.2f} | {mem:.0f} |  |  |  |")
                continue
            per_round = [w / o for w, o in zip(walls, results[ours][2])]
            print(f"| {n:,} | {size:.0f} MB | {name} | {wall:.2f} | {mem:.0f} | {wall / results[ours][0]:.2f}x | "
                  f"{min(per_round):.2f}-{max(per_round):.2f}x | {mem / results[ours][1]:.2f}x |")
    print()
    if inside:
        print("In process (imports done; read both files and evaluate; median of --repeat rounds, alternating):\n")
        print("| questions | rag-metrics s | pytrec_eval s | pytrec_eval / rag-metrics |")
        print("|---:|---:|---:|---:|")
        for n, t in inside:
            print(f"| {n:,} | {t['rag-metrics']:.3f} | {t['pytrec_eval']:.3f} | "
                  f"{t['pytrec_eval'] / t['rag-metrics']:.2f}x |")
        print()
    for n, _, _, compared, worst in rows:
        print(f"agreement with pytrec_eval at {n:,} questions: {compared:,} questions compared, "
              f"largest difference {worst:.1e}")


if __name__ == "__main__":
    main()
