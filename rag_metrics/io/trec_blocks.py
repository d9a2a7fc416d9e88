"""The block reader of large TREC files: polars parses blocks of whole questions, joined with the judgments as read.

Behind :func:`rag_metrics.io.trec_fast.code_run_fast` for runs larger than ``SMALL_FILE_BYTES`` and behind
the qrels reader of large files (module docstring of :mod:`rag_metrics.io.trec_fast`: the cost model and the
rules). A block is about ``BLOCK_BYTES`` of text that ends where a question ends; three blocks at a time are
parsed, ordered and joined in threads, and only per-question lengths and the judged rows survive a block.
"""

from __future__ import annotations

import numpy as np

from rag_metrics.io.coded import CodedRun
from rag_metrics.io.trec import open_binary, trec_order
from rag_metrics.io.trec_tokens import (MIX, FastPathUnavailable, cached_on, gzip_errors, has_repeats, plain_text,
                                        read_all)

__all__ = ["read_qrels_polars", "code_blocks", "polars_module", "read_csv_bytes", "mix"]


def polars_module():
    """polars, imported on first use (small files never import it)."""
    import polars as pl

    return pl


def read_csv_bytes(data: bytes, schema: dict):
    """Space-separated text without a header or quoting, as a polars frame of ``schema``."""
    pl = polars_module()
    return pl.read_csv(data, separator=" ", has_header=False, schema=schema, quote_char=None)


def read_qrels_polars(path) -> dict:
    """A large qrels file's judgments: ``{"polars": frame, "questions", "question_codes"}``."""
    pl = polars_module()
    data = plain_text(read_all(path, "qrels"), 4, "qrels", count_fields=False)
    try:
        # polars parses integers exactly as INT_SYNTAX (a test checks it); anything else is an error or null
        df = read_csv_bytes(data, {"qid": pl.String, "it": pl.String, "doc": pl.String, "rel": pl.Int64})
    except pl.exceptions.PolarsError as e:
        raise FastPathUnavailable(f"qrels: {type(e).__name__}") from None
    if df.null_count().sum_horizontal().item():
        raise FastPathUnavailable("qrels: a line without 4 fields, or a label that is not an integer")
    df = df.select("qid", "doc", "rel")
    key = (pl.col("qid").hash(1) * MIX) ^ pl.col("doc").hash(2)
    if df.select(key.n_unique()).item() != df.height:  # a candidate: the general reader decides and names the line
        raise FastPathUnavailable("qrels: duplicate document candidate")
    codes = df.select(pl.col("qid").rle_id()).to_series().to_numpy().astype(np.int64)
    starts = np.flatnonzero(np.r_[True, codes[1:] != codes[:-1]])
    heads = df["qid"].gather(starts).to_list()
    if len(set(heads)) != len(heads):  # a question's judgments not together: code them by first appearance
        questions = df["qid"].unique(maintain_order=True)
        codes = df.select("qid").join(pl.DataFrame({"qid": questions, "code": np.arange(questions.len())}), on="qid",
                                      how="left", maintain_order="left")["code"].to_numpy()
        heads = questions.to_list()
    return {"polars": df, "questions": tuple(heads), "question_codes": codes}


def _blocks(path, size):
    """Blocks of about ``size`` bytes holding whole questions (module docstring)."""
    try:
        yield from _raw_blocks(path, size)
    except Exception as e:  # (a generator closed early gets GeneratorExit, which is no Exception)
        if isinstance(e, gzip_errors()):
            raise FastPathUnavailable(f"run: a broken gzip file ({e})") from None
        raise


def _question_prefix(line: bytes) -> bytes | None:
    """A line's question ID and the space after it (None without a space)."""
    space = line.find(b" ")
    return None if space < 0 else line[:space + 1]


def _raw_blocks(path, size):
    """About ``size`` bytes, then whole lines up to the end of the last line's question: each block holds whole
    questions when questions are contiguous (the reader checks that they are). One copy of each block."""
    with open_binary(path) as f:
        carry = b""  # the first line of the next block's first question
        while True:
            chunk = f.read(size)
            if not chunk:
                if carry:
                    yield carry
                return
            parts = [carry, chunk] if carry else [chunk]
            last = chunk[chunk.rfind(b"\n", 0, len(chunk) - 1) + 1:]
            if not chunk.endswith(b"\n"):
                rest = f.readline()
                parts.append(rest)
                last += rest
            prefix = _question_prefix(last)
            line = f.readline()
            while prefix is not None and line.startswith(prefix):
                parts.append(line)
                line = f.readline()
            carry = line
            yield b"".join(parts)


def _parse_block(data, first):
    pl = polars_module()
    data = plain_text(data, 6, "run", first=first, count_fields=False)
    schema = {"qid": pl.String, "q0": pl.String, "doc": pl.String, "rank": pl.Int64, "score": pl.Float64,
              "tag": pl.String}
    try:
        # polars parses numbers as SCORE_SYNTAX / INT_SYNTAX, plus inf and nan, refused below (a test checks it)
        df = read_csv_bytes(data, schema)
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
    keys = np.sort(doc_hash ^ (g.astype(np.uint64) * np.uint64(MIX)))
    return bool((keys[1:] == keys[:-1]).any())


class _BlockJudgments:
    """What the block reader needs of the judgments, built once per Qrels: question IDs -> codes, and each question's
    judged rows (by question code, as offsets into a sorted order) with their document hashes, labels and IDs."""

    def __init__(self, qrels):
        pl = polars_module()
        if qrels._polars is not None:
            df = qrels._polars.select("doc", pl.col("rel").cast(pl.Float64))
            q = qrels.question_codes
        else:
            q, ids, labels = qrels.judged_rows
            df = pl.DataFrame({"doc": ids.tolist(), "rel": labels}, schema={"doc": pl.String, "rel": pl.Float64})
        self.qindex = {name: i for i, name in enumerate(qrels.questions)}
        if (q[1:] >= q[:-1]).all():  # judgments grouped by question, in order (the usual file)
            self.q, self.doc, self.label = q, df["doc"], df["rel"].to_numpy()
        else:
            by_question = np.argsort(q, kind="stable")
            self.q = q[by_question]
            self.doc = df["doc"].gather(by_question)
            self.label = df["rel"].to_numpy()[by_question]
        self.doc_hash = self.doc.hash(2).to_numpy()
        self.offsets = np.searchsorted(self.q, np.arange(len(qrels.questions) + 1))

    def rows_of(self, codes: np.ndarray) -> np.ndarray:
        """The judged rows (positions in this order) of the questions ``codes``."""
        start, stop = self.offsets[codes], self.offsets[codes + 1]
        lengths = stop - start
        total = int(lengths.sum())
        if not total:
            return np.zeros(0, dtype=np.int64)
        shift = np.repeat(start - np.r_[0, np.cumsum(lengths)[:-1]], lengths)
        return shift + np.arange(total)


def mix(doc_hash: np.ndarray, question: np.ndarray) -> np.ndarray:
    """A (question, document) key: the document's hash XOR a multiple of the question code. Equal keys of one
    question mean equal document hashes (then the IDs themselves are compared)."""
    return doc_hash ^ (question.astype(np.uint64) * np.uint64(MIX))


def _code_block(data: bytes, first: bool, judgments: _BlockJudgments) -> tuple:
    """One block of whole questions, parsed and joined with the judgments: ``(question IDs, their codes (-1 for a
    question the judgments lack), result counts, and the judged rows' question codes, positions and labels)``."""
    pl = polars_module()
    df = _parse_block(data, first)
    g = df.select(pl.col("qid").rle_id()).to_series().to_numpy().astype(np.int64)
    doc = df["doc"]  # ties: polars compares and ranks the IDs (byte order, as the others)
    order = trec_order(g, df["score"].to_numpy(),
                       lambda rows: doc.gather(rows).rank("dense").to_numpy().astype(np.int64),
                       lambda a, b: (doc.gather(a) > doc.gather(b)).to_numpy())
    pos = np.empty(df.height, dtype=np.int64)
    pos[order] = np.arange(df.height)  # position of each row after ordering (questions stay in place)
    starts = np.flatnonzero(np.r_[True, g[1:] != g[:-1]])
    lengths = np.diff(np.r_[starts, df.height])
    doc_hash = df.select(pl.col("doc").hash(2)).to_series().to_numpy()
    if _duplicates(doc_hash, g, lengths):
        raise FastPathUnavailable("run: duplicate document candidate")
    names = df["qid"].gather(starts).to_list()
    codes = np.array([judgments.qindex.get(name, -1) for name in names], dtype=np.int64)
    none = np.zeros(0, dtype=np.int64)
    # the judged rows of this block's questions, joined on (question, document) keys and checked on the IDs
    row_q = np.repeat(codes, lengths)
    known = np.flatnonzero(row_q >= 0)
    present = np.sort(codes[codes >= 0])
    gold = judgments.rows_of(present[np.r_[True, present[1:] != present[:-1]]] if present.size else present)
    if not gold.size or not known.size:
        return names, codes, lengths, none, none, none.astype(np.float64)
    gold_keys = mix(judgments.doc_hash[gold], judgments.q[gold])
    if has_repeats(gold_keys):  # two judged documents of a question share a hash
        raise FastPathUnavailable("qrels: two judgments with one key")
    run_keys = mix(doc_hash[known], row_q[known])
    joined = pl.DataFrame({"key": run_keys, "row": known}).join(
        pl.DataFrame({"key": gold_keys, "gold": gold}), on="key", how="inner")  # a hash join, in polars' threads
    hit_rows, hit_gold = joined["row"].to_numpy(), joined["gold"].to_numpy()
    hit = judgments.q[hit_gold] == row_q[hit_rows]
    rows, matched = hit_rows[hit], hit_gold[hit]
    same = (doc.gather(rows) == judgments.doc.gather(matched)).to_numpy()
    rows, matched = rows[same], matched[same]  # a hash collision is not a match
    position = pos[rows] - starts[np.searchsorted(starts, rows, side="right") - 1] + 1
    by_rank = np.lexsort((position, row_q[rows]))  # sorted here, in parallel, so that the measures need not sort
    return names, codes, lengths, row_q[rows][by_rank], position[by_rank], judgments.label[matched][by_rank]


def _coded_blocks(path, size, judgments: _BlockJudgments, workers: int = 3):
    """:func:`_code_block` of every block, in file order, ``workers`` blocks at a time in threads (polars and numpy
    work outside the GIL): while one block is parsed others are ordered and joined. Measured at 100k questions on
    two cores: 2 workers 1.8-2.2 s for the blocks, 3 workers 1.5-1.65 s, 4 workers 1.5-1.6 s; each block in flight
    holds about 40 MB. Errors arrive in order."""
    from collections import deque
    from concurrent.futures import ThreadPoolExecutor

    blocks = _blocks(path, size)
    with ThreadPoolExecutor(max_workers=workers) as pool:
        pending: deque = deque()
        first = True
        try:
            for data in blocks:
                pending.append(pool.submit(_code_block, data, first, judgments))
                first = False
                while len(pending) > workers:
                    yield pending.popleft().result()
            if first:
                raise FastPathUnavailable("run: empty file")
            while pending:
                yield pending.popleft().result()
        finally:
            for future in pending:
                future.cancel()


def code_blocks(qrels, run_path, block_bytes: int) -> CodedRun:
    """A large run coded against ``qrels`` block by block (module docstring): only the judged rows are kept."""
    judgments = cached_on(qrels, "blocks", _BlockJudgments)
    heads, head_codes, lengths_all, m_q, m_pos, m_label = [], [], [], [], [], []
    for names, codes, lengths, q, position, label in _coded_blocks(run_path, block_bytes, judgments):
        heads += names
        head_codes.append(codes)
        lengths_all.append(lengths)
        m_q.append(q)
        m_pos.append(position)
        m_label.append(label)
    if len(set(heads)) != len(heads):
        raise FastPathUnavailable("run: a question's lines are not contiguous")
    head_q = np.concatenate(head_codes)
    lengths = np.concatenate(lengths_all)
    known = head_q >= 0
    n_questions = len(qrels.questions)
    n_retrieved = np.zeros(n_questions, dtype=np.int64)
    n_retrieved[head_q[known]] = lengths[known]
    mq, mp, ml = np.concatenate(m_q), np.concatenate(m_pos), np.concatenate(m_label)
    unknown = tuple(h for h, k in zip(heads, known.tolist()) if not k)
    return CodedRun(n_questions, judgments.q, np.zeros(0, dtype=np.int64), judgments.label,
                    judged=(mq, mp, ml), n_retrieved=n_retrieved, unknown_questions=unknown, reader="fast")

