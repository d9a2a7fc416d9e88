"""Benchmark: an experiment report at scale -- time and peak memory per phase, 2,000 and 8,000 questions.

    python benchmarks/experiment_report.py                      # 2,000 and 8,000 questions (~10-20 minutes)
    python benchmarks/experiment_report.py --sizes 500          # a quick look
    python benchmarks/experiment_report.py --with-50000         # adds 50,000 questions (on request only: ~1 GB of
                                                                # logs, an hour or more on a 2-core machine)

Each question has 20 logged texts of ~1,000 characters; the corpus has 5,000 pages. For every size, in this order:

1. the phases of the report's work, in a fresh Python process (as the notebook does them; peak RSS of that process
   sampled every 10 ms within each phase): **reading** (pages, golden set, log), **judging** (``evaluate_log``:
   every judge, the page-level evaluations), **per-question values** (the judges' table, per-type figures, failure
   counts, the misses), **statistics** (the headline intervals and the run history's table, 10,000 resamples),
   **drill-downs** (the first :data:`DRILL_DOWNS` missed questions' ``explain`` rendered to HTML, as the notebook
   shows them; the notebook in step 2 renders every miss);
2. the **whole command** ``rag-metrics report --experiment bench --golden G --pages P --run LOG`` as a fresh
   process: wall time and peak memory of the process tree (the command and its notebook kernel), with the
   notebook's own **execution** time (papermill's record in the executed notebook);
3. the **nbconvert export** of that executed notebook to HTML again, alone, in a fresh process (time, peak), and
   the **HTML size** of the report.

The data are synthetic and seeded: 250 documents of 20 pages (~2,000 characters each, words drawn from a
vocabulary of 6,000 with Zipf frequencies, one page in ten in Japanese); each question's gold is one page (one in
five has two); its log holds 20 items of ~1,000 characters cut from pages -- a gold page, a neighbour, another page
of the gold document or another document -- with page metadata and scores. Results go to
benchmarks/experiment_report.md with the machine and the load average (before and after each size).
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
BIN = Path(sys.executable).parent
DRILL_DOWNS = 300
"""Drill-downs timed in the phases (the first misses; the whole command's notebook renders every miss)."""
TARGETS = {8000: (40.0, 1.5 * 1024, None), 50000: (300.0, 4 * 1024, 10.0)}  # seconds, MB, HTML MB


def make_data(folder: Path, n_questions: int, *, n_docs: int = 250, pages_per_doc: int = 20, items: int = 20,
              seed: int = 0) -> dict:
    rng = np.random.default_rng(seed)
    vocab = [f"w{i:04d}{chr(97 + i % 26)}" for i in range(6000)]
    kana = [chr(c) for c in range(0x3041, 0x3097)] + [chr(c) for c in range(0x4E00, 0x4E00 + 400)]
    weights = 1.0 / np.arange(1, len(vocab) + 1)
    weights /= weights.sum()
    pages = {}
    with open(folder / "pages.jsonl", "w", encoding="utf-8") as f:
        for d in range(n_docs):
            for p in range(1, pages_per_doc + 1):
                if rng.random() < 0.1:
                    text = "".join(rng.choice(kana, size=2000))
                else:
                    words = rng.choice(len(vocab), size=330, p=weights)
                    text = " ".join(vocab[w] for w in words)
                pages[d, p] = text
                f.write(json.dumps({"doc_id": f"doc{d:04d}", "page": p, "text": text}, ensure_ascii=False) + "\n")
    with open(folder / "golden.jsonl", "w", encoding="utf-8") as g, open(folder / "log.jsonl", "w", encoding="utf-8") as log:
        for q in range(n_questions):
            d = int(rng.integers(n_docs))
            p = int(rng.integers(1, pages_per_doc + 1))
            gold = [[f"doc{d:04d}", p]]
            if rng.random() < 0.2 and p < pages_per_doc:
                gold.append([f"doc{d:04d}", p + 1])
            g.write(json.dumps({"question_id": f"q{q:05d}", "question": f"question {q}?", "gold_pages": gold}) + "\n")
            retrieved = []
            for r in range(items):
                kind = rng.random()
                if kind < 0.15:
                    dd, pp = d, p
                elif kind < 0.3:
                    dd, pp = d, int(np.clip(p + rng.choice([-2, -1, 1, 2]), 1, pages_per_doc))
                elif kind < 0.5:
                    dd, pp = d, int(rng.integers(1, pages_per_doc + 1))
                else:
                    dd, pp = int(rng.integers(n_docs)), int(rng.integers(1, pages_per_doc + 1))
                text = pages[dd, pp]
                start = int(rng.integers(0, max(1, len(text) - 1000)))
                retrieved.append({"doc_id": f"doc{dd:04d}", "page": pp, "chunk_id": f"c{q}-{r}",
                                  "text": text[start:start + 1000], "score": round(float(20 - r + rng.random()), 4)})
            log.write(json.dumps({"question_id": f"q{q:05d}", "question": f"question {q}?", "retrieved": retrieved,
                                  "latency_ms": round(float(rng.gamma(4, 40)), 1)}, ensure_ascii=False) + "\n")
    return {"pages": n_docs * pages_per_doc, "questions": n_questions, "items": n_questions * items}


def tree_peak(cmd, cwd) -> tuple[float, float, int, str]:
    """Wall seconds, peak summed RSS (MB) of a command and all its children (sampled every 0.1 s), exit code and
    the end of its standard error."""
    import psutil

    start = time.perf_counter()
    proc = subprocess.Popen(cmd, cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    parent = psutil.Process(proc.pid)
    peak = 0
    stop = threading.Event()

    def sample():
        nonlocal peak
        while not stop.is_set():
            try:
                procs = [parent, *parent.children(recursive=True)]
                peak = max(peak, sum(p.memory_info().rss for p in procs if p.is_running()))
            except psutil.Error:
                pass
            time.sleep(0.1)

    thread = threading.Thread(target=sample, daemon=True)
    thread.start()
    _, err = proc.communicate()
    stop.set()
    thread.join()
    return time.perf_counter() - start, peak / 2**20, proc.returncode, err.decode(errors="replace")[-2000:]


class Phases:
    """Wall time and peak RSS of this process per phase (RSS sampled every 10 ms by a thread)."""

    def __init__(self):
        import psutil

        self._proc = psutil.Process()
        self._peak = 0
        self._stop = threading.Event()
        self.rows = []
        threading.Thread(target=self._sample, daemon=True).start()

    def _sample(self):
        while not self._stop.is_set():
            self._peak = max(self._peak, self._proc.memory_info().rss)
            time.sleep(0.01)

    def run(self, name, fn, note=""):
        self._peak = self._proc.memory_info().rss
        start = time.perf_counter()
        out = fn()
        seconds = time.perf_counter() - start
        peak = max(self._peak, self._proc.memory_info().rss)
        self.rows.append({"phase": name, "seconds": seconds, "peak_mb": peak / 2**20, "note": note(out) if callable(note) else note})
        print(f"  {name}: {seconds:.1f} s, peak {peak / 2**20:.0f} MB {self.rows[-1]['note']}", file=sys.stderr, flush=True)
        return out

    def close(self):
        self._stop.set()


def phases(folder: Path) -> list[dict]:
    """The report's phases in this process (module docstring, step 1)."""
    from rag_metrics.analysis.experiment import evaluate_log
    from rag_metrics.analysis.history import experiment_history, history_table, save_experiment
    from rag_metrics.io.corpus import load_corpus
    from rag_metrics.io.golden import load_golden
    from rag_metrics.io.logs import load_log

    p = Phases()

    def read():
        corpus = load_corpus(folder / "pages.jsonl")
        return corpus, load_golden(folder / "golden.jsonl", corpus=corpus), load_log(folder / "log.jsonl")

    corpus, golden, log = p.run("reading", read, lambda r: f"{len(r[2].run):,} items")
    result = p.run("judging (evaluate_log)", lambda: evaluate_log(golden, log, corpus, ks=(1, 3, 5)),
                   lambda r: "judges " + ", ".join(r.judges))

    def values():
        return result.judges_table(), result.by_type(), result.failure_counts(), result.misses()

    misses = p.run("per-question values", values, lambda r: f"{len(r[3]):,} misses at k=5")[3]

    def statistics():
        result.headline(n_resamples=10_000)
        with tempfile.TemporaryDirectory() as history:
            save_experiment(result, history)
            return history_table(experiment_history(history), result.headline_measures, n_resamples=10_000)

    p.run("statistics (10,000 resamples)", statistics)

    shown = misses[:DRILL_DOWNS]

    def drill_downs():
        return sum(len(result.explain(qid)._repr_html_()) for qid in shown)

    p.run("drill-downs", drill_downs, lambda size: f"the first {len(shown):,} of {len(misses):,} misses, "
          f"{size / 2**20:.1f} MB HTML; the notebook shows all of them")
    p.close()
    return p.rows


def export(notebook: Path, html: Path) -> None:
    from rag_metrics.report.runner import export_html

    export_html(notebook, html, hide_input=True)


def load() -> str:
    return "load average %.1f / %.1f / %.1f" % os.getloadavg() if hasattr(os, "getloadavg") else "load average n/a"


def measure(folder: Path, n: int) -> dict:
    before = load()
    out = subprocess.run([sys.executable, __file__, "--phases", str(folder)], capture_output=True, text=True)
    if out.returncode:
        raise SystemExit(f"phases for {n} questions failed:\n{out.stderr[-3000:]}")
    print(out.stderr, end="", flush=True)
    rows = json.loads(out.stdout)
    cmd = [str(BIN / "rag-metrics"), "report", "--experiment", "bench", "--golden", str(folder / "golden.jsonl"),
           "--pages", str(folder / "pages.jsonl"), "--run", str(folder / "log.jsonl"), "--reports-dir",
           str(folder / "reports")]
    wall, peak, code, err = tree_peak(cmd, cwd=folder)
    run_dir = next(iter(sorted((folder / "reports" / "bench").glob("2*"))), None)
    html = next(iter(run_dir.glob("*.html")), None) if run_dir else None
    notebook = next(iter(run_dir.glob("*.ipynb")), None) if run_dir else None
    executed = None
    if notebook is not None:
        executed = json.loads(notebook.read_text(encoding="utf-8")).get("metadata", {}).get("papermill", {}).get("duration")
    whole = {"seconds": wall, "peak_mb": peak, "exit": code, "error": "" if code == 0 else err.strip().splitlines()[-1:],
             "notebook_s": executed, "html_mb": html.stat().st_size / 2**20 if html else float("nan")}
    print(f"  whole command: {wall:.1f} s, peak {peak:.0f} MB (tree), exit {code}, notebook {executed or float('nan'):.1f} s, "
          f"HTML {whole['html_mb']:.1f} MB", flush=True)
    exp = None
    if notebook is not None:
        t, pk, c, e = tree_peak([sys.executable, __file__, "--export", str(notebook), str(folder / "again.html")],
                                cwd=folder)
        exp = {"seconds": t, "peak_mb": pk, "exit": c}
        print(f"  nbconvert export alone: {t:.1f} s, peak {pk:.0f} MB, exit {c}", flush=True)
    return {"questions": n, "phases": rows, "whole": whole, "export": exp, "load_before": before, "load_after": load()}


def write(results: list[dict], out: Path, argv) -> None:
    lines = [
        "# Experiment report at scale: time and peak memory per phase",
        "",
        "```sh",
        "python benchmarks/experiment_report.py " + " ".join(argv),
        "```",
        "",
        f"Measured {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())} on {platform.machine()}, {os.cpu_count()} cores, "
        f"Python {platform.python_version()}; synthetic data of the script's docstring (20 logged texts of ~1,000 "
        "characters per question, 5,000 pages). The machine was shared with other work: the load average (1, 5, 15 "
        "minutes) before and after each size is given; on 2 cores, a load above 2 stretches wall times.",
        "",
    ]
    for r in results:
        w, e = r["whole"], r["export"]
        lines += [
            f"## {r['questions']:,} questions ({r['questions'] * 20:,} logged texts)",
            "",
            f"{r['load_before']} before, {r['load_after']} after.",
            "",
            "| phase | wall s | peak MB | |",
            "|---|---:|---:|---|",
            *[f"| {p['phase']} | {p['seconds']:.1f} | {p['peak_mb']:.0f} | {p['note']} |" for p in r["phases"]],
            f"| notebook execution (in the whole command, papermill's record) | "
            f"{w['notebook_s'] if w['notebook_s'] is not None else float('nan'):.1f} | | |",
            f"| nbconvert export alone (fresh process) | {e['seconds']:.1f} | {e['peak_mb']:.0f} | exit {e['exit']} |"
            if e else "| nbconvert export | - | - | no notebook was written |",
            f"| **whole command** `rag-metrics report` (process tree) | **{w['seconds']:.1f}** | **{w['peak_mb']:.0f}** | "
            f"exit {w['exit']}{'; ' + ' '.join(w['error']) if w['error'] else ''} |",
            f"| HTML size | | | {w['html_mb']:.1f} MB |",
            "",
        ]
        target = TARGETS.get(r["questions"])
        if target:
            seconds, mb, html_mb = target
            verdict = [f"{seconds:.0f} s: **{'met' if w['seconds'] <= seconds else 'not met'}** ({w['seconds']:.1f} s)",
                       f"{mb / 1024:.1f} GB: **{'met' if w['peak_mb'] <= mb else 'not met'}** ({w['peak_mb'] / 1024:.2f} GB)"]
            if html_mb:
                verdict.append(f"HTML under {html_mb:.0f} MB: **{'met' if w['html_mb'] < html_mb else 'not met'}** "
                               f"({w['html_mb']:.1f} MB)")
            lines += ["Target for the whole command at this size: " + "; ".join(verdict) + ".", ""]
    if len(results) >= 2:
        a, b = results[0], results[-1]
        scale = b["questions"] / a["questions"]
        lines += [f"Growth from {a['questions']:,} to {b['questions']:,} questions ({scale:.0f}x the questions; 1.0 = "
                  "linear):", "", "| phase | time ratio / question ratio |", "|---|---:|"]
        for pa, pb in zip(a["phases"], b["phases"]):
            lines.append(f"| {pa['phase']} | {pb['seconds'] / pa['seconds'] / scale:.2f} |")
        if a["export"] and b["export"]:
            lines.append(f"| nbconvert export | {b['export']['seconds'] / a['export']['seconds'] / scale:.2f} |")
        lines.append(f"| whole command | {b['whole']['seconds'] / a['whole']['seconds'] / scale:.2f} |")
        lines.append("")
    out.write_text("\n".join(lines), encoding="utf-8")
    print("wrote", out)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[2000, 8000])
    parser.add_argument("--with-50000", action="store_true", help="also 50,000 questions (long: run on request)")
    parser.add_argument("--out", default=str(HERE / "experiment_report.md"))
    parser.add_argument("--phases", type=Path, help=argparse.SUPPRESS)  # internal: the phases of one folder
    parser.add_argument("--export", type=Path, nargs=2, help=argparse.SUPPRESS)  # internal: export alone
    args = parser.parse_args(argv)
    if args.phases:
        print(json.dumps(phases(args.phases)))
        return
    if args.export:
        export(*args.export)
        return
    sizes = args.sizes + ([50000] if args.with_50000 and 50000 not in args.sizes else [])
    results = []
    with tempfile.TemporaryDirectory() as tmp:
        for n in sizes:
            folder = Path(tmp) / f"n{n}"
            folder.mkdir()
            make_data(folder, n)
            print(f"{n} questions:", flush=True)
            results.append(measure(folder, n))
            write(results, Path(args.out), sys.argv[1:] if argv is None else argv)


if __name__ == "__main__":
    main()
