"""The fast path for large TREC files: columnar parsing, hashed IDs, one vectorized pass.

Used by ``rag-metrics evaluate`` for the common case (IDs judged as they are, ranking by
score) and tested to give exactly the values of the general path. Cost model: the time
goes into parsing text and matching string IDs, not into the arithmetic. So:

* the run is parsed by polars' multi-threaded CSV reader in blocks of about 64 MB
  (``block_bytes``), each block holding whole questions (the last, possibly incomplete,
  question is carried into the next block); only per-question lengths and the judged
  rows survive a block, so memory stays flat in the file size;
* run rows are matched to qrels rows through a 64-bit hash of (question, document) and
  every match is then verified on the exact strings, so the join is exact;
* duplicates of a document within a question are found by sorting 64-bit document hashes
  within each question (a 2-D sort when questions have equal lengths); a candidate sends
  the file to the general path, which names the line;
* ordering follows trec_eval: score descending, equal scores by document ID descending
  (byte order). Blocks already in that order are not sorted; only runs of equal scores
  are re-ordered, and a block whose scores are not descending within a question is sorted.

Small files (up to ``SMALL_FILE_BYTES``, 16 MB) take a lighter route with the same
semantics, without the 0.1 s import of polars that would dominate a 1,000-question run:
one C-level ``bytes.split()``, a vectorized check that every line holds exactly the
expected single-space-separated fields, dictionaries for the ID codes, one numpy sort,
and the array engine. Only runs of equal scores are ordered by document ID.

Anything unusual -- fields separated by tabs or several spaces, a malformed line, a
non-finite score, a duplicate, a question whose lines are not contiguous, an empty file --
raises :class:`FastPathUnavailable` and the caller falls back to the general path
(:mod:`rag_metrics.trec` + :func:`rag_metrics.evaluate`), which either computes the same
numbers more slowly or reports the exact line of the problem.
"""

from __future__ import annotations

import io
from dataclasses import dataclass

import numpy as np

from . import engine
from .measures import Measure

__all__ = ["FastPathUnavailable", "FastResult", "evaluate_trec_fast"]

_K = 0x9E3779B97F4A7C15
_RUN_SCHEMA = ("qid", "q0", "doc", "rank", "score", "tag")


class FastPathUnavailable(Exception):
    """The input needs the general path; the message says why."""


@dataclass
class FastResult:
    questions: list
    values: dict
    unknown_questions: list
    path: str = "fast"


SMALL_FILE_BYTES = 16 << 20


def _fields(path, n_fields, what):
    """Token lists of a file whose lines hold exactly ``n_fields`` fields separated by single spaces."""
    with open(path, "rb") as f:
        data = f.read()
    if not data.strip():
        raise FastPathUnavailable(f"{what}: empty file")
    if not data.endswith(b"\n"):
        data += b"\n"
    if (b"\t" in data or b"\r" in data or b"  " in data or b"\n\n" in data or b" \n" in data or b"\n " in data
            or data[:1] in (b" ", b"\n")):
        raise FastPathUnavailable(f"{what}: not single-space separated")
    raw = np.frombuffer(data, dtype=np.uint8)
    ends = np.flatnonzero(raw == 10)
    spaces_before_end = np.searchsorted(np.flatnonzero(raw == 32), ends)
    if (np.diff(np.r_[0, spaces_before_end]) != n_fields - 1).any():
        raise FastPathUnavailable(f"{what}: a line without {n_fields} fields")
    tokens = data.split()
    return [tokens[i::n_fields] for i in range(n_fields)]


def _has_repeats(keys: np.ndarray) -> bool:
    keys = np.sort(keys)
    return bool((keys[1:] == keys[:-1]).any())


def _evaluate_small(qrels_path, run_path, measures, *, min_rel, gain) -> FastResult:
    g_qid, _, g_doc, g_rel = _fields(qrels_path, 4, "qrels")
    r_qid, _, r_doc, r_rank, r_score, _ = _fields(run_path, 6, "run")
    if not b"".join(r_rank).isdigit():
        raise FastPathUnavailable("run: a rank is not a non-negative integer")
    try:
        score = np.array(r_score).astype(np.float64)
        label = np.array(list(map(int, g_rel)), dtype=np.float64)
    except ValueError:
        raise FastPathUnavailable("a label or score is not a number") from None
    if not np.isfinite(score).all():
        raise FastPathUnavailable("run: non-finite score")
    questions = list(dict.fromkeys(g_qid))  # order of first appearance
    qindex = {q: i for i, q in enumerate(questions)}
    qid_array = np.array(r_qid)
    new = np.r_[True, qid_array[1:] != qid_array[:-1]]
    heads = qid_array[new].tolist()
    if len(set(heads)) == len(heads):  # each question's lines together: group by change points
        run_groups = dict.fromkeys(heads)
        rq_first = np.cumsum(new) - 1
    else:
        run_groups = {}
        rq_first = np.array([run_groups.setdefault(q, len(run_groups)) for q in r_qid], dtype=np.int64)
    doc_codes: dict = {}
    r_code = np.array([doc_codes.setdefault(d, len(doc_codes)) for d in r_doc], dtype=np.int64)
    g_code = np.array([doc_codes.setdefault(d, len(doc_codes)) for d in g_doc], dtype=np.int64)
    gq = np.array([qindex[q] for q in g_qid], dtype=np.int64)
    n_docs = len(doc_codes)
    if _has_repeats(gq * n_docs + g_code):
        raise FastPathUnavailable("qrels: duplicate document")
    if _has_repeats(rq_first * n_docs + r_code):
        raise FastPathUnavailable("run: duplicate document")
    # trec_eval order: per question, score descending, then document ID descending (byte order).
    order = np.lexsort((-score, rq_first))
    sq, ss = rq_first[order], score[order]
    tie = (sq[1:] == sq[:-1]) & (ss[1:] == ss[:-1])
    if tie.any():
        starts = np.flatnonzero(np.r_[True, ~tie])
        stops = np.r_[starts[1:], len(order)]
        for a, b in zip(starts[stops - starts > 1], stops[stops - starts > 1]):
            order[a:b] = sorted(order[a:b], key=lambda i: r_doc[i], reverse=True)
    run_to_question = np.array([qindex.get(q, -1) for q in run_groups], dtype=np.int64)
    rq = run_to_question[rq_first[order]]
    known = rq >= 0
    values = engine.compute(len(questions), rq[known], r_code[order][known], gq, g_code, label, measures,
                            min_rel=min_rel, gain=gain, dedup=False)
    unknown = [q.decode() for q, i in zip(run_groups, run_to_question) if i < 0]
    return FastResult([q.decode() for q in questions], values, unknown, path="small")


def _pl():
    import polars as pl

    return pl


def _blocks(path, size):
    with open(path, "rb") as f:
        rest = b""
        while True:
            block = f.read(size)
            if not block:
                if rest.strip():
                    yield rest if rest.endswith(b"\n") else rest + b"\n"
                return
            block = rest + block
            cut = block.rfind(b"\n") + 1
            rest = block[cut:]
            if cut:
                yield block[:cut]


def _read_qrels(path):
    pl = _pl()
    schema = {"qid": pl.String, "it": pl.String, "doc": pl.String, "rel": pl.Int64}
    try:
        df = pl.scan_csv(path, separator=" ", has_header=False, schema=schema).collect()
    except Exception as e:  # malformed line, non-integer label, wrong field count
        raise FastPathUnavailable(f"qrels: {type(e).__name__}") from None
    if df.height == 0 or df.null_count().sum_horizontal().item():
        raise FastPathUnavailable("qrels: empty file or missing fields")
    df = df.select("qid", "doc", "rel", (pl.col("qid").hash(1) * _K ^ pl.col("doc").hash(2)).alias("key"))
    keys = np.sort(df["key"].to_numpy())
    if (keys[1:] == keys[:-1]).any():
        raise FastPathUnavailable("qrels: duplicate (question, document) candidate")
    return df


def _parse_block(data):
    pl = _pl()
    schema = dict(zip(_RUN_SCHEMA, (pl.String, pl.String, pl.String, pl.Int64, pl.Float64, pl.String)))
    try:
        df = pl.scan_csv(io.BytesIO(data), separator=" ", has_header=False, schema=schema).select(
            "qid", "doc", "score", pl.col("rank").is_null().alias("bad_rank"), pl.col("tag").is_null().alias("bad_tag")
        ).collect()
    except Exception as e:
        raise FastPathUnavailable(f"run: {type(e).__name__}") from None
    problems = df.select(
        pl.col("bad_rank").any() | pl.col("bad_tag").any() | pl.col("qid").is_null().any()
        | pl.col("doc").is_null().any() | pl.col("score").is_null().any() | (~pl.col("score").is_finite()).any()
    ).item()
    if problems:
        raise FastPathUnavailable("run: missing field or non-finite score")
    return df.select("qid", "doc", "score")


def _order_block(df, g):
    """Positions after trec_eval ordering (0-based within the block) and the possibly re-sorted block."""
    pl = _pl()
    s = df["score"].to_numpy()
    same = g[1:] == g[:-1]
    if not np.all(~same | (s[1:] <= s[:-1])):
        df = df.with_columns(pl.Series("g", g)).sort(["g", "score", "doc"], descending=[False, True, True],
                                                      maintain_order=True)
        return np.arange(df.height), df.drop("g"), g[np.argsort(g, kind="stable")]
    pos = np.arange(df.height)
    tie = same & (s[1:] == s[:-1])
    if tie.any():
        member = np.zeros(df.height, dtype=bool)
        member[1:] |= tie
        member[:-1] |= tie
        start = np.r_[True, ~tie]  # a new run of equal (question, score) starts here
        run_id = np.cumsum(start) - 1
        rows = np.flatnonzero(member)
        ties = pl.DataFrame({"row": rows, "run": run_id[rows], "doc": df["doc"].gather(rows)})
        ties = ties.sort(["run", "doc"], descending=[False, True], maintain_order=True)
        run_start = np.flatnonzero(start)
        runs = ties["run"].to_numpy()
        ordinal = np.arange(len(runs)) - np.searchsorted(runs, runs)
        pos[ties["row"].to_numpy()] = run_start[runs] + ordinal
    return pos, df, g


def _duplicates(doc_hash, g, lengths):
    if lengths.size and lengths.min() == lengths.max():
        block = np.sort(doc_hash.reshape(lengths.size, int(lengths[0])), axis=1)
        return bool((block[:, 1:] == block[:, :-1]).any())
    keys = np.sort(doc_hash ^ (g.astype(np.uint64) * np.uint64(_K)))
    return bool((keys[1:] == keys[:-1]).any())


def evaluate_trec_fast(qrels_path, run_path, measures: tuple[Measure, ...], *, min_rel: float = 1.0,
                       gain: str = "linear", block_bytes: int = 64 << 20, small: bool = True) -> FastResult:
    """Evaluate a TREC run file against a qrels file (IDs as they are, ordered by score)."""
    import os

    if small and os.path.getsize(run_path) <= SMALL_FILE_BYTES and os.path.getsize(qrels_path) <= SMALL_FILE_BYTES:
        try:
            return _evaluate_small(qrels_path, run_path, measures, min_rel=min_rel, gain=gain)
        except FastPathUnavailable:
            pass  # the block reader may still take it (e.g. questions it can order itself)
    pl = _pl()
    qrels = _read_qrels(qrels_path)
    questions = qrels["qid"].unique(maintain_order=True)
    qindex = {q: i for i, q in enumerate(questions.to_list())}
    heads, lengths_all, m_group, m_pos, m_label = [], [], [], [], []
    tail = None
    group_base = 0
    blocks = _blocks(run_path, block_bytes)
    pending = next(blocks, None)
    if pending is None:
        raise FastPathUnavailable("run: empty file")
    while pending is not None:
        df = _parse_block(pending)
        pending = next(blocks, None)
        if tail is not None:
            df = pl.concat([tail, df])
        g = df.select(pl.col("qid").rle_id()).to_series().to_numpy().astype(np.int64)
        if pending is not None:  # keep the last question for the next block: it may continue there
            cut = int(np.searchsorted(g, g[-1]))
            if cut == 0:
                tail = df
                continue
            tail, df, g = df.slice(cut), df.slice(0, cut), g[:cut]
        else:
            tail = None
        pos, df, g = _order_block(df, g)
        starts = np.flatnonzero(np.r_[True, g[1:] != g[:-1]])
        lengths = np.diff(np.r_[starts, df.height])
        doc_hash = df.select(pl.col("doc").hash(2)).to_series().to_numpy()
        if _duplicates(doc_hash, g, lengths):
            raise FastPathUnavailable("run: duplicate document candidate")
        heads += df["qid"].gather(starts).to_list()
        lengths_all.append(lengths)
        keyed = df.select("qid", "doc", (pl.col("qid").hash(1) * _K ^ pl.col("doc").hash(2)).alias("key"),
                          pl.int_range(pl.len(), dtype=pl.Int64).alias("row"))
        joined = keyed.join(qrels, on="key", how="inner", suffix="_g")
        if joined.height and not joined.select(((pl.col("qid") == pl.col("qid_g")) & (pl.col("doc") == pl.col("doc_g"))).all()).item():
            joined = joined.filter((pl.col("qid") == pl.col("qid_g")) & (pl.col("doc") == pl.col("doc_g")))  # hash collisions
        rows = joined["row"].to_numpy()
        m_group.append(g[rows] - g[0] + group_base)
        m_pos.append(pos[rows] - starts[np.searchsorted(starts, rows, side="right") - 1] + 1)
        m_label.append(joined["rel"].to_numpy())
        group_base += len(starts)
    if len(set(heads)) != len(heads):
        raise FastPathUnavailable("run: a question's lines are not contiguous")
    head_q = np.array([qindex.get(h, -1) for h in heads], dtype=np.int64)
    lengths = np.concatenate(lengths_all)
    known = head_q >= 0
    n_retrieved = np.zeros(len(questions), dtype=np.int64)
    n_retrieved[head_q[known]] = lengths[known]
    mg = np.concatenate(m_group) if m_group else np.zeros(0, dtype=np.int64)
    mq = head_q[mg] if mg.size else mg
    gq = np.array([qindex[q] for q in qrels["qid"].to_list()], dtype=np.int64)
    values = engine.compute_from_judged(
        len(questions), mq, np.concatenate(m_pos) if m_pos else mq, np.concatenate(m_label) if m_label else mq,
        gq, qrels["rel"].to_numpy(), n_retrieved, measures, min_rel=min_rel, gain=gain)
    unknown = [h for h, k in zip(heads, known) if not k]
    return FastResult(questions.to_list(), values, unknown)
