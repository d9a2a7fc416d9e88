"""The page-metadata audit: does each logged page number point at the page its text is on?

A log whose items carry both text and a page number can check itself: :func:`audit_pages` locates every item's
text on its document's pages (:func:`rag_metrics.judging.locate.locate_items`) and sorts the items by how the
logged page relates to the located one:

* ``equal`` -- the logged page is a page the text lies on;
* ``+1`` -- the logged page is one **more** than a located page (a 1-based page read as 0-based);
* ``-1`` -- one **less** (a 0-based page read as 1-based);
* ``elsewhere`` -- any other page;
* ``not located`` -- the text was not found on its document (not counted in the shares).

When one offset holds for at least ``offset_share`` (default 0.5) of the located items and for more of them than
``equal``, :attr:`PageAudit.warning` says so and names the fix (``--page-base``). A page judge's ±1 window hides
such an offset in hit@k; the audit does not.

:func:`check_pages_in_documents` refuses a log whose page lies beyond the last page of its document (an error
naming the item: a page base or page field mistake, or documents that are not the ones retrieved from).

Printed labels (LlamaIndex's ``page_label``: ``i``, ``ii``, ``1``...) are never audited as pages: the audit
reports how often a numeric label equals the located page, for information (:attr:`PageAudit.labels`).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from rag_metrics.core.errors import InputError
from rag_metrics.judging.page_index import PageIndex
from rag_metrics.judging.locate import locate_items

__all__ = ["audit_pages", "PageAudit", "check_pages_in_documents", "check_log_pages", "PAGE_VERDICTS", "OFFSET_SHARE"]

PAGE_VERDICTS = ("equal", "+1", "-1", "elsewhere", "not located")
OFFSET_SHARE = 0.5
"""Share of located items from which one page offset is called constant (and warned about)."""
CHUNK = 1 << 16
"""Items located at once (each item's result depends on its own text and document only)."""


@dataclass
class PageAudit:
    """What :func:`audit_pages` found for one log (module docstring)."""

    name: str
    items: pd.DataFrame
    page_base: int | None = None
    labels: dict = field(default_factory=dict)
    offset_share: float = OFFSET_SHARE

    @property
    def counts(self) -> pd.Series:
        return self.items["verdict"].value_counts().reindex(list(PAGE_VERDICTS), fill_value=0).astype(int)

    @property
    def located(self) -> int:
        return int(self.counts.drop("not located").sum())

    @property
    def shares(self) -> pd.Series:
        """Share of the located items per verdict (``not located`` left out); NaN when none was located."""
        c = self.counts.drop("not located")
        return c / c.sum() if c.sum() else c.astype(float) * np.nan

    @property
    def offset(self) -> int | None:
        """+1 or -1 when that offset is constant (see the module docstring), else None (0 when pages agree)."""
        if not self.located:
            return None
        sh = self.shares
        for verdict, value in (("+1", 1), ("-1", -1)):
            if sh[verdict] >= self.offset_share and sh[verdict] > sh["equal"]:
                return value
        return 0 if sh["equal"] >= self.offset_share else None

    @property
    def warning(self) -> str | None:
        """A sentence naming the offset and the fix, or None when the logged pages agree with the text."""
        off = self.offset
        if off not in (1, -1):
            return None
        verdict = "+1" if off == 1 else "-1"
        share = self.shares[verdict]
        what = "one more" if off == 1 else "one less"
        head = (f"{self.name}: the logged page is {what} than the page its text is on for {share:.0%} of "
                f"{self.located} located items")
        right = None if self.page_base is None else self.page_base + off
        if right in (0, 1):
            return (f"{head}: the log counts pages from {right}, not from {self.page_base}. Read it with "
                    f"--page-base {right} (or --field page@{right}=PATH); every page-judged figure is shifted until "
                    "then (the ±1 window of the page judge hides it).")
        return (f"{head}: check the page field and its base (--page-base); the documents may lack a page the "
                "system had (a cover), or number them differently.")

    def table(self) -> pd.DataFrame:
        """One row: the counts, the shares of located items and the warning."""
        c, sh = self.counts, self.shares
        row = {"log": self.name, "audited": int(c.sum()), **{v: int(c[v]) for v in PAGE_VERDICTS},
               **{f"{v} share": float(sh[v]) for v in PAGE_VERDICTS[:-1]}, "page_base": self.page_base,
               "warning": self.warning or ""}
        return pd.DataFrame([row]).set_index("log")

    def _repr_html_(self) -> str:  # pragma: no cover - notebooks
        from rag_metrics.core.html import summary

        return summary(self.warning or f"{self.name}: logged pages agree with the text "
                       f"({self.counts['equal']} of {self.located} located items).", (None, self.table()))


def _verdict(logged, located) -> str:
    logged, located = set(logged), set(located)
    if logged & located:
        return "equal"
    if {p - 1 for p in logged} & located:
        return "+1"
    if {p + 1 for p in logged} & located:
        return "-1"
    return "elsewhere"


def audit_pages(run: pd.DataFrame, index, *, min_chars: int = 24, page_base: int | None = None, name: str = "log",
                offset_share: float = OFFSET_SHARE) -> PageAudit:
    """Audit the logged pages of ``run`` (question_id, rank, doc_id, pages, text[, page_label]) against the pages
    their text is on (module docstring). ``page_base`` is the base the log was read with (for the fix named)."""
    if not isinstance(index, PageIndex):
        index = PageIndex(index)
    docs = index.docs  # the three tests on the columns as lists: no Python call per cell through pandas
    has = np.fromiter((len(p) > 0 and isinstance(t, str) and d in docs for p, t, d in
                       zip(run["pages"].tolist(), run["text"].tolist(), run["doc_id"].tolist())), bool, len(run))
    items = run.loc[has, ["question_id", "rank", "doc_id", "pages", "text"]].reset_index(drop=True)
    texts, docs, logged = items["text"].tolist(), items["doc_id"].tolist(), items["pages"].tolist()
    located, placed_by, verdicts = [], [], []
    for lo in range(0, len(items), CHUNK):  # a run of items at a time: the search's own objects stay few
        where = locate_items(texts[lo:lo + CHUNK], index, min_chars=min_chars, docs=docs[lo:lo + CHUNK])
        found, how = where["pages"].tolist(), where["placed_by"].tolist()
        located += found
        placed_by += how
        verdicts += ["not located" if h == "not found" else _verdict(p, loc)
                     for p, loc, h in zip(logged[lo:lo + CHUNK], found, how)]
        del where
    items["located"] = pd.Series(located, index=items.index, dtype=object)
    items["placed_by"] = pd.Series(placed_by, index=items.index, dtype=object)
    items["verdict"] = pd.Series(verdicts, index=items.index, dtype=object)
    labels = {}
    if "page_label" in run.columns and run["page_label"].notna().any():
        lab = run[run["page_label"].notna() & run["text"].map(lambda t: isinstance(t, str))
                  & run["doc_id"].map(lambda d: d in index.docs)]
        loc = locate_items(lab["text"].tolist(), index, min_chars=min_chars, docs=lab["doc_id"].tolist())
        numeric = [str(x).strip().isdigit() for x in lab["page_label"]]
        same = [n and int(str(x)) in set(p) for n, x, p in zip(numeric, lab["page_label"], loc["pages"])]
        labels = {"items": int(len(lab)), "numeric": int(sum(numeric)), "equal_to_located": int(sum(same)),
                  "located": int((loc["placed_by"] != "not found").sum())}
    return PageAudit(name, items.drop(columns=["text"]), page_base, labels, offset_share)


def check_pages_in_documents(run: pd.DataFrame, n_pages: dict, *, source=None) -> None:
    """Raise :class:`~rag_metrics.InputError` naming the first item whose page lies beyond its document's last
    page (``n_pages``: document -> number of pages). Items of documents not in ``n_pages`` are not checked."""
    if not len(run):
        return
    last = np.array([n_pages.get(d, np.inf) if d is not None else np.inf for d in run["doc_id"].tolist()], float)
    top = np.array([max(p) if len(p) else 0 for p in run["pages"].tolist()], float)
    bad = run[top > last]
    if len(bad):
        row = bad.iloc[0]
        line = row["line"] if "line" in bad.columns else None
        raise InputError(f"question {row['question_id']!r}, retrieved item {row['rank']}: page {max(row['pages'])} of "
                         f"{row['doc_id']!r} is beyond its last page ({n_pages[row['doc_id']]}); "
                         f"{len(bad)} item(s) like this. Check the page field and --page-base, and that the documents "
                         "are the ones the system retrieved from.", path=source,
                         line=None if line is None or line != line else int(line), field="page")


def check_log_pages(log, corpus=None) -> None:
    """What the experiment evaluation would refuse about a log's pages, checked before anything is written: a page
    beyond its document's last page (documents matched as the evaluation matches them), and text-only items
    without the documents to place them on."""
    from rag_metrics.io.log_matching import resolve_documents

    run = log.run
    text_only = run["doc_id"].isna() & run["text"].map(lambda t: isinstance(t, str))
    if corpus is None:
        if text_only.any():
            row = run[text_only].iloc[0]
            raise InputError(f"question {row['question_id']!r}, retrieved item {row['rank']}: text without a document; "
                             "text-only items are placed by finding their text on the pages: give the documents "
                             "(--pages).", path=log.source, line=int(row["line"]), field="doc_id")
        return
    mapping, _ = resolve_documents(run["doc_id"], corpus.documents.index)
    resolved = run.assign(doc_id=[mapping.get(d) if d is not None else None for d in run["doc_id"].tolist()])
    check_pages_in_documents(resolved, corpus.documents["n_pages"].to_dict(), source=log.source)
