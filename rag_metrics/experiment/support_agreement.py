"""Support judges measured against people: on a human-labelled support set (:func:`read_support_set`,
:func:`measure_judges`) and on a sample of a team's own judged claims (:func:`sheet_agreement`). The rules are in
:mod:`rag_metrics.experiment.answer_support`'s docstring; the functions are also importable from there."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd

from rag_metrics.core.errors import InputError
from rag_metrics.experiment.answer_diagnoses import SUPPORT_KINDS, plain_value
from rag_metrics.io.jsonl import iter_jsonl
from rag_metrics.answers.support import context_passages
from rag_metrics.stats.agreement import (MIN_ITEMS, MIN_KAPPA, Kappa, PPIEstimate, cohen_kappa, headline_refusal, ppi_mean,
                                         rate_interval)

__all__ = ["read_support_set", "SupportAgreement", "support_set_tasks", "measure_judges", "SheetAgreement",
           "sheet_agreement"]


def read_support_set(path, *, corpus=None) -> pd.DataFrame:
    """A labelled support set (``data/support/README.md`` gives the fields); every problem names file, line, field.
    With ``corpus``, each context page is checked to be a page of a document it holds."""
    path = Path(path)
    n_pages = None if corpus is None else corpus.documents["n_pages"].to_dict()
    rows, seen = [], set()
    for line, obj in iter_jsonl(path, "labelled support claims (JSON lines)"):
        def bad(field_, expected):
            raise InputError(f"field {field_!r}: expected {expected}, got {obj.get(field_)!r}.", path=path, line=line)
        if not isinstance(obj.get("claim_id"), str) or not obj["claim_id"]:
            bad("claim_id", "a non-empty string")
        if obj["claim_id"] in seen:
            bad("claim_id", "an ID not used on an earlier line")
        seen.add(obj["claim_id"])
        if not isinstance(obj.get("claim"), str) or not obj["claim"].strip():
            bad("claim", "the claim's text")
        if obj.get("kind") not in SUPPORT_KINDS:
            bad("kind", f"one of {list(SUPPORT_KINDS)}")
        if obj.get("language") not in ("en", "ja"):
            bad("language", "'en' or 'ja'")
        if not isinstance(obj.get("supported"), bool):
            bad("supported", "true or false")
        ctx = obj.get("context")
        if not isinstance(ctx, list) or not ctx or not all(
                isinstance(c, list) and len(c) == 2 and isinstance(c[0], str) and isinstance(c[1], int)
                and not isinstance(c[1], bool) for c in ctx):
            bad("context", "a non-empty list of [doc_id, page] pairs")
        for doc, page in ctx if n_pages is not None else ():
            who = dict(path=path, line=line, field="context")
            if doc not in n_pages:
                raise InputError(f"claim {obj['claim_id']!r}: context document {doc!r} is not in the corpus.", **who)
            if not 1 <= page <= n_pages[doc]:
                where = f"beyond its last page ({n_pages[doc]})" if page > n_pages[doc] else "not a page (from 1)"
                raise InputError(f"claim {obj['claim_id']!r}: context page {page} of {doc!r} is {where}.", **who)
        span = obj.get("span")
        if obj["supported"] != isinstance(span, dict):
            bad("span", "an object {doc_id, page, text} exactly when supported is true")
        rows.append({"claim_id": obj["claim_id"], "language": obj["language"], "kind": obj["kind"],
                     "claim": obj["claim"], "context": [tuple(c) for c in ctx], "supported": obj["supported"],
                     "span": json.dumps(span, ensure_ascii=False) if span else None})
    return pd.DataFrame(rows)


@dataclass(frozen=True)
class SupportAgreement:
    """Judges' verdicts on a labelled support set (:func:`measure_judges`). ``verdicts``: claim_id, language, kind,
    human, one column per judge. ``kappas``: judge -> :class:`~rag_metrics.stats.agreement.Kappa`. A judge is usable
    for headline figures under the package's one rule (:func:`~rag_metrics.stats.agreement.headline_refusal`: at
    least ``min_items`` claims, the lower end of kappa's interval at or above ``min_kappa``)."""

    verdicts: pd.DataFrame
    kappas: dict
    min_kappa: float = MIN_KAPPA
    min_items: int = MIN_ITEMS

    def summary(self) -> pd.DataFrame:
        """Per judge: claims, accuracy, Cohen's kappa and its interval, and whether it may move a headline."""
        rows = []
        for name, k in self.kappas.items():
            acc = float((self.verdicts[name] == self.verdicts["human"]).mean())
            rows.append({"Judge": name, "Claims": k.n, "Accuracy": acc, "Kappa": k.kappa, "Low": k.low,
                         "High": k.high, "Usable for headlines": self.usable(name)})
        return pd.DataFrame(rows)

    def by_kind(self) -> pd.DataFrame:
        """Accuracy of each judge per kind of claim (rows: kinds in :data:`SUPPORT_KINDS` order, with counts)."""
        v = self.verdicts
        out = v.groupby("kind").size().rename("Claims").to_frame()
        for name in self.kappas:
            out[name] = (v[name] == v["human"]).groupby(v["kind"]).mean()
        return out.reindex([k for k in SUPPORT_KINDS if k in out.index])

    def refusal(self, judge: str) -> str | None:
        """Why ``judge`` may not move a headline figure, or None when it may (the package's one rule)."""
        return headline_refusal(self.kappas[judge], min_kappa=self.min_kappa, min_items=self.min_items)

    def usable(self, judge: str) -> bool:
        return self.refusal(judge) is None

    def require(self, judge: str, *, force: bool = False) -> None:
        """Refuse a judge below the stated agreement for headline figures, unless ``force``."""
        if judge not in self.kappas:
            raise InputError(f"no agreement measured for judge {judge!r}; measured: {list(self.kappas)}.")
        if not self.usable(judge) and not force:
            raise InputError(f"judge {judge!r} against people: {self.refusal(judge)}: refused for headline figures "
                             "(force to use it anyway).")


def support_set_tasks(claims: pd.DataFrame, corpus) -> list:
    """``("support", claim, passages)`` for every claim of a labelled support set (:func:`read_support_set`), with
    the claim's own context pages: what :func:`measure_judges` asks each judge (an LLM judge's cost estimate)."""
    return [("support", claim, context_passages([{"doc_id": d, "pages": [p]} for d, p in ctx], corpus))
            for claim, ctx in zip(claims["claim"], claims["context"])]


def measure_judges(claims: pd.DataFrame, corpus, judges: dict, *, min_kappa: float = MIN_KAPPA,
                   seed: int = 0, min_items: int = MIN_ITEMS) -> SupportAgreement:
    """Run each judge (name -> judge with ``judge(claim, passages)``) on every labelled claim, with the claim's own
    context pages (:func:`support_set_tasks`), and measure it against the human labels."""
    verdicts = claims[["claim_id", "language", "kind"]].copy()
    verdicts["human"] = claims["supported"].astype(bool).to_numpy()
    tasks = support_set_tasks(claims, corpus)
    kappas = {}
    for name, judge in judges.items():
        said = [bool(judge.judge(claim, passages)["supported"]) for _, claim, passages in tasks]
        verdicts[name] = said
        kappas[name] = cohen_kappa(verdicts["human"].to_numpy(), np.array(said), seed=seed)
    return SupportAgreement(verdicts, kappas, min_kappa, min_items)


# --- a team's own answers: a random sample of claims labelled by people, the judge measured on it --------------------

@dataclass(frozen=True)
class SheetAgreement:
    """A support judge measured on a random sample of a team's own claims (:func:`sheet_agreement`).

    ``items``: claim_id, kind (None when the sheet leaves it empty), human, judge -- the sampled claims. ``judged``:
    the judge's verdict on every judged claim (index claim_id). ``kappa``: Cohen's kappa with its interval;
    ``ppi``: the prediction-powered supported-claim rate over all judged claims
    (:func:`~rag_metrics.stats.agreement.ppi_mean`); ``judge_rate``: the judge's own supported share over all of
    them with its Clopper--Pearson interval, ``(mean, low, high, n)``. ``usable``: the package's one rule
    (:func:`~rag_metrics.stats.agreement.headline_refusal`: at least ``min_items`` claims, the lower end of kappa's
    interval at or above ``min_kappa``).
    """

    items: pd.DataFrame
    judged: pd.Series
    kappa: Kappa
    ppi: PPIEstimate
    judge_rate: tuple
    judge: str = "offline"
    min_kappa: float = MIN_KAPPA
    min_items: int = MIN_ITEMS

    @property
    def accuracy(self) -> float:
        return float((self.items["human"] == self.items["judge"]).mean())

    @property
    def usable(self) -> bool:
        return headline_refusal(self.kappa, min_kappa=self.min_kappa, min_items=self.min_items) is None

    def rates(self) -> pd.DataFrame:
        """The supported-claim rate three ways, each with its 95% interval: the judge alone over every judged claim
        (its interval covers the sampling of claims only, not the judge's errors), the people's sample alone, and
        prediction-powered (the judge's rate corrected by the sample: unbiased whatever the judge's quality)."""
        p, (jm, jl, jh, jn) = self.ppi, self.judge_rate
        rows = [("judge only, every judged claim", jm, jl, jh, jn),
                ("people's sample only", p.human_mean, p.human_low, p.human_high, p.n),
                ("prediction-powered (PPI)", p.estimate, p.low, p.high, p.N)]
        return pd.DataFrame(rows, columns=["Supported-claim rate", "Rate", "Low", "High", "Claims"])

    def by_kind(self) -> pd.DataFrame:
        """Per kind the sheet names (:data:`SUPPORT_KINDS` order): claims, accuracy, Cohen's kappa and its interval
        (None where undefined: fewer than 2 claims, or every claim in one class on both sides). Empty when the sheet
        names no kind."""
        rows = []
        known = self.items[self.items["kind"].notna()]
        for kind in [k for k in SUPPORT_KINDS if k in set(known["kind"])]:
            part = known[known["kind"] == kind]
            k = cohen_kappa(part["human"], part["judge"]) if len(part) >= 2 else None
            rows.append({"Kind": kind, "Claims": len(part),
                         "Accuracy": float((part["human"] == part["judge"]).mean()),
                         "Kappa": None if k is None else k.kappa, "Low": None if k is None else k.low,
                         "High": None if k is None else k.high})
        return pd.DataFrame(rows, columns=["Kind", "Claims", "Accuracy", "Kappa", "Low", "High"])

    def verdict(self) -> str:
        """One sentence on the judge's agreement, true for the numbers it states."""
        k = self.kappa
        if k.kappa is None:
            return (f"kappa is undefined on these {k.n} claims (people and the judge put every claim in the same "
                    "one class): the sheet cannot say how far the judge agrees with people")
        reasons = []
        if k.low < self.min_kappa:
            reasons.append(f"the interval's lower end below the stated {self.min_kappa:g}"
                           + (" (the point estimate clears it)" if k.kappa >= self.min_kappa else ""))
        if k.n < self.min_items:
            reasons.append(f"fewer than the {self.min_items} claims needed")
        where = ("not usable for headline figures: " + " and ".join(reasons) if reasons else
                 f"the interval's lower end at or above the stated {self.min_kappa:g}: usable for headline figures")
        return (f"the {self.judge} judge agrees with people at kappa {k.kappa:.3f} [{k.low:.3f}, {k.high:.3f}] on "
                f"{k.n} claims, {where}")

    def to_dict(self) -> dict:
        return {"judge": self.judge, "claims_labelled": int(len(self.items)), "claims_judged": int(len(self.judged)),
                "accuracy": self.accuracy, "kappa": self.kappa.to_dict(), "usable": self.usable,
                "min_kappa": self.min_kappa, "verdict": self.verdict(), "ppi": self.ppi.to_dict(),
                "judge_rate": dict(zip(("mean", "low", "high", "n"), self.judge_rate)),
                "by_kind": json.loads(self.by_kind().to_json(orient="records")),
                "items": [{k: plain_value(v) for k, v in row.items()} for row in self.items.to_dict("records")]}


def sheet_agreement(human: pd.Series, judged: pd.Series, *, kinds: pd.Series | None = None, judge: str = "offline",
                    min_kappa: float = MIN_KAPPA, confidence: float = 0.95, n_resamples: int = 2000,
                    seed: int = 0, min_items: int = MIN_ITEMS) -> SheetAgreement:
    """A support judge against people on a random sample of claims, and the supported-claim rate it allows.

    ``human``: the people's label (bool) of each sampled claim, index claim_id; ``judged``: the judge's verdict
    (bool) on every judged claim, index claim_id -- the sample must be drawn from these at random
    (:func:`rag_metrics.labels.support_sheet.claims_sample`), or the prediction-powered rate is biased. ``kinds``:
    the kind of each sampled claim where people named one (:data:`SUPPORT_KINDS`), else None."""
    human = pd.Series(human, dtype=object)
    judged = pd.Series(judged, dtype=object)
    unknown = [c for c in human.index if c not in judged.index]
    if unknown:
        raise InputError(f"claim {unknown[0]!r} was labelled but is not among the {len(judged)} judged claims.")
    if len(human) < 2:
        raise InputError(f"at least 2 labelled claims are needed to measure a judge; got {len(human)}.")
    kind = pd.Series(None, index=human.index, dtype=object) if kinds is None else \
        pd.Series(kinds, dtype=object).reindex(human.index)
    items = pd.DataFrame({"claim_id": list(human.index), "kind": [k if isinstance(k, str) else None for k in kind],
                          "human": [bool(v) for v in human], "judge": [bool(judged[c]) for c in human.index]})
    kappa = cohen_kappa(items["human"], items["judge"], confidence=confidence, n_resamples=n_resamples, seed=seed)
    ppi = ppi_mean(human.astype(float), judged.astype(bool), confidence=confidence)
    return SheetAgreement(items, judged.astype(bool), kappa, ppi, rate_interval(judged.astype(float),
                                                                                    confidence=confidence),
                          judge, min_kappa, min_items)
