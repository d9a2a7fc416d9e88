"""Benchmark: the experiment report at scale -- 20 logged texts of ~1,000 characters per question, 5,000 pages.

    python benchmarks/experiment_report.py                    # 2,000 and 8,000 questions (make bench-report)
    python benchmarks/experiment_report.py --sizes 50000      # on request: ~10 minutes, ~1 GB of data in /tmp
    python benchmarks/experiment_report.py --sizes 2000 8000 50000 --out benchmarks/experiment_report.md

For each size, two measurements, each in a fresh process:

* **phases**, in one Python process (``--phases`` mode of this script): reading and validating the inputs
  (:func:`rag_metrics.report.inputs.read_inputs`), judging and evaluating the log
  (:func:`rag_metrics.experiment.evaluate.evaluate_log`), saving it to the history with its intervals (each computed
  once), the report's tables (:func:`rag_metrics.experiment.content.experiment_report` on the evaluated run:
  history table, moved questions, drill-down plan), the capped drill-downs rendered to HTML, and the HTML export of a
  page of that size -- wall time and the process's peak RSS during each phase (sampled every 0.05 s);
* the **whole command** ``rag-metrics report --experiment bench --golden G --pages P --run LOG`` as a fresh process:
  wall time, peak memory of the process tree (the command and its notebook kernel, sampled every 0.1 s), the
  notebook's cells as papermill timed them (the setup cell holds reading, judging and the history), the rest (start,
  HTML export, index) and the size of the HTML page.

Targets on this machine (2 cores, 24 GB): 8,000 questions in <= 40 s and <= 1.5 GB; 50,000 in <= 5 minutes and
<= 4 GB; the HTML of a 50,000-question report under 10 MB. The table in ``experiment_report.md`` says what was
reached. Time is never asserted in a test; ``tests/test_experiment_report.py`` checks the shape that makes the cost
linear (drill-downs reuse the page index, the HTML holds no ``<br>``, each interval is computed once).

The data are synthetic and seeded: 250 documents of 20 pages (~2,000 characters each, words drawn from a
vocabulary of 6,000 with Zipf frequencies, one page in ten in Japanese); each question's gold is one page (one in
five has two); its log holds 20 items of ~1,000 characters cut from pages -- a gold page, a neighbour, another page
of the gold document or another document -- with page metadata and scores.
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


class Peak:
    """Peak RSS (MB) of a process -- and its children with ``tree`` -- sampled in a thread; ``reset()`` per phase."""

    def __init__(self, pid: int | None = None, *, tree: bool = False, every: float = 0.05):
        import psutil

        self.proc, self.tree, self.every = psutil.Process(pid or os.getpid()), tree, every
        self.peak, self._stop = 0, threading.Event()
        self._procs, self._listed = [self.proc], 0.0
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()

    def _rss(self) -> int:
        import psutil

        try:
            if self.tree and time.monotonic() - self._listed > 0.5:  # listing the tree walks /proc: twice a second
                self._procs, self._listed = [self.proc, *self.proc.children(recursive=True)], time.monotonic()
            total = 0
            for p in self._procs:
                try:
                    total += p.memory_info().rss
                except psutil.Error:  # a child that has ended
                    pass
            return total
        except psutil.Error:
            return 0

    def _run(self):
        while not self._stop.is_set():
            self.peak = max(self.peak, self._rss())
            time.sleep(self.every)

    def reset(self) -> None:
        self.peak = self._rss()

    def mb(self) -> float:
        self.peak = max(self.peak, self._rss())
        return self.peak / 2**20

    def stop(self) -> None:
        self._stop.set()
        self._thread.join()


def phases(folder: Path) -> dict:
    """The report's phases in this process (module docstring): ``{phase: (wall s, CPU s, peak MB)}``."""
    from rag_metrics.experiment.content import experiment_report
    from rag_metrics.report.inputs import read_inputs

    peak = Peak()
    out: dict = {}

    def phase(name, func):
        peak.reset()
        start, cpu = time.perf_counter(), time.process_time()
        value = func()
        out[name] = (time.perf_counter() - start, time.process_time() - cpu, peak.mb())
        return value

    inputs = phase("read and validate inputs", lambda: read_inputs(golden=folder / "golden.jsonl",
                                                                   runs=[folder / "log.jsonl"],
                                                                   pages=folder / "pages.jsonl"))
    report = phase("judge, evaluate, history with intervals", lambda: experiment_report(
        inputs.golden, inputs.logs, inputs.corpus, history_dir=folder / "phase-history"))
    phase("report tables (history, moved, plan)", lambda: (report.history_table(), report.moved(),
                                                            report.drilldown_plan(20)))
    html = phase("20 drill-downs to HTML", lambda: "".join(
        report.explain(q)._repr_html_() for q in report.drilldown_plan(20).query("drilldown")["question_id"]))
    out["drill-down HTML KB"] = (len(html.encode()) / 1024, None, None)
    peak.stop()
    return out


def whole_command(folder: Path) -> dict:
    cmd = [str(BIN / "rag-metrics"), "report", "--experiment", "bench", "--golden", str(folder / "golden.jsonl"),
           "--pages", str(folder / "pages.jsonl"), "--run", str(folder / "log.jsonl"), "--reports-dir",
           str(folder / "reports")]
    import resource

    start = time.perf_counter()
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    proc = subprocess.Popen(cmd, cwd=folder, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    peak = Peak(proc.pid, tree=True, every=0.1)
    _, err = proc.communicate()
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)  # the command and its kernel (reaped by it)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    mb = peak.mb()
    peak.stop()
    run = sorted((folder / "reports" / "bench").glob("2*"))[-1]
    html = run / "experiment.html"
    nb = json.loads((run / "experiment.ipynb").read_text(encoding="utf-8"))
    cells = {}
    for cell in nb["cells"]:
        if cell["cell_type"] == "code":
            cells[cell.get("id", "?")] = cell.get("metadata", {}).get("papermill", {}).get("duration") or 0.0
    return {"wall": wall, "cpu": cpu, "peak_mb": mb, "exit": proc.returncode, "html_mb": html.stat().st_size / 2**20,
            "cells": cells, "error": err.decode(errors="replace")[-500:] if proc.returncode else ""}


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[2000, 8000])
    parser.add_argument("--out", default=str(HERE / "experiment_report.md"))
    parser.add_argument("--phases", metavar="FOLDER", help=argparse.SUPPRESS)  # internal: one size's phases
    args = parser.parse_args(argv)
    if args.phases:
        print(json.dumps(phases(Path(args.phases))))
        return
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for n in args.sizes:
            folder = Path(tmp) / f"n{n}"
            folder.mkdir()
            info = make_data(folder, n)
            done = subprocess.run([sys.executable, __file__, "--phases", str(folder)], capture_output=True, text=True)
            if done.returncode:
                sys.exit(done.stderr[-3000:])
            ph = json.loads(done.stdout.strip().splitlines()[-1])
            for name, (sec, cpu, mb) in ph.items():
                print(f"{n} questions: {name}: " + (f"{sec:.1f} s (CPU {cpu:.1f} s), peak {mb:.0f} MB"
                                                      if mb is not None else f"{sec:.0f}"), flush=True)
            whole = whole_command(folder)
            setup = whole["cells"].get("setup", 0.0)
            cells = sum(whole["cells"].values())
            print(f"{n} questions: whole command {whole['wall']:.1f} s, CPU {whole['cpu']:.1f} s (setup cell {setup:.1f} s, drill-down cell "
                  f"{whole['cells'].get('drilldowns', 0.0):.1f} s, other cells {cells - setup:.1f} s, start + HTML export "
                  f"+ index {whole['wall'] - cells:.1f} s), peak {whole['peak_mb']:.0f} MB (process tree), HTML "
                  f"{whole['html_mb']:.1f} MB, exit {whole['exit']} {whole['error']}", flush=True)
            rows.append({**info, "phases": ph, "whole": whole})
    lines = [
        "# Experiment report at scale",
        "",
        "```sh",
        "python benchmarks/experiment_report.py " + " ".join(sys.argv[1:]),
        "```",
        "",
        f"Measured {time.strftime('%Y-%m-%d')} on {platform.machine()} with {os.cpu_count()} cores, "
        f"Python {platform.python_version()}; synthetic data described in the script's docstring (20 logged texts "
        "of ~1,000 characters per question, 5,000 pages), one log.",
        "",
        "Targets: 8,000 questions <= 40 s and <= 1.5 GB; 50,000 questions <= 5 minutes and <= 4 GB; HTML of a "
        "50,000-question report < 10 MB.",
        "",
        "## The whole command (`rag-metrics report --run LOG`, a fresh process)",
        "",
        "| questions | retrieved texts | wall s | CPU s | setup cell s (read, judge, history) | drill-down cell s "
        "| other cells s | start + export + index s | peak MB (process tree) | HTML MB |",
        "|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for r in rows:
        w = r["whole"]
        cells = sum(w["cells"].values())
        setup = w["cells"].get("setup", 0.0)
        drill = w["cells"].get("drilldowns", 0.0)
        lines.append(f"| {r['questions']:,} | {r['items']:,} | {w['wall']:.1f} | {w['cpu']:.1f} | {setup:.1f} | "
                     f"{drill:.1f} | {cells - setup - drill:.1f} | {w['wall'] - cells:.1f} | {w['peak_mb']:.0f} | "
                     f"{w['html_mb']:.1f} |")
    names = list(rows[0]["phases"]) if rows else []
    lines += ["", "## Phases in one process (wall s, CPU s / peak RSS MB of the process during the phase)", "",
              "| questions | " + " | ".join(names) + " |", "|---:|" + "---:|" * len(names)]
    for r in rows:
        cells = []
        for name in names:
            sec, cpu, mb = r["phases"][name]
            cells.append(f"{sec:,.0f}" if mb is None else f"{sec:.1f}, {cpu:.1f} / {mb:.0f}")
        lines.append(f"| {r['questions']:,} | " + " | ".join(cells) + " |")
    lines.append("")
    Path(args.out).write_text("\n".join(lines), encoding="utf-8")
    print("wrote", args.out)


if __name__ == "__main__":
    main()
