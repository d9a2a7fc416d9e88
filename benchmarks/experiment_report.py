"""Benchmark: an experiment report at scale -- 2,000 questions x 20 logged texts of ~1,000 characters, 5,000 pages.

    python benchmarks/experiment_report.py                 # generates the data, then measures
    python benchmarks/experiment_report.py --sizes 500 2000

Measured, and written to benchmarks/experiment_report.md:

* the whole command ``rag-metrics report --experiment bench --golden G --pages P --run LOG`` as a fresh process:
  wall time, and peak memory of the whole process tree (the command and its notebook kernel), sampled every 0.1 s;
* the judging alone (load + :func:`rag_metrics.analysis.experiment.evaluate_log`, every judge) at each size, with
  the time per retrieved item, to show that it scales linearly.

The data are synthetic and seeded: 250 documents of 20 pages (~2,000 characters each, words drawn from a
vocabulary of 6,000 with Zipf frequencies, one page in ten in Japanese); each question's gold is one page (one in
five has two); its log holds 20 items of ~1,000 characters cut from pages -- a gold page, a neighbour, another page
of the gold document or another document -- with page metadata and scores.
"""

from __future__ import annotations

import argparse
import json
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


def tree_peak(cmd, cwd) -> tuple[float, float, int]:
    """Wall seconds and peak summed RSS (MB) of a command and all its children."""
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
    return time.perf_counter() - start, peak / 2**20, proc.returncode if not err else proc.returncode


def judging(folder: Path) -> dict:
    from rag_metrics.analysis.experiment import evaluate_log
    from rag_metrics.io.corpus import load_corpus
    from rag_metrics.io.golden import load_golden
    from rag_metrics.io.logs import load_log

    t0 = time.perf_counter()
    corpus = load_corpus(folder / "pages.jsonl")
    golden = load_golden(folder / "golden.jsonl", corpus=corpus)
    log = load_log(folder / "log.jsonl")
    t1 = time.perf_counter()
    result = evaluate_log(golden, log, corpus)
    t2 = time.perf_counter()
    return {"load_s": t1 - t0, "judge_s": t2 - t1, "items": len(log.run), "judges": list(result.judges),
            "hit@5": result.evaluation.summary_dict()["hit@5"]["mean"]}


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[1000, 2000])
    parser.add_argument("--report-size", type=int, default=2000)
    parser.add_argument("--out", default=str(HERE / "experiment_report.md"))
    args = parser.parse_args(argv)
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for n in args.sizes:
            folder = Path(tmp) / f"n{n}"
            folder.mkdir()
            info = make_data(folder, n)
            j = judging(folder)
            rows.append({**info, **j})
            print(f"{n} questions: load {j['load_s']:.1f} s, judge {j['judge_s']:.1f} s "
                  f"({1e6 * j['judge_s'] / j['items']:.0f} us per item), judges {j['judges']}", flush=True)
        folder = Path(tmp) / f"n{args.report_size}"
        if not folder.exists():
            folder.mkdir()
            make_data(folder, args.report_size)
        cmd = [str(BIN / "rag-metrics"), "report", "--experiment", "bench", "--golden", str(folder / "golden.jsonl"),
               "--pages", str(folder / "pages.jsonl"), "--run", str(folder / "log.jsonl"), "--reports-dir",
               str(folder / "reports")]
        wall, peak, code = tree_peak(cmd, cwd=tmp)
        html = next((folder / "reports" / "bench").glob("2*/experiment.html"), None)
        size_mb = html.stat().st_size / 2**20 if html else float("nan")
        print(f"report for {args.report_size} questions: {wall:.1f} s, peak {peak:.0f} MB (process tree), "
              f"exit {code}, HTML {size_mb:.1f} MB", flush=True)
    import platform

    lines = [
        "# Experiment report at scale",
        "",
        "```sh",
        "python benchmarks/experiment_report.py " + " ".join(sys.argv[1:]),
        "```",
        "",
        f"Measured {time.strftime('%Y-%m-%d')} on {platform.machine()} with {__import__('os').cpu_count()} cores, "
        f"Python {platform.python_version()} (synthetic data described in the script's docstring).",
        "",
        "| questions | retrieved texts | pages | load s | judging s | judges | us per item |",
        "|---:|---:|---:|---:|---:|---|---:|",
        *[f"| {r['questions']:,} | {r['items']:,} | {r['pages']:,} | {r['load_s']:.1f} | {r['judge_s']:.1f} | "
          f"{', '.join(r['judges'])} | {1e6 * r['judge_s'] / r['items']:.0f} |" for r in rows],
        "",
        f"Whole report (`rag-metrics report --run`, {args.report_size:,} questions x 20 texts, 5,000 pages): "
        f"**{wall:.1f} s**, peak memory of the process tree **{peak:.0f} MB**, HTML {size_mb:.1f} MB (exit {code}).",
        "",
    ]
    Path(args.out).write_text("\n".join(lines), encoding="utf-8")
    print("wrote", args.out)


if __name__ == "__main__":
    main()
