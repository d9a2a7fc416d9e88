"""The columnar TREC readers: plain qrels and runs read at array speed, the run joined with the judgments as it is read.

Behind :meth:`Qrels.from_file <rag_metrics.io.judgments.Qrels.from_file>` and the evaluation of a
:meth:`Run.from_file <rag_metrics.io.rankings.Run.from_file>`. They read exactly what the
line-validating reader (:mod:`rag_metrics.io.trec`) reads, or step aside: every file they accept
has, on every line, exactly the expected fields separated by single spaces, nothing the general
reader would reject or split differently (controls, tabs, Unicode spaces, invisible characters,
invalid UTF-8), and numbers in the TREC syntax (:data:`~rag_metrics.io.trec.SCORE_SYNTAX`,
:data:`~rag_metrics.io.trec.INT_SYNTAX`); a leading byte-order mark is skipped and CRLF read as LF,
as there. Anything else raises :class:`FastPathUnavailable` and the caller uses the general
reader, which either reads the same thing more slowly or names the line of the problem. A
differential test feeds the same odd files to every path.

Cost model: the time goes into parsing text and matching string IDs, not into the arithmetic. So:

* small files (up to ``SMALL_FILE_BYTES``, 16 MB) take a light route without the import of polars and
  without a Python object per token: the separators' positions (one numpy pass) give every field as a
  zero-padded byte matrix; integers are checked by character classes on the whole matrix; scores are
  read by Clinger's fast path (``mantissa / 10**k``, correctly rounded like ``float()``) or ``float()``
  for the rare other token; IDs become 64-bit keys (their bytes, or a hash of longer ones checked on
  the bytes); one sort of (question, ID) keys finds repeated documents and joins the judgments;
* a larger run is cut into blocks of about 8 MB (``BLOCK_BYTES``) that end where a question ends (the
  cut is found in the bytes), and three blocks at a time are parsed by polars' CSV reader (no quoting:
  ``"`` is an ordinary character), ordered and joined in threads; only per-question lengths and the
  judged rows survive a block, so memory stays flat in the file size;
* run rows are matched to the judgments of the block's questions through 64-bit keys of (question,
  document hash), and every match is then verified on the exact strings, so the join is exact;
* duplicates of a document within a question are found by sorting 64-bit document hashes within
  each question; a candidate sends the file to the general reader, which names the line;
* ordering is :func:`~rag_metrics.io.trec.trec_order`, shared with the general reader: blocks
  already in order are not sorted; only runs of equal scores are re-ordered by document ID (a tie of
  two rows by one comparison).
"""

from __future__ import annotations

import numpy as np

from rag_metrics.io.coded import CodedRun
from rag_metrics.io.trec import content_size, trec_order
from rag_metrics.io.trec_blocks import code_blocks, read_qrels_polars
from rag_metrics.io.trec_tokens import (MIX, FastPathUnavailable, cached_on, decode_tokens, field_column, field_layout,
                                        has_repeats, id_array, id_keys, integer_column, key_words, plain_text, read_all,
                                        score_column)

__all__ = ["FastPathUnavailable", "read_qrels_fast", "code_run_fast", "SMALL_FILE_BYTES", "BLOCK_BYTES"]

SMALL_FILE_BYTES = 16 << 20
BLOCK_BYTES = 8 << 20
"""Run-file block size. Measured at 100k questions (324 MB run, 7 measures): 64 MB blocks 3.8 s / 988 MB peak,
16 MB 2.9-3.1 s / 680 MB, 8 MB 3.0-3.4 s / 570 MB -- smaller blocks keep polars' buffers small at no cost in time.
Again on 2026-12-07 (busy machine, load 10; the whole evaluation in one process): 16 MB 4.23 CPU-s / 533 MB,
8 MB 4.02 CPU-s / 414 MB, 4 MB 4.10 CPU-s / 360 MB -- 8 MB is the default since (issue 51: at most 0.3 of
pytrec_eval's memory)."""


# ---- judgments -----------------------------------------------------------------------------------

def read_qrels_fast(path) -> dict:
    """The judgments of a plain TREC qrels file (module docstring), or :class:`FastPathUnavailable`:
    ``{"polars": frame}`` (qid, doc, rel) for a large file, else ``{"qids", "docs", "labels", "questions",
    "question_codes"}`` (lists of strings, float labels, question IDs in order of first appearance, each row's
    question as its position there). :meth:`Qrels.from_file <rag_metrics.io.judgments.Qrels.from_file>` wraps it."""
    if content_size(path) > SMALL_FILE_BYTES:
        return read_qrels_polars(path)
    layout = field_layout(plain_text(read_all(path, "qrels"), 4, "qrels", count_fields=False), 4, "qrels")
    label = integer_column(field_column(layout, 3)[0], "qrels: a label").astype(np.float64)
    q_ids = id_array(field_column(layout, 0)[0])
    d_matrix = field_column(layout, 2)[0]
    d_ids = id_array(d_matrix)
    qids, docs = decode_tokens(q_ids.tolist()), decode_tokens(d_ids.tolist())
    heads, q = np.unique(q_ids, return_index=True, return_inverse=True)[1:]
    first = np.argsort(heads, kind="stable")  # question codes in order of first appearance
    relabel = np.empty_like(first)
    relabel[first] = np.arange(first.size)
    q = relabel[q.ravel()]
    keys, _ = id_keys(d_matrix)
    if has_repeats(keys ^ (q.astype(np.uint64) * np.uint64(MIX))):
        raise FastPathUnavailable("qrels: duplicate document candidate")
    questions = tuple(qids[i] for i in np.sort(heads).tolist())
    return {"qids": qids, "docs": docs, "labels": label, "questions": questions, "question_codes": q, "id_bytes": d_ids}


# ---- runs ----------------------------------------------------------------------------------------

class _SmallJudgments:
    """What the small-file route needs of the judgments, built once per Qrels: questions and judged IDs as bytes,
    the distinct judged IDs sorted (a zero-padded matrix), each judgment's ID coded as its position there."""

    def __init__(self, qrels):
        gold_q, gold_ids, labels = qrels.judged_rows
        self.qindex = {q.encode(): i for i, q in enumerate(qrels.questions)}
        as_bytes = qrels.__dict__.get("_id_bytes")  # the columnar reader's own bytes, when it read the judgments
        if as_bytes is None:
            as_bytes = np.array([d.encode() for d in gold_ids.tolist()] or [b""], dtype=bytes)[: len(gold_ids)]
        distinct, self.gold_item = np.unique(as_bytes, return_inverse=True)
        self.gold_item = self.gold_item.ravel().astype(np.int64)
        self.n_ids = distinct.size
        self.ids = distinct if distinct.size else np.array([b""], dtype="S1")
        self.matrix = self.ids.view(np.uint8).reshape(self.ids.size, -1)
        self.gold_q, self.gold_label = gold_q, labels
        self._keys: dict = {}

    @property
    def code_of(self) -> dict:
        """Judged ID (a string) -> its code."""
        return {d: i for i, d in enumerate(decode_tokens(self.ids[: self.n_ids].tolist()))}

    def pair_keys(self, words: int) -> tuple[np.ndarray, np.ndarray]:
        """Keys of the judged (question, ID) pairs over ``words`` words, sorted, and each one's judgment row."""
        name = ("pairs", words)
        if name not in self._keys:
            doc_keys = id_keys(self.matrix, words)[0][: self.n_ids]
            keys = doc_keys[self.gold_item] ^ (self.gold_q.astype(np.uint64) * np.uint64(MIX))
            order = np.argsort(keys, kind="stable")
            if has_repeats(keys):
                raise FastPathUnavailable("qrels: two judgments with one key")
            self._keys[name] = keys[order], order
        return self._keys[name]

    def judge(self, run_keys: np.ndarray, run_order: np.ndarray, row_q: np.ndarray, ids: np.ndarray,
              words: int) -> tuple:
        """The run rows that hold a judgment, and each one's judgment row. ``run_keys``: the run's (question, ID) keys
        sorted (``run_order`` their rows), made like :meth:`pair_keys`; ``row_q``: each run row's question code.
        Each judged pair is looked up among the run's keys (the smaller set searches the larger); a match is then
        checked on the question and, for hashed keys, on the bytes."""
        sorted_keys, order = self.pair_keys(words)
        if not sorted_keys.size or not run_keys.size:
            return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64)
        pos = np.minimum(np.searchsorted(run_keys, sorted_keys), run_keys.size - 1)
        hit = np.flatnonzero(run_keys[pos] == sorted_keys)
        rows, gold = run_order[pos[hit]], order[hit]
        # Same key and same question: with one word the IDs' bytes are then equal (the key is the question's mix XOR
        # the ID's bytes); with hashed words the bytes decide.
        same = self.gold_q[gold] == row_q[rows]
        if words > 1:
            width = max(ids.dtype.itemsize, self.ids.dtype.itemsize)
            same &= ids[rows].astype(f"S{width}") == self.ids[self.gold_item[gold]].astype(f"S{width}")
        return rows[same], gold[same]


def cached_on(qrels, name: str, build):
    cache = qrels.__dict__.setdefault("_fast_cache", {})
    if name not in cache:
        cache[name] = build(qrels)
    return cache[name]


def _code_small(qrels, run_path, doc_map: dict | None) -> CodedRun:
    judgments = cached_on(qrels, "small", _SmallJudgments)
    layout = field_layout(plain_text(read_all(run_path, "run"), 6, "run", count_fields=False), 6, "run")
    integer_column(field_column(layout, 3)[0], "run: a rank", values=False)
    score = score_column(field_column(layout, 4)[0])
    questions = id_array(field_column(layout, 0)[0])
    new = np.r_[True, questions[1:] != questions[:-1]]
    heads = questions[new]
    sorted_heads = np.sort(heads)
    if not (sorted_heads[1:] == sorted_heads[:-1]).any():  # each question's lines together: by change points
        rq_first = np.cumsum(new) - 1
    else:
        first, rq_first = np.unique(questions, return_index=True, return_inverse=True)[1:]
        order = np.argsort(first, kind="stable")
        relabel = np.empty_like(order)
        relabel[order] = np.arange(order.size)
        rq_first = relabel[rq_first.ravel()]
        heads = questions[np.sort(first)]
    run_groups = heads.tolist()
    d_matrix = field_column(layout, 2)[0]
    ids = id_array(d_matrix)
    words = max(key_words(d_matrix.shape[1]), key_words(judgments.matrix.shape[1]))
    keys, _ = id_keys(d_matrix, words)
    run_to_question = np.array([judgments.qindex.get(q, -1) for q in run_groups], dtype=np.int64)
    unknown = tuple(q.decode() for q, i in zip(run_groups, run_to_question.tolist()) if i < 0)
    n_questions = len(qrels.questions)
    row_q = run_to_question[rq_first]
    # one key per (question, ID): questions coded as in the judgments (those they lack after them), so that the
    # keys find the judged pairs too; sorted once, for the duplicate check and the join
    question_key = np.where(row_q >= 0, row_q, n_questions + rq_first).astype(np.uint64)
    mixed = keys ^ (question_key * np.uint64(MIX))
    by_key = np.argsort(mixed)
    mixed = mixed[by_key]
    if (mixed[1:] == mixed[:-1]).any():
        raise FastPathUnavailable("run: duplicate document candidate")
    order = trec_order(rq_first, score, lambda rows: ids[rows], lambda a, b: ids[a] > ids[b])
    if doc_map is not None:  # chunks -> documents: every row goes to the array kernels, which keep each document once
        rq = row_q[order]
        known = rq >= 0
        codes = _doc_codes(judgments, ids, doc_map)
        return CodedRun(n_questions, judgments.gold_q, judgments.gold_item, judgments.gold_label,
                        run_q=rq[known], run_item=codes[order][known], dedup=True, unknown_questions=unknown,
                        reader="fast/small")
    # IDs as they are: only the judged rows go on, each with its position in its question's ordered ranking
    position = np.empty(order.size, dtype=np.int64)
    position[order] = np.arange(order.size)
    group_start = np.r_[0, np.cumsum(np.bincount(rq_first))[:-1]]
    position -= group_start[rq_first] - 1
    rows, gold = judgments.judge(mixed, by_key, row_q, ids, words)
    n_retrieved = np.bincount(row_q[row_q >= 0], minlength=n_questions)
    return CodedRun(n_questions, judgments.gold_q, judgments.gold_item, judgments.gold_label,
                    judged=(row_q[rows], position[rows], judgments.gold_label[gold]), n_retrieved=n_retrieved,
                    unknown_questions=unknown, reader="fast/small")


def _doc_codes(judgments: _SmallJudgments, chunks: np.ndarray, doc_map: dict) -> np.ndarray:
    """Each chunk's document, coded like the judged IDs (distinct codes for distinct unjudged documents)."""
    distinct, per_row = np.unique(chunks, return_inverse=True)
    doc_code = dict(judgments.code_of)
    per_chunk = np.empty(distinct.size, dtype=np.int64)
    for i, chunk in enumerate(decode_tokens(distinct.tolist())):
        doc = doc_map.get(chunk)
        if doc is None:
            raise FastPathUnavailable("run: a chunk the doc map does not hold")  # the general reader names the line
        per_chunk[i] = doc_code.setdefault(str(doc), len(doc_code))
    return per_chunk[per_row.ravel()]


def code_run_fast(qrels, run_path, *, doc_map: dict | None = None, block_bytes: int | None = None,
                  small: bool = True) -> CodedRun:
    """A plain TREC run file (module docstring) coded against ``qrels`` (a :class:`~rag_metrics.io.judgments.Qrels`),
    ordered by score; or
    :class:`FastPathUnavailable`. Files up to ``SMALL_FILE_BYTES`` take the small-file route (with a doc map
    too); larger ones the block reader, which judges IDs as they are."""
    if small and content_size(run_path) <= SMALL_FILE_BYTES:
        try:
            return _code_small(qrels, run_path, doc_map)
        except FastPathUnavailable:
            if doc_map is not None:
                raise
            # the block reader may still take it (e.g. questions it can order itself)
    if doc_map is not None:
        raise FastPathUnavailable("the block reader judges IDs as they are (no doc map)")
    return code_blocks(qrels, run_path, block_bytes or BLOCK_BYTES)
