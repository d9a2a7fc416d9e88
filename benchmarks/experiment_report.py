"""Benchmark: the experiment report at scale -- 20 logged texts of ~1,000 characters per question, 5,000 pages.

    python benchmarks/experiment_report.py                    # 2,000 and 8,000 questions beside the baseline
    python benchmarks/experiment_report.py --sizes 50000      # on request: ~1 GB of data in /tmp
    python benchmarks/experiment_report.py --sizes 2000 8000 --out benchmarks/experiment_report.md

For each size, two measurements, each in a fresh process:

* the **whole command** ``rag-metrics report --experiment bench --golden G --pages P --run LOG``: wall time, CPU
  time (the command, its reading child and its notebook kernel), peak memory of the process tree (sampled every
  0.1 s) and the size of the HTML page -- printed beside the previous release's figures for that size (``--baseline``,
  default ``experiment_report_baseline.json``), with ``slower by X%`` when wall or CPU seconds exceed the baseline's
  by more than 10% (:data:`SLOWER`) and ``larger by X%`` for memory (:func:`against_baseline`). CPU seconds are the
  steadier figure on a shared machine; wall seconds follow the load;
* the **sections**, in one Python process (``--sections`` mode of this script, :func:`sections`): reading (the
  inputs read and validated, the log's fingerprint, the hand-over cache), judging and evaluation (timed inside
  the report by wrapping the judge and the evaluators), every code cell of ``experiment.ipynb`` as the kernel runs
  it, and the nbconvert export of the page -- wall and CPU seconds each.

``--out FILE`` writes both tables as Markdown (``experiment_report.md`` keeps them, with the command and the load);
``--save-baseline FILE --label TEXT`` writes this run's whole-command figures as a baseline file. Time is never
asserted in a test: ``tests/test_bench_report.py`` checks the comparison rule on given numbers, and the report's
tests check the shape that keeps the cost linear (drill-downs for distinct lists only, the question table capped on
the page with the whole table in a CSV file beside it).

The data are synthetic and seeded: 250 documents of 20 pages (~2,000 characters each, words drawn from a
vocabulary of 6,000 with Zipf frequencies, one page in ten in Japanese); each question's gold is one page (one in
five has two); its log holds 20 items of ~1,000 characters cut from pages -- a gold page, a neighbour, another page
of the gold document or another document -- with page metadata and scores.
"""

from __future__ import annotations

import argparse
import contextlib
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


def _timed(out: dict, name: str, func, *args, **kwargs):
    """Run ``func`` and add its wall and CPU seconds to ``out[name]``."""
    start, cpu = time.perf_counter(), time.process_time()
    try:
        return func(*args, **kwargs)
    finally:
        wall, used = out.get(name, (0.0, 0.0))
        out[name] = (wall + time.perf_counter() - start, used + time.process_time() - cpu)


def sections(folder: Path) -> dict:
    """The report's cost section by section, in this process (module docstring): ``{section: (wall s, CPU s)}``.

    Reading is :func:`~rag_metrics.report.report_inputs.read_inputs` plus the log's fingerprint (what the command's
    reading child does); judging and evaluation are timed inside
    :func:`~rag_metrics.experiment.experiment_report.experiment_report` by wrapping the judge and the evaluators; then
    every code cell of the report notebook runs in an IPython shell on the handed-over inputs, as the kernel runs it;
    last the page is exported (nbconvert) from the notebook the whole command executed, when there is one."""
    import pickle

    import matplotlib

    matplotlib.use("agg")
    import nbformat
    from IPython.core.interactiveshell import InteractiveShell

    import rag_metrics.report
    from rag_metrics.experiment import evaluate as ev
    from rag_metrics.report.report_inputs import read_inputs, write_cache

    out: dict = {}
    reading = dict(golden=str(folder / "golden.jsonl"), runs=[str(folder / "log.jsonl")],
                   pages=str(folder / "pages.jsonl"))
    inputs = _timed(out, "reading: read and validate the inputs", read_inputs, **reading)
    for log in inputs.logs:
        _timed(out, "reading: the log's fingerprint", log.fingerprint)
    cache = folder / "inputs.pickle"
    _timed(out, "reading: hand over (write the cache)", write_cache, inputs, cache, **reading)
    for name, label in (("judge_run", "judging (every judge)"), ("evaluate_judged", "evaluation (page level)"),
                        ("evaluate_documents", "evaluation (document level)"),
                        ("failure_breakdown_judged", "evaluation (failures)")):
        func = getattr(ev, name)
        setattr(ev, name, lambda *a, _f=func, _l=label, **k: _timed(out, _l, _f, *a, **k))
    notebook = Path(rag_metrics.report.__file__).parent / "experiment.ipynb"
    nb = nbformat.read(str(notebook), as_version=4)
    shell = InteractiveShell.instance()
    shell.run_cell(next(c.source for c in nb.cells if c.get("id") == "parameters"))
    shell.user_ns.update(experiment="bench", answers=None, generator=None, history_dir=str(folder / "sections-h"),
                         inputs=str(cache), **reading)
    for cell in nb.cells:
        if cell.cell_type != "code" or cell.get("id") == "parameters":
            continue
        with open(os.devnull, "w") as null, contextlib.redirect_stdout(null):
            done = _timed(out, f"notebook: {cell.get('id')}", shell.run_cell, cell.source)
        if not done.success:
            raise RuntimeError(f"cell {cell.get('id')}: {done.error_in_exec or done.error_before_exec}")
    setup = out.pop("notebook: setup")
    inner = [v for k, v in out.items() if k.startswith(("judging", "evaluation"))]
    out["notebook: setup (history, the rest of the report object)"] = tuple(
        a - sum(v[i] for v in inner) for i, a in enumerate(setup))
    executed = sorted((folder / "reports" / "bench").glob("2*/experiment.ipynb"))
    if executed:
        from rag_metrics.report.build import export_html

        _timed(out, "writing: nbconvert to HTML", export_html, executed[-1], folder / "sections.html", hide_input=True)
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


SLOWER = 0.10
"""A size that costs more than this share more than the baseline's figure is reported ("slower by X%")."""
BASELINE = HERE / "experiment_report_baseline.json"


def against_baseline(n: int, measured: dict, baseline: dict | None, *, slower: float = SLOWER) -> list[str]:
    """Lines comparing one size's whole command (``measured``: ``wall``, ``cpu`` seconds, ``peak_mb``) with the
    baseline's figures for that size (``baseline``: the file's ``sizes`` entry, or None): each figure beside the
    baseline's, and ``slower by X%`` (CPU or wall seconds) / ``larger by X%`` (peak memory) when it exceeds the
    baseline's by more than ``slower``. CPU seconds are the steadier figure on a shared machine; wall seconds follow
    the load."""
    if baseline is None:
        return [f"{n:,} questions: no baseline figure for this size"]
    lines = []
    for key, label, unit, word in (("wall", "wall", "s", "slower"), ("cpu", "CPU", "s", "slower"),
                                   ("peak_mb", "peak memory", "MB", "larger")):
        now, then = float(measured[key]), float(baseline[key])
        change = now / then - 1 if then > 0 else 0.0
        if now > then * (1 + slower):  # compared as products: 22.0 against 20.0 is 10%, not 10.000000000000009%
            verdict = f"{word} by {change:.0%}"
        elif now < then * (1 - slower):
            verdict = "faster" if word == "slower" else "smaller"
        else:
            verdict = f"within {slower:.0%}"
        lines.append(f"{n:,} questions: {label} {now:,.1f} {unit} (baseline {then:,.1f} {unit}): {verdict}")
    return lines


def _table(rows: list, keys: list) -> list[str]:
    """The markdown table of sections: one row per section, one column pair (wall s, CPU s) per size."""
    head = "| section | " + " | ".join(f"{r['questions']:,}: wall s | CPU s" for r in rows) + " |"
    lines = [head, "|---|" + "---:|---:|" * len(rows)]
    for key in keys:
        cells = [r["sections"].get(key) for r in rows]
        lines.append(f"| {key} | " + " | ".join("-- | --" if c is None else f"{c[0]:.2f} | {c[1]:.2f}" for c in cells)
                     + " |")
    return lines


def report_lines(rows: list, command: str, baseline: dict | None) -> list[str]:
    """``experiment_report.md``: the whole command per size beside the baseline, then the sections."""
    lines = ["# Experiment report at scale", "", "```sh", command, "```", "",
             f"Measured {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())} on {platform.machine()} with "
             f"{os.cpu_count()} cores, Python {platform.python_version()}, load average before / after: "
             + " / ".join(r["load"] for r in rows[:1]) + "; synthetic data described in the script's docstring (20 "
             "logged texts of ~1,000 characters per question, 5,000 pages), one log.", "",
             "## The whole command (`rag-metrics report --run LOG`, a fresh process)", "",
             "| questions | wall s | CPU s | peak MB (process tree) | HTML MB | baseline wall s | baseline CPU s | "
             "baseline peak MB |", "|---:|---:|---:|---:|---:|---:|---:|---:|"]
    for r in rows:
        w, b = r["whole"], (baseline or {}).get("sizes", {}).get(str(r["questions"]), {})
        lines.append(f"| {r['questions']:,} | {w['wall']:.1f} | {w['cpu']:.1f} | {w['peak_mb']:.0f} | "
                     f"{w['html_mb']:.1f} | {b.get('wall', float('nan')):.1f} | {b.get('cpu', float('nan')):.1f} | "
                     f"{b.get('peak_mb', float('nan')):.0f} |")
    keys = list(dict.fromkeys(k for r in rows for k in r["sections"]))
    lines += ["", "## Section by section, in one process (wall s, CPU s)", ""] + _table(rows, keys) + [""]
    return lines


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[2000, 8000])
    parser.add_argument("--out", default=None, help="write the tables (markdown) there")
    parser.add_argument("--baseline", default=str(BASELINE), help="the previous release's figures (JSON)")
    parser.add_argument("--save-baseline", default=None, help="write this run's figures as a baseline file")
    parser.add_argument("--label", default="", help="what the saved baseline measured (a release, a commit)")
    parser.add_argument("--sections", metavar="FOLDER", help=argparse.SUPPRESS)  # internal: one size's sections
    args = parser.parse_args(argv)
    if args.sections:
        print(json.dumps(sections(Path(args.sections))))
        return
    baseline = json.loads(Path(args.baseline).read_text(encoding="utf-8")) if Path(args.baseline).is_file() else None
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for n in args.sizes:
            folder = Path(tmp) / f"n{n}"
            folder.mkdir()
            info = make_data(folder, n)
            load = " ".join(f"{x:.1f}" for x in os.getloadavg())
            whole = whole_command(folder)
            if whole["exit"]:
                sys.exit(whole["error"])
            done = subprocess.run([sys.executable, __file__, "--sections", str(folder)], capture_output=True,
                                  text=True)
            if done.returncode:
                sys.exit(done.stderr[-3000:])
            found = json.loads(done.stdout.strip().splitlines()[-1])
            print(f"{n:,} questions: whole command {whole['wall']:.1f} s, CPU {whole['cpu']:.1f} s, peak "
                  f"{whole['peak_mb']:.0f} MB (process tree), HTML {whole['html_mb']:.1f} MB (load {load})", flush=True)
            for line in against_baseline(n, whole, (baseline or {}).get("sizes", {}).get(str(n))):
                print("  " + line, flush=True)
            rows.append({**info, "load": load + " / " + " ".join(f"{x:.1f}" for x in os.getloadavg()),
                         "sections": found, "whole": whole})
    command = "python benchmarks/experiment_report.py " + " ".join(argv if argv is not None else sys.argv[1:])
    if args.out:
        Path(args.out).write_text("\n".join(report_lines(rows, command, baseline)), encoding="utf-8")
        print("wrote", args.out)
    if args.save_baseline:
        Path(args.save_baseline).write_text(json.dumps({
            "measured": args.label or time.strftime("%Y-%m-%d"), "command": command,
            "sizes": {str(r["questions"]): {k: round(r["whole"][k], 1) for k in ("wall", "cpu", "peak_mb")}
                      for r in rows}}, indent=1) + "\n", encoding="utf-8")
        print("wrote", args.save_baseline)


if __name__ == "__main__":
    main()
