"""Judges: does a retrieved item satisfy a golden (document, page) label?

An item is one retrieved chunk: its document, and -- when known -- its text and the pages it
spans. Items come from the built-in retrievers (text looked up in the chunk table) or from a
system's logs (text and page metadata as logged). Four judges:

* :class:`DocumentJudge` -- the item's document is a gold document (pages ignored).
* :class:`PageJudge(window=1)` -- the document matches and one of the item's pages (its page
  metadata) is a gold page ``p`` with ``|N - p| <= window``. Needs page metadata.
* :class:`MarkerJudge(window=1)` -- the document matches and the item's text contains the
  OCR marker ``[p.N]`` of a gold page within the window. A chunk that starts mid-page carries
  that page's text but not its marker: this judge under-counts. Needs text with markers.
* :class:`OverlapJudge(min_chars=24, window=1, boilerplate=Boilerplate(0.5, 3))` -- the document
  matches and some fragment of at least ``min_chars`` (F) characters of the item's text occurs in
  the text of a gold page ``p +- window``, both sides normalized alike (NFKC, page markers removed,
  whitespace collapsed), **and is not boilerplate of the document**: running headers and footers,
  page numbers and repeated titles (a fragment found, digits aside, on more than half of the
  document's pages and on at least 3; :mod:`rag_metrics.judging.boilerplate` gives the rule, its
  parameters and what it cannot catch; ``boilerplate=None`` turns it off). Characters, not words,
  so it works for Japanese. A fragment of >= F characters is shared exactly when an F-character
  substring is, so pages and items are compared through hashes of their substrings, only at
  their *minimizers* (:meth:`PageIndex.shares`: every item at once, one sorted lookup), and every
  match is verified on the code points: no scan per item-page pair, no false match. An item shorter than
  F (after normalization) never satisfies this judge. Needs text and the corpus's pages.

Each judge has ``params()``, ``index(corpus)`` (what it precomputes from the pages: nothing, or
the pages' texts whose hashes are computed on first use), ``satisfied(item, gold, index)`` for one
item and ``satisfy(items, gold, index)`` for a whole run. :func:`judge_run` adds to every result
row the set of gold pages it satisfies; :func:`rag_metrics.measures.page_level.evaluate_pages` turns
that into page-level measures, and :func:`rag_metrics.experiment.failures.failure_breakdown` sorts
the misses.

No judge is stronger than another by law, except that the document judge counts everything the
others count (they all need the document to match). The page, marker and overlap judges look at
different evidence (page metadata, a marker the chunk may have lost, shared text), so each can
count an item the others do not, and the overlap judge gets stricter as F grows.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from rag_metrics.core.errors import InputError, check_choice, check_int, wrong_type
from rag_metrics.core.text import PAGE_MARKER, gram_hashes, normalize_codes
from rag_metrics.judging.boilerplate import DEFAULT_BOILERPLATE, Boilerplate
from rag_metrics.judging.page_index import PageIndex
from rag_metrics.judging.minimizers import concat_ranges

BATCH = 1 << 23
"""Characters of logged text the overlap judge takes at once (its arrays hold a few bytes per character; 8M was as
fast as any larger run on benchmarks/judging_vs_ragas.py, and 4M 6% slower)."""
PREFIX = 2
"""The overlap judge first tries the first ``PREFIX * min_chars`` characters of each text (a shortcut: the result
is the same)."""

__all__ = ["DocumentJudge", "PageJudge", "MarkerJudge", "OverlapJudge", "judge_run", "make_judge", "as_judge",
           "describe_judge",
           "JUDGES", "PRIMARY_ORDER", "JUDGED", "judged_frame", "shared_spans"]


class _Judge:
    """Shared behaviour: a batch of items is judged one by one unless a judge does better."""

    name = "judge"
    needs: str | None = None  # "text", "pages" or None

    def params(self) -> dict:
        return {"judge": self.name}

    def index(self, corpus):
        return None

    def satisfied(self, item: dict, gold: list[tuple[str, int]], index=None) -> set:  # pragma: no cover
        raise NotImplementedError

    same_document = False
    """True when the judge credits only gold pages of the item's own document: an item whose document holds no gold
    page of its question is then passed over without being looked at."""

    def satisfy(self, items: pd.DataFrame, gold: dict, index=None) -> list[frozenset]:
        """For each row of ``items`` (question_id, doc_id[, text, pages]), the gold pages it satisfies."""
        columns = [c for c in ("question_id", "doc_id", "text", "pages") if c in items.columns]
        rows = items[columns].itertuples(index=False, name=None)
        if not self.same_document:
            return [frozenset(self.satisfied(dict(zip(columns, row)), gold.get(row[0], []), index)) for row in rows]
        in_doc = _gold_in_doc(gold)
        none = frozenset()
        return [frozenset(self.satisfied(dict(zip(columns, row)), mine, index))
                if (mine := in_doc.get((row[0], row[1]))) else none for row in rows]


def _gold_in_doc(gold: dict) -> dict:
    """``{(question, document): [(document, page), ...]}``: each question's gold pages by document."""
    in_doc: dict = {}
    for q, pages in gold.items():
        for d, p in pages:
            in_doc.setdefault((q, d), []).append((d, p))
    return in_doc


@dataclass(frozen=True)
class DocumentJudge(_Judge):
    """The item's document is a gold document."""

    name: str = "document"
    same_document = True

    def satisfied(self, item: dict, gold: list[tuple[str, int]], index=None) -> set:
        return {(d, p) for d, p in gold if d == item["doc_id"]}

    def satisfy(self, items: pd.DataFrame, gold: dict, index=None) -> list[frozenset]:
        """Every item of one (question, document) satisfies the same gold pages: one set per pair, looked up."""
        sets = {key: frozenset(pages) for key, pages in _gold_in_doc(gold).items()}
        none = frozenset()
        return [sets.get(key, none) for key in zip(items["question_id"].tolist(), items["doc_id"].tolist())]


@dataclass(frozen=True)
class _WindowJudge(_Judge):
    """A judge of the item's own document that credits gold pages within ``window`` pages of what the item shows."""

    window: int = 1
    same_document = True

    def __post_init__(self):
        check_int(self.window, "window", low=0)

    def params(self) -> dict:
        return {"judge": self.name, "window": self.window}


@dataclass(frozen=True)
class PageJudge(_WindowJudge):
    """The document matches and the item's page metadata lies within ``window`` of a gold page."""

    name: str = "page"
    needs = "pages"

    def satisfied(self, item, gold, index=None) -> set:
        pages = item.get("pages") or ()
        return {(d, p) for d, p in gold if d == item["doc_id"] and any(abs(n - p) <= self.window for n in pages)}

    def satisfy(self, items: pd.DataFrame, gold: dict, index=None) -> list[frozenset]:
        """:meth:`satisfied` row by row, with the gold pages of each (question, document) found once."""
        in_doc, w, none = _gold_in_doc(gold), self.window, frozenset()
        if "pages" not in items.columns:
            return [none] * len(items)
        out = []
        for q, d, pages in zip(items["question_id"].tolist(), items["doc_id"].tolist(), items["pages"].tolist()):
            mine = in_doc.get((q, d))
            out.append(frozenset(g for g in mine if any(abs(n - g[1]) <= w for n in pages)) if mine and pages
                       else none)
        return out


@dataclass(frozen=True)
class MarkerJudge(_WindowJudge):
    """The document matches and the item's text contains ``[p.N]`` for a gold page within ``window``."""

    name: str = "marker"
    needs = "text"

    def satisfied(self, item, gold, index=None) -> set:
        text = item.get("text")
        if not isinstance(text, str):
            return set()
        markers = {int(n) for n in PAGE_MARKER.findall(text)}
        return {(d, p) for d, p in gold if d == item["doc_id"] and any(abs(m - p) <= self.window for m in markers)}


@dataclass(frozen=True)
class OverlapJudge(_Judge):
    """The document matches and an F-character fragment of the item occurs on a gold page +- window."""

    min_chars: int = 24
    window: int = 1
    boilerplate: Boilerplate | None = DEFAULT_BOILERPLATE
    name: str = "overlap"
    needs = "text"

    def __post_init__(self):
        check_int(self.min_chars, "min_chars")
        check_int(self.window, "window", low=0)
        if self.boilerplate is not None and not isinstance(self.boilerplate, Boilerplate):
            raise InputError(f"boilerplate {self.boilerplate!r}: expected a Boilerplate rule or None.",
                             field="boilerplate")

    def params(self) -> dict:
        rule = self.boilerplate.params() if self.boilerplate is not None else {"boilerplate_share": None}
        return {"judge": self.name, "min_chars": self.min_chars, "window": self.window, **rule}

    def index(self, corpus) -> PageIndex:
        return corpus if isinstance(corpus, PageIndex) else PageIndex(corpus)

    def satisfied(self, item, gold, index) -> set:
        items = pd.DataFrame({"question_id": ["q"], "doc_id": [item["doc_id"]], "text": [item.get("text")]})
        return set(self.satisfy(items, {"q": gold}, index)[0])

    def satisfy(self, items, gold, index=None, *, kept: bool = False):
        """All items at once: one :meth:`PageIndex.shares` call over every distinct (text, page within the window of
        a gold page of the item's document) pair; texts normalized together (:func:`rag_metrics.core.text.normalize_codes`).
        Items are taken in runs of about :data:`BATCH` characters of text (an item's result depends on its own text
        and gold only), so memory stays bounded however long the log. Each text's opening characters are looked at
        first; a pair they do not settle is judged on the whole text -- through the few minimizers its source page
        shares with other pages when the text is an excerpt of one page (:meth:`PageIndex.excerpts`), else through
        all of the text's own. ``kept=True`` returns two lists: the gold pages
        each item satisfies, and those it satisfies with boilerplate kept (this judge with ``boilerplate=None``),
        from the same pass."""
        index = self.index(index)
        if not len(items):
            return ([], []) if kept else []
        lengths = np.fromiter((len(t) if isinstance(t, str) else 0 for t in items["text"]), dtype=np.int64,
                              count=len(items))
        ends = np.cumsum(lengths)
        if ends[-1] <= BATCH:
            out = self._satisfy(items, gold, index, kept)
            return out if kept else out[0]
        out, out_kept = [], []
        lo = 0
        while lo < len(items):
            hi = max(int(np.searchsorted(ends, (ends[lo - 1] if lo else 0) + BATCH, side="right")), lo + 1)
            part, part_kept = self._satisfy(items.iloc[lo:hi], gold, index, kept)
            out += part
            out_kept += part_kept
            lo = hi
        return (out, out_kept) if kept else out

    def _satisfy(self, items, gold, index, kept=False) -> tuple[list, list]:
        """Per item, the gold pages it satisfies -- with boilerplate left out, and (``kept``) with it kept: the
        (item, gold page +- window) links (:func:`_window_links`), judged together (:func:`_shared_links`)."""
        out = [frozenset()] * len(items)
        out_kept = [frozenset()] * len(items) if kept else []
        links = _window_links(items, gold, index, self.window)
        if links is None:
            return out, out_kept
        pairs, gold_page, item, link, row = links
        texts = items["text"].to_numpy(dtype=object)
        involved = np.unique(item)
        code_of_item = np.full(len(items), -1, dtype=np.int64)
        code_of_item[involved], distinct = pd.factorize(texts[involved])
        shared, shared_kept = _shared_links(index, normalize_codes(list(distinct)), code_of_item[item], row, link,
                                            len(pairs), self.min_chars, self.boilerplate, kept)
        items_of_link, docs_of_link = pairs["item"].to_numpy(), pairs["doc_id"].to_numpy()
        for hits, into in ((shared, out), (shared_kept, out_kept)) if kept else ((shared, out),):
            hit_links = np.unique(link[hits])
            if not hit_links.shape[0]:
                continue
            hit_links = hit_links[np.argsort(items_of_link[hit_links], kind="stable")]  # grouped by item
            owners = items_of_link[hit_links]
            found = list(zip(docs_of_link[hit_links].tolist(), gold_page[hit_links].tolist()))
            bounds = np.flatnonzero(np.r_[True, owners[1:] != owners[:-1], True]).tolist()
            for a, b in zip(bounds[:-1], bounds[1:]):
                into[int(owners[a])] = frozenset(found[a:b])
        return out, out_kept


def _window_links(items, gold, index, w: int):
    """Each item with text paired with each gold page of its question in its document (``pairs``: item, doc_id,
    gold), and every page within ``w`` of that gold page that the index holds: ``(pairs, gold_page, item, link,
    row)`` with one entry per (link, page row) -- ``link`` the pair it serves --, or None when there is none."""
    golds = [(q, d, int(p)) for q, pages in gold.items() for d, p in pages]
    if not len(items) or not golds:
        return None
    texts = items["text"].to_numpy(dtype=object)
    has_text = np.fromiter((isinstance(t, str) for t in texts), dtype=bool, count=len(texts))
    frame = pd.DataFrame({"question_id": items["question_id"].to_numpy(dtype=object),
                          "doc_id": items["doc_id"].to_numpy(dtype=object), "item": np.arange(len(items))})[has_text]
    gold_frame = pd.DataFrame(golds, columns=["question_id", "doc_id", "gold"])
    pairs = frame.merge(gold_frame, on=["question_id", "doc_id"])  # (item, gold page of its document)
    if not len(pairs):
        return None
    # every page within the window of each gold page, as a page row of the index (-1: no such page)
    doc_code = index.doc_code
    code = np.fromiter((doc_code.get(d, -1) for d in pairs["doc_id"].tolist()), dtype=np.int64, count=len(pairs))
    gold_page = pairs["gold"].to_numpy(dtype=np.int64)
    span = 2 * w + 1
    page = np.repeat(gold_page, span) + np.tile(np.arange(-w, w + 1), len(pairs))
    row = index.rows_of(np.repeat(code, span), page)
    found = row >= 0
    item = np.repeat(pairs["item"].to_numpy(), span)[found]
    link = np.repeat(np.arange(len(pairs)), span)[found]  # which (item, gold page) the row serves
    if not found.any():
        return None
    return pairs, gold_page, item, link, row[found]


def _shared_links(index, texts, text_id, row, link, n_links: int, n: int, rule, kept: bool):
    """``(shared, shared_kept)`` per (text ``text_id``, page ``row``) entry of the links: do they share an
    ``n``-fragment, boilerplate left out by ``rule`` -- and kept, when ``kept`` (else None). ``texts``: the distinct
    texts as ``(codes, offsets)``. First the opening characters of each text: an item cut from a gold page (±
    window) usually shares them, and a link (item, gold page) found there needs nothing more; then whole texts for the
    links still open (with boilerplate kept too: a link it finds in the opening is found in the whole text)."""
    codes, offsets = texts
    both = kept and rule is not None
    head = PREFIX * n
    if int(np.diff(offsets).max(initial=0)) > head:
        ends = np.minimum(offsets[1:], offsets[:-1] + head)
        short = np.zeros_like(offsets)
        np.cumsum(ends - offsets[:-1], out=short[1:])
        heads = (codes[concat_ranges(offsets[:-1], ends)], short)
        first, first_kept = index.shares(heads, text_id, row, n, rule, kept=True) if both else \
            (index.shares(heads, text_id, row, n, rule), None)
        open_link = np.ones(n_links, dtype=bool)
        open_link[link[first]] = False
        rest = np.flatnonzero(open_link[link])
        # a text that is an excerpt of a page X is judged against the other pages through X's minimizers that
        # another page shares (PageIndex.excerpts); the rest through all their own minimizers
        source, given = index.excerpts(texts, text_id[rest], row[rest], n)
        other = (source >= 0) & (source != row[rest])
        shared = first.copy()
        shared_kept = first_kept.copy() if both else None
        for part, minimizers in ((rest[~other], None), (rest[other], given)):
            if both:
                shared[part], again_kept = index.shares(texts, text_id[part], row[part], n, rule, kept=True,
                                                        given=minimizers)
                shared_kept[part] |= again_kept
            else:
                shared[part] = index.shares(texts, text_id[part], row[part], n, rule, given=minimizers)
    elif both:
        shared, shared_kept = index.shares(texts, text_id, row, n, rule, kept=True)
    else:
        shared, shared_kept = index.shares(texts, text_id, row, n, rule), None
    return shared, (shared if kept and not both else shared_kept)

JUDGES = {"document": DocumentJudge, "page": PageJudge, "marker": MarkerJudge, "overlap": OverlapJudge}
PRIMARY_ORDER = ("overlap", "page", "marker", "document")
"""The ruler a headline is taken from when none is named: the first of these that applies to every log."""


def make_judge(name: str, **params):
    """A judge by name (``document``, ``page``, ``marker``, ``overlap``) with its parameters."""
    check_choice(name, JUDGES, "judge", what="unknown", field="judge")
    if name == "document":
        params = {}
    elif name != "overlap":
        params = {k: v for k, v in params.items() if k == "window"}
    return JUDGES[name](**params)


def as_judge(judge, *, func: str = "", **params):
    """The judge a function was given: a judge object as it is, or a name (``"overlap"``, ``"page"``,
    ``"marker"``, ``"document"``) made with ``params`` (:func:`make_judge`: each judge takes the ones it has --
    ``min_chars`` the overlap judge alone, ``window`` all but the document judge). A misspelled name is an
    :class:`~rag_metrics.InputError` naming the judges and the closest one; anything else an ``InputTypeError``."""
    if isinstance(judge, _Judge):
        return judge
    if isinstance(judge, str):
        check_choice(judge, JUDGES, "judge", func=func)
        return make_judge(judge, **params)
    raise wrong_type(judge, "judge", f"a judge name ({', '.join(map(repr, JUDGES))}) or a judge object such as "
                     "OverlapJudge(min_chars=24)", func=func)


def describe_judge(judge) -> str:
    """``name (param=value, ...)``: a judge as reports name it (its settings but the name; a setting that is None
    reads ``off``: a page shows no Python ``None``)."""
    params = {k: v for k, v in judge.params().items() if k != "judge"}
    shown = ", ".join(f"{k}={'off' if v is None else v}" for k, v in params.items())
    return judge.name + (f" ({shown})" if params else "")


def judge_run(run: pd.DataFrame, chunks: pd.DataFrame | None, gold_pages: pd.DataFrame, judge, corpus, *,
              kept: bool = False) -> pd.DataFrame:
    """Add to each result row the set of gold pages it satisfies (``satisfies``) and ``hit`` (non-empty).

    The row's text is its ``text`` column when the run has one (a logged run), else the chunk's text
    looked up by ``chunk_id`` in ``chunks``. ``kept=True`` with an overlap judge that leaves boilerplate out adds
    ``satisfies_kept``: the gold pages each row satisfies with boilerplate kept, from the same pass
    (:meth:`OverlapJudge.satisfy`).
    """
    items = run
    if "text" not in run.columns:
        if chunks is None:
            raise InputError("judge_run: the run has no text column; pass the chunk table to look texts up.")
        text = chunks.set_index("chunk_id")["text"]
        missing = sorted(set(run["chunk_id"]) - set(text.index))
        if missing:
            raise InputError(f"judge_run: chunk {missing[0]!r} of the run is not in the chunk table.")
        items = run.assign(text=run["chunk_id"].map(text))
    gold: dict = {}
    for q, d, p in zip(gold_pages["question_id"].tolist(), gold_pages["doc_id"].tolist(), gold_pages["page"].tolist()):
        gold.setdefault(q, []).append((d, p))
    index = judge.index(corpus) if corpus is not None else None
    both = kept and isinstance(judge, OverlapJudge) and judge.boilerplate is not None
    satisfies, satisfies_kept = judge.satisfy(items, gold, index, kept=True) if both else \
        (judge.satisfy(items, gold, index), None)
    out = judged_frame(run)
    out["satisfies"] = satisfies
    out["hit"] = [bool(s) for s in satisfies]
    if both:
        out["satisfies_kept"] = satisfies_kept
    return out


JUDGED = ("satisfies", "hit", "satisfies_kept")
"""The columns :func:`judge_run` adds."""


def judged_frame(run: pd.DataFrame) -> pd.DataFrame:
    """A new frame holding ``run``'s rows and columns, ready for the judged columns: its columns are ``run``'s own
    arrays (a judged copy of a 1M-row log would otherwise copy every column), so new columns go to it alone and
    none of ``run``'s is ever written (earlier judged columns are left out: they are set anew)."""
    old = [c for c in JUDGED if c in run.columns]
    return run.drop(columns=old) if old else run.copy(deep=False)


def shared_spans(text: str, pages: list[str], min_chars: int) -> list[tuple[int, int]]:
    """Spans of ``text`` covered by ``min_chars``-character fragments that occur in one of ``pages``.

    For showing what a judge saw: both sides as given (normalize them first to match the overlap
    judge). Adjacent or overlapping fragments merge into one span.
    """
    grams = gram_hashes(text, min_chars)
    if not grams.shape[0] or not pages:
        return []
    page_hashes = np.unique(np.concatenate([gram_hashes(p, min_chars) for p in pages]))
    candidates = np.flatnonzero(np.isin(grams, page_hashes))
    spans: list[list[int]] = []
    for pos in candidates:
        if not any(text[pos: pos + min_chars] in p for p in pages):
            continue  # a hash collision
        if spans and pos <= spans[-1][1]:
            spans[-1][1] = max(spans[-1][1], pos + min_chars)
        else:
            spans.append([int(pos), int(pos) + min_chars])
    return [(a, b) for a, b in spans]
