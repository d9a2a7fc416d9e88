"""Where logged text lies on the pages: placing items that carry text without a page, and checking those that do.

:func:`locate_items` is the one placement the package uses, wherever a page must come from the text:

* **text-only logs** -- items with text and no document or page (ragas rows keep ``retrieved_contexts`` as text
  only) get their document and pages from where the text is found (:func:`place_text_only`, called by
  :func:`rag_metrics.experiment.evaluate.evaluate_log`; it needs the documents, ``--pages``);
* **printed page labels** -- LlamaIndex's ``page_label`` is the label printed on the page (``i``, ``ii``, ``1``...),
  not the page's position in the file, so such items are placed by their text too;
* **the page-metadata audit** (:mod:`rag_metrics.judging.page_audit`) compares each logged page with the located one.

:func:`item_pages` is a second, different rule, for an item whose document is known (the label audit and the
assessors, :func:`rag_metrics.labels.assessors.retrieved_pages`): its logged pages when they are pages of the
document, else the page(s) of that document sharing the most fragments with its text. It differs from
:func:`locate_items` on purpose -- it never searches other documents, counts every fragment (none sampled), needs
no exact occurrence and no share of the text's fragments (one shared fragment suffices), keeps every page tied for
the most, and does not leave out boilerplate (a running footer is shared with every page, so the page sharing the
most besides wins) -- and its results are the audit's recorded ones, so the two are kept apart.

Signature (stable; other modules call it)::

    locate_items(texts, index, *, min_chars=24, docs=None) -> DataFrame[doc_id, pages, placed_by, candidates]

``texts``: a sequence of strings (None or non-strings are "not found"); ``index``: a
:class:`~rag_metrics.judging.page_index.PageIndex` (or a corpus / pages table, indexed on the fly); ``docs``: optional
document IDs, one per text, restricting each search to that document (None: anywhere). One output row per input
text, in order:

* ``placed_by = "exact page"`` -- the normalized text occurs once in the normalized documents (a document's
  pages joined by one space, so a text running over a page break is found): ``doc_id`` and the ``pages`` it
  lies on;
* ``"several candidates"`` -- it occurs more than once (the same passage on two pages or in two documents):
  ``candidates`` lists ``(doc_id, first page, last page)`` of every occurrence; ``doc_id`` is set when they are
  all in one document, with ``pages`` the union of theirs, else None (the caller decides, e.g. by gold);
* ``"overlap"`` -- no exact occurrence (the text was extracted or cleaned differently), but at least half of
  its fragments of ``min_chars`` characters (sampled) lie on pages of one document: ``doc_id`` and the pages
  holding at least half as many of them as the best page;
* ``"not found"`` -- none of the above (or shorter than ``min_chars`` after normalization).

How occurrences are found: every ``min_chars``-fragment of the documents' texts (across page breaks too) is hashed
once per index and sorted (:func:`_layout_table`); each text's eight anchors -- fragments spread over it -- are
looked up there, and every place its rarest anchor occurs (in the text's document, when given) is checked with the
whole text. Every occurrence holds each anchor at the same offset, so none is missed (up to :data:`MAX_SLOTS`
places per anchor); memory stays bounded (:data:`~rag_metrics.judging.minimizers.HITS` places at a time) and the texts
are never hashed whole.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from rag_metrics.core.errors import InputError
from rag_metrics.core.text import Concat, codes_of, gram_hashes, hash_powers, normalize, text_blocks
from rag_metrics.judging.page_index import PageIndex
from rag_metrics.judging.minimizers import BLOCK, HITS, concat_ranges, direct_hashes

__all__ = ["locate_items", "place_text_only", "item_pages", "pages_sharing_most", "PLACED_BY"]

PLACED_BY = ("exact page", "several candidates", "overlap", "not found")
ANCHORS = 8
"""Fragments tried per text to find where it starts (one inside a page suffices; a text may cross page breaks)."""
MAX_CANDIDATES = 200
"""Occurrences kept per text at most (a text made of a repeated header could match on every page)."""
MAX_SLOTS = 1 << 16
"""Occurrences of a text's rarest anchor looked at, at most, over all documents (then those in its document kept)."""


def _doc_layout(index: PageIndex):
    """``(texts, spans)``: per document its normalized text (pages joined by one space), and the lists
    ``(starts, ends, pages)`` of its rows in that text, in page order (an empty page has ``start == end``)."""
    if getattr(index, "_layout", None) is None:
        texts, spans = {}, {}
        for doc, rows in index.docs.items():
            parts, pos, starts, ends = [], 0, [], []
            for r in rows:
                text = index.norm[r]
                if text and parts:
                    parts.append(" ")
                    pos += 1
                starts.append(pos)
                if text:
                    parts.append(text)
                    pos += len(text)
                ends.append(pos)
            texts[doc] = "".join(parts)
            spans[doc] = (starts, ends, [index.keys[r][1] for r in rows])
        index._layout = (texts, spans)
    return index._layout


def _global_table(index: PageIndex, n: int):
    key = ("global", n)
    if key not in index._sorted:
        rows = np.arange(len(index.keys))
        pos, owner = index.row_starts(rows, n)
        h = index.concat.hashes(pos, n)
        order = np.argsort(h)
        index._sorted[key] = (h[order], pos[order], owner[order])
    return index._sorted[key]


def _layout_table(index: PageIndex, n: int):
    """Every ``n``-character fragment of the documents' normalized texts (:func:`_doc_layout`: a fragment running
    over a page break is one too), as one sorted array ``(hash >> bits) << bits | position`` -- the fragment's 64-bit
    hash with its low ``bits`` bits replaced by its position, ``bits`` the fewest that hold every position -- and
    ``(table, bits, document offsets, document names)``. A position is counted in the documents' texts laid end to
    end in ``names`` order; a shortened hash only costs a check of the text, never a false match."""
    key = ("layout", n)
    if key not in index._sorted:
        doc_texts = _doc_layout(index)[0]
        names = list(doc_texts)
        codes, off = codes_of(doc_texts[d] for d in names)
        bits = max(int(off[-1]).bit_length(), 1)
        parts = []
        bounds = np.r_[text_blocks(off, BLOCK), off[-1]]
        up, down = hash_powers(int(np.diff(bounds).max(initial=0)) + 1)
        for lo, hi in zip(bounds[:-1].tolist(), bounds[1:].tolist()):  # whole documents, a block at a time
            size = hi - lo
            if size < n:
                continue
            prefix = np.zeros(size + 1, dtype=np.uint64)
            np.cumsum(codes[lo:hi].astype(np.uint64) * up[:size], out=prefix[1:])
            first = int(np.searchsorted(off, lo, side="left"))
            last = int(np.searchsorted(off, hi, side="left"))
            local = concat_ranges(off[first:last] - lo,
                                  np.maximum(off[first + 1:last + 1] - n + 1, off[first:last]) - lo)
            h = (prefix[local + n] - prefix[local]) * down[local]  # sum(c[k] * B**k) over the fragment
            h >>= np.uint64(bits)
            h <<= np.uint64(bits)
            h |= (local + lo).astype(np.uint64)
            parts.append(h)
        packed = np.concatenate(parts) if parts else np.zeros(0, dtype=np.uint64)
        packed.sort()
        index._sorted[key] = (packed, bits, off, names)
    return index._sorted[key]


def _lookup(table: np.ndarray, bits: int, keys: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``(left, right)``: the run of ``table`` entries (:func:`_layout_table`) whose hash agrees with each key's in
    all but its low ``bits`` bits. The keys are searched in sorted order -- consecutive searches then touch the same
    parts of a large table -- and the results put back in the keys' order."""
    flat = keys.ravel() >> np.uint64(bits) << np.uint64(bits)
    order = np.argsort(flat)
    ordered = flat[order]
    left, right = np.empty(flat.shape[0], dtype=np.int64), np.empty(flat.shape[0], dtype=np.int64)
    left[order] = np.searchsorted(table, ordered, side="left")
    right[order] = np.searchsorted(table, ordered | np.uint64((1 << bits) - 1), side="right")
    return left.reshape(keys.shape), right.reshape(keys.shape)


def _row_table(index: PageIndex, names: list, doc_off: np.ndarray):
    """The pages' rows in the documents' texts laid end to end (``names`` order, ``doc_off``: :func:`_layout_table`):
    ``(starts, ends, before, pages)`` -- global start and end of each row (an empty page has ``start == end``), how
    many non-empty rows come before each row, and the page numbers of the non-empty rows in that order."""
    key = ("rows", len(names))
    if key not in index._sorted:
        spans = _doc_layout(index)[1]
        starts, ends, pages = [], [], []
        for d, base in zip(names, doc_off[:-1].tolist()):
            s, e, p = spans[d]
            starts += [base + x for x in s]
            ends += [base + x for x in e]
            pages += p
        starts, ends = np.array(starts, dtype=np.int64), np.array(ends, dtype=np.int64)
        full = ends > starts
        before = np.zeros(starts.shape[0] + 1, dtype=np.int64)
        np.cumsum(full, out=before[1:])
        index._sorted[key] = (starts, ends, before, [p for p, f in zip(pages, full.tolist()) if f])
    return index._sorted[key]


def locate_items(texts, index, *, min_chars: int = 24, docs=None) -> pd.DataFrame:
    """Place each text on the pages (module docstring gives the signature and every outcome).

    The steps: :func:`_distinct_queries` (each distinct text and document searched once), :func:`_exact_placements`
    (where the text occurs as it is) and, for the texts that occur nowhere, :func:`_by_overlap`.
    """
    if not isinstance(index, PageIndex):
        index = PageIndex(index)
    texts = list(texts)
    if docs is not None:
        docs = list(docs)
        if len(docs) != len(texts):
            raise InputError(f"locate_items: {len(docs)} documents for {len(texts)} texts.")
    n = int(min_chars)
    asker, query_of_text = _distinct_queries(texts, docs)
    qtexts = [normalize(texts[i]) for i in asker.tolist()]
    want_docs = None if docs is None else [docs[i] for i in asker.tolist()]
    lengths = np.fromiter((len(t) for t in qtexts), dtype=np.int64, count=len(qtexts))
    long_enough = np.flatnonzero(lengths >= n)
    placed: dict = {}
    if long_enough.shape[0]:
        placed = _exact_placements(index, qtexts, want_docs, lengths, long_enough, n)
        rest = [q for q in long_enough.tolist() if q not in placed]  # no exact occurrence: where do most fragments lie?
        if rest:
            placed.update(_by_overlap(index, [qtexts[i] for i in rest],
                                      [None if want_docs is None else want_docs[i] for i in rest], n, rest))
    none = (None, (), "not found", ())
    rows = [none if q < 0 else placed.get(q, none) for q in query_of_text.tolist()]
    # object columns: an ambiguous doc_id stays None (pandas 3 would infer its string dtype and make it NaN)
    return pd.DataFrame(rows, columns=["doc_id", "pages", "placed_by", "candidates"], dtype=object)


def _distinct_queries(texts: list, docs: list | None) -> tuple[np.ndarray, np.ndarray]:
    """``(asker, query_of_text)``: the distinct (text, document) pairs among the strings of ``texts`` (documents
    ``docs``, or None: anywhere), each searched once -- ``asker[q]`` the first text asking query ``q`` (queries
    ordered by the codes of their text and document, in order of first appearance) -- and each text's query (-1: not
    a string)."""
    is_text = np.fromiter((isinstance(t, str) for t in texts), dtype=bool, count=len(texts))
    text_code, _ = pd.factorize(pd.Series(texts, dtype=object).where(is_text, None), use_na_sentinel=True)
    if docs is None:
        pair = text_code.astype(np.int64)
    else:
        doc_code, doc_names = pd.factorize(pd.Series(docs, dtype=object), use_na_sentinel=True)
        pair = text_code.astype(np.int64) * (len(doc_names) + 1) + (doc_code.astype(np.int64) + 1)
    pair = np.where(is_text, pair, -1)
    keys, first_of, query_of_text = np.unique(pair, return_index=True, return_inverse=True)
    real = keys >= 0
    query_of_text = np.where(is_text, query_of_text - (~real).sum(), -1)
    return first_of[real], query_of_text


def _exact_placements(index: PageIndex, qtexts: list, want_docs: list | None, lengths: np.ndarray,
                      long_enough: np.ndarray, n: int) -> dict:
    """query -> ``(doc_id, pages, placed_by, candidates)`` for the normalized texts ``qtexts[long_enough]`` that occur
    as they are in the documents' texts (in ``want_docs[q]`` when given): ``"exact page"`` or ``"several
    candidates"`` (module docstring). Anchors (:func:`_anchor_hashes`): every occurrence of a text holds each of
    its anchors at the same offset, so the rarest anchor's places in the table are where the text can start
    (:func:`_occurrences`); the first :data:`MAX_CANDIDATES` are kept (:func:`_kept_occurrences`) and read as pages
    (:func:`_placements_of`)."""
    table, bits, doc_off, names = _layout_table(index, n)
    anchor_off, anchors = _anchor_hashes(qtexts, lengths, long_enough, n)
    left, right = _lookup(table, bits, anchors)
    hits = right - left
    best = np.argmin(np.where(hits > 0, hits, np.iinfo(np.int64).max), axis=1)  # the rarest anchor found
    pick = np.arange(long_enough.shape[0])
    first, shift = left[pick, best], anchor_off[pick, best]
    last = np.minimum(right[pick, best], first + MAX_SLOTS)
    doc_no = {d: k for k, d in enumerate(names)}
    want = None if want_docs is None else \
        np.array([doc_no.get(want_docs[i], -1) for i in long_enough.tolist()], dtype=np.int64)
    doc_texts = _doc_layout(index)[0]
    found = _occurrences(table, bits, doc_off, [doc_texts[d] for d in names], qtexts, long_enough, first, last,
                         shift, want)
    name_rank = np.argsort(np.argsort(np.array(names, dtype=object)))  # candidates listed by document name
    found = _kept_occurrences(*found, name_rank)
    return _placements_of(index, names, doc_off, lengths, long_enough, *found)


def _anchor_hashes(qtexts: list, lengths: np.ndarray, long_enough: np.ndarray, n: int):
    """``(offsets, hashes)``, one row of :data:`ANCHORS` per text ``qtexts[long_enough]``: the ``n``-fragments
    spread evenly over the text from its start to its end, and their hashes (the texts' code points laid out some
    texts at a time, the anchors read from them as windows)."""
    anchor_off = ((lengths[long_enough] - n)[:, None] * np.arange(ANCHORS)) // (ANCHORS - 1)
    anchors = np.zeros(anchor_off.shape, dtype=np.uint64)
    step = 1 << 12  # texts whose code points are laid out at once (~4 MB of characters): no slice per anchor
    for lo in range(0, long_enough.shape[0], step):
        codes, t_off = codes_of(qtexts[i] for i in long_enough[lo:lo + step].tolist())
        starts = t_off[:-1, None] + anchor_off[lo:lo + step]
        anchors[lo:lo + step] = direct_hashes(codes, starts.ravel(), n).reshape(-1, ANCHORS)
    return anchor_off, anchors


def _occurrences(table, bits: int, doc_off, doc_list: list, qtexts: list, long_enough, first, last, shift, want):
    """``(item, start, document)`` of every occurrence found: for each text ``item`` (a position in
    ``long_enough``), every start its rarest anchor allows (table entries ``first..last``, the anchor ``shift``
    characters into the text) that lies in one document -- ``want[item]`` when given -- and where the document's
    text does hold the text (a shortened hash only costs this check). Texts go in runs of about :data:`HITS`
    slots: bounded memory."""
    ends = np.cumsum(last - first)
    found = []
    lo = 0
    while lo < long_enough.shape[0]:
        hi = max(int(np.searchsorted(ends, (ends[lo - 1] if lo else 0) + HITS, side="right")), lo + 1)
        item = np.repeat(np.arange(lo, hi), last[lo:hi] - first[lo:hi])
        places = table[concat_ranges(first[lo:hi], last[lo:hi])] & np.uint64((1 << bits) - 1)
        starts = places.astype(np.int64) - shift[item]
        owner = np.searchsorted(doc_off, starts, side="right") - 1
        keep = starts >= doc_off[np.maximum(owner, 0)]
        if want is not None:
            keep &= owner == want[item]
        item, starts, owner = item[keep], starts[keep], owner[keep]
        local = starts - doc_off[owner]
        ok = np.fromiter((doc_list[o].startswith(qtexts[q], s) for q, s, o in
                          zip(long_enough[item].tolist(), local.tolist(), owner.tolist())), dtype=bool,
                         count=item.shape[0])
        found.append((item[ok], starts[ok], owner[ok]))
        lo = hi
    return tuple(np.concatenate(x) for x in zip(*found))


def _kept_occurrences(item, start, owner, name_rank):
    """The first :data:`MAX_CANDIDATES` occurrences of each text (by position in the documents laid end to end),
    ordered by text, then document name (``name_rank``), then position."""
    order = np.lexsort((start, item))
    item, start, owner = item[order], start[order], owner[order]
    new_item = np.r_[True, item[1:] != item[:-1]] if item.shape[0] else np.zeros(0, dtype=bool)
    rank_in_item = np.arange(item.shape[0]) - np.flatnonzero(new_item)[np.cumsum(new_item) - 1]
    capped = rank_in_item < MAX_CANDIDATES
    item, start, owner = item[capped], start[capped], owner[capped]
    order = np.lexsort((start, name_rank[owner], item))
    return item[order], start[order], owner[order]


def _placements_of(index: PageIndex, names: list, doc_off, lengths, long_enough, item, start, owner) -> dict:
    """query -> ``(doc_id, pages, placed_by, candidates)`` from each text's occurrences (:func:`_kept_occurrences`):
    the pages an occurrence lies on are the non-empty rows it intersects. One occurrence (the usual case):
    ``"exact page"`` on the pages it spans; several: ``"several candidates"`` (module docstring)."""
    row_starts, row_ends, before, row_pages = _row_table(index, names, doc_off)
    a = before[np.searchsorted(row_ends, start, side="right")]
    b = before[np.searchsorted(row_starts, start + lengths[long_enough[item]], side="left")]
    counts = np.bincount(item, minlength=long_enough.shape[0])
    bounds = np.r_[0, np.cumsum(counts)]
    out: dict = {}
    once = np.flatnonzero(counts == 1)
    at = bounds[once]
    for q, o, x, y in zip(long_enough[once].tolist(), owner[at].tolist(), a[at].tolist(), b[at].tolist()):
        pages = tuple(row_pages[x:y])
        out[q] = (names[o], pages, "exact page", ((names[o], pages[0], pages[-1]),) if pages else ())
    for k in np.flatnonzero(counts > 1).tolist():
        lo, hi = int(bounds[k]), int(bounds[k + 1])
        occ = [(names[o], tuple(row_pages[x:y])) for o, x, y in
               zip(owner[lo:hi].tolist(), a[lo:hi].tolist(), b[lo:hi].tolist())]
        doc_set = {d for d, _ in occ}
        one_doc = next(iter(doc_set)) if len(doc_set) == 1 else None
        pages = tuple(sorted({x for _, pp in occ for x in pp})) if one_doc is not None else ()
        cand = tuple((d, pp[0], pp[-1]) for d, pp in occ if pp)
        out[int(long_enough[k])] = (one_doc, pages, "several candidates", cand)
    return out


def _by_overlap(index: PageIndex, texts, want_docs, n: int, ids) -> dict:
    s = max(1, n // 3)
    m = n - s + 1
    table, table_pos, table_row = _global_table(index, m)
    concat = Concat(texts)
    pos = concat.starts(m, step=s)
    owner = np.searchsorted(concat.offsets, pos, side="right") - 1
    total = np.bincount(owner, minlength=len(texts))
    h = concat.hashes(pos, m)
    left, right = _lookup(table, 0, h)
    hit = np.flatnonzero(right > left)
    out: dict = {}
    if not hit.shape[0]:
        return out
    counts = (right - left)[hit]
    slots = concat_ranges(left[hit], right[hit])
    gram = np.repeat(hit, counts)
    frame = pd.DataFrame({"text": owner[gram], "gram": gram, "row": table_row[slots]}).drop_duplicates(["gram", "row"])
    per_page = frame.groupby(["text", "row"]).size().rename("grams").reset_index()
    per_page["doc"] = index.doc_of_row[per_page["row"].to_numpy()]
    frame["doc"] = index.doc_of_row[frame["row"].to_numpy()]
    per_doc = frame.drop_duplicates(["gram", "doc"]).groupby(["text", "doc"]).size()
    for t, group in per_page.groupby("text"):
        want = want_docs[t]
        if want is not None:
            group = group[group["doc"] == want]
        if group.empty:
            continue
        by_doc = per_doc.loc[t].reindex(group["doc"].unique())
        doc = by_doc.idxmax()
        if by_doc[doc] * 2 < total[t]:
            continue
        mine = group[group["doc"] == doc]
        top = mine["grams"].max()
        rows = mine.loc[mine["grams"] * 2 >= top, "row"].to_numpy()
        # a real shared fragment of n characters that is not boilerplate, on one of those pages
        ok = index.shares(texts, np.full(rows.shape[0], t), rows, n)
        if not ok.any():
            continue
        pages = tuple(sorted(index.keys[r][1] for r in rows))
        out[ids[t]] = (doc, pages, "overlap", ((doc, pages[0], pages[-1]),))
    return out


def place_text_only(run: pd.DataFrame, index, *, min_chars: int = 24, gold: dict | None = None) -> pd.DataFrame:
    """Give items that have text but no document their document and pages from where the text lies.

    ``run``: the run table (question_id, doc_id, pages, text, ...). Rows with a ``doc_id`` are left as they are.
    Returns the run with ``doc_id`` and ``pages`` filled for the others and a ``placed_by`` column (``"logged"``
    for rows that had a document; else one of :data:`PLACED_BY`). A text found in several documents is given the
    one among them that is a gold document of its question when ``gold`` (question -> [(doc, page)]) names one,
    else the first in document order; rows not found keep ``doc_id`` None (no judge credits them).
    """
    run = run.copy()
    placed_by = pd.Series("logged", index=run.index, dtype=object)
    todo = run["doc_id"].isna() & run["text"].map(lambda t: isinstance(t, str))
    if todo.any():
        where = locate_items(run.loc[todo, "text"].tolist(), index, min_chars=min_chars)
        where.index = run.index[todo]
        docs, pages = [], []
        for rid, row in where.iterrows():
            doc, pp = row["doc_id"], row["pages"]
            if doc is None and row["candidates"]:
                gold_docs = {d for d, _ in (gold or {}).get(run.at[rid, "question_id"], ())}
                chosen = next((c for c in row["candidates"] if c[0] in gold_docs), row["candidates"][0])
                doc = chosen[0]
                pp = tuple(sorted({q for d, a, b in row["candidates"] if d == doc for q in range(a, b + 1)}))
            docs.append(doc)
            pages.append(pp)
        run.loc[todo, "doc_id"] = pd.Series(docs, index=where.index, dtype=object)
        run.loc[todo, "pages"] = pd.Series(pages, index=where.index, dtype=object)
        placed_by[todo] = where["placed_by"]
    run["placed_by"] = placed_by
    return run


def pages_sharing_most(text: str, doc, index: PageIndex, n_pages: dict, n: int) -> list[int]:
    """The page(s) of ``doc`` (pages 1..``n_pages[doc]``) sharing the most distinct ``n``-character fragments of the
    normalized ``text``, every page tied for the most, in page order; [] when no page shares one (or ``text`` is
    shorter than ``n`` after normalization, or ``doc`` is not in ``n_pages``). Boilerplate is not left out."""
    grams = np.unique(gram_hashes(normalize(text), n))
    if not grams.shape[0]:
        return []
    counts = {p: int(np.isin(index.grams((doc, p), n), grams, assume_unique=True).sum())
              for p in range(1, n_pages.get(doc, 0) + 1)}
    best = max(counts.values(), default=0)
    return [p for p, c in counts.items() if c == best] if best > 0 else []


def item_pages(doc, pages, text, index: PageIndex, n_pages: dict, n: int) -> tuple[list[int], str]:
    """``(pages, how)``: where a retrieved item of the known document ``doc`` (a key of ``n_pages``) lies (module
    docstring: how this rule differs from :func:`locate_items`). Its logged ``pages`` (None: none) that lie in
    1..``n_pages[doc]``, ``how = "metadata"``; when none does and ``text`` is a string, :func:`pages_sharing_most`
    with ``how = "text"``; else ``([], "metadata")``. An empty list means the item could not be placed."""
    kept = [p for p in (pages or ()) if 1 <= p <= n_pages[doc]]
    if not kept and isinstance(text, str):
        return pages_sharing_most(text, doc, index, n_pages, n), "text"
    return kept, "metadata"
