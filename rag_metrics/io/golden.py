"""Golden sets: JSON lines or CSV, gold as documents, (document, page) pairs or chunk IDs.

A golden set may live anywhere (teams keep theirs out of the repository because it quotes
their documents): every function takes its path; ``sample=True`` reads the project's sample ``data/golden.jsonl``.

JSON lines, one question per line::

    {"question_id": "q001", "question": "...", "type": "fact",
     "gold_docs": ["expense_policy", "onboarding_ja"],
     "gold_pages": [["expense_policy", 3], ["onboarding_ja", 5]],
     "gold_chunks": ["expense_policy#c400o100#0007"],           (optional)
     "relevance": {"expense_policy": 2, "onboarding_ja": 1},     (optional; default 1 per gold doc)
     "answer": "30 days",                                        (expected short answer; null if none)
     "labelled": false}                                          (optional; default true)

Evidence that must come together (a multi-hop question) is written as groups::

    "gold_groups": [[["policy", 3], ["faq", 2]], [["travel", 8]]]

Every group is needed; any page of a group satisfies it (here: policy p.3 or faq p.2, and travel
p.8). ``gold_pages`` may then be left out (the pages of the groups); when both are given they hold
the same pages. A question without groups has one: all its gold pages, any of which satisfies it
(so ``sufficiency@k`` equals ``hit@k`` there). A page may belong to several groups; a group may
not be listed twice, nor a page twice in one group.

Any other field (``language``, ``product``, ``document``...) is kept as it is, one column of ``questions`` each: a
question attribute to slice results by (:meth:`ExperimentResult.by <rag_metrics.experiment.result.ExperimentResult.by>`).
A field whose name is close to a known one (``tpye``, ``answers``, ``relevence``) is kept too, with a warning naming
the field it resembles: the known field then has its default (``tpye`` leaves every question's ``type`` empty).

Only ``question_id`` and ``question`` are required. ``gold_docs`` may be left out when
``gold_pages`` is given (the pages' documents are the gold documents); pages are numbered from 1.
``type`` is free text (``definition``, ``fact``, ``procedure``...); ``no_answer`` marks a question
the documents do not answer: it has no gold and is evaluated apart. A question with
``"labelled": false`` has not been annotated yet: it is the annotation backlog, never evaluated.
A labelled question needs gold unless it is ``no_answer``.

CSV (UTF-8, header row), the same columns. Gold is given either long-form -- one row per gold
item with ``doc_id`` (and ``page``, ``relevance``) or ``chunk_id``, repeating ``question_id`` (the
other columns must then agree on every row of the question) -- or with ``gold_docs`` /
``gold_pages`` / ``gold_chunks`` / ``gold_groups`` cells holding the JSON lists above. In long form a
``group`` column (any label: ``1``, ``a``...) puts each gold page row in its group; a page in two
groups takes two rows; rows of one question have a group on every row or on none. The reference workflow's
sheet ``question_id,question,doc_id,page`` is a golden set as it stands.

Every error names the file, the line and the field: malformed JSON, a non-UTF-8 byte, a
missing or wrongly typed field, a page that is not an integer >= 1 (``true`` is not a page), a
relevance that is not a finite number, a gold item listed twice, a duplicate question ID,
and -- when a corpus is given -- a document it does not hold or a page out of range.
"""

from __future__ import annotations

import json
import math
import numbers
import warnings
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from rag_metrics.core.errors import InputError, close_matches
from rag_metrics.core.fingerprint import digest
from rag_metrics.io.csvfile import read_csv
from rag_metrics.io.jsonl import iter_jsonl

if TYPE_CHECKING:  # pragma: no cover
    import pandas as pd

    from rag_metrics.io.corpus import Corpus

__all__ = ["golden_csv_records", "GoldenSet", "load_golden", "golden_from_records"]


_LIST_FIELDS = ("gold_docs", "gold_pages", "gold_chunks")
FIELDS = ("question_id", "question", "type", "answer", "labelled", *_LIST_FIELDS, "gold_groups", "relevance")
"""The golden set's own fields; any other is kept as a question attribute."""
_CSV_GOLD = ("doc_id", "page", "chunk_id", "group")
"""The long-form CSV columns that give one gold item per row (not attributes)."""
_EXAMPLES = {"gold_docs": '["doc"]', "gold_pages": '[["doc", 3]]', "gold_chunks": '["doc#0001"]', "relevance": '{"doc": 2}',
             "gold_groups": '[[["doc", 3], ["faq", 2]], [["travel", 8]]]'}


@dataclass(frozen=True, repr=False)
class GoldenSet:
    """A validated golden set.

    ``questions``: question_id (index), question, type, answer, labelled, then one column per other field of the
    file (None where a question does not give it).
    ``gold``: long form for :func:`rag_metrics.evaluate` -- question_id, doc_id, relevance, type
    (a no_answer question has one row with doc_id None; unlabelled questions are absent).
    ``gold_pages``: question_id, doc_id, page. ``gold_chunks``: question_id, chunk_id.
    ``backlog``: IDs of questions whose gold is not annotated yet. ``source``: the file read.
    ``gold_groups``: question_id, group (1, 2, ... in file order), doc_id, page -- only the
    questions written with ``gold_groups``; the others have one group of all their gold pages.
    """

    questions: pd.DataFrame
    gold: pd.DataFrame
    gold_pages: pd.DataFrame
    backlog: tuple
    gold_chunks: pd.DataFrame | None = None
    source: str | None = None
    gold_groups: pd.DataFrame | None = None

    @property
    def has_groups(self) -> bool:
        """Whether any question is written with evidence groups."""
        return self.gold_groups is not None and len(self.gold_groups) > 0

    def pages_by_question(self) -> dict:
        """``{question_id: [(doc_id, page), ...]}``: each question's gold pages in the order of ``gold_pages``
        (questions without gold pages are absent)."""
        out: dict = {}
        gp = self.gold_pages  # columns as lists: iterating an Arrow-backed column costs a Python call per cell
        for q, d, p in zip(gp["question_id"].tolist(), gp["doc_id"].tolist(), gp["page"].tolist()):
            out.setdefault(q, []).append((d, int(p)))
        return out

    def groups(self) -> dict:
        """``{question_id: [frozenset of (doc_id, page), ...]}`` for every question with gold pages: its groups
        as written, or one group of all its gold pages."""
        out = {q: [frozenset(pages)] for q, pages in self.pages_by_question().items()}
        if self.has_groups:
            for q, g in self.gold_groups.groupby("question_id", sort=False):
                out[q] = [frozenset(zip(m["doc_id"], m["page"].astype(int))) for _, m in g.groupby("group", sort=True)]
        return out

    @property
    def labelled(self) -> pd.DataFrame:
        return self.questions[self.questions["labelled"]]

    @property
    def answerable(self) -> list:
        """Labelled questions with gold (not no_answer), in file order."""
        with_gold = set(self.gold.loc[self.gold["doc_id"].notna(), "question_id"])
        return [q for q in self.questions.index.tolist() if q in with_gold]

    def document_gold(self) -> pd.DataFrame:
        """:attr:`gold` with, when the set has evidence groups, a ``group`` column for document-level
        ``sufficiency@k``: the groups (numbers as strings) a gold document has a page in, None for the questions
        without groups (:func:`rag_metrics.evaluate` reads it)."""
        if not self.has_groups:
            return self.gold
        member = {}
        for q, g, d in zip(self.gold_groups["question_id"], self.gold_groups["group"], self.gold_groups["doc_id"]):
            member.setdefault((q, d), []).append(str(g))
        return self.gold.assign(group=[sorted(set(member[q, d])) if (q, d) in member else None
                                       for q, d in zip(self.gold["question_id"], self.gold["doc_id"])])

    def chunk_gold(self) -> pd.DataFrame:
        """:attr:`gold_chunks` with each question's ``type`` (from :attr:`gold`; a chunk of a question without a gold
        row is left out): the chunk-level gold :func:`rag_metrics.evaluate` reads (``level="chunk"``). Only for a
        set with ``gold_chunks`` (callers check first)."""
        types = self.gold[["question_id", "type"]].drop_duplicates("question_id")
        return self.gold_chunks.merge(types, on="question_id")

    def subset(self, questions) -> GoldenSet:
        """This set restricted to ``questions`` (IDs): every table and the backlog keep only their rows, in their
        order; the source is kept. What the part of a log split by question is evaluated against. An ID the set does
        not hold is an :class:`~rag_metrics.InputError` (an empty set would evaluate nothing without a word)."""
        from dataclasses import replace

        keep = set([questions] if isinstance(questions, str) else questions)
        unknown = sorted(keep - set(self.questions.index), key=str)
        if unknown:
            near = close_matches(unknown[0], self.questions.index)
            raise InputError(f"subset: question ID(s) {unknown[:5]} are not in the golden set ({len(self.questions)} "
                             f"questions, {self.questions.index[0]!r} to {self.questions.index[-1]!r})."
                             + (f" Did you mean {near[0]!r}?" if near else ""), path=self.source, field="question_id")

        def rows(table):
            return None if table is None else table[table["question_id"].isin(keep)]

        return replace(self, questions=self.questions[self.questions.index.isin(keep)], gold=rows(self.gold),
                       gold_pages=rows(self.gold_pages), gold_chunks=rows(self.gold_chunks),
                       gold_groups=rows(self.gold_groups), backlog=tuple(q for q in self.backlog if q in keep))

    def fingerprint(self) -> str:
        """Digest of the questions and their gold: two runs are comparable only on the same golden set.

        Computed once per set (reading a log, preparing it, evaluating and saving a run all ask for it): a set is
        frozen; a changed one is a new set (:func:`dataclasses.replace`), never its tables changed in place."""
        known = self.__dict__.get("_fingerprint")
        if known is not None:
            return known
        parts = {"questions": self.questions[["question", "type", "labelled"]],
                 "gold": self.gold[["question_id", "doc_id", "relevance"]],
                 "pages": self.gold_pages, "chunks": self.gold_chunks}
        if self.has_groups:  # only then: a set without groups keeps the fingerprint it always had
            parts["groups"] = self.gold_groups
        known = digest(parts)
        object.__setattr__(self, "_fingerprint", known)  # a cache, not a field: equality and replace ignore it
        return known

    def __repr__(self) -> str:
        extra = [c for c in self.questions.columns if c not in ("question", "type", "answer", "labelled")]
        return (f"<GoldenSet {self.source or ''}: {len(self.questions)} questions ({len(self.backlog)} unlabelled), "
                f"{len(self.gold_pages)} gold pages{', attributes ' + ', '.join(map(str, extra)) if extra else ''}>")[:480]

    def _repr_html_(self) -> str:
        from rag_metrics.core.html import summary

        counts = self.questions[self.questions["labelled"]]["type"].value_counts()
        return summary(f"Golden set: {len(self.questions)} questions ({len(self.backlog)} unlabelled), "
                       f"{len(self.gold_pages)} gold pages. Types: " + ", ".join(f"{t} {n}" for t, n in counts.items()),
                       (None, self.questions.head(10)))


def _error(path, line, qid, message, field=None):
    who = f"question {qid!r}: " if qid is not None else ""
    return InputError(who + message, path=path, line=line, question=qid, field=field)


def _id(value, path, line, qid, field) -> str:
    if isinstance(value, bool) or not isinstance(value, (str, int)) or (isinstance(value, str) and not value.strip()):
        raise _error(path, line, qid, f"{field} {value!r} is not an ID; expected a non-empty string.", field)
    return str(value)


def _page(value, path, line, qid, field="gold_pages") -> int:
    if isinstance(value, str) and value.strip().isascii() and value.strip().isdigit():
        value = int(value.strip())
    if isinstance(value, bool) or not isinstance(value, numbers.Integral) or value < 1:
        raise _error(path, line, qid, f"page {value!r} is not an integer >= 1 (pages are numbered from 1).", field)
    return int(value)


def _number(value, path, line, qid, field) -> float:
    given = value
    if isinstance(value, str):
        try:
            value = float(value) if value.strip() else None
        except ValueError:
            pass
    if isinstance(value, bool) or not isinstance(value, numbers.Real) or not math.isfinite(value):
        raise _error(path, line, qid, f"{field} {given!r} is not a finite number.", field)
    return float(value)


def _record(row: dict, path, line) -> dict:
    """One question's fields, validated and normalized."""
    if "question_id" not in row:
        raise _error(path, line, None, "missing field 'question_id'.", "question_id")
    qid = _id(row["question_id"], path, line, None, "question_id")
    question = row.get("question")
    if not isinstance(question, str) or not question.strip():
        raise _error(path, line, qid, f"field 'question' must be a non-empty string, got {question!r}.", "question")
    typ = row.get("type") or ""
    if not isinstance(typ, str):
        raise _error(path, line, qid, f"field 'type' must be a string, got {typ!r}.", "type")
    labelled = _labelled(row.get("labelled", True), path, line, qid)
    answer = row.get("answer")
    if answer is not None and not isinstance(answer, str):
        raise _error(path, line, qid, f"'answer' must be a string or null, got {answer!r}.", "answer")
    docs, pages, chunks, groups = _gold(row, path, line, qid)
    relevance = _relevance(row.get("relevance") or {}, docs, path, line, qid)
    has_gold = bool(docs or chunks)
    if (typ == "no_answer" or not labelled) and has_gold:
        what = "a no_answer question" if typ == "no_answer" else "an unlabelled question"
        raise _error(path, line, qid, f"{what} cannot have gold documents, pages or chunks.", "gold_docs")
    if labelled and typ != "no_answer" and not has_gold:
        raise _error(path, line, qid, "a labelled question needs gold (gold_docs, gold_pages or gold_chunks), or type "
                     "no_answer.", "gold_docs")
    return {"question_id": qid, "question": question, "type": typ, "answer": answer, "labelled": labelled,
            "docs": docs, "pages": pages, "chunks": chunks, "relevance": relevance, "groups": groups, "line": line,
            "fields": {k: v for k, v in row.items() if k not in FIELDS}}


def _labelled(labelled, path, line, qid) -> bool:
    """The ``labelled`` field: true or false (also as text, any case); missing or empty is true."""
    if labelled is None or labelled == "":
        labelled = True
    if isinstance(labelled, str) and labelled.strip().lower() in ("true", "false"):
        labelled = labelled.strip().lower() == "true"
    if not isinstance(labelled, bool):
        raise _error(path, line, qid, f"'labelled' must be true or false, got {labelled!r}.", "labelled")
    return labelled


def _gold(row: dict, path, line, qid) -> tuple[list, list, list, list]:
    """``(docs, pages, chunks, groups)`` of a question: its gold lists validated (IDs, pages, no entry twice), its
    evidence groups and gold pages holding the same pages, every gold page's document among the gold documents (the
    documents of the pages when none are given)."""
    lists = {}
    for field in _LIST_FIELDS:
        value = row.get(field)
        if value is None:
            value = []
        if not isinstance(value, list):
            raise _error(path, line, qid, f"field {field!r} must be a list, got {value!r}.", field)
        lists[field] = value
    docs = [_id(d, path, line, qid, "gold_docs") for d in lists["gold_docs"]]
    pages = []
    for item in lists["gold_pages"]:
        if not (isinstance(item, (list, tuple)) and len(item) == 2):
            raise _error(path, line, qid, f"gold page {item!r} must be [doc_id, page number].", "gold_pages")
        pages.append((_id(item[0], path, line, qid, "gold_pages"), _page(item[1], path, line, qid)))
    chunks = [_id(c, path, line, qid, "gold_chunks") for c in lists["gold_chunks"]]
    for field, items in (("gold_docs", docs), ("gold_pages", pages), ("gold_chunks", chunks)):
        dup = next((x for i, x in enumerate(items) if x in items[:i]), None)
        if dup is not None:
            raise _error(path, line, qid, f"{field} lists {list(dup) if isinstance(dup, tuple) else dup!r} twice.", field)
    groups = _groups(row.get("gold_groups"), path, line, qid)
    if groups:
        members = list(dict.fromkeys(m for g in groups for m in g))
        if not pages:
            pages = members
        elif set(pages) != set(members):
            extra = next((list(p) for p in pages if p not in members), None)
            missing = next((list(m) for m in members if m not in pages), None)
            what = (f"gold page {extra!r} is in no group" if extra is not None
                    else f"group page {missing!r} is not in gold_pages")
            raise _error(path, line, qid, f"{what}; gold_groups and gold_pages must hold the same pages (or leave "
                         "gold_pages out).", "gold_groups")
    if not docs and pages:
        docs = list(dict.fromkeys(d for d, _ in pages))
    for doc, page in pages:
        if doc not in docs:
            raise _error(path, line, qid, f"gold page {[doc, page]!r}: document {doc!r} is not in gold_docs.", "gold_pages")
    return docs, pages, chunks, groups


def _relevance(relevance, docs: list, path, line, qid) -> dict:
    """The ``relevance`` field: gold documents mapped to finite numbers."""
    if not isinstance(relevance, dict):
        raise _error(path, line, qid, f"'relevance' must map gold_docs to numbers, got {relevance!r}.", "relevance")
    for doc, value in relevance.items():
        if doc not in docs:
            raise _error(path, line, qid, f"'relevance' names {doc!r}, which is not in gold_docs.", "relevance")
        relevance[doc] = _number(value, path, line, qid, "relevance")
    return relevance


def _warn_near_misses(fields: dict, path) -> None:
    """One warning per field (``{name: first line}``) whose name is close to a known field's (difflib ratio >= 0.7):
    a misspelled ``type`` would otherwise leave every type empty without a word."""
    for name, line in fields.items():
        near = close_matches(name, FIELDS, cutoff=0.7)
        if near:
            where = f"{path}:{line}: " if path is not None else ""
            warnings.warn(f"{where}golden set field {name!r} is not one of its fields; did you mean {near[0]!r}? It is "
                          f"kept as a question attribute, and {near[0]!r} has its default.", UserWarning, stacklevel=3)


def _groups(value, path, line, qid) -> list[list[tuple[str, int]]]:
    """``gold_groups`` validated: a list of non-empty lists of ``[doc_id, page]``; [] when absent."""
    if value is None:
        return []
    example = _EXAMPLES["gold_groups"]
    if not isinstance(value, list) or not value:
        raise _error(path, line, qid, f"'gold_groups' must be a non-empty list of groups of [doc_id, page], e.g. "
                     f"{example}; got {value!r}.", "gold_groups")
    groups = []
    for i, group in enumerate(value, start=1):
        if not isinstance(group, list) or not group:
            raise _error(path, line, qid, f"gold group {i} must be a non-empty list of [doc_id, page], e.g. {example}; "
                         f"got {group!r}.", "gold_groups")
        members = []
        for item in group:
            if not (isinstance(item, (list, tuple)) and len(item) == 2):
                raise _error(path, line, qid, f"gold group {i}: {item!r} must be [doc_id, page number].", "gold_groups")
            member = (_id(item[0], path, line, qid, "gold_groups"), _page(item[1], path, line, qid, "gold_groups"))
            if member in members:
                raise _error(path, line, qid, f"gold group {i} lists {list(member)!r} twice.", "gold_groups")
            members.append(member)
        if set(members) in [set(g) for g in groups]:
            raise _error(path, line, qid, f"gold group {i} repeats an earlier group.", "gold_groups")
        groups.append(members)
    return groups


def golden_csv_records(path) -> list[tuple[int, dict]]:
    """Questions of a CSV golden set: JSON list cells parsed, long-form rows merged per question."""
    header, rows = read_csv(path, "a golden set (CSV with a header row)")
    if "question_id" not in header:
        raise InputError(f"expected a header row with 'question_id' (and 'question', gold columns); got "
                         f"{header}.", path=path, line=1)
    merged: dict[str, tuple[int, dict]] = {}
    for line, row in rows:
        qid = (row.get("question_id") or "").strip()
        cells = {k: (v.strip() if isinstance(v, str) else v) for k, v in row.items()}
        record: dict = {"question_id": qid or None}
        own = [k for k in header if k not in (*FIELDS, *_CSV_GOLD)]  # a team's own columns: attributes
        for key in ("question", "type", "answer", "labelled", *own):
            if cells.get(key):
                record[key] = cells[key]
        doc, page, chunk = cells.get("doc_id"), cells.get("page"), cells.get("chunk_id")
        for field in (*_LIST_FIELDS, "gold_groups", "relevance"):
            if not cells.get(field):
                continue
            try:
                value = json.loads(cells[field], parse_constant=lambda c: c)
            except json.JSONDecodeError as e:
                example = _EXAMPLES.get(field, "2")
                raise InputError(f"question {qid!r}: column {field!r} must hold JSON, e.g. {example}: {e.msg}.",
                                 path=path, line=line, field=field) from None
            if field == "relevance" and not isinstance(value, dict):
                if not doc:
                    raise InputError(f"question {qid!r}: a relevance label needs a 'doc_id' on its row.", path=path,
                                     line=line, field=field)
                value = {doc: value}
            record[field] = value
        if page and not doc:
            raise InputError(f"question {qid!r}: 'page' given without 'doc_id'.", path=path, line=line, field="page")
        group = cells.get("group")
        if group:
            if not (doc and page):
                raise InputError(f"question {qid!r}: a 'group' needs the 'doc_id' and 'page' of its gold page on its "
                                 "row.", path=path, line=line, field="group")
            record["_group_rows"] = [(group, [doc, page], line)]
        elif "group" in cells and doc:
            record["_group_rows"] = [(None, [doc, page], line)]
        if doc:
            if page:
                record.setdefault("gold_pages", []).append([doc, page])
            record.setdefault("gold_docs", []).append(doc)
        if chunk:
            record.setdefault("gold_chunks", []).append(chunk)
        if qid in merged and qid:
            _merge_row(merged[qid], record, own, path, line)
        else:
            merged[qid or f"\0{line}"] = (line, record)
    return [(line, _long_form_groups(record, path)) for line, record in merged.values()]


def _merge_row(first: tuple[int, dict], record: dict, own: list, path, line: int) -> None:
    """A long-form row (``record``, at ``line``) merged into its question's first row (``(line, record)``): fields
    that must agree, gold lists appended (a document or group page repeated on its rows counted once)."""
    first_line, prev = first
    qid = record["question_id"]
    for key in ("question", "type", "answer", "labelled", *own):
        if key in record and key in prev and record[key] != prev[key]:
            raise InputError(f"question {qid!r}: {key} differs from line {first_line} ({prev[key]!r} vs "
                             f"{record[key]!r}); long-form rows of one question must agree.",
                             path=path, line=line, field=key)
        if key in record:
            prev.setdefault(key, record[key])
    for field in _LIST_FIELDS:
        for item in record.get(field, []):
            if field == "gold_docs" and item in prev.get(field, []):
                continue  # a document repeated on the rows of its pages
            if field == "gold_pages" and record.get("_group_rows") and item in prev.get(field, []):
                continue  # a page repeated on the rows of its groups
            prev.setdefault(field, []).append(item)
    prev.setdefault("relevance", {}).update(record.get("relevance", {}))
    prev.setdefault("_group_rows", []).extend(record.get("_group_rows", []))
    if "gold_groups" in record:
        prev["gold_groups"] = record["gold_groups"]


def _long_form_groups(record: dict, path) -> dict:
    """A CSV question's ``group`` cells turned into ``gold_groups`` (groups in order of first appearance)."""
    rows = record.pop("_group_rows", [])
    labelled = [r for r in rows if r[0] is not None]
    if not labelled:
        return record
    qid = record.get("question_id")
    unlabelled = next((r for r in rows if r[0] is None), None)
    if unlabelled is not None:
        raise InputError(f"question {qid!r}: gold page {unlabelled[1]!r} has no group while other rows of the question "
                         "have one; give every gold row of a question a group, or none.", path=path,
                         line=unlabelled[2], field="group")
    if "gold_groups" in record:
        raise InputError(f"question {qid!r}: evidence groups given twice (a 'gold_groups' cell and 'group' rows).",
                         path=path, line=labelled[0][2], field="group")
    groups: dict = {}
    for label, page, _ in labelled:
        groups.setdefault(label, []).append(page)
    return {**record, "gold_groups": list(groups.values())}


def golden_from_records(rows, *, path=None, corpus: Corpus | None = None) -> GoldenSet:
    """A :class:`GoldenSet` from ``(line, dict)`` pairs in the JSON-lines schema (validated as a file would be)."""
    import pandas as pd

    n_pages = None if corpus is None else corpus.documents["n_pages"].to_dict()
    questions, gold, gold_pages, gold_chunks, gold_groups, seen = [], [], [], [], [], {}
    other: dict = {}  # the other fields, with the line each first appears on
    for line, row in rows:
        rec = _record(row, path, line)
        for name in rec["fields"]:
            other.setdefault(name, line)
        qid = rec["question_id"]
        if qid in seen:
            raise _error(path, line, qid, f"duplicate question_id (first at line {seen[qid]}).", "question_id")
        seen[qid] = line
        if n_pages is not None:
            for doc in rec["docs"]:
                if doc not in n_pages:
                    raise _error(path, line, qid, f"gold document {doc!r} is not in the corpus.", "gold_docs")
            for doc, page in rec["pages"]:
                if not 1 <= page <= n_pages[doc]:
                    raise _error(path, line, qid, f"gold page {page} of {doc!r} is out of range 1..{n_pages[doc]}.",
                                 "gold_pages")
        questions.append({"question_id": qid, "question": rec["question"], "type": rec["type"],
                          "answer": rec["answer"], "labelled": rec["labelled"], **rec["fields"]})
        gold_pages += [{"question_id": qid, "doc_id": d, "page": p} for d, p in rec["pages"]]
        gold_chunks += [{"question_id": qid, "chunk_id": c} for c in rec["chunks"]]
        gold_groups += [{"question_id": qid, "group": i, "doc_id": d, "page": p}
                        for i, group in enumerate(rec["groups"], start=1) for d, p in group]
        if rec["labelled"]:
            if rec["docs"]:
                gold += [{"question_id": qid, "doc_id": d, "relevance": float(rec["relevance"].get(d, 1)),
                          "type": rec["type"]} for d in rec["docs"]]
            else:
                gold.append({"question_id": qid, "doc_id": None, "relevance": None, "type": rec["type"]})
    if not questions:
        raise InputError("no question found; expected a golden set.", path=path)
    _warn_near_misses(other, path)
    qdf = pd.DataFrame(questions, columns=["question_id", "question", "type", "answer", "labelled"]).set_index(
        "question_id")
    # a missing answer (or field) stays None (object column): pandas 3 would infer its string dtype, None as NaN
    for name in ("answer", *other):
        qdf[name] = pd.Series([q.get(name) for q in questions], index=qdf.index, dtype=object)
    backlog = tuple(qdf.index[~qdf["labelled"]])
    return GoldenSet(qdf, pd.DataFrame(gold, columns=["question_id", "doc_id", "relevance", "type"]),
                     pd.DataFrame(gold_pages, columns=["question_id", "doc_id", "page"]), backlog,
                     pd.DataFrame(gold_chunks, columns=["question_id", "chunk_id"]),
                     None if path is None else str(path),
                     pd.DataFrame(gold_groups, columns=["question_id", "group", "doc_id", "page"]))


def load_golden(path=None, corpus: Corpus | None = None, *, sample: bool = False) -> GoldenSet:
    """Load and validate a golden set (module docstring): ``.csv`` as CSV, anything else as JSON lines.

    ``sample=True`` (no path): the project's sample golden set, validated against the sample corpus unless
    another ``corpus`` is given. With a ``corpus`` (:func:`rag_metrics.io.corpus.load_corpus`), gold documents and
    pages are checked against it.
    """
    from rag_metrics.io.corpus import load_corpus, sample_path

    if path is None and sample:
        corpus = corpus if corpus is not None else load_corpus(sample=True)
    path = sample_path("golden.jsonl", path, sample=sample, func="load_golden", what="the golden set")
    if Path(path).suffix.lower() == ".csv":
        rows = golden_csv_records(path)
    else:
        rows = iter_jsonl(path, "a golden set (JSON lines)")
    return golden_from_records(rows, path=path, corpus=corpus)
