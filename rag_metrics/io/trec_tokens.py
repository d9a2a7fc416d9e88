"""The byte-level pieces of the columnar TREC readers: plain text checked, fields located, numbers and IDs read.

Shared by the small-file route (:mod:`rag_metrics.io.trec_fast`) and the block reader
(:mod:`rag_metrics.io.trec_blocks`); the rules they enforce are in :mod:`rag_metrics.io.trec_fast`'s docstring.
Nothing here imports polars.
"""

from __future__ import annotations

import numpy as np

from rag_metrics.io.trec import FORBIDDEN, open_binary

__all__ = ["FastPathUnavailable", "MIX", "plain_text", "field_layout", "field_column", "id_array", "key_words",
           "id_keys", "integers_ok", "integer_column", "score_column", "read_all", "integer_tokens", "score_values",
           "decode_tokens", "has_repeats", "gzip_errors", "cached_on"]

MIX = 0x9E3779B97F4A7C15
"""The odd 64-bit multiplier that mixes a question code into a document key."""
_BOM = b"\xef\xbb\xbf"


class FastPathUnavailable(Exception):
    """The input needs the general reader; the message says why."""


_PRINTABLE = bytes(range(32, 127)) + b"\n"
_HIGH = bytes(range(128, 256))
_DIGITS = b"0123456789"


def plain_text(data: bytes, n_fields: int, what: str, *, first: bool = True, count_fields: bool = True) -> bytes:
    """``data`` with a leading BOM skipped (``first`` block only), CRLF read as LF and a final newline,
    provided nothing in it reads differently under the general reader's rules: no control character or
    tab, no Unicode space or invisible character, valid UTF-8. With ``count_fields`` the layout too (single
    spaces between fields, no blank or indented line, ``n_fields`` fields on every line: :func:`field_layout`); the
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
        field_layout(data, n_fields, what)
    return data


def field_layout(data: bytes, n_fields: int, what: str) -> tuple:
    """``(raw bytes as uint8, field starts, field ends)`` -- ``(lines, n_fields)`` arrays -- of
    text that :func:`plain_text` accepted, provided every line holds exactly ``n_fields`` fields separated by single
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


def field_column(layout: tuple, field: int) -> tuple:
    """One field of every line as a zero-padded ``(lines, width)`` uint8 matrix, with the field lengths."""
    raw, starts, ends = layout
    start, end = starts[:, field], ends[:, field]
    width = int((end - start).max())
    # padded with the separator ...
    matrix = raw[np.minimum(start[:, None] + np.arange(width, dtype=start.dtype), end[:, None])]
    matrix *= matrix > 32  # ... made 0 (a separator is a space or a newline; no other byte <= 32 is left)
    return matrix, end - start


def id_array(matrix: np.ndarray) -> np.ndarray:
    """A zero-padded matrix as a numpy bytes array (``S<width>``): IDs compare byte by byte, as strcmp does."""
    return np.ascontiguousarray(matrix).view(f"S{matrix.shape[1]}").ravel()


def key_words(width: int) -> int:
    """8-byte words that hold an ID of ``width`` bytes (at least one)."""
    return max(1, -(-width // 8))


def id_keys(matrix: np.ndarray, words: int | None = None) -> tuple[np.ndarray, bool]:
    """64-bit keys of zero-padded IDs, over ``words`` 8-byte words (enough for the widest ID; give the same number to
    compare keys of two matrices), and whether they are exact: with one word the key is the ID's bytes themselves;
    with more it is a hash of the words, and equal keys are only candidates."""
    width = matrix.shape[1]
    words = key_words(width) if words is None else words
    padded = np.zeros((matrix.shape[0], 8 * words), dtype=np.uint8)
    padded[:, :width] = matrix
    w = padded.view("<u8")
    key = w[:, 0].copy()
    for i in range(1, words):
        key = (key * np.uint64(MIX)) ^ w[:, i]
    return key, words == 1


def is_digit(matrix: np.ndarray) -> np.ndarray:
    """Where a byte matrix holds an ASCII digit."""
    return (matrix >= 48) & (matrix <= 57)


def integers_ok(matrix: np.ndarray) -> bool:
    """Whether every row is ``[+-]?[0-9]+`` (the TREC integer syntax). Whole-matrix checks: after the first column
    only digits or padding (padding follows the field, and no field holds a 0 byte); the first column a digit, or a
    sign followed by something (then a digit, by the first check)."""
    rest = matrix[:, 1:]
    if not ((rest == 0) | is_digit(rest)).all():
        return False
    first = matrix[:, 0]
    signed = (first == 43) | (first == 45)
    followed = matrix[:, 1] != 0 if matrix.shape[1] > 1 else np.zeros(matrix.shape[0], dtype=bool)
    return bool((is_digit(first) | (signed & followed)).all())


def decimals(matrix: np.ndarray) -> tuple:
    """Per row: ``(ok, mantissa, digits after the point)`` for a token in the plain decimal form
    ``[+-]?[0-9]*(\\.[0-9]*)?`` with 1 to 15 digits (``ok`` False for any other token; its numbers are then
    meaningless). Horner's scheme, one column at a time."""
    rows, width = matrix.shape
    digit = matrix - np.uint8(48)  # 0-9 for a digit; any other byte wraps to 10 or more
    digit_at = digit < 10
    point = matrix == 46
    mantissa = np.zeros(rows, dtype=np.int64)
    fraction = np.zeros(rows, dtype=np.int64)
    n_digits = np.zeros(rows, dtype=np.int64)
    n_points = np.zeros(rows, dtype=np.int64)
    seen_point = np.zeros(rows, dtype=bool)
    for j in range(width):
        d = digit_at[:, j]
        mantissa = np.where(d, mantissa * 10 + digit[:, j], mantissa)
        seen_point |= point[:, j]
        fraction += d & seen_point
        n_digits += d
        n_points += point[:, j]
    first = matrix[:, 0]
    other = ~(digit_at | point | (matrix == 0))
    other[:, 0] &= ~((first == 43) | (first == 45))
    ok = ~other.any(axis=1) & (n_points <= 1) & (n_digits >= 1) & (n_digits <= 15)
    return ok, np.where(first == 45, -mantissa, mantissa), fraction


_POW10 = 10.0 ** np.arange(23)


def integer_column(matrix: np.ndarray, what: str, *, values: bool = True) -> np.ndarray | None:
    """Integers in the TREC syntax ``[+-]?[0-9]+`` as int64 (at most 15 digits when ``values`` are wanted); else
    :class:`FastPathUnavailable`."""
    if not integers_ok(matrix):
        raise FastPathUnavailable(f"{what} is not an integer")
    if not values:
        return None
    ok, mantissa, _ = decimals(matrix)
    if not ok.all():
        raise FastPathUnavailable(f"{what} has more than 15 digits")
    return mantissa


def score_column(matrix: np.ndarray) -> np.ndarray:
    """Scores in the TREC syntax as doubles, each the value ``float()`` gives; else :class:`FastPathUnavailable`.

    A plain decimal of at most 15 digits (``-12.375``) is ``mantissa / 10**k`` with both exactly representable,
    so one IEEE division gives the correctly rounded double, as ``float()`` does (Clinger's fast path); the sign
    is applied to the mantissa (``-0`` stays ``-0.0``). Any other token (an exponent, more digits) goes through
    :func:`score_values`."""
    ok, mantissa, fraction = decimals(matrix)
    value = mantissa.astype(np.float64) / _POW10[np.minimum(fraction, 22)]
    negative_zero = (mantissa == 0) & (matrix[:, 0] == 45)
    if negative_zero.any():
        value[negative_zero] = -0.0
    if not ok.all():
        rows = np.flatnonzero(~ok)
        value[rows] = score_values([bytes(row).rstrip(b"\0") for row in matrix[rows]])
    return value


def gzip_errors() -> tuple:
    """What a broken gzip file raises (evaluated only when an exception is being handled: gzip is imported for gzip
    files only)."""
    import gzip
    import zlib

    return EOFError, zlib.error, gzip.BadGzipFile


def read_all(path, what) -> bytes:
    try:
        with open_binary(path) as f:
            return f.read()
    except Exception as e:
        if isinstance(e, gzip_errors()):
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


def decode_tokens(tokens: list) -> list:
    """Byte tokens as strings, in one decode (tokens hold no newline)."""
    return b"\n".join(tokens).decode("utf-8").split("\n") if tokens else []


def has_repeats(keys: np.ndarray) -> bool:
    """Whether two keys are equal."""
    keys = np.sort(keys)
    return bool((keys[1:] == keys[:-1]).any())


def cached_on(qrels, name: str, build):
    """``build(qrels)``, made once per :class:`~rag_metrics.io.judgments.Qrels` and kept on it under ``name``."""
    cache = qrels.__dict__.setdefault("_fast_cache", {})
    if name not in cache:
        cache[name] = build(qrels)
    return cache[name]
