"""Regenerate the example retrieval logs of data/examples/ (run from the repository root).

    .venv/bin/python data/examples/regenerate.py

Two runs of the built-in BM25 retriever over the sample corpus, as `rag-metrics run` makes them --
the baseline with 300-character chunks (50 overlapping), then an index change to 400-character
chunks (100 overlapping) -- and the second run again in the shape of a LangChain ``Document`` dump
(``page_content``, ``metadata.source`` as a file path, ``metadata.page`` counted from 0), with the
answers generator ``gen_a`` gave (data/answers.jsonl) attached, to be read with ``--preset langchain``.
Contents are deterministic except the measured latencies and the timestamps in the settings files.
"""

import json
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent.parent
CLI = [sys.executable, "-m", "rag_metrics.cli"]


def run(name, size, overlap):
    out = HERE / f"{name}.jsonl"
    for stale in (out, Path(f"{out}.settings.json")):
        stale.unlink(missing_ok=True)
    subprocess.run([*CLI, "run", "--retriever", "bm25", "--golden", "data/golden.jsonl", "--pages", "data/corpus",
                    "--option", f"size={size}", "--option", f"overlap={overlap}", "-k", "5", "--workers", "1",
                    "--out", str(out.relative_to(ROOT)), "--no-progress"], check=True, cwd=ROOT)
    return out


def to_langchain(native: Path, out: Path):
    answers = {}
    for line in (ROOT / "data/answers.jsonl").read_text(encoding="utf-8").splitlines():
        row = json.loads(line)
        if row["generator"] == "gen_a":
            answers[row["question_id"]] = row["generated_answer"]
    with open(out, "w", encoding="utf-8") as sink:
        for line in native.read_text(encoding="utf-8").splitlines():
            rec = json.loads(line)
            docs = [{"id": item["chunk_id"], "page_content": item["text"], "type": "Document",
                     "metadata": {"source": f"docs/{item['doc_id']}.md", "page": item["pages"][0] - 1,
                                  "score": item["score"]}}
                    for item in rec["retrieved"]]
            sink.write(json.dumps({"question_id": rec["question_id"], "query": rec["question"],
                                   "source_documents": docs, "result": answers.get(rec["question_id"], ""),
                                   "latency_ms": rec.get("latency_ms")}, ensure_ascii=False) + "\n")


if __name__ == "__main__":
    run("bm25_c300o50", 300, 50)
    second = run("bm25_c400o100", 400, 100)
    to_langchain(second, HERE / "langchain_bm25_c400o100.jsonl")
    print("wrote", ", ".join(sorted(p.name for p in HERE.glob("*.jsonl"))))
