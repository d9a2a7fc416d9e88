"""People's decisions on a golden set's labels: the reviewed audit file read, accepted pages written into a new golden
set, and every human page judgment kept.

:func:`read_audit_decisions` reads the review file of `rag-metrics labels audit` (:mod:`rag_metrics.labels.label_audit`:
one row per candidate page, ``decision`` ``accept`` or ``reject``); :func:`accept_labels` writes a new golden set
(JSON lines) with the accepted pages and their provenance (who, when, why, in each question's
``label_provenance``), every human decision in ``<out>.judgments.jsonl`` (:func:`load_judgments`, columns
:data:`JUDGMENT_COLUMNS`; carried over from the input set's own), and ``<out>.meta.json`` with the old and new
fingerprints. :func:`human_labels` joins a golden set's gold pages with its judgments. Golden sets rewritten in
memory for notebooks and experiments: :func:`with_evidence_groups`, :func:`one_gold_page_only`;
:func:`closed_world_judgments` reads a golden set as complete.
"""

from __future__ import annotations

import datetime as _dt
import json
from pathlib import Path

import pandas as pd

from rag_metrics.core.errors import InputError, check_choice, check_int
from rag_metrics.core.files import check_output, publish_files
from rag_metrics.io.golden import golden_csv_records, golden_from_records
from rag_metrics.io.jsonl import iter_jsonl, jsonl_text
from rag_metrics.io.sheets import choice_cell, positive_int_cell, read_sheet, text_cell
from rag_metrics.labels.assessors import retrieved_pages
from rag_metrics.labels.label_audit import AUDIT_DECISIONS

__all__ = ["read_audit_decisions", "accept_labels", "accept_summary", "load_judgments", "human_labels",
           "JUDGMENT_COLUMNS", "with_evidence_groups", "one_gold_page_only",
           "closed_world_judgments"]


JUDGMENT_COLUMNS = ["question_id", "doc_id", "page", "relevant", "by", "at", "why", "source"]


def read_audit_decisions(path) -> pd.DataFrame:
    """A reviewed audit file: candidate_id, question_id, doc_id, page, decision, why, group, line.

    Errors name the line: a missing column, an unknown decision, a candidate listed twice, a page that is not an
    integer >= 1, a group that is not an integer >= 1, one page of one question accepted on one row and rejected on
    another (both lines named). The same page decided the same way on two rows is one decision (the first row).
    """
    path = Path(path)
    _, rows = read_sheet(path, expected="the review file of `rag-metrics labels audit`",
                         required=("candidate_id", "question_id", "doc_id", "page", "decision"), key="candidate_id",
                         label="candidate", noun="candidate")
    out, decided = [], {}
    for line, cid, row in rows:
        who = f"candidate {cid!r}"
        decision = choice_cell(row.get("decision"), AUDIT_DECISIONS, "decision", who=who, path=path, line=line,
                               blank="pending")
        qid, doc = row.get("question_id"), row.get("doc_id")
        for name, value in (("question_id", qid), ("doc_id", doc)):
            if text_cell(value) is None:
                raise InputError(f"{who}: {name} {value!r} is empty.", path=path, line=line, field=name)
        page = positive_int_cell(row.get("page"), path, line, "page", who)
        group = row.get("group")
        group = None if group is None or (isinstance(group, str) and not group.strip()) else \
            positive_int_cell(group, path, line, "group", who)
        key = (qid.strip(), doc.strip(), page)
        if decision != "pending" and key in decided:
            first, said = decided[key]
            if said != decision:
                raise InputError(f"{who}: {doc.strip()!r} p.{page} for question {qid.strip()!r} is "
                                 f"given decision {decision} here and {said} at line {first}; one page, one decision.",
                                 path=path, line=line, field="decision")
            continue  # the same page decided the same way twice: one judgment
        if decision != "pending":
            decided[key] = (line, decision)
        out.append({"candidate_id": cid, "question_id": qid.strip(), "doc_id": doc.strip(), "page": page,
                    "decision": decision, "why": text_cell(row.get("why")),
                    "reasons": row.get("reasons") or None, "group": group, "line": line})
    return pd.DataFrame(out, dtype=object)  # a missing why or group stays None (pandas 3 would make it NaN)


def _judgments_path(golden_path) -> Path:
    return Path(str(golden_path) + ".judgments.jsonl")


def load_judgments(path) -> pd.DataFrame:
    """Human page judgments (:data:`JUDGMENT_COLUMNS`), as :func:`accept_labels` writes them; errors name the line.

    A golden set's own judgments are ``<golden>.judgments.jsonl``; a missing file is an empty table only through
    :func:`human_labels` (here it is an error).
    """
    rows, seen = [], {}
    for line, row in iter_jsonl(path, "human judgments (JSON lines: question_id, doc_id, page, relevant)"):
        for name in ("question_id", "doc_id"):
            if not isinstance(row.get(name), str) or not row[name].strip():
                raise InputError(f"{name} {row.get(name)!r} is not a non-empty string.", path=path, line=line,
                                 field=name)
        page = row.get("page")
        if isinstance(page, bool) or not isinstance(page, int) or page < 1:
            raise InputError(f"page {page!r} is not an integer >= 1.", path=path, line=line, field="page")
        if not isinstance(row.get("relevant"), bool):
            raise InputError(f"relevant {row.get('relevant')!r} must be true or false.", path=path, line=line,
                             field="relevant")
        key = (row["question_id"], row["doc_id"], page)
        if key in seen:
            raise InputError(f"{row['question_id']!r}, {row['doc_id']!r} p.{page} is judged twice (also at line "
                             f"{seen[key]}).", path=path, line=line, field="page")
        seen[key] = line
        rows.append({c: row.get(c) for c in JUDGMENT_COLUMNS})
    return pd.DataFrame(rows, columns=JUDGMENT_COLUMNS)


def human_labels(golden, judgments: pd.DataFrame | None = None) -> pd.DataFrame:
    """Every human page label: question_id, doc_id, page, relevant, source -- the gold pages (relevant, source
    ``gold``) and the judgments (source ``judgment``). Assessed labels are never in this table."""
    gold = golden.gold_pages.assign(relevant=True, source="gold")[["question_id", "doc_id", "page", "relevant", "source"]]
    if judgments is None or not len(judgments):
        return gold.reset_index(drop=True)
    extra = judgments.assign(source="judgment")[["question_id", "doc_id", "page", "relevant", "source"]]
    keys = set(zip(gold["question_id"], gold["doc_id"], gold["page"].astype(int)))
    extra = extra[[k not in keys for k in zip(extra["question_id"], extra["doc_id"], extra["page"].astype(int))]]
    return pd.concat([gold, extra], ignore_index=True)


def _raw_records(path) -> list[tuple[int, dict]]:
    """The golden set's records as written (unknown fields kept); a CSV set in the JSON-lines schema, pages as ints."""
    if Path(path).suffix.lower() != ".csv":
        return list(iter_jsonl(path, "a golden set (JSON lines)"))
    records = golden_csv_records(path)

    def page(v):
        return int(v) if isinstance(v, str) and v.strip().isascii() and v.strip().isdigit() else v

    for _, rec in records:
        if isinstance(rec.get("gold_pages"), list):
            rec["gold_pages"] = [[p[0], page(p[1])] if isinstance(p, list) and len(p) == 2 else p
                                 for p in rec["gold_pages"]]
        if isinstance(rec.get("gold_groups"), list):
            rec["gold_groups"] = [[[m[0], page(m[1])] if isinstance(m, list) and len(m) == 2 else m for m in g]
                                  if isinstance(g, list) else g for g in rec["gold_groups"]]
    return records


def accept_summary(meta: dict, golden_path, path, judgments_path) -> list[str]:
    """What `labels accept` did, from the new set's ``meta`` (its ``.meta.json``): the counts, then whether the
    fingerprint changed -- nothing decided anew, only rejections (unchanged: runs stay comparable), or a page became
    gold (runs judged against the old set are not compared with the new)."""
    unchanged = f", {meta['unchanged']} decided so already" if meta["unchanged"] else ""
    lines = [f"wrote {path}: {meta['accepted']} page(s) accepted as gold, {meta['rejected']} rejected, "
             f"{meta['pending']} pending{unchanged}; human judgments in {judgments_path}"]
    if meta["previous_fingerprint"] == meta["fingerprint"] and not meta["accepted"] and not meta["rejected"]:
        lines.append(f"nothing changed: every decision is in {golden_path} already (fingerprint {meta['fingerprint']})")
    elif meta["previous_fingerprint"] == meta["fingerprint"]:
        lines.append(f"fingerprint {meta['fingerprint']} unchanged: no page became gold (only rejections), so runs "
                     "judged against the old set stay comparable")
    else:
        lines.append(f"fingerprint {meta['previous_fingerprint']} -> {meta['fingerprint']}: runs judged against the "
                     "old set are not compared with runs judged against the new one")
    return lines


def accept_labels(golden_path, decisions: pd.DataFrame, out, *, by: str, corpus=None, decisions_source=None,
                  now=None):
    """Write the golden set with the accepted pages as gold; return ``(GoldenSet, path, judgments path)``.

    Every accepted page is added to its question's ``gold_pages`` (its document to ``gold_docs``; to the group
    ``group`` for a question written with evidence groups, which then must be given) and recorded in the question's
    ``label_provenance`` with who (``by``), when (``now``, UTC) and why (the reviewer's ``why``, else the audit's
    reasons). Rejected pages are human labels of non-relevance: with the accepted ones they go to
    ``<out>.judgments.jsonl`` (after the input set's own judgments). Pending rows are left for later.

    Refused before anything is written: ``out`` equal to the input (keep the old set: runs judged against it stay
    comparable with it), a decision for a question the set does not have or that has no gold pages, a group out of
    range or missing, a page the corpus does not hold, a page judged both ways, a gold page rejected (the golden set
    says it is relevant: edit the set by hand), nothing decided, an ``out`` that is a folder. A decision the input
    set holds already (an accepted page that is gold, a page judged the same way before) changes nothing and is
    counted ``unchanged``: accepting into a set's own output is idempotent. The three files are published together
    (:func:`~rag_metrics.core.files.publish_files`: judgments and meta first, the set last). The new set is read back
    with :func:`~rag_metrics.io.golden.load_golden`; its fingerprint is in ``<out>.meta.json`` next to the old one.
    """
    from rag_metrics.io.golden import load_golden

    if not isinstance(by, str) or not by.strip():
        raise InputError("say who reviewed the labels (by=NAME, --by NAME): it is recorded with every accepted page.")
    golden_path, out = Path(golden_path), check_output(out)
    if out.resolve() == golden_path.resolve():
        raise InputError("the output would overwrite the golden set it changes; write a new file (the old set stays "
                         "for runs judged against it).", path=out)
    old = load_golden(golden_path, corpus=corpus)
    now = now or _dt.datetime.now(_dt.timezone.utc)
    stamp = now.strftime("%Y-%m-%dT%H:%M:%SZ")
    where = {"path": decisions_source}
    decided = decisions[decisions["decision"] != "pending"]
    if not len(decided):
        raise InputError("no candidate is accepted or rejected; nothing to write (decisions are 'pending').", **where)
    records = _raw_records(golden_path)
    prior_path = _judgments_path(golden_path)
    prior = load_judgments(prior_path) if prior_path.is_file() else pd.DataFrame(columns=JUDGMENT_COLUMNS)
    new_judgments, accepted, unchanged = _apply_decisions(
        decided, records, old, prior, by=by.strip(), stamp=stamp, corpus=corpus, source=decisions_source,
        golden_path=golden_path, prior_path=prior_path)
    new_set = golden_from_records(records, path=out, corpus=corpus)  # validated before anything is written
    judgments = prior.to_dict("records") + new_judgments
    jpath, meta_path = _judgments_path(out), Path(str(out) + ".meta.json")
    meta = {"fingerprint": new_set.fingerprint(), "previous_fingerprint": old.fingerprint(),
            "previous": str(golden_path), "accepted": accepted, "rejected": len(new_judgments) - accepted,
            "unchanged": unchanged, "pending": int(len(decisions) - len(decided)), "by": by.strip(), "at": stamp,
            "decisions": None if decisions_source is None else str(decisions_source), "judgments": str(jpath)}
    # one publication: the judgments and the meta file first, the golden set (what readers look for) last
    publish_files({jpath: jsonl_text(judgments),
                   meta_path: json.dumps(meta, indent=2, ensure_ascii=False) + "\n",
                   out: jsonl_text([r for _, r in records])})
    golden = load_golden(out, corpus=corpus)
    if golden.fingerprint() != new_set.fingerprint():  # pragma: no cover - the set read back is the set written
        raise AssertionError(f"{out} does not read back as written")
    return golden, out, jpath


def _apply_decisions(decided: pd.DataFrame, records: list, old, prior: pd.DataFrame, *, by: str, stamp: str, corpus,
                     source, golden_path: Path, prior_path: Path) -> tuple[list[dict], int, int]:
    """Apply each decided row to ``records`` (the raw golden set, changed in place); return the new judgments and the
    counts ``accepted`` and ``unchanged``. A row :func:`accept_labels` refuses raises before the caller writes."""
    by_id = {str(r.get("question_id")).strip(): r for _, r in records}
    prior_keys = {(q, d, int(p)): bool(r) for q, d, p, r in zip(prior["question_id"], prior["doc_id"], prior["page"],
                                                                 prior["relevant"])}
    gold_of = {qid: {(d, int(p)) for d, p in zip(g["doc_id"], g["page"])}
               for qid, g in old.gold_pages.groupby("question_id")}
    new_judgments, accepted, unchanged = [], 0, 0
    for row in decided.to_dict("records"):
        qid, doc, page = row["question_id"], row["doc_id"], int(row["page"])
        loc = {"line": row.get("line"), "question": qid, "path": source}
        relevant, is_gold = row["decision"] == "accept", (doc, page) in gold_of.get(qid, ())
        _refuse_decision(row, page=page, relevant=relevant, is_gold=is_gold, by_id=by_id, prior_keys=prior_keys,
                         corpus=corpus, loc=loc, golden_path=golden_path, prior_path=prior_path)
        if is_gold or (qid, doc, page) in prior_keys:
            unchanged += 1  # decided so already (the set is its own output, or the decision is repeated)
            continue
        # the first text given: a missing cell is None, or NaN once a frame held it (pandas 3's string dtype)
        why = next((v for v in (row.get("why"), row.get("reasons")) if isinstance(v, str) and v.strip()), None)
        new_judgments.append({"question_id": qid, "doc_id": doc, "page": page, "relevant": relevant, "by": by,
                              "at": stamp, "why": why, "source": "label audit"})
        if relevant:
            _add_page(by_id[qid], doc, page, row.get("group"), loc)
            by_id[qid].setdefault("label_provenance", []).append(
                {"doc_id": doc, "page": page, "added_by": by, "added_at": stamp, "why": why,
                 "source": "label audit", "decisions": None if source is None else str(source)})
            accepted += 1
    return new_judgments, accepted, unchanged


def _refuse_decision(row: dict, *, page: int, relevant: bool, is_gold: bool, by_id: dict, prior_keys: dict, corpus,
                     loc: dict, golden_path, prior_path) -> None:
    """Raise the :class:`InputError` of a decision :func:`accept_labels` refuses: an unknown question, a page not in
    the corpus, a gold page rejected, a page judged the other way before. ``by_id``: the raw records by question ID;
    ``prior_keys``: the earlier judgments, ``(question, document, page) -> relevant``."""
    qid, doc, cand = row["question_id"], row["doc_id"], row["candidate_id"]
    if qid not in by_id:
        raise InputError(f"candidate {cand!r}: question {qid!r} is not in the golden set.", **loc)
    if corpus is not None and not ((corpus.pages["doc_id"] == doc) & (corpus.pages["page"] == page)).any():
        raise InputError(f"candidate {cand!r}: page {page} of {doc!r} is not in the corpus.", **loc)
    if is_gold and not relevant:
        raise InputError(f"candidate {cand!r}: {doc!r} p.{page} is a gold page of {qid!r}, so decision reject "
                         f"contradicts the golden set; remove the page from {golden_path} by hand if it is wrong.",
                         field="decision", **loc)
    if prior_keys.get((qid, doc, page), relevant) != relevant:
        raise InputError(f"candidate {cand!r}: {doc!r} p.{page} was judged "
                         f"{'relevant' if prior_keys[qid, doc, page] else 'not relevant'} before; change the "
                         f"judgments file ({prior_path}) first.", **loc)


def _add_page(record: dict, doc: str, page: int, group, loc) -> None:
    qid = record.get("question_id")
    pages = record.get("gold_pages")
    groups = record.get("gold_groups")
    if not pages and not groups:
        raise InputError(f"question {qid!r} has no gold pages (document-level gold): add the page by hand.", **loc)
    pair = [doc, page]
    if groups:
        if group is None:
            raise InputError(f"question {qid!r} is written with {len(groups)} evidence groups: give the group "
                             f"(1..{len(groups)}) the page satisfies in the 'group' column.", field="group", **loc)
        if not 1 <= group <= len(groups):
            raise InputError(f"question {qid!r}: group {group} is out of range 1..{len(groups)}.", field="group",
                             **loc)
        if pair not in [list(m) for m in groups[group - 1]]:
            groups[group - 1].append(pair)
    elif group is not None and group != 1:
        raise InputError(f"question {qid!r} has no evidence groups; leave 'group' empty.", field="group", **loc)
    if pages is not None and pair not in [list(p) for p in pages]:
        pages.append(pair)
    docs = record.get("gold_docs")
    if docs and doc not in docs:
        docs.append(doc)


def _records_of(golden) -> list[tuple[int, dict]]:
    """The golden set's questions in the JSON-lines schema (what :func:`golden_from_records` reads back)."""
    pages = {q: [[d, int(p)] for d, p in zip(g["doc_id"], g["page"])] for q, g in golden.gold_pages.groupby("question_id")}
    docs = {q: list(dict.fromkeys(g["doc_id"])) for q, g in golden.gold.dropna(subset=["doc_id"]).groupby("question_id")}
    rel = {q: {d: float(r) for d, r in zip(g["doc_id"], g["relevance"]) if r != 1}
           for q, g in golden.gold.dropna(subset=["doc_id"]).groupby("question_id")}
    chunks = {} if golden.gold_chunks is None else {q: list(g["chunk_id"]) for q, g in
                                                    golden.gold_chunks.groupby("question_id")}
    groups = {}
    if golden.has_groups:
        for q, g in golden.gold_groups.groupby("question_id", sort=False):
            groups[q] = [[[d, int(p)] for d, p in zip(m["doc_id"], m["page"])] for _, m in g.groupby("group")]
    out = []
    for i, (qid, row) in enumerate(golden.questions.iterrows(), start=1):
        rec = {"question_id": qid, "question": row["question"], "type": row["type"], "answer": row["answer"],
               "labelled": bool(row["labelled"])}
        for key, table in (("gold_docs", docs), ("gold_pages", pages), ("gold_chunks", chunks), ("relevance", rel),
                           ("gold_groups", groups)):
            if table.get(qid):
                rec[key] = table[qid]
        out.append((i, rec))
    return out


def with_evidence_groups(golden, *, types=("multi_hop",)):
    """The golden set with every question of ``types`` written as evidence groups of one page each -- all its gold
    pages needed together (a multi-hop question) -- and the other questions as they are (any gold page)."""
    records = []
    for line, rec in _records_of(golden):
        if rec["type"] in types and rec.get("gold_pages") and not rec.get("gold_groups"):
            rec = {**rec, "gold_groups": [[p] for p in rec["gold_pages"]]}
        records.append((line, rec))
    return golden_from_records(records, path=golden.source)


def one_gold_page_only(golden, *, keep: str = "first", out=None, corpus=None):
    """The golden set with one gold page of each question (and its document) kept -- the ``first`` or the ``last``
    listed: the labels a set built from one sampled page per question would have. For measuring what missing labels
    do to a figure, the complete set being the truth. With ``out``, also written there as JSON lines (what
    :func:`accept_labels` reads) and returned as read back from it."""
    check_choice(keep, ("first", "last"), "keep", func="one_gold_page_only")
    records = []
    for line, rec in _records_of(golden):
        if rec.get("gold_pages") and not rec.get("gold_groups"):
            doc, page = rec["gold_pages"][0 if keep == "first" else -1]
            rec = {**rec, "gold_pages": [[doc, page]], "gold_docs": [doc],
                   "relevance": {d: v for d, v in rec.get("relevance", {}).items() if d == doc}}
            rec.pop("gold_chunks", None)
        records.append((line, rec))
    if out is None:
        return golden_from_records(records, path=golden.source)
    from rag_metrics.io.golden import load_golden
    from rag_metrics.io.jsonl import write_jsonl

    return load_golden(write_jsonl([rec for _, rec in records], check_output(out)), corpus=corpus)


def closed_world_judgments(result, questions, *, k: int | None = None, by: str = "closed world") -> pd.DataFrame:
    """Judgments (:data:`JUDGMENT_COLUMNS`) that read a golden set as complete for ``questions``: every retrieved
    top-``k`` page of theirs that is not a gold page is judged not relevant -- what pooled evaluations such as TREC
    assume of unjudged documents. A stand-in for people who judged those pages; the label audit shows where it is
    wrong (a page that holds the answer but was never labelled)."""
    k = max(result.ks) if k is None else check_int(k, "k", func="closed_world_judgments")
    pages, _ = retrieved_pages([(result.name, result)], result.corpus, k=k)
    wanted = set(questions)
    gold = set(zip(result.golden.gold_pages["question_id"], result.golden.gold_pages["doc_id"],
                   result.golden.gold_pages["page"].astype(int)))
    rows = [{"question_id": q, "doc_id": d, "page": int(p), "relevant": False, "by": by, "at": None,
             "why": "not a gold page of a golden set read as complete", "source": "closed world"}
            for q, d, p in zip(pages["question_id"], pages["doc_id"], pages["page"])
            if q in wanted and (q, d, int(p)) not in gold]
    return pd.DataFrame(rows, columns=JUDGMENT_COLUMNS).drop_duplicates(["question_id", "doc_id", "page"])
