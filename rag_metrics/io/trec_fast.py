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
* a larger run is cut into blocks of about 16 MB (``BLOCK_BYTES``) that end where a question ends (the
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
from rag_metrics.io.trec import FORBIDDEN, content_size, open_binary, trec_order

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
    tab, no Unicode space or invisible character, valid UTF-8. With ``count_fields`` the layout too (single
    spaces between fields, no blank or indented line, ``n_fields`` fields on every line: :func:`_layout`); the
    block reader leaves layout to polars, which refuses or leaves null any other count. Otherwise
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
    if count_fields:
        _layout(data, n_fields, what)
    return data


def _layout(data: bytes, n_fields: int, what: str) -> tuple:
    """``(raw bytes as uint8, field starts, field ends)`` -- ``(lines, n_fields)`` arrays -- of
    text that :func:`_plain` accepted, provided every line holds exactly ``n_fields`` fields separated by single
    spaces (no blank, indented or space-ended line). Otherwise :class:`FastPathUnavailable`.

    The separators are spaces and newlines only (every other byte <= 32 was refused), found in one pass: the
    layout is right exactly when none is first or next to another, they number ``n_fields`` per line, and every
    ``n_fields``-th of them is a newline."""
    raw = np.frombuffer(data, dtype=np.uint8)
    seps = np.flatnonzero(raw <= 32)
    n_lines = data.count(b"\n")
    if (seps.size != n_fields * n_lines or not n_lines or seps[0] == 0 or (np.diff(seps) == 1).any()
            or not (raw[seps[n_fields - 1::n_fields]] == 10).all()):
        raise FastPathUnavailable(f"{what}: not {n_fields} single-space separated fields on every line")
    ends = seps.reshape(n_lines, n_fields).astype(np.int32 if raw.size < 2**31 else np.int64)  # int32: half the traffic
    starts = np.empty_like(ends)
    starts[:, 1:] = ends[:, :-1] + 1
    starts[1:, 0] = ends[:-1, -1] + 1
    starts[0, 0] = 0
    return raw, starts, ends


def _column(layout: tuple, field: int) -> tuple:
    """One field of every line as a zero-padded ``(lines, width)`` uint8 matrix, with the field lengths."""
    raw, starts, ends = layout
    start, end = starts[:, field], ends[:, field]
    width = int((end - start).max())
    matrix = raw[np.minimum(start[:, None] + np.arange(width, dtype=start.dtype), end[:, None])]  # padded with the separator ...
    matrix *= matrix > 32  # ... made 0 (a separator is a space or a newline; no other byte <= 32 is left)
    return matrix, end - start


def _ids(matrix: np.ndarray) -> np.ndarray:
    """A zero-padded matrix as a numpy bytes array (``S<width>``): IDs compare byte by byte, as strcmp does."""
    return np.ascontiguousarray(matrix).view(f"S{matrix.shape[1]}").ravel()


def _words(width: int) -> int:
    return max(1, -(-width // 8))


def _id_keys(matrix: np.ndarray, words: int | None = None) -> tuple[np.ndarray, bool]:
    """64-bit keys of zero-padded IDs, over ``words`` 8-byte words (enough for the widest ID; give the same number to
    compare keys of two matrices), and whether they are exact: with one word the key is the ID's bytes themselves;
    with more it is a hash of the words, and equal keys are only candidates."""
    width = matrix.shape[1]
    words = _words(width) if words is None else words
    padded = np.zeros((matrix.shape[0], 8 * words), dtype=np.uint8)
    padded[:, :width] = matrix
    w = padded.view("<u8")
    key = w[:, 0].copy()
    for i in range(1, words):
        key = (key * np.uint64(_K)) ^ w[:, i]
    return key, words == 1


def _is_digit(matrix: np.ndarray) -> np.ndarray:
    return (matrix >= 48) & (matrix <= 57)


def _integers_ok(matrix: np.ndarray) -> bool:
    """Whether every row is ``[+-]?[0-9]+`` (the TREC integer syntax). Whole-matrix checks: after the first column
    only digits or padding (padding follows the field, and no field holds a 0 byte); the first column a digit, or a
    sign followed by something (then a digit, by the first check)."""
    rest = matrix[:, 1:]
    if not ((rest == 0) | _is_digit(rest)).all():
        return False
    first = matrix[:, 0]
    signed = (first == 43) | (first == 45)
    followed = matrix[:, 1] != 0 if matrix.shape[1] > 1 else np.zeros(matrix.shape[0], dtype=bool)
    return bool((_is_digit(first) | (signed & followed)).all())


def _decimals(matrix: np.ndarray) -> tuple:
    """Per row: ``(ok, mantissa, digits after the point)`` for a token in the plain decimal form
    ``[+-]?[0-9]*(\\.[0-9]*)?`` with 1 to 15 digits (``ok`` False for any other token; its numbers are then
    meaningless). Horner's scheme, one column at a time."""
    rows, width = matrix.shape
    digit = matrix - np.uint8(48)  # 0-9 for a digit; any other byte wraps to 10 or more
    is_digit = digit < 10
    point = matrix == 46
    mantissa = np.zeros(rows, dtype=np.int64)
    fraction = np.zeros(rows, dtype=np.int64)
    n_digits = np.zeros(rows, dtype=np.int64)
    n_points = np.zeros(rows, dtype=np.int64)
    seen_point = np.zeros(rows, dtype=bool)
    for j in range(width):
        d = is_digit[:, j]
        mantissa = np.where(d, mantissa * 10 + digit[:, j], mantissa)
        seen_point |= point[:, j]
        fraction += d & seen_point
        n_digits += d
        n_points += point[:, j]
    first = matrix[:, 0]
    other = ~(is_digit | point | (matrix == 0))
    other[:, 0] &= ~((first == 43) | (first == 45))
    ok = ~other.any(axis=1) & (n_points <= 1) & (n_digits >= 1) & (n_digits <= 15)
    return ok, np.where(first == 45, -mantissa, mantissa), fraction


_POW10 = 10.0 ** np.arange(23)


def integer_column(matrix: np.ndarray, what: str, *, values: bool = True) -> np.ndarray | None:
    """Integers in the TREC syntax ``[+-]?[0-9]+`` as int64 (at most 15 digits when ``values`` are wanted); else
    :class:`FastPathUnavailable`."""
    if not _integers_ok(matrix):
        raise FastPathUnavailable(f"{what} is not an integer")
    if not values:
        return None
    ok, mantissa, _ = _decimals(matrix)
    if not ok.all():
        raise FastPathUnavailable(f"{what} has more than 15 digits")
    return mantissa


def score_column(matrix: np.ndarray) -> np.ndarray:
    """Scores in the TREC syntax as doubles, each the value ``float()`` gives; else :class:`FastPathUnavailable`.

    A plain decimal of at most 15 digits (``-12.375``) is ``mantissa / 10**k`` with both exactly representable,
    so one IEEE division gives the correctly rounded double, as ``float()`` does (Clinger's fast path); the sign
    is applied to the mantissa (``-0`` stays ``-0.0``). Any other token (an exponent, more digits) goes through
    :func:`score_values`."""
    ok, mantissa, fraction = _decimals(matrix)
    value = mantissa.astype(np.float64) / _POW10[np.minimum(fraction, 22)]
    negative_zero = (mantissa == 0) & (matrix[:, 0] == 45)
    if negative_zero.any():
        value[negative_zero] = -0.0
    if not ok.all():
        rows = np.flatnonzero(~ok)
        value[rows] = score_values([bytes(row).rstrip(b"\0") for row in matrix[rows]])
    return value


def _gzip_errors() -> tuple:
    """What a broken gzip file raises (evaluated only when an exception is being handled: gzip is imported for gzip
    files only)."""
    import gzip
    import zlib

    return EOFError, zlib.error, gzip.BadGzipFile


def _read_all(path, what) -> bytes:
    try:
        with open_binary(path) as f:
            return f.read()
    except Exception as e:
        if isinstance(e, _gzip_errors()):
            raise FastPathUnavailable(f"{what}: a broken gzip file ({e})") from None
        raise


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
    layout = _layout(_plain(_read_all(path, "qrels"), 4, "qrels", count_fields=False), 4, "qrels")
    label = integer_column(_column(layout, 3)[0], "qrels: a label").astype(np.float64)
    q_ids = _ids(_column(layout, 0)[0])
    d_matrix = _column(layout, 2)[0]
    d_ids = _ids(d_matrix)
    qids, docs = _decode(q_ids.tolist()), _decode(d_ids.tolist())
    heads, q = np.unique(q_ids, return_index=True, return_inverse=True)[1:]
    first = np.argsort(heads, kind="stable")  # question codes in order of first appearance
    relabel = np.empty_like(first)
    relabel[first] = np.arange(first.size)
    q = relabel[q.ravel()]
    keys, _ = _id_keys(d_matrix)
    if _has_repeats(keys ^ (q.astype(np.uint64) * np.uint64(_K))):
        raise FastPathUnavailable("qrels: duplicate document candidate")
    questions = tuple(qids[i] for i in np.sort(heads).tolist())
    return {"qids": qids, "docs": docs, "labels": label, "questions": questions, "question_codes": q, "id_bytes": d_ids}


def _pl():
    import polars as pl

    return pl


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
    key = (pl.col("qid").hash(1) * _K) ^ pl.col("doc").hash(2)
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
        return {d: i for i, d in enumerate(_decode(self.ids[: self.n_ids].tolist()))}

    def pair_keys(self, words: int) -> tuple[np.ndarray, np.ndarray]:
        """Keys of the judged (question, ID) pairs over ``words`` words, sorted, and each one's judgment row."""
        name = ("pairs", words)
        if name not in self._keys:
            id_keys = _id_keys(self.matrix, words)[0][: self.n_ids]
            keys = id_keys[self.gold_item] ^ (self.gold_q.astype(np.uint64) * np.uint64(_K))
            order = np.argsort(keys, kind="stable")
            if _has_repeats(keys):
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


def _prepared(qrels, name: str, build):
    cache = qrels.__dict__.setdefault("_fast_cache", {})
    if name not in cache:
        cache[name] = build(qrels)
    return cache[name]


def _code_small(qrels, run_path, doc_map: dict | None) -> CodedRun:
    judgments = _prepared(qrels, "small", _SmallJudgments)
    layout = _layout(_plain(_read_all(run_path, "run"), 6, "run", count_fields=False), 6, "run")
    integer_column(_column(layout, 3)[0], "run: a rank", values=False)
    score = score_column(_column(layout, 4)[0])
    questions = _ids(_column(layout, 0)[0])
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
    d_matrix = _column(layout, 2)[0]
    ids = _ids(d_matrix)
    words = max(_words(d_matrix.shape[1]), _words(judgments.matrix.shape[1]))
    keys, _ = _id_keys(d_matrix, words)
    run_to_question = np.array([judgments.qindex.get(q, -1) for q in run_groups], dtype=np.int64)
    unknown = tuple(q.decode() for q, i in zip(run_groups, run_to_question.tolist()) if i < 0)
    n_questions = len(qrels.questions)
    row_q = run_to_question[rq_first]
    # one key per (question, ID): questions coded as in the judgments (those they lack after them), so that the
    # keys find the judged pairs too; sorted once, for the duplicate check and the join
    question_key = np.where(row_q >= 0, row_q, n_questions + rq_first).astype(np.uint64)
    mixed = keys ^ (question_key * np.uint64(_K))
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
    for i, chunk in enumerate(_decode(distinct.tolist())):
        doc = doc_map.get(chunk)
        if doc is None:
            raise FastPathUnavailable("run: a chunk the doc map does not hold")  # the general reader names the line
        per_chunk[i] = doc_code.setdefault(str(doc), len(doc_code))
    return per_chunk[per_row.ravel()]


def _blocks(path, size):
    """Blocks of about ``size`` bytes holding whole questions (module docstring)."""
    try:
        yield from _raw_blocks(path, size)
    except Exception as e:  # (a generator closed early gets GeneratorExit, which is no Exception)
        if isinstance(e, _gzip_errors()):
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


class _BlockJudgments:
    """What the block reader needs of the judgments, built once per Qrels: question IDs -> codes, and each question's
    judged rows (by question code, as offsets into a sorted order) with their document hashes, labels and IDs."""

    def __init__(self, qrels):
        pl = _pl()
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


def _mix(doc_hash: np.ndarray, question: np.ndarray) -> np.ndarray:
    """A (question, document) key: the document's hash XOR a multiple of the question code. Equal keys of one
    question mean equal document hashes (then the IDs themselves are compared)."""
    return doc_hash ^ (question.astype(np.uint64) * np.uint64(_K))


def _code_block(data: bytes, first: bool, judgments: _BlockJudgments) -> tuple:
    """One block of whole questions, parsed and joined with the judgments: ``(question IDs, their codes (-1 for a
    question the judgments lack), result counts, and the judged rows' question codes, positions and labels)``."""
    pl = _pl()
    df = _parse_block(data, first)
    g = df.select(pl.col("qid").rle_id()).to_series().to_numpy().astype(np.int64)
    doc = df["doc"]  # ties: polars compares and ranks the IDs (byte order, as the others)
    order = trec_order(g, df["score"].to_numpy(), lambda rows: doc.gather(rows).rank("dense").to_numpy().astype(np.int64),
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
    gold_keys = _mix(judgments.doc_hash[gold], judgments.q[gold])
    if _has_repeats(gold_keys):  # two judged documents of a question share a hash
        raise FastPathUnavailable("qrels: two judgments with one key")
    run_keys = _mix(doc_hash[known], row_q[known])
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


def _code_blocks(qrels, run_path, block_bytes: int | None) -> CodedRun:
    judgments = _prepared(qrels, "blocks", _BlockJudgments)
    heads, head_codes, lengths_all, m_q, m_pos, m_label = [], [], [], [], [], []
    for names, codes, lengths, q, position, label in _coded_blocks(run_path, block_bytes or BLOCK_BYTES, judgments):
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
