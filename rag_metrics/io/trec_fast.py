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

* small files (up to ``SMALL_FILE_BYTES``, 16 MB) take a light route without the import of polars:
  one C-level ``bytes.split()``; the layout checked on the separators' positions in one numpy pass;
  numbers checked with ``bytes.translate`` character classes (``int()``/``float()`` do the rest of the
  syntax, as the readers' tests show); IDs coded with dictionaries built once per judgments; one
  numpy sort;
* a larger run is parsed by polars' multi-threaded CSV reader (no quoting: ``"`` is an ordinary
  character) in blocks of about 16 MB (``BLOCK_BYTES``), each block holding whole questions (the
  last, possibly incomplete, question is carried into the next block); only per-question lengths and
  the judged rows survive a block, so memory stays flat in the file size;
* run rows are matched to judgments through a 64-bit hash of (question, document) and every match
  is then verified on the exact strings, so the join is exact;
* duplicates of a document within a question are found by sorting 64-bit document hashes within
  each question; a candidate sends the file to the general reader, which names the line;
* ordering is :func:`~rag_metrics.io.trec.trec_order`, shared with the general reader: blocks
  already in order are not sorted; only runs of equal scores are re-ordered by document ID.
"""

from __future__ import annotations

import gzip
import zlib
from itertools import repeat

import numpy as np

from .coded import CodedRun
from .trec import FORBIDDEN, content_size, open_binary, trec_order

__all__ = ["FastPathUnavailable", "read_qrels_fast", "code_run_fast", "SMALL_FILE_BYTES", "BLOCK_BYTES"]

_K = 0x9E3779B97F4A7C15
_BOM = b"\xef\xbb\xbf"
SMALL_FILE_BYTES = 16 << 20
BLOCK_BYTES = 16 << 20
"""Run-file block size. Measured at 100k questions (324 MB run, 7 measures): 64 MB blocks 3.8 s / 988 MB peak,
16 MB 2.9-3.1 s / 680 MB, 8 MB 3.0-3.4 s / 570 MB -- smaller blocks keep polars' buffers small at no cost in time."""


class FastPathUnavailable(Exception):
    """The input needs the general reader; the message says why."""


_PRINTABLE = bytes(range(32, 127)) + b"\n"
_HIGH = bytes(range(128, 256))
_DIGITS = b"0123456789"


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
        # Separators are spaces and newlines only (checked above). Every line has n_fields - 1 spaces exactly
        # when the separators number n_fields per line and every n_fields-th of them is a newline.
        raw = np.frombuffer(data, dtype=np.uint8)
        seps = np.flatnonzero(raw <= 32)
        n_lines = data.count(b"\n")
        if seps.size != n_fields * n_lines or not (raw[seps[n_fields - 1::n_fields]] == 10).all():
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


def integer_tokens(tokens: list) -> bool:
    """Whether every token is an integer in the TREC syntax ``[+-]?[0-9]+``, without a regular expression: no token
    is a lone sign, and once a leading sign is replaced by a digit only digits remain."""
    joined = b"\n" + b"\n".join(tokens) + b"\n"
    if b"\n+\n" in joined or b"\n-\n" in joined:
        return False
    return not joined.replace(b"\n+", b"\n0").replace(b"\n-", b"\n0").translate(None, _DIGITS + b"\n")


def score_values(tokens: list) -> np.ndarray:
    """The scores as doubles, every token in the TREC syntax and finite; else :class:`FastPathUnavailable`.

    The characters are checked first (ASCII digits, signs, ``.``, ``e``, ``E``); ``float()`` then accepts
    exactly :data:`~rag_metrics.io.trec.SCORE_SYNTAX` among such tokens (no underscores, ``inf`` or ``nan``
    can be written with them), and a test checks it."""
    if b"".join(tokens).translate(None, _DIGITS + b"+-.eE"):
        raise FastPathUnavailable("run: a score is not a number")
    try:
        score = np.fromiter(map(float, tokens), dtype=np.float64, count=len(tokens))
    except ValueError:
        raise FastPathUnavailable("run: a score is not a number") from None
    if not np.isfinite(score).all():
        raise FastPathUnavailable("run: non-finite score")
    return score


def _decode(tokens: list) -> list:
    """Byte tokens as strings, in one decode (tokens hold no newline)."""
    return b"\n".join(tokens).decode("utf-8").split("\n") if tokens else []


def _has_repeats(keys: np.ndarray) -> bool:
    keys = np.sort(keys)
    return bool((keys[1:] == keys[:-1]).any())


# ---- judgments -----------------------------------------------------------------------------------

def read_qrels_fast(path) -> dict:
    """The judgments of a plain TREC qrels file (module docstring), or :class:`FastPathUnavailable`:
    ``{"polars": frame}`` (qid, doc, rel) for a large file, else ``{"qids", "docs", "labels", "questions",
    "question_codes"}`` (lists of strings, float labels, question IDs in order of first appearance, each row's
    question as its position there). :meth:`Qrels.from_file <rag_metrics.io.judgments.Qrels.from_file>` wraps it."""
    if content_size(path) > SMALL_FILE_BYTES:
        return _read_qrels_polars(path)
    g_qid, _, g_doc, g_rel = _fields(path, 4, "qrels")
    if not integer_tokens(g_rel):
        raise FastPathUnavailable("qrels: a label is not an integer")
    label = np.fromiter(map(int, g_rel), dtype=np.float64, count=len(g_rel))
    qids, docs = _decode(g_qid), _decode(g_doc)
    qindex: dict = {}
    q = np.fromiter((qindex.setdefault(x, len(qindex)) for x in qids), dtype=np.int64, count=len(qids))
    dindex: dict = {}
    d = np.fromiter((dindex.setdefault(x, len(dindex)) for x in docs), dtype=np.int64, count=len(docs))
    if _has_repeats(q * max(len(dindex), 1) + d):
        raise FastPathUnavailable("qrels: duplicate document")
    return {"qids": qids, "docs": docs, "labels": label, "questions": tuple(qindex), "question_codes": q}


def _pl():
    import polars as pl

    return pl


def _key_expr(pl, doc_hash=None):
    """64-bit hash of (question, document), the join key; matches are verified on the strings."""
    return pl.col("qid").hash(1) * _K ^ (pl.col("doc").hash(2) if doc_hash is None else doc_hash)


def _read_csv(data: bytes, schema: dict):
    pl = _pl()
    return pl.read_csv(data, separator=" ", has_header=False, schema=schema, quote_char=None)


def _read_qrels_polars(path) -> dict:
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
    return {"polars": df}


# ---- runs ----------------------------------------------------------------------------------------

class _SmallJudgments:
    """What the small-file route needs of the judgments, built once per Qrels: byte IDs coded."""

    def __init__(self, qrels):
        gold_q, gold_ids, labels = qrels.judged_rows
        self.qindex = {q.encode(): i for i, q in enumerate(qrels.questions)}
        self.doc_code: dict = {}
        self.gold_item = np.fromiter((self.doc_code.setdefault(d.encode(), len(self.doc_code)) for d in gold_ids.tolist()),
                                     dtype=np.int64, count=len(gold_ids))
        self.gold_q, self.gold_label = gold_q, labels


def _prepared(qrels, name: str, build):
    cache = qrels.__dict__.setdefault("_fast_cache", {})
    if name not in cache:
        cache[name] = build(qrels)
    return cache[name]


def _code_small(qrels, run_path, doc_map: dict | None) -> CodedRun:
    judgments = _prepared(qrels, "small", _SmallJudgments)
    r_qid, _, r_doc, r_rank, r_score, _ = _fields(run_path, 6, "run")
    if not integer_tokens(r_rank):
        raise FastPathUnavailable("run: a rank is not an integer")
    score = score_values(r_score)
    qid_array = np.array(r_qid)
    new = np.r_[True, qid_array[1:] != qid_array[:-1]]
    heads = qid_array[new].tolist()
    if len(set(heads)) == len(heads):  # each question's lines together: group by change points
        run_groups = dict.fromkeys(heads)
        rq_first = np.cumsum(new) - 1
    else:
        run_groups = {}
        rq_first = np.array([run_groups.setdefault(q, len(run_groups)) for q in r_qid], dtype=np.int64)
    del qid_array
    doc_hash = np.fromiter(map(hash, r_doc), dtype=np.int64, count=len(r_doc)).view(np.uint64)
    if _has_repeats(doc_hash ^ (rq_first.astype(np.uint64) * np.uint64(_K))):
        raise FastPathUnavailable("run: duplicate document candidate")
    order = trec_order(rq_first, score, lambda rows: np.array([r_doc[i] for i in rows.tolist()], dtype=object))
    run_to_question = np.array([judgments.qindex.get(q, -1) for q in run_groups], dtype=np.int64)
    rq = run_to_question[rq_first[order]]
    known = rq >= 0
    if doc_map is None:
        unjudged = len(judgments.doc_code)  # one code for every unjudged ID: it never matches a judgment
        codes = np.fromiter(map(judgments.doc_code.get, r_doc, repeat(unjudged)), dtype=np.int64, count=len(r_doc))
    else:
        codes = _doc_codes(judgments, r_doc, doc_map)
    unknown = tuple(q.decode() for q, i in zip(run_groups, run_to_question) if i < 0)
    return CodedRun(len(qrels.questions), judgments.gold_q, judgments.gold_item, judgments.gold_label,
                    run_q=rq[known], run_item=codes[order][known], dedup=doc_map is not None,
                    unknown_questions=unknown, reader="fast/small")


def _doc_codes(judgments: _SmallJudgments, chunks: list, doc_map: dict) -> np.ndarray:
    """Each chunk's document, coded like the judgments' IDs (distinct codes for distinct unjudged documents)."""
    chunk_code: dict = {}
    per_row = np.fromiter((chunk_code.setdefault(c, len(chunk_code)) for c in chunks), dtype=np.int64,
                          count=len(chunks))
    doc_code = dict(judgments.doc_code)
    per_chunk = np.empty(len(chunk_code), dtype=np.int64)
    for chunk, i in chunk_code.items():
        doc = doc_map.get(chunk.decode("utf-8"))
        if doc is None:
            raise FastPathUnavailable("run: a chunk the doc map does not hold")  # the general reader names the line
        per_chunk[i] = doc_code.setdefault(str(doc).encode(), len(doc_code))
    return per_chunk[per_row]


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


def _block_judgments(qrels):
    pl = _pl()
    if qrels._polars is not None:
        df = qrels._polars
    else:
        _, ids, labels = qrels.judged_rows
        qids = np.asarray(qrels.questions, dtype=object)[qrels.judged_rows[0]]
        df = pl.DataFrame({"qid": qids.tolist(), "doc": ids.tolist(), "rel": labels}, schema={
            "qid": pl.String, "doc": pl.String, "rel": pl.Float64})
    keyed = df.with_columns(_key_expr(pl).alias("key"))
    qindex = {q: i for i, q in enumerate(qrels.questions)}
    return keyed, qindex


def _code_blocks(qrels, run_path, block_bytes: int | None) -> CodedRun:
    pl = _pl()
    keyed, qindex = _prepared(qrels, "blocks", _block_judgments)
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
        matched = df.select("qid", "doc", _key_expr(pl, pl.lit(doc_hash_series)).alias("key"),
                            pl.int_range(pl.len(), dtype=pl.Int64).alias("row"))
        joined = matched.join(keyed, on="key", how="inner", suffix="_g")
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
    n_questions = len(qrels.questions)
    n_retrieved = np.zeros(n_questions, dtype=np.int64)
    n_retrieved[head_q[known]] = lengths[known]
    mg = np.concatenate(m_group) if m_group else np.zeros(0, dtype=np.int64)
    mq = head_q[mg] if mg.size else mg
    mp = np.concatenate(m_pos) if m_pos else mq
    ml = np.concatenate(m_label).astype(np.float64) if m_label else mq.astype(np.float64)
    gold_q, _, gold_label = qrels.judged_rows if qrels._polars is None else (qrels.question_codes, None,
                                                                             qrels._polars["rel"].to_numpy())
    unknown = tuple(h for h, k in zip(heads, known) if not k)
    return CodedRun(n_questions, gold_q, np.zeros(0, dtype=np.int64), np.asarray(gold_label, dtype=np.float64),
                    judged=(mq, mp, ml), n_retrieved=n_retrieved, unknown_questions=unknown, reader="fast")


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
    return _code_blocks(qrels, run_path, block_bytes)
