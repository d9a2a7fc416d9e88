"""A labelling sheet for a team's own answers: a random sample of judged claims for people to label supported or not.

The support judge's agreement with people is measured on the project's labelled set (``data/support/claims.jsonl``),
which is not the team's data. This sheet measures it on the team's own answers, as ``labels sample`` does for
pages (:func:`rag_metrics.labels.judging_sheet.judging_sample`):

1. :func:`claims_sample` draws ``n`` of the claims a judge judged (a seeded simple random sample, in the diagnosis'
   order), one row each (:data:`SHEET_COLUMNS`): the question, the claim, the items the answer was made from
   (``context``) and the span the judge found -- the supporting one, or the closest -- with its document and page.
   The judge's verdict is **not** on the sheet (as the assessor's grades are not on a judging sheet): people who
   see it agree with it more often, and the agreement measured would be the judge's influence.
2. People write ``supported`` yes or no for every row -- judged against the whole context, not only the span --,
   and may name the claim's ``kind`` (:data:`~rag_metrics.experiment.answer_support.SUPPORT_KINDS`) and ``why``.
3. :func:`read_support_sheet` reads it back against the same judged claims (re-judged by ``rag-metrics answers
   assess``): a claim that is not among them -- the answers, the judge or ``--context-k`` changed since the sheet was
   drawn -- or whose text differs (compared in Unicode NFC: a spreadsheet may save ``で`` as ``て`` and a combining
   mark) is refused, naming file, line and field;
   :func:`~rag_metrics.experiment.answer_support.sheet_agreement` gives the judge's Cohen's kappa with its interval (per
   kind where the sheet names kinds) and the prediction-powered supported-claim rate over every judged claim.

**The settings a sheet was drawn under** (:data:`SETTINGS`: the generator, ``context_k`` and the judge) are written
on every row, in the last columns (the sheet stays one table a spreadsheet opens); a sheet read under other
settings is refused, naming both values -- people labelled each claim against the context the generator read at
that ``context_k``, and a judge measured against them must judge the same context. A sheet without these columns
(written before they were) is read as before, unchecked, and :func:`read_support_sheet` says so
(``attrs["settings_checked"]`` False).

Written with the review files' writer (:func:`~rag_metrics.golden.review_file.write_review`: CSV with a byte-order
mark, formula-like cells neutralized, or JSON lines) and read with the one sheet reader
(:func:`~rag_metrics.io.sheets.read_sheet`): every cell reads back as written.
"""

from __future__ import annotations

import unicodedata
from pathlib import Path

import numpy as np
import pandas as pd

from rag_metrics.experiment.answer_support import SUPPORT_KINDS, diagnose_answers, judge_tasks
from rag_metrics.core.errors import InputError, check_int
from rag_metrics.io.csvfile import read_rows
from rag_metrics.io.sheets import NO, YES, read_sheet, text_cell, yes_no
from rag_metrics.golden.review_file import write_review

__all__ = ["SHEET_COLUMNS", "SETTINGS", "judged_claims", "claims_sample", "write_support_sheet", "read_support_sheet",
           "judge_claims", "claim_tasks"]

SHEET_COLUMNS = ["claim_id", "question_id", "question", "claim", "supported", "kind", "why", "context", "doc_id",
                 "page", "span"]
SETTINGS = ("generator", "context_k", "judge")
"""The settings a sheet is drawn under, written as its last columns (module docstring)."""
_YES, _NO = YES | {"supported"}, NO | {"not supported", "unsupported"}


def claim_tasks(golden, answers: pd.DataFrame, corpus, *, context_k: int = 3) -> list:
    """What :func:`judge_claims` asks an LLM judge -- the support of each claim, never the answer's correctness --,
    for its cost estimate before any call."""
    return [t for t in judge_tasks(golden, answers, corpus, context_k=context_k) if t[0] == "support"]


def judge_claims(golden, answers: pd.DataFrame, corpus, judge, *, context_k: int = 3):
    """``(diagnosis, judged claims)`` of one generator's ``answers``: every claim judged for support in the top
    ``context_k`` items by ``judge``. Correctness is not on a sheet, so it is not asked of an LLM judge (a constant
    stands in for it; the diagnosis' correctness columns mean nothing here)."""
    diagnosis = diagnose_answers(golden, answers, corpus, judge=judge, correctness=lambda answer, expected: False,
                                 context_k=context_k)
    return diagnosis, judged_claims(diagnosis)


def judged_claims(diagnosis) -> pd.DataFrame:
    """The claims a judge gave a verdict (a claim with nothing to judge -- no content word, no number -- has none),
    in the diagnosis' order: claim_id, question_id, claim, supported (the judge's), doc_id, page, span, context."""
    claims = diagnosis.claims
    judged = claims[claims["supported"].notna()].copy()
    judged["supported"] = [bool(v) for v in judged["supported"]]
    judged["context"] = judged["question_id"].map(diagnosis.records["context"])
    return judged.reset_index(drop=True)


def claims_sample(diagnosis, questions: pd.Series, n: int, *, seed: int = 0) -> pd.DataFrame:
    """A labelling sheet (:data:`SHEET_COLUMNS`): ``n`` of the judged claims (:func:`judged_claims`) drawn at random
    without replacement (``seed``), ``supported``, ``kind`` and ``why`` empty. ``questions``: question text by
    question_id (the golden set's)."""
    n = check_int(n, "n", low=2, func="claims_sample")
    seed = check_int(seed, "seed", low=0, func="claims_sample")
    judged = judged_claims(diagnosis)
    if n > len(judged):
        raise InputError(f"claims_sample: {n} claims asked, the judge judged {len(judged)}.")
    chosen = np.sort(np.random.default_rng(seed).choice(len(judged), size=n, replace=False))
    rows = judged.iloc[chosen]
    sheet = pd.DataFrame({"claim_id": list(rows["claim_id"]), "question_id": list(rows["question_id"]),
                          "question": [questions.get(q) for q in rows["question_id"]], "claim": list(rows["claim"]),
                          "supported": None, "kind": None, "why": None, "context": list(rows["context"]),
                          "doc_id": [d if isinstance(d, str) else None for d in rows["doc_id"]],
                          "page": None, "span": [s if isinstance(s, str) else None for s in rows["span"]]},
                         columns=SHEET_COLUMNS)
    sheet["page"] = pd.Series([None if p is None or p != p else int(p) for p in rows["page"]], dtype=object,
                              index=sheet.index)  # ints, None: no "2.0"
    return sheet


def _cell(value) -> str | None:
    """A cell as text; an empty cell, None and a missing value (NaN, pd.NA) alike as None."""
    if value is None or value is pd.NA or (isinstance(value, float) and value != value) or value == "":
        return None
    return str(value)


def write_support_sheet(sheet: pd.DataFrame, path, *, settings: dict | None = None) -> Path:
    """Write the sheet (CSV, or JSON lines by extension) and read it back: every cell must read back as written.
    ``settings``: what it was drawn under (:data:`SETTINGS`), written on every row as its last columns."""
    if settings is not None:
        missing = [k for k in SETTINGS if k not in settings]
        if missing:
            raise InputError(f"write_support_sheet: settings {missing} missing; expected {list(SETTINGS)}.")
        sheet = sheet.assign(**{k: str(settings[k]) for k in SETTINGS})
    path = write_review(sheet, path)
    _, rows = read_rows(path, jsonl="a labelling sheet (JSON lines)", csv_what="a labelling sheet")
    want = [{c: _cell(v) for c, v in row.items()} for row in sheet.to_dict("records")]
    got = [{c: _cell(v) for c, v in row.items()} for _, row in rows]
    if got != want:  # pragma: no cover - writer and reader are each other's inverse (tests/test_support_sheet.py)
        raise AssertionError(f"{path} does not read back as written")
    return path


def _nfc(text: str) -> str:
    return unicodedata.normalize("NFC", text.strip())


def read_support_sheet(path, judged: pd.DataFrame, *, settings: dict | None = None) -> pd.DataFrame:
    """A filled labelling sheet read against the judged claims (:func:`judged_claims`): one row per labelled claim,
    claim_id, human (bool), kind (or None), why (or None), line. Every row needs ``supported`` yes or no; a claim
    not among ``judged``, a claim text that differs from the judged one (in NFC), a claim listed twice, an unknown
    kind and a sheet without rows are refused with the file, line and field (nothing is written before).
    ``settings``: those the claims were judged under now (:data:`SETTINGS`); a sheet that records others is refused
    naming both. ``attrs["settings_checked"]``: whether the sheet records its settings (an older one does not)."""
    path = Path(path)
    columns, rows = read_sheet(path, expected="the sheet of `rag-metrics answers sample`",
                               required=("claim_id", "supported"), key="claim_id", label="claim_id", noun="claim")
    texts = dict(zip(judged["claim_id"], judged["claim"]))
    recorded = settings is not None and all(k in columns for k in SETTINGS)
    partly = [k for k in SETTINGS if k not in columns]
    if settings is not None and not recorded and len(partly) < len(SETTINGS):
        raise InputError(f"missing column(s) {partly}: the sheet records the settings it was drawn with in "
                         f"{list(SETTINGS)}; keep all of them.", path=path, line=1)
    out = []
    for line, cid, row in rows:
        for key in SETTINGS if recorded else ():
            drawn, now = ("" if row.get(key) is None else str(row[key]).strip()), str(settings[key])
            if drawn != now:
                raise InputError(f"{key}: the sheet was drawn with {key} {drawn or '(empty)'}, not {now} as now; read "
                                 f"it under the settings it was drawn with, or draw a new sheet.", path=path,
                                 line=line, field=key)
        if cid not in texts:
            raise InputError(f"claim_id {cid!r} is not among the {len(texts)} claims judged now: were the answers, the "
                             "judge or --context-k changed since the sheet was drawn?", path=path, line=line,
                             field="claim_id")
        claim = row.get("claim")
        if text_cell(claim) is not None and _nfc(claim) != _nfc(texts[cid]):
            raise InputError(f"claim {cid!r}: the 'claim' cell reads {claim.strip()[:80]!r} but the answers judged "
                             f"now say {texts[cid][:80]!r}: the answers changed since the sheet was drawn.", path=path,
                             line=line, field="claim")
        value = row.get("supported")
        human = yes_no(value, _YES, _NO)
        if human is None:
            raise InputError(f"claim {cid!r}: 'supported' is {value!r}; write yes or no.", path=path, line=line,
                             field="supported")
        kind = text_cell(row.get("kind"))
        if kind is not None and kind not in SUPPORT_KINDS:
            raise InputError(f"claim {cid!r}: 'kind' is {kind!r}; leave it empty or write one of "
                             f"{list(SUPPORT_KINDS)}.",
                             path=path, line=line, field="kind")
        out.append({"claim_id": cid, "human": human, "kind": kind, "why": text_cell(row.get("why")), "line": line})
    table = pd.DataFrame({c: pd.Series([r[c] for r in out], dtype=object if c in ("kind", "why") else None)
                          for c in ("claim_id", "human", "kind", "why", "line")})  # None stays None (pandas 3)
    table.attrs["settings_checked"] = recorded
    return table
