"""Two checkouts' whole report command back to back on the same data: the fair comparison on a busy machine.

    python benchmarks/report_pair.py --data DIR --code main=/work/main --code branch=/work/wt_perf2

``DIR`` holds ``golden.jsonl``, ``pages.jsonl`` and ``log.jsonl`` (:func:`experiment_report.make_data` writes them:
``--make N`` writes N questions there first). Each checkout runs ``rag-metrics report`` in a fresh folder (its own
reports and history: neither run sees the other's) with ``PYTHONPATH`` pointing at it; one JSON line per run: wall and
CPU seconds of the process tree, its peak memory (MB), the HTML size and the load average before and after
(:func:`experiment_report.whole_command`).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import experiment_report as er  # noqa: E402


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", required=True, help="folder with golden.jsonl, pages.jsonl, log.jsonl")
    parser.add_argument("--code", action="append", required=True, help="NAME=CHECKOUT, run in the order given")
    parser.add_argument("--make", type=int, default=None, help="write this many questions into --data first")
    args = parser.parse_args(argv)
    data = Path(args.data)
    if args.make:
        data.mkdir(parents=True, exist_ok=True)
        er.make_data(data, args.make)
    for spec in args.code:
        name, checkout = spec.split("=", 1)
        folder = data / f"pair-{name}-{time.strftime('%H%M%S')}"
        folder.mkdir()
        for f in ("golden.jsonl", "pages.jsonl", "log.jsonl"):
            (folder / f).symlink_to((data / f).resolve())
        os.environ["PYTHONPATH"] = checkout
        load = " ".join(f"{x:.1f}" for x in os.getloadavg())
        start = time.strftime("%H:%M:%S UTC", time.gmtime())
        w = er.whole_command(folder)
        print(json.dumps({"code": name, "start": start, "load": load,
                          "end_load": " ".join(f"{x:.1f}" for x in os.getloadavg()),
                          **{k: round(w[k], 1) for k in ("wall", "cpu", "peak_mb", "html_mb")}, "exit": w["exit"]}),
              flush=True)


if __name__ == "__main__":
    main()
