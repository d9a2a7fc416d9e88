"""Sampled pages -> a draft of questions: one generator call per page, failures recorded, never fatal.

The draft (``draft.jsonl``), one question per line::

    {"question_id": "expense_policy-p3-q1", "question": "...", "type": "definition", "answer": "...",
     "evidence": "...", "evidence_start": 120, "evidence_end": 181, "doc_id": "expense_policy", "page": 3,
     "title": "...", "language": "en", "generator": "extractive", "model": null, "prompt_version": null,
     "extractive": true, "seed": 0}

A question's ID is ``<doc_id>-p<page>-q<i>``: stable across re-runs, whatever the order the pages
finish in. A page whose generator raises or returns something malformed is recorded in
``draft.errors.jsonl`` (doc_id, page, error) and the run goes on; the summary reports it.
"""

from __future__ import annotations

import time
from concurrent.futures import ThreadPoolExecutor, as_completed
from dataclasses import dataclass, field
from pathlib import Path

import pandas as pd

from rag_metrics.core.errors import InputError, check_int
from rag_metrics.io.jsonl import iter_jsonl, write_jsonl
from rag_metrics.core.progress import progress_bar
from rag_metrics.golden.generators import check_questions, generator_info
from rag_metrics.llm.page import Page
from rag_metrics.golden.sampler import PageSample

__all__ = ["Draft", "generate_questions", "write_draft", "read_draft", "estimate_cost", "reconcile_cost",
           "DRAFT_COLUMNS", "errors_path", "sampled_pages"]

DRAFT_COLUMNS = ["question_id", "question", "type", "answer", "evidence", "evidence_start", "evidence_end", "doc_id",
                 "page", "title", "language", "generator", "model", "prompt_version", "extractive", "seed"]


@dataclass(frozen=True)
class Draft:
    """Generated questions (``questions``, :data:`DRAFT_COLUMNS`), the pages that failed (``failures``:
    doc_id, page, error) and what the run did (``info``: generator, pages, questions, failed pages,
    pages without a question, seconds, and an LLM generator's usage)."""

    questions: pd.DataFrame
    failures: pd.DataFrame
    info: dict = field(default_factory=dict)

    def __len__(self) -> int:
        return len(self.questions)

    def _repr_html_(self) -> str:
        from rag_metrics.core.html import summary

        return summary(f"{len(self.questions)} questions from {self.info.get('pages', '?')} pages "
                       f"({len(self.failures)} failed).",
                       (None, self.questions[["question_id", "type", "question", "answer"]], {"index": False}),
                       ("Failed pages:", None if self.failures.empty else self.failures, {"index": False}))


def sampled_pages(sample: PageSample) -> list[Page]:
    """The sampled pages as the generators receive them (:class:`~rag_metrics.llm.page.Page`)."""
    return _pages(sample)


def _pages(sample: PageSample) -> list[Page]:
    return [Page(doc_id=r["doc_id"], page=int(r["page"]), text=r["text"], title=r.get("title") or "",
                 genre=r.get("genre") or "", language=r.get("language") or "")
            for r in sample.pages.to_dict("records")]


def generate_questions(sample: PageSample, generator, *, workers: int = 4, progress: bool = False) -> Draft:
    """Call ``generator(page)`` for every sampled page (``workers`` at a time) and collect a :class:`Draft`.

    A page whose call raises (a service error after its retries, a malformed reply) or whose
    output is not a list of question dicts becomes a row of ``failures`` with the error; the
    other pages go on. Questions are in sample order whatever order the calls finish in.
    """
    workers = check_int(workers, "workers", func="generate_questions")
    if not callable(generator):
        raise InputError(f"generator {generator!r} is not callable; expected generator(page) -> list of dicts.")
    pages = _pages(sample)
    info = generator_info(generator)
    seed = sample.settings.get("seed")
    results: dict[int, list[dict]] = {}
    failures: dict[int, str] = {}
    start = time.perf_counter()

    def one(i: int, page: Page):
        try:
            return i, check_questions(generator(page), page), None
        except Exception as e:  # any failure of the user's or the service's code: recorded for this page
            return i, None, f"{type(e).__name__}: {e}"

    bar = None
    if progress:
        bar = progress_bar(total=len(pages), desc=f"generating ({info['generator']})", unit="page")
    with ThreadPoolExecutor(max_workers=workers) as pool:
        for future in as_completed([pool.submit(one, i, p) for i, p in enumerate(pages)]):
            i, questions, error = future.result()
            if error is None:
                results[i] = questions
            else:
                failures[i] = error
            if bar is not None:
                bar.update(1)
                bar.set_postfix(failed=len(failures))
    if bar is not None:
        bar.close()
    rows = []
    for i, page in enumerate(pages):
        for j, q in enumerate(results.get(i, []), start=1):
            rows.append({"question_id": f"{page.doc_id}-p{page.page}-q{j}", **q, "doc_id": page.doc_id,
                         "page": page.page, "title": page.title, "language": page.language, **info, "seed": seed})
    fail = pd.DataFrame([{"doc_id": pages[i].doc_id, "page": pages[i].page, "error": failures[i]}
                         for i in sorted(failures)], columns=["doc_id", "page", "error"])
    info = {**info, "pages": len(pages), "questions": len(rows), "failed_pages": len(fail),
            "pages_without_question": sum(1 for i in results if not results[i]),
            "seconds": round(time.perf_counter() - start, 3)}
    if hasattr(generator, "usage"):
        info["usage"] = dict(generator.usage)
    return Draft(pd.DataFrame(rows, columns=DRAFT_COLUMNS), fail, info)


def estimate_cost(sample: PageSample, generator, *, price_in: float | None = None,
                  price_out: float | None = None) -> dict:
    """What a run would cost, before any call: an LLM generator's :meth:`estimate`; an offline one costs nothing."""
    pages = _pages(sample)
    if hasattr(generator, "estimate"):
        return generator.estimate(pages, price_in=price_in, price_out=price_out)
    info = generator_info(generator)
    return {"generator": info["generator"], "model": info["model"], "endpoint": None, "calls": 0, "cached": 0,
            "input_tokens": 0, "output_tokens": 0, "price_in": price_in, "price_out": price_out, "cost": 0.0,
            "offline": True, "pages": len(pages)}


def reconcile_cost(estimate: dict, *, cost: float, calls: int) -> dict:
    """Set a reported cost (``cost`` USD for ``calls`` calls, one per page) beside an :func:`estimate_cost` result.

    Returns ``per_call`` (the reported cost per call), ``estimate_per_call``, ``ratio`` (reported / estimated per
    call; None when the estimate is 0), ``input_tokens_per_call`` of the estimate and ``implied_input_tokens_per_call``:
    how long each page's prompt would have to be for the reported cost at the estimate's prices and output allowance
    (None when the input price is 0, or when the output alone costs more than reported).

    >>> reconcile_cost({"calls": 2, "cost": 0.001, "input_tokens": 800, "output_tokens": 320,
    ...                 "price_in": 1.0, "price_out": 2.0}, cost=0.01, calls=2)["implied_input_tokens_per_call"]
    4680.0
    """
    if calls < 1 or cost < 0:
        raise InputError(f"reconcile_cost: calls must be >= 1 and cost >= 0. Got calls={calls!r}, cost={cost!r}.")
    if not estimate.get("calls"):
        raise InputError("reconcile_cost: the estimate has no call (every page cached, or an offline generator).")
    per_call = cost / calls
    estimate_per_call = (estimate["cost"] or 0.0) / estimate["calls"]
    out_per_call = estimate["output_tokens"] / estimate["calls"]
    price_in, price_out = estimate.get("price_in") or 0.0, estimate.get("price_out") or 0.0
    rest = per_call - out_per_call * price_out / 1e6
    return {"per_call": per_call, "estimate_per_call": estimate_per_call,
            "ratio": per_call / estimate_per_call if estimate_per_call > 0 else None,
            "input_tokens_per_call": estimate["input_tokens"] / estimate["calls"],
            "implied_input_tokens_per_call": rest / (price_in / 1e6) if price_in > 0 and rest > 0 else None}


def errors_path(path) -> Path:
    """Where a draft's failed pages are written: ``draft.jsonl`` -> ``draft.errors.jsonl``."""
    path = Path(path)
    return path.with_name(path.name.removesuffix(".jsonl") + ".errors.jsonl")


def write_draft(draft: Draft, path) -> Path:
    """Write the questions to ``path`` and the failed pages to :func:`errors_path` (removed when none failed), each
    file atomically. A draft without a question is refused (nothing is written, a previous draft is kept): a run
    where every page failed must not replace the last good draft."""
    if not len(draft.questions):
        raise InputError(f"the draft holds no question ({len(draft.failures)} page(s) failed); nothing written"
                         + ("; the previous draft is kept" if Path(path).exists() else "") + ".", path=path)
    rows = [{k: (None if isinstance(v, float) and v != v else v) for k, v in row.items()}
            for row in draft.questions.to_dict("records")]
    for row in rows:
        for key in ("evidence_start", "evidence_end", "page", "seed"):
            if row.get(key) is not None:
                row[key] = int(row[key])
    out = write_jsonl(rows, path)
    errors = errors_path(path)
    if len(draft.failures):
        write_jsonl(draft.failures.to_dict("records"), errors)
    else:
        errors.unlink(missing_ok=True)
    return out


def read_draft(path) -> Draft:
    """Read ``draft.jsonl`` (and its errors file when present); errors name the line and the field."""
    rows, seen = [], {}
    for line, row in iter_jsonl(path, "a draft of questions (JSON lines from `rag-metrics golden generate`)"):
        for key in ("question_id", "question", "doc_id", "page"):
            if key not in row:
                raise InputError(f"missing field {key!r}.", path=path, line=line, field=key)
        qid = row["question_id"]
        if not isinstance(qid, str) or not qid.strip():
            raise InputError(f"question_id {qid!r} is not a non-empty string.", path=path, line=line,
                             field="question_id")
        if qid in seen:
            raise InputError(f"question {qid!r} is listed twice (also at line {seen[qid]}).", path=path, line=line,
                             field="question_id")
        seen[qid] = line
        if not isinstance(row["question"], str) or not row["question"].strip():
            raise InputError(f"question {qid!r}: 'question' must be a non-empty string.", path=path, line=line,
                             field="question")
        page = row["page"]
        if isinstance(page, bool) or not isinstance(page, int) or page < 1:
            raise InputError(f"question {qid!r}: page {page!r} is not an integer >= 1.", path=path, line=line,
                             field="page")
        for key in ("answer", "evidence", "type", "title", "language", "generator", "model", "prompt_version"):
            if row.get(key) is not None and not isinstance(row[key], str):
                raise InputError(f"question {qid!r}: {key!r} must be a string or null, got {row[key]!r}.", path=path,
                                 line=line, field=key)
        rows.append({c: row.get(c) for c in DRAFT_COLUMNS})
    if not rows:
        raise InputError("the draft holds no question.", path=path)
    errors = errors_path(path)
    failures = pd.DataFrame([r for _, r in iter_jsonl(errors, "failed pages")] if errors.is_file() else [],
                            columns=["doc_id", "page", "error"])
    return Draft(pd.DataFrame(rows, columns=DRAFT_COLUMNS), failures, {"source": str(path)})

