"""Retrieval logs matched to what they are judged against: logged document IDs to known documents, logged questions to
the golden set's.

Given the golden set and/or the
corpus, :func:`load_log` (or :func:`match_log` on a log read without them) matches each logged
document ID to a known one (the corpus's documents, else the golden set's gold documents): exactly,
else by the longest unique path suffix after Unicode NFC normalization (the trailing path components
both share, the file name compared with or without its extension; URIs decoded) --
``/srv/docs/hr/policy.pdf`` is ``hr/policy`` when the corpus has ``hr/policy`` and ``it/policy``, and
``s3://bucket/manual.pdf`` is ``guides/manual`` when no other document is named ``manual``; at equal
length a known ID matched whole wins (``policy.pdf`` is ``policy`` rather than ``hr/policy``); a name
that fits several equally well (``/srv/docs/policy.pdf`` against ``hr/policy`` and ``it/policy``) is an
error listing them; with a corpus, a log none of whose items
names a document of it is an error. Questions are matched by ID, else by their whitespace-normalized
text; the same question logged twice -- by ID and by text too -- is an error naming both lines. A
record's key is :func:`log_key`. How many items stayed unmatched is in :attr:`RunLog.documents`.
"""

from __future__ import annotations

import dataclasses
import unicodedata
from pathlib import PurePosixPath
from urllib.parse import unquote, urlsplit

from rag_metrics.core.errors import InputError

__all__ = ["log_key", "doc_key", "resolve_documents", "AmbiguousDocument", "match_log"]


def log_key(question_id, question) -> str:
    """The key of one logged question: its ID, or ``text:<question>`` when the log has no ID."""
    return question_id if question_id is not None else f"text:{question}"


def _parts(raw) -> tuple[str, ...]:
    """A path or URI as NFC path components: ``s3://b/docs/Manual%201.pdf`` -> ``("b", "docs", "Manual 1.pdf")``."""
    text = unicodedata.normalize("NFC", str(raw).strip())
    parts = urlsplit(text) if "://" in text or text.startswith("file:") else None
    if parts is not None and parts.scheme and len(parts.scheme) > 1:  # a URI (a one-letter scheme is a drive)
        text = f"{parts.netloc}/{parts.path}"
    text = unquote(text).replace("\\", "/")
    return tuple(p for p in text.split("/") if p and p != ".")


def _stem(name: str) -> str:
    return PurePosixPath(name).stem if "." in name.strip(".") else name


def doc_key(raw: str) -> str:
    """The file name without extension of a path or URI: ``s3://b/docs/Manual%201.pdf`` -> ``Manual 1``.

    >>> doc_key("s3://bucket/docs/expense_policy.pdf"), doc_key("C:\\\\docs\\\\faq_ja.md"), doc_key("terms_ja")
    ('expense_policy', 'faq_ja', 'terms_ja')
    """
    parts = _parts(raw)
    return _stem(parts[-1]) if parts else ""


def _suffix_length(raw: tuple, known: tuple) -> int:
    """How many trailing components two paths share (the file name compared with or without its extension)."""
    a, b = raw[-1], known[-1]
    if not (a == b or _stem(a) == b or a == _stem(b) or _stem(a) == _stem(b)):
        return 0
    n = 1
    while n < len(raw) and n < len(known) and raw[-1 - n] == known[-1 - n]:
        n += 1
    return n


class AmbiguousDocument(InputError):
    """A logged document ID (``raw``) fits several known documents equally well."""

    raw = None


def resolve_documents(raw_ids, known_ids) -> tuple[dict, dict]:
    """Match logged document IDs to known ones: exactly (after NFC), else by the longest unique path suffix.

    Returns ``(mapping raw -> known or None, report)``; the report counts distinct IDs matched ``exact``,
    ``by_path_suffix`` (also under its older name ``by_file_name``) and ``unmatched``, with examples. A raw
    ID whose longest matching suffix fits several known IDs raises :class:`AmbiguousDocument` listing them
    (``.question``-less; :func:`match_log` adds the file and line).
    """
    known = list(dict.fromkeys(str(k) for k in known_ids))
    exact = {}
    by_last: dict[str, list] = {}
    for k in known:
        exact.setdefault(unicodedata.normalize("NFC", k), k)
        parts = _parts(k)
        if parts:
            for key in {parts[-1], _stem(parts[-1])}:
                by_last.setdefault(key, []).append((k, parts))
    mapping, report = {}, {"exact": 0, "by_path_suffix": 0, "unmatched": 0, "examples": {}}
    for raw in dict.fromkeys(r for r in raw_ids if r is not None):
        hit = exact.get(unicodedata.normalize("NFC", str(raw)))
        if hit is not None:
            mapping[raw] = hit
            report["exact"] += 1
            continue
        parts = _parts(raw)
        best, chosen = (0, False), []
        if parts:
            seen = set()
            for k, kparts in by_last.get(parts[-1], []) + by_last.get(_stem(parts[-1]), []):
                if k in seen:
                    continue
                seen.add(k)
                n = _suffix_length(parts, kparts)
                score = (n, n == len(kparts))  # longer suffix first; then a known ID matched whole
                if n and score > best:
                    best, chosen = score, [k]
                elif n and score == best:
                    chosen.append(k)
        if len(chosen) > 1:
            shown = ", ".join(sorted(chosen)[:10]) + (" ..." if len(chosen) > 10 else "")
            error = AmbiguousDocument(f"document {raw!r} fits {len(chosen)} documents equally well: {shown}; log "
                                      "a longer path (e.g. with its folder) so that one fits.", field="doc_id")
            error.raw = raw
            raise error
        if chosen:
            mapping[raw] = chosen[0]
            report["by_path_suffix"] += 1
            report["examples"].setdefault("by_path_suffix", []).append(f"{raw} -> {chosen[0]}")
        else:
            mapping[raw] = None
            report["unmatched"] += 1
            report["examples"].setdefault("unmatched", []).append(raw)
    for kind in report["examples"]:
        report["examples"][kind] = report["examples"][kind][:5]
    report["by_file_name"] = report["by_path_suffix"]
    return mapping, report


def _known_documents(golden, corpus) -> tuple[list, str]:
    if corpus is not None:
        return list(corpus.documents.index), "corpus"
    ids = list(golden.gold["doc_id"].dropna()) + list(golden.gold_pages["doc_id"])
    return list(dict.fromkeys(ids)), "golden set"


def _match_questions(log, golden) -> tuple[dict, list]:
    """log key -> golden question ID (by ID, else by whitespace-normalized text); questions not in the golden set.
    The same golden question reached twice (logged by ID and by its text) is an error naming both lines."""
    ids = set(golden.questions.index)
    by_text: dict[str, list] = {}
    for q, t in golden.questions["question"].items():
        by_text.setdefault(" ".join(str(t).split()), []).append(q)
    mapping, unknown, reached = {}, [], {}
    for qid, text, line in zip(log.questions["question_id"], log.questions["question"], log.questions["line"]):
        if qid is not None:
            target = qid if qid in ids else None
        else:
            found = by_text.get(" ".join(str(text).split()), [])
            if len(found) > 1:
                raise InputError(f"question {text!r} is logged by its text, and the golden set has it {len(found)} "
                                 f"times ({', '.join(found)}); log the question_id.", path=log.source, line=int(line),
                                 field="question")
            target = found[0] if found else None
        if target is None:
            unknown.append(qid if qid is not None else text)
            continue
        if target in reached:
            first, how = reached[target]
            this = "by ID" if qid is not None else "by its text"
            raise InputError(f"question {target!r} is logged twice: {how} at line {first} and {this} here; keep one "
                             "record per question.", path=log.source, line=int(line),
                             field="question_id" if qid is not None else "question", question=target)
        reached[target] = (int(line), "by ID" if qid is not None else "by its text")
        mapping[log_key(qid, text)] = target
    return mapping, unknown


def match_log(log, golden=None, corpus=None):
    """The log (a :class:`~rag_metrics.io.logs.RunLog`) matched to the golden set and the documents (module
    docstring): a new :class:`~rag_metrics.io.logs.RunLog` whose
    ``run.doc_id`` holds known document IDs (unmatched ones as logged), with ``documents``,
    ``question_map`` and ``unknown_questions`` filled. Errors name the file, the line and the field."""
    if golden is None and corpus is None:
        raise InputError("match_log: give the golden set, the corpus, or both.")
    known, known_from = _known_documents(golden, corpus)
    run = log.run.copy()
    try:
        mapping, report = resolve_documents(run["logged_doc_id"], known)
    except AmbiguousDocument as e:
        rows = run[run["logged_doc_id"] == e.raw]
        line = int(rows["line"].iloc[0]) if len(rows) else None
        raise AmbiguousDocument(e.message, path=log.source, line=line, field="doc_id") from None
    logged = run["logged_doc_id"]
    run["doc_id"] = [None if d is None else (mapping.get(d) or d) for d in logged]
    with_doc = logged.notna()
    matched = logged.map(lambda d: d is not None and mapping.get(d) is not None)
    report["items"] = int(with_doc.sum())
    report["unmatched_items"] = int((with_doc & ~matched).sum())
    report["known"] = known_from
    if corpus is not None and report["items"] and not matched.any():
        shown = ", ".join(map(repr, report["examples"].get("unmatched", [])[:3]))
        raise InputError(f"no retrieved item names a document of the corpus ({report['items']} items; logged e.g. "
                         f"{shown}; the corpus has e.g. {', '.join(map(repr, known[:3]))}); check --pages or the "
                         "doc_id mapping.", path=log.source, line=int(run.loc[with_doc, "line"].iloc[0]),
                         field="doc_id")
    qmap, unknown = (None, None) if golden is None else _match_questions(log, golden)
    if golden is not None and not (golden.gold_chunks is not None and len(golden.gold_chunks)):
        chunk_only = run[run["doc_id"].isna() & run["text"].isna()]
        if len(chunk_only):
            row = chunk_only.iloc[0]
            who = row["question_id"] if row["question_id"] is not None else row["question"]
            raise InputError(f"question {who!r}, retrieved item {int(row['rank'])}: a chunk_id "
                             f"({row['chunk_id']!r}) and no document, and the golden set has no gold chunk IDs to "
                             "judge it by; log the doc_id (or map it with --field doc_id=PATH).", path=log.source,
                             line=int(row["line"]), field="doc_id")
    fp = golden.fingerprint() if golden is not None else None
    return dataclasses.replace(log, run=run, documents=report, question_map=qmap, unknown_questions=unknown,
                               matched_against=(fp, known_from, tuple(known)))
