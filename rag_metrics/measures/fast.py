"""The fast path for large TREC files: columnar parsing, hashed IDs, one vectorized pass.

Used by :func:`rag_metrics.evaluate_trec` for the common case (IDs judged as they are, ranking
by score). It reads exactly what the general reader (:mod:`rag_metrics.io.trec`) reads or steps
aside: every file it accepts has, on every line, exactly the expected fields separated by single
spaces, nothing the general reader would reject or split differently (controls, tabs, Unicode
spaces, invisible characters, invalid UTF-8), and numbers in the TREC syntax
(:data:`~rag_metrics.io.trec.SCORE_SYNTAX`, :data:`~rag_metrics.io.trec.INT_SYNTAX`); a leading
byte-order mark is skipped and CRLF read as LF, as there. Anything else raises
:class:`FastPathUnavailable` and the caller uses the general path, which either computes the
same numbers more slowly or reports the exact line of the problem. A differential test feeds
the same odd files to every path.

Cost model: the time goes into parsing text and matching string IDs, not into the arithmetic. So:

* the run is parsed by polars' multi-threaded CSV reader (no quoting: ``"`` is an ordinary
  character) in blocks of about 64 MB (``block_bytes``), each block holding whole questions
  (the last, possibly incomplete, question is carried into the next block); only per-question
  lengths and the judged rows survive a block, so memory stays flat in the file size;
* run rows are matched to qrels rows through a 64-bit hash of (question, document) and
  every match is then verified on the exact strings, so the join is exact;
* duplicates of a document within a question are found by sorting 64-bit document hashes
  within each question (a 2-D sort when questions have equal lengths); a candidate sends
  the file to the general path, which names the line;
* ordering is :func:`~rag_metrics.io.trec.trec_order`, shared with the general reader: blocks
  already in order are not sorted; only runs of equal scores are re-ordered by document ID.

Small files (up to ``SMALL_FILE_BYTES``, 16 MB) take a lighter route with the same rules,
without the 0.1 s import of polars that would dominate a 1,000-question run: one C-level
``bytes.split()``, vectorized checks, dictionaries for the ID codes, one numpy sort, and the
array engine.
"""

from __future__ import annotations

import gzip
import re
import zlib
from dataclasses import dataclass

import numpy as np

from ..io.trec import FORBIDDEN, INT_SYNTAX, SCORE_SYNTAX, content_size, open_binary, trec_order
from . import engine
from .registry import Measure

__all__ = ["FastPathUnavailable", "FastResult", "evaluate_trec_fast", "SMALL_FILE_BYTES", "BLOCK_BYTES"]

_K = 0x9E3779B97F4A7C15
_BOM = b"\xef\xbb\xbf"
_INT_LINES = re.compile(rb"(?:" + INT_SYNTAX.encode() + rb"\n)*", re.ASCII)
_SCORE_LINES = re.compile(rb"(?:" + SCORE_SYNTAX.encode() + rb"\n)*", re.ASCII)
SMALL_FILE_BYTES = 16 << 20
BLOCK_BYTES = 16 << 20
"""Run-file block size. Measured at 100k questions (324 MB run, 7 measures): 64 MB blocks 3.8 s / 988 MB peak,
16 MB 2.9-3.1 s / 680 MB, 8 MB 3.0-3.4 s / 570 MB -- smaller blocks keep polars' buffers small at no cost in time."""


class FastPathUnavailable(Exception):
    """The input needs the general path; the message says why."""


@dataclass
class FastResult:
    questions: list
    values: dict
    unknown_questions: list
    path: str = "fast"


_PRINTABLE = bytes(range(32, 127)) + b"\n"
_HIGH = bytes(range(128, 256))


def _plain(data: bytes, n_fields: int, what: str, *, first: bool = True, count_fields: bool = True) -> bytes:
    """``data`` with a leading BOM skipped (``first`` block only), CRLF read as LF and a final newline,
    provided nothing in it reads differently under the general reader's rules: no control character or
    tab, no Unicode space or invisible character, valid UTF-8, single spaces between fields, no blank or
    indented line. With ``count_fields`` every line is also checked to hold ``n_fields`` fields (the block
    reader leaves that to polars, which refuses or leaves null any other count). Otherwise
    :class:`FastPathUnavailable`."""
    if first and data.startswith(_BOM):
        data = data[3:]
    if b"\r" in data:
        data = data.replace(b"\r\n", b"\n")
        if b"\r" in data:
            raise FastPathUnavailable(f"{what}: a carriage return inside a line")
    if not data.endswith(b"\n"):
        data += b"\n"
    rest = data.translate(None, _PRINTABLE)  # what is neither printable ASCII nor a newline
    if rest:
        if not rest.translate(None, _HIGH) == b"":
            raise FastPathUnavailable(f"{what}: a tab or control character")
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError:
            raise FastPathUnavailable(f"{what}: not valid UTF-8") from None
        if FORBIDDEN.search(text):
            raise FastPathUnavailable(f"{what}: a character the TREC format forbids")
    if count_fields:  # the block reader leaves layout to polars: an empty field is null, an extra one an error
        if data[:1] in (b" ", b"\n") or b"  " in data or b"\n\n" in data or b" \n" in data or b"\n " in data:
            raise FastPathUnavailable(f"{what}: not single-space separated, or a blank line")
        raw = np.frombuffer(data, dtype=np.uint8)
        ends = np.flatnonzero(raw == 10)
        spaces_before_end = np.searchsorted(np.flatnonzero(raw == 32), ends)
        if (np.diff(np.r_[0, spaces_before_end]) != n_fields - 1).any():
            raise FastPathUnavailable(f"{what}: a line without {n_fields} fields")
    return data


def _read_all(path, what) -> bytes:
    try:
        with open_binary(path) as f:
            return f.read()
    except (EOFError, zlib.error, gzip.BadGzipFile) as e:
        raise FastPathUnavailable(f"{what}: a broken gzip file ({e})") from None


def _fields(path, n_fields, what):
    """Token lists (one per field) of a whole small file."""
    data = _plain(_read_all(path, what), n_fields, what)
    tokens = data.split()
    return [tokens[i::n_fields] for i in range(n_fields)]


def _all_match(pattern: re.Pattern, tokens: list) -> bool:
    return pattern.fullmatch(b"\n".join(tokens) + b"\n") is not None


def _has_repeats(keys: np.ndarray) -> bool:
    keys = np.sort(keys)
    return bool((keys[1:] == keys[:-1]).any())


def _evaluate_small(qrels_path, run_path, measures, *, min_rel, gain) -> FastResult:
    g_qid, _, g_doc, g_rel = _fields(qrels_path, 4, "qrels")
    r_qid, _, r_doc, r_rank, r_score, _ = _fields(run_path, 6, "run")
    if not _all_match(_INT_LINES, g_rel):
        raise FastPathUnavailable("qrels: a label is not an integer")
    if not _all_match(_INT_LINES, r_rank):
        raise FastPathUnavailable("run: a rank is not an integer")
    if not _all_match(_SCORE_LINES, r_score):
        raise FastPathUnavailable("run: a score is not a number")
    score = np.fromiter(map(float, r_score), dtype=np.float64, count=len(r_score))
    label = np.fromiter(map(int, g_rel), dtype=np.float64, count=len(g_rel))
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
    docs = np.array(r_doc, dtype=object)
    order = trec_order(rq_first, score, lambda rows: docs[rows].astype(bytes))
    run_to_question = np.array([qindex.get(q, -1) for q in run_groups], dtype=np.int64)
    rq = run_to_question[rq_first[order]]
    known = rq >= 0
    values = engine.compute(len(questions), rq[known], r_code[order][known], gq, g_code, label, measures,
                            min_rel=min_rel, gain=gain, dedup=False)
    unknown = [q.decode() for q, i in zip(run_groups, run_to_question) if i < 0]
    return FastResult([q.decode() for q in questions], values, unknown, path="fast/small")


def _pl():
    import polars as pl

    return pl


def _blocks(path, size):
    """Blocks of whole lines of about ``size`` bytes."""
    try:
        yield from _raw_blocks(path, size)
    except (EOFError, zlib.error, gzip.BadGzipFile) as e:
        raise FastPathUnavailable(f"run: a broken gzip file ({e})") from None


def _raw_blocks(path, size):
    with open_binary(path) as f:
        while True:
            block = f.read(size)
            if not block:
                return
            if not block.endswith(b"\n"):
                block += f.readline()  # complete the last line (one copy of the block, none of the rest)
            yield block


def _key_expr(pl, doc_hash=None):
    """64-bit hash of (question, document), the join key; matches are verified on the strings."""
    return pl.col("qid").hash(1) * _K ^ (pl.col("doc").hash(2) if doc_hash is None else doc_hash)


def _read_csv(data: bytes, schema: dict):
    pl = _pl()
    return pl.read_csv(data, separator=" ", has_header=False, schema=schema, quote_char=None)


def _read_qrels(path):
    pl = _pl()
    data = _plain(_read_all(path, "qrels"), 4, "qrels", count_fields=False)
    try:
        # polars parses integers exactly as INT_SYNTAX (a test checks it); anything else is an error or null
        df = _read_csv(data, {"qid": pl.String, "it": pl.String, "doc": pl.String, "rel": pl.Int64})
    except pl.exceptions.PolarsError as e:
        raise FastPathUnavailable(f"qrels: {type(e).__name__}") from None
    if df.null_count().sum_horizontal().item():
        raise FastPathUnavailable("qrels: a line without 4 fields, or a label that is not an integer")
    df = df.select("qid", "doc", "rel")
    if df.select(pl.struct("qid", "doc").is_duplicated().any()).item():
        raise FastPathUnavailable("qrels: duplicate document")
    return df.with_columns(_key_expr(pl).alias("key"))


def _parse_block(data, first):
    pl = _pl()
    data = _plain(data, 6, "run", first=first, count_fields=False)
    schema = {"qid": pl.String, "q0": pl.String, "doc": pl.String, "rank": pl.Int64, "score": pl.Float64,
              "tag": pl.String}
    try:
        # polars parses numbers as SCORE_SYNTAX / INT_SYNTAX, plus inf and nan, refused below (a test checks it)
        df = _read_csv(data, schema)
    except pl.exceptions.PolarsError as e:
        raise FastPathUnavailable(f"run: {type(e).__name__}") from None
    if df.null_count().sum_horizontal().item():
        raise FastPathUnavailable("run: a line without 6 fields, or a rank or score that is not a number")
    if not df.select(pl.col("score").is_finite().all()).item():
        raise FastPathUnavailable("run: non-finite score")
    return df.select("qid", "doc", "score")


def _duplicates(doc_hash, g, lengths):
    if lengths.size and lengths.min() == lengths.max():
        block = np.sort(doc_hash.reshape(lengths.size, int(lengths[0])), axis=1)
        return bool((block[:, 1:] == block[:, :-1]).any())
    keys = np.sort(doc_hash ^ (g.astype(np.uint64) * np.uint64(_K)))
    return bool((keys[1:] == keys[:-1]).any())


def evaluate_trec_fast(qrels_path, run_path, measures: tuple[Measure, ...], *, min_rel: float = 1.0,
                       gain: str = "linear", block_bytes: int | None = None, small: bool = True) -> FastResult:
    """Evaluate a TREC run file against a qrels file (IDs as they are, ordered by score).

    Raises :class:`FastPathUnavailable` for anything the general reader must handle.
    """
    if small and content_size(run_path) <= SMALL_FILE_BYTES and content_size(qrels_path) <= SMALL_FILE_BYTES:
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
    blocks = _blocks(run_path, block_bytes or BLOCK_BYTES)
    pending = next(blocks, None)
    if pending is None:
        raise FastPathUnavailable("run: empty file")
    first = True
    while pending is not None:
        df = _parse_block(pending, first)
        first = False
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
        order = trec_order(g, df["score"].to_numpy(),  # ties: polars ranks the IDs (byte order, as the others)
                           lambda rows: df["doc"].gather(rows).rank("dense").to_numpy().astype(np.int64))
        pos = np.empty(df.height, dtype=np.int64)
        pos[order] = np.arange(df.height)  # position of each row after ordering (questions stay in place)
        starts = np.flatnonzero(np.r_[True, g[1:] != g[:-1]])
        lengths = np.diff(np.r_[starts, df.height])
        doc_hash_series = df.select(pl.col("doc").hash(2)).to_series()
        doc_hash = doc_hash_series.to_numpy()
        if _duplicates(doc_hash, g, lengths):
            raise FastPathUnavailable("run: duplicate document candidate")
        heads += df["qid"].gather(starts).to_list()
        lengths_all.append(lengths)
        keyed = df.select("qid", "doc", _key_expr(pl, pl.lit(doc_hash_series)).alias("key"),
                          pl.int_range(pl.len(), dtype=pl.Int64).alias("row"))
        joined = keyed.join(qrels, on="key", how="inner", suffix="_g")
        exact = (pl.col("qid") == pl.col("qid_g")) & (pl.col("doc") == pl.col("doc_g"))
        if joined.height and not joined.select(exact.all()).item():
            joined = joined.filter(exact)  # hash collisions: keep only the exact matches
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
