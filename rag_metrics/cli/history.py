"""`rag-metrics history`: list, show and diff saved evaluation runs (:mod:`rag_metrics.experiment.history`)."""

from __future__ import annotations

import json
import sys


def add(sub) -> None:
    hp = sub.add_parser("history", help="list, show and diff saved evaluation runs")
    hp.add_argument("--dir", default="history", help="history folder (default: history/)")
    hsub = hp.add_subparsers(dest="action", required=True)
    hsub.add_parser("list", help="one line per saved run")
    show = hsub.add_parser("show", help="the summary of one run")
    show.add_argument("run", help="run id, id prefix, name, or path")
    hd = hsub.add_parser("diff", help="per-measure deltas and per-question flips between two runs")
    hd.add_argument("previous")
    hd.add_argument("current")
    hd.add_argument("--force", action="store_true", help="compare even if the golden set or judge differ")


def run(args) -> int:
    import warnings

    from rag_metrics.experiment.history import HistoryWarning, diff, list_runs, load_run

    if args.action == "list":
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always", HistoryWarning)
            runs = list_runs(args.dir)
        for w in caught:
            print(f"rag-metrics history: warning: {w.message}", file=sys.stderr)
        print(runs.to_string(index=False, float_format=lambda v: f"{v:.4f}") if len(runs)
              else f"no run saved in {args.dir}/")
    elif args.action == "show":
        rec = load_run(args.run, args.dir)
        print(f"{rec['id']}  ({rec['timestamp']})")
        print("settings:", json.dumps(rec["settings"], ensure_ascii=False))
        print("fingerprint:", json.dumps(rec["fingerprint"]))
        for m, s in rec["summary"].items():
            mean = "-" if s["mean"] is None else f"{s['mean']:.4f}"
            print(f"  {m:<14} {mean:>8}  evaluated {s['evaluated']}, excluded {s['excluded']}")
    else:
        d = diff(args.previous, args.current, force=args.force, history_dir=args.dir)
        print(f"{d.previous} -> {d.current}")
        if d.differs:
            print("fingerprint components that differ:", ", ".join(d.differs))
        print(d.measures.to_string(float_format=lambda v: f"{v:+.4f}" if v < 0 else f"{v:.4f}"))
        for change in ("newly hit", "newly missed", "improved", "worsened"):
            qs = d.newly(change)
            if qs:
                print(f"{change} ({len(qs)}): {', '.join(qs)}")
    return 0
