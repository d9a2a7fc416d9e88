"""Text normalization and the tokenizer shared by chunkers and retrievers (Japanese and English).

Tokenizer, in two views of the same rule:

* :func:`token_spans` -- on the *original* text, one span per token: a run of Latin
  letters or digits (half- or full-width, with inner ``.``, ``'``, ``-`` or ``,`` as in
  ``0.30``, ``don't``, ``e-mail``, ``1,500``) is one token; every kana or kanji character
  is a token of its own (Japanese has no spaces). Punctuation and spaces are not tokens.
  Token-based chunking counts these spans.
* :func:`tokenize` -- for search: NFKC (full-width ``５`` becomes ``5``), lower-case, Latin
  words as they are, and each run of kana/kanji as overlapping character bigrams (a run
  of one character stays a unigram). Bigrams are the standard dictionary-free indexing
  unit for Japanese (as in Lucene's CJK analyzer).
"""

from __future__ import annotations

import re
import threading
import unicodedata

import numpy as np

__all__ = ["normalize", "normalize_codes", "strip_page_markers", "token_spans", "tokenize", "gram_hashes",
           "PAGE_MARKER", "Concat", "fold_digits", "decode", "text_blocks", "codes_of", "KANA", "KANJI", "CJK",
           "HIRAGANA", "CJK_CHAR", "cjk_count", "hash_powers", "counted", "fold_with_index"]

PAGE_MARKER = re.compile(r"\[p\.(\d+)\]")
"""An OCR page marker ``[p.N]``; group 1 is the page number. The only definition: every reader and judge uses it."""
HIRAGANA = "\u3040-\u309f"
"""Hiragana, as the body of a character class: the particles and endings of Japanese (は, を, ですか)."""
KANA = "\u3040-\u30ff\uff66-\uff9f"
"""Hiragana, katakana and half-width katakana, as the body of a regex character class."""
KANJI = "\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff"
"""CJK unified ideographs (with extension A) and compatibility ideographs, as the body of a character class."""
CJK = KANA + KANJI
"""Every kana or kanji character: what the tokenizer makes a token of its own, and what counts as Japanese text."""
_LATIN = "0-9A-Za-z\u00c0-\u024f\uff10-\uff19\uff21-\uff3a\uff41-\uff5a"
_SPAN = re.compile(rf"[{_LATIN}]+(?:[.'\-,][{_LATIN}]+)*|[{CJK}]")
_NORM_TOKEN = re.compile(rf"[{_LATIN}]+(?:[.'\-,][{_LATIN}]+)*|[{CJK}]+")
CJK_CHAR = re.compile(rf"[{CJK}]")
"""One kana or kanji character (:data:`CJK`)."""
_PRINTABLE = bytes(range(0x20, 0x7F))  # the printable ASCII characters (str.isprintable on ASCII text)


def cjk_count(text: str) -> int:
    """How many kana or kanji characters ``text`` holds (:data:`CJK`)."""
    return len(CJK_CHAR.findall(text))


def strip_page_markers(text: str) -> str:
    """Remove OCR page markers such as ``[p.12]``."""
    return PAGE_MARKER.sub(" ", text)


def normalize(text: str) -> str:
    """NFKC, page markers removed, whitespace collapsed to single spaces, stripped.

    >>> normalize("[p.3]\\n翌月５日に　振り込み")
    '翌月5日に 振り込み'
    """
    if text.isascii() and not text.encode("ascii").translate(None, _PRINTABLE) and "  " not in text \
            and "[p." not in text:
        return text.strip(" ")  # printable ASCII is NFKC, and its only whitespace is single spaces
    text = unicodedata.normalize("NFKC", text)
    if "[p." in text:
        text = PAGE_MARKER.sub(" ", text)
    return " ".join(text.split())  # str.split() splits on exactly the characters regex \s matches


def codes_of(texts) -> tuple[np.ndarray, np.ndarray]:
    """Many texts as one array of code points: ``(codes, offsets)`` with text ``i`` at
    ``codes[offsets[i]:offsets[i + 1]]`` (uint8 when every character is ASCII, else uint32, surrogates kept).
    :func:`decode` turns them back into strings."""
    texts = list(texts)
    lengths = np.fromiter((len(t) for t in texts), dtype=np.int64, count=len(texts))
    offsets = np.zeros(len(texts) + 1, dtype=np.int64)
    np.cumsum(lengths, out=offsets[1:])
    whole = "".join(texts)
    codes = np.frombuffer(whole.encode("ascii"), dtype=np.uint8) if whole.isascii() else _codes(whole)
    return codes, offsets


def normalize_codes(texts) -> tuple[np.ndarray, np.ndarray]:
    """:func:`normalize` of many texts, as one array of code points (:func:`codes_of`)."""
    return codes_of(normalize(t) for t in texts)


def decode(codes: np.ndarray, offsets: np.ndarray) -> list[str]:
    """The strings of ``(codes, offsets)`` (as :func:`normalize_codes` returns them)."""
    whole = codes.astype(np.uint32).tobytes().decode("utf-32-le", "surrogatepass")
    return [whole[a:b] for a, b in zip(offsets[:-1].tolist(), offsets[1:].tolist())]


def token_spans(text: str) -> list[tuple[int, int]]:
    """``(start, end)`` character offsets of each token in ``text`` (see module docstring).

    >>> [("Lumo X2は２年"[s:e]) for s, e in token_spans("Lumo X2は２年")]
    ['Lumo', 'X2', 'は', '２', '年']
    """
    return [m.span() for m in _SPAN.finditer(text)]


def tokenize(text: str) -> list[str]:
    """Search tokens: NFKC + lower-case Latin words, character bigrams for kana/kanji runs.

    >>> tokenize("Lumo X2の保証期間は２年")
    ['lumo', 'x2', 'の保', '保証', '証期', '期間', '間は', '2', '年']
    """
    out: list[str] = []
    for match in _NORM_TOKEN.finditer(unicodedata.normalize("NFKC", text).lower()):
        tok = match.group()
        if CJK_CHAR.match(tok):
            out.extend(tok[i : i + 2] for i in range(max(len(tok) - 1, 1)))
        else:
            out.append(tok)
    return out


_BASES = {64: 0x100000001B3, 32: 0x9E3779B1}  # odd, so invertible modulo 2**bits
_DTYPES = {64: np.uint64, 32: np.uint32}
_POWERS = {bits: (np.ones(1, dtype=_DTYPES[bits]), np.ones(1, dtype=_DTYPES[bits])) for bits in _BASES}
_POWERS_LOCK = threading.Lock()


def hash_powers(n: int, *, bits: int = 64):
    """``(B**m, B**-m)`` modulo ``2**bits`` for m < n, the rolling hashes' powers (64-bit: :func:`gram_hashes`,
    :class:`Concat`, locating fragments; 32-bit: the page index's fragment hashes). Cached and grown on demand under
    a lock, so threads only ever read a complete table."""
    if bits not in _BASES:
        raise ValueError(f"bits must be 64 or 32, got {bits!r}.")
    up, down = _POWERS[bits]
    if up.shape[0] < n:
        with _POWERS_LOCK:
            up, down = _POWERS[bits]
            if up.shape[0] < n:
                size, dtype, base = max(n, 2 * up.shape[0]), _DTYPES[bits], _BASES[bits]
                up, down = np.empty(size, dtype=dtype), np.empty(size, dtype=dtype)
                up[0] = down[0] = 1
                np.cumprod(np.full(size - 1, base, dtype=dtype), out=up[1:])
                np.cumprod(np.full(size - 1, pow(base, -1, 2**bits), dtype=dtype), out=down[1:])
                _POWERS[bits] = (up, down)
    return up[:n], down[:n]


def gram_hashes(text: str, n: int) -> np.ndarray:
    """A 64-bit hash of every ``n``-character substring of ``text``, in position order (empty if shorter).

    Equal substrings have equal hashes wherever they occur (a polynomial hash modulo 2**64 computed
    with prefix sums: the cost does not grow with ``n``). Different substrings may collide, so a
    match found through these hashes is verified on the strings before it counts.

    >>> h = gram_hashes("abcabc", 3)
    >>> len(h), bool(h[0] == h[3]), bool(h[0] == h[1])
    (4, True, False)
    """
    codes = np.frombuffer(text.encode("utf-32-le"), dtype=np.uint32).astype(np.uint64)
    length = codes.shape[0]
    if length < n:
        return np.zeros(0, dtype=np.uint64)
    up, down = hash_powers(length + 1)
    prefix = np.zeros(length + 1, dtype=np.uint64)
    np.cumsum(codes * up[:length], out=prefix[1:])
    return (prefix[n:] - prefix[:-n]) * down[: length - n + 1]


def _codes(text: str) -> np.ndarray:
    return np.frombuffer(text.encode("utf-32-le", "surrogatepass"), dtype=np.uint32)


_ZERO, _NINE = ord("0"), ord("9")


def fold_digits(codes: np.ndarray) -> np.ndarray:
    """Code points with every ASCII digit replaced by ``0`` (the same length): ``Policy 13`` -> ``Policy 00``."""
    return np.where((codes >= _ZERO) & (codes <= _NINE), np.uint32(_ZERO), codes)


def text_blocks(offsets: np.ndarray, block: int = 1 << 20) -> np.ndarray:
    """Start positions of runs of whole texts of about ``block`` characters (a longer text is a block alone):
    prefix sums restart there, so the power tables stay short and a block's arrays stay small."""
    total = int(offsets[-1])
    ends = offsets[1:]
    starts, lo = [0], 0
    if total > block:
        while True:
            nxt = int(np.searchsorted(ends, lo + block, side="right"))  # the first text ending beyond the block
            if nxt >= len(ends):
                break
            cut = int(offsets[nxt]) if offsets[nxt] > lo else int(ends[nxt])
            if cut >= total:
                break
            starts.append(cut)
            lo = cut
    return np.array(starts, dtype=np.int64)


class Concat:
    """Many texts as one array of code points, with the hash of any ``n``-character fragment at hand.

    ``offsets[i]:offsets[i + 1]`` are text ``i``'s positions. :meth:`hashes` gives, for global positions ``x``
    (each with ``x + n`` inside its own text), the same 64-bit polynomial hash :func:`gram_hashes` gives: equal
    fragments have equal hashes in any text; different ones may collide, so a match is verified on the code
    points. Prefix sums restart at every block of about ``block`` characters (a text is never split), so the
    power tables stay short. ``folded=True`` hashes the texts with digits folded (:func:`fold_digits`).
    ``codes`` is stored in the smallest unsigned type that holds the texts' code points.
    """

    def __init__(self, texts, *, folded: bool = False, block: int = 1 << 20):
        texts = list(texts)
        lengths = np.fromiter((len(t) for t in texts), dtype=np.int64, count=len(texts))
        offsets = np.zeros(len(texts) + 1, dtype=np.int64)
        np.cumsum(lengths, out=offsets[1:])
        self._build(_codes("".join(texts)), offsets, folded, block)

    @classmethod
    def from_codes(cls, codes: np.ndarray, offsets: np.ndarray, *, folded: bool = False,
                   block: int = 1 << 20) -> "Concat":
        """The texts given as code points and offsets (e.g. from :func:`normalize_codes`)."""
        self = cls.__new__(cls)
        self._build(np.asarray(codes), np.asarray(offsets, dtype=np.int64), folded, block)
        return self

    def _build(self, codes: np.ndarray, offsets: np.ndarray, folded: bool, block: int) -> None:
        self.offsets = offsets
        total = int(offsets[-1])
        self.blocks = text_blocks(offsets, block)
        bounds = np.r_[self.blocks, total]
        longest = int(np.diff(bounds).max(initial=0))
        up, self._down = hash_powers(longest + 1)
        self.prefix = np.zeros(total + 1, dtype=np.uint64)
        for lo, hi in zip(bounds[:-1], bounds[1:]):
            part = (fold_digits(codes[lo:hi]) if folded else codes[lo:hi]).astype(np.uint64)
            part *= up[: hi - lo]
            np.cumsum(part, out=self.prefix[lo + 1: hi + 1])
        top = int(codes.max(initial=0))
        self.codes = codes.astype(np.uint8 if top < 256 else np.uint16 if top < 65536 else np.uint32)

    def __len__(self) -> int:
        return self.offsets.shape[0] - 1

    def hashes(self, positions: np.ndarray, n: int) -> np.ndarray:
        """Hashes of the ``n``-character fragments starting at ``positions`` (each inside one text)."""
        base = self.blocks[np.searchsorted(self.blocks, positions, side="right") - 1]
        before = np.where(positions == base, np.uint64(0), self.prefix[positions])
        return (self.prefix[positions + n] - before) * self._down[positions - base]

    def starts(self, n: int, step: int = 1) -> np.ndarray:
        """Global positions where an ``n``-character fragment starts inside its text, every ``step`` characters
        from each text's start."""
        lengths = np.diff(self.offsets)
        counts = np.where(lengths >= n, (lengths - n) // step + 1, 0)
        total = int(counts.sum())
        first = np.repeat(self.offsets[:-1], counts)
        rank = np.arange(total, dtype=np.int64) - np.repeat(np.cumsum(counts) - counts, counts)
        return first + rank * step


def counted(n: int, one: str, many: str | None = None) -> str:
    """``n`` with its noun, singular only for exactly 1: ``counted(1, "page")`` is "1 page", ``counted(0, "page")``
    "0 pages", ``counted(2, "query", "queries")`` "2 queries" (``many`` defaults to ``one + "s"``)."""
    return f"{n} {one if n == 1 else (many if many is not None else one + 's')}"


def fold_with_index(text: str) -> tuple[str, list[int]]:
    """``text`` NFKC-normalized, case-folded, whitespace runs as one space -- and, per folded character, the index of
    the character of ``text`` it comes from (so a match in the folded text is a span of ``text`` as given).

    >>> fold_with_index("A  Ｂ")
    ('a b', [0, 1, 3])
    """
    out, index = [], []
    for pos, ch in enumerate(text):
        for c in unicodedata.normalize("NFKC", ch).casefold():
            if c.isspace():
                if not out or out[-1] == " ":
                    continue
                c = " "
            out.append(c)
            index.append(pos)
    return "".join(out), index
