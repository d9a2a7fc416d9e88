"""Qrels and runs in the other formats the IR ecosystem uses, read into the TREC reader's tables.

* ``trec`` -- ``qid iter docid rel`` / ``qid Q0 docid rank score tag`` (:mod:`rag_metrics.io.trec`);
* ``beir`` -- BEIR qrels, ``qrels/<split>.tsv``: a header ``query-id<TAB>corpus-id<TAB>score``, then one
  tab-separated judgment per line (the score an integer label);
* ``json`` -- the dicts of ranx and ir_measures (and pytrec_eval): qrels ``{qid: {docid: rel}}`` with
  integer labels, runs ``{qid: {docid: score}}`` with finite scores, ordered like trec_eval (score
  descending, ties by document ID descending).

``auto`` (the default) recognizes the format from the content: a JSON object starts with ``{``; a
BEIR file's first line is its ``query-id`` header; anything else is TREC. Plain or gzip-compressed.
Every reader returns the same columns as :func:`~rag_metrics.io.trec.read_qrels` /
:func:`~rag_metrics.io.trec.read_run`, and every problem names the file (and the line, or the
question and document of a JSON dict).
"""

from __future__ import annotations

import json
import numbers
import math
from typing import TYPE_CHECKING

from rag_metrics.core.errors import InputError, check_choice
from rag_metrics.io import trec

if TYPE_CHECKING:  # pragma: no cover
    import pandas as pd

__all__ = ["detect_format", "read_qrels_file", "read_run_file", "QRELS_FORMATS", "RUN_FORMATS"]

QRELS_FORMATS = ("auto", "trec", "beir", "json")
RUN_FORMATS = ("auto", "trec", "json")


def detect_format(path, what: str) -> str:
    """``json``, ``beir`` or ``trec``, from the first bytes of the (possibly gzip-compressed) file."""
    trec.check_readable(path, what)
    with trec.open_binary(path) as f:
        try:
            head = f.read(4096)
        except (OSError, EOFError):
            return "trec"  # the reader reports the broken file
    head = head.removeprefix(b"\xef\xbb\xbf").lstrip()
    if head.startswith(b"{"):
        return "json"
    first = head.split(b"\n", 1)[0].rstrip(b"\r").split(b"\t")
    if len(first) == 3 and first[0].strip().lower() in (b"query-id", b"query_id", b"qid"):
        return "beir"
    return "trec"


def _no_constants(name):
    raise ValueError(f"{name} is not a JSON number")


def _unique_keys(pairs):
    seen = {}
    for key, value in pairs:
        if key in seen:
            raise ValueError(f"the key {key!r} appears twice in one object (a JSON reader would keep only the last)")
        seen[key] = value
    return seen


def _json(path, what):
    data = trec.read_bytes(path, what)
    try:
        obj = json.loads(data.decode("utf-8").removeprefix("\ufeff"), parse_constant=_no_constants,
                         object_pairs_hook=_unique_keys)
    except UnicodeDecodeError as e:
        raise InputError(f"not valid UTF-8 text (byte {e.start}).", path=path) from None
    except json.JSONDecodeError as e:
        raise InputError(f"malformed JSON: {e.msg} (column {e.colno}).", path=path, line=e.lineno) from None
    except ValueError as e:
        raise InputError(f"{e}.", path=path) from None
    if not isinstance(obj, dict) or not all(isinstance(v, dict) for v in obj.values()):
        raise InputError(f"expected a JSON object {{question_id: {{doc_id: value}}}} ({what}).", path=path)
    return obj


def _check_id(value, path, what):
    if not value.strip() or trec.FORBIDDEN.search(value) or any(c in value for c in " \t\n"):
        raise InputError(f"{what} {value!r} is empty or holds whitespace or control characters.", path=path)


def read_qrels_file(path, fmt: str = "auto") -> pd.DataFrame:
    """Qrels in any format (module docstring) as ``question_id, doc_id, relevance, line``."""
    import pandas as pd

    check_choice(fmt, QRELS_FORMATS, "qrels format", what="", field="qrels_format")
    fmt = detect_format(path, "qrels file") if fmt == "auto" else fmt
    if fmt == "trec":
        return trec.read_qrels(path)
    rows = []
    if fmt == "json":
        for qid, docs in _json(path, "qrels (JSON)").items():
            _check_id(qid, path, "question ID")
            for doc, rel in docs.items():
                _check_id(doc, path, f"question {qid!r}: document ID")
                if isinstance(rel, bool) or not isinstance(rel, numbers.Integral):
                    raise InputError(f"question {qid!r}, document {doc!r}: relevance {rel!r} is not an integer.",
                                     path=path, field="relevance")
                rows.append((qid, doc, int(rel), 0))
    else:  # beir
        lines = trec.read_text(path, "BEIR qrels", "'query-id<TAB>corpus-id<TAB>score'")
        header = lines[0].split("\t") if lines else []
        if [h.strip().lower() for h in header][:1] not in (["query-id"], ["query_id"], ["qid"]) or len(header) != 3:
            raise InputError(f"expected the BEIR header 'query-id<TAB>corpus-id<TAB>score', got {lines[0]!r}.",
                             path=path, line=1)
        for lineno, line in enumerate(lines[1:], start=2):
            if not line.strip():
                continue
            fields = [f.strip(" ") for f in line.split("\t")]
            if len(fields) != 3 or not fields[0] or not fields[1]:
                raise InputError(f"expected 3 tab-separated fields 'query-id<TAB>corpus-id<TAB>score', got {line!r}.",
                                 path=path, line=lineno)
            rows.append((fields[0], fields[1], trec.parse_int(fields[2], "score", path=path, line=lineno), lineno))
    if not rows:
        raise InputError("no judgment found; expected qrels.", path=path)
    df = pd.DataFrame(rows, columns=["question_id", "doc_id", "relevance", "line"])
    trec.check_duplicates(df, path, "doc_id")
    df.attrs["path"] = str(path)
    return df


def read_run_file(path, fmt: str = "auto", *, order_by: str = "score") -> pd.DataFrame:
    """A run in any format (module docstring) as ``question_id, doc_id, rank, score, line, file_rank``."""
    import pandas as pd

    check_choice(fmt, RUN_FORMATS, "run format", what="", field="run_format")
    fmt = detect_format(path, "run file") if fmt == "auto" else fmt
    if fmt == "trec":
        return trec.read_run(path, order_by=order_by)
    check_choice(order_by, trec.ORDER_BY, "order_by")
    rows = []
    for qid, docs in _json(path, "run (JSON)").items():
        _check_id(qid, path, "question ID")
        for position, (doc, score) in enumerate(docs.items(), start=1):
            _check_id(doc, path, f"question {qid!r}: document ID")
            if isinstance(score, bool) or not isinstance(score, numbers.Real) or not math.isfinite(score):
                raise InputError(f"question {qid!r}, document {doc!r}: score {score!r} is not a finite number.",
                                 path=path, field="score")
            rows.append((qid, doc, position, float(score), 0))
    if not rows:
        raise InputError("no result found; expected a run.", path=path)
    df = pd.DataFrame(rows, columns=["question_id", "doc_id", "file_rank", "score", "line"])
    out = trec.order_run(df, order_by=order_by, path=path)
    out.attrs["path"] = str(path)
    return out
