"""The measure registry: one entry per measure family, and the one parser of measure names.

An entry (:class:`MeasureSpec`) holds everything the rest of the package needs to know about a
family: its canonical name and the spellings users type, whether a cutoff ``@k`` is required,
allowed or forbidden, whether the value is undefined (``None``) when a question has no relevant
gold, its per-question reference function (:mod:`rag_metrics.measures.metrics`, the readable
definition) and its array kernel (computed for all questions at once from the judged rows, see
:mod:`rag_metrics.measures.engine`). Parsing, the engine, the command-line help and README's
measure table all read :data:`REGISTRY`; adding a measure is one entry here (kernel included),
its definition in ``metrics.py`` and its tests.

Names are case-insensitive: ``recall@5``, ``P@10``, ``nDCG@10``, ``mrr``, ``RR@10``, ``map``.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from ..errors import InputError
from . import metrics

if TYPE_CHECKING:  # pragma: no cover
    from .engine import Judged

__all__ = ["Measure", "MeasureSpec", "REGISTRY", "parse_measure", "parse_measures", "DEFAULT_MEASURES",
           "MEASURE_NAMES", "measure_table"]

CUTOFFS = ("required", "allowed", "forbidden")


@dataclass(frozen=True, order=True)
class Measure:
    """A measure and its cutoff; ``str(m)`` gives the canonical name (``"ndcg@10"``, ``"mrr"``).

    Usable as a dict key; ``parse_measure(str(m)) == m``.
    """

    name: str
    k: int | None = None

    def __str__(self) -> str:
        return self.name if self.k is None else f"{self.name}@{self.k}"

    @property
    def spec(self) -> MeasureSpec:
        return REGISTRY[self.name]


@dataclass(frozen=True)
class MeasureSpec:
    """One measure family.

    Attributes
    ----------
    name : canonical name, printed in every output.
    aliases : other spellings accepted by :func:`parse_measure` (lower case).
    cutoff : ``"required"``, ``"allowed"`` (without it: the whole ranking) or ``"forbidden"``.
    undefined_without_relevant : the value is ``None``/NaN for a question with no relevant gold.
    reference : the per-question definition, ``reference(ranked, gold, k, min_rel=..., [gain=...])``.
    kernel : ``kernel(judged, k) -> float array`` over all questions (:class:`~rag_metrics.measures.engine.Judged`).
    uses_gain : the reference and kernel depend on the ``gain`` option.
    trec_eval : trec_eval's names without and with a cutoff (``{k}`` marks it), ``None`` where it has none.
    summary : one line for the command-line help and README.
    """

    name: str
    aliases: tuple[str, ...]
    cutoff: str
    undefined_without_relevant: bool
    reference: Callable
    kernel: Callable[[Judged, int | None], np.ndarray]
    summary: str
    uses_gain: bool = False
    trec_eval: tuple[str | None, str | None] = (None, None)

    def reference_value(self, ranked, gold, k: int | None, *, min_rel=1, gain: str = "linear") -> float | None:
        """The per-question reference value (``None`` where undefined)."""
        options = {"min_rel": min_rel, **({"gain": gain} if self.uses_gain else {})}
        if self.cutoff == "forbidden":
            return self.reference(ranked, gold, **options)
        return self.reference(ranked, gold, k, **options)

    def trec_name(self, k: int | None) -> str | None:
        """trec_eval's name for this measure at cutoff ``k`` (``None`` if trec_eval has no such measure)."""
        name = self.trec_eval[0 if k is None else 1]
        return None if name is None else name.format(k=k)

    def display(self) -> str:
        """``recall@k``, ``mrr[@k]`` or ``rprec`` -- how the name is written."""
        return {"required": f"{self.name}@k", "allowed": f"{self.name}[@k]", "forbidden": self.name}[self.cutoff]


# ---- kernels: each computes one family for every question at once (see engine.Judged) ----

def _recall(j: Judged, k):
    return j.per_q(j.rq[j.within(k)]) / j.n_rel_safe


def _precision(j: Judged, k):
    return j.per_q(j.rq[j.within(k)]) / k


def _hit(j: Judged, k):
    return (j.per_q(j.rq[j.within(k)]) > 0).astype(np.float64)


def _mrr(j: Judged, k):
    first = j.first_relevant
    mask = j.within(k, first)
    return j.per_q(j.rq[first][mask], 1.0 / j.rj[first][mask])


def _ndcg(j: Judged, k):
    mask = j.within(k)
    dcg = j.per_q(j.rq[mask], j.rgain[mask] / np.log2(j.rj[mask] + 1.0))
    imask = slice(None) if k is None else j.ideal_rank <= k
    idcg = j.per_q(j.ideal_q[imask], j.ideal_discounted[imask])
    return dcg / np.where(idcg > 0, idcg, 1.0)


def _map(j: Judged, k):
    mask = j.within(k)
    return j.per_q(j.rq[mask], j.rord[mask] / j.rj[mask]) / j.n_rel_safe


def _rprec(j: Judged, k):
    rank = j.rp if j.order == "cut_then_dedup" else j.rj
    return j.per_q(j.rq[rank <= j.n_rel[j.rq]]) / j.n_rel_safe


_SPECS = (
    MeasureSpec("recall", ("r",), "required", True, metrics.recall_at_k, _recall,
                "share of the relevant gold IDs found in the top k", trec_eval=(None, "recall_{k}")),
    MeasureSpec("precision", ("p",), "required", False, metrics.precision_at_k, _precision,
                "relevant IDs in the top k, divided by k (also with fewer than k results)", trec_eval=(None, "P_{k}")),
    MeasureSpec("hit", ("success", "hit_rate", "hitrate"), "required", True, metrics.hit_at_k, _hit,
                "1 if a relevant ID is in the top k, else 0", trec_eval=(None, "success_{k}")),
    MeasureSpec("mrr", ("rr", "recip_rank"), "allowed", True, metrics.reciprocal_rank, _mrr,
                "reciprocal rank of the first relevant ID (0 if none; within the top k with @k)",
                trec_eval=("recip_rank", None)),
    MeasureSpec("ndcg", (), "allowed", True, metrics.ndcg_at_k, _ndcg,
                "normalized discounted cumulative gain, graded (linear gain by default)", uses_gain=True,
                trec_eval=("ndcg", "ndcg_cut_{k}")),
    MeasureSpec("map", ("ap",), "allowed", True, metrics.average_precision, _map,
                "average precision, divided by all relevant gold IDs", trec_eval=("map", "map_cut_{k}")),
    MeasureSpec("rprec", ("r_precision",), "forbidden", True, metrics.r_precision, _rprec,
                "precision at rank R, R = the number of relevant gold IDs", trec_eval=("Rprec", None)),
)

REGISTRY: dict[str, MeasureSpec] = {spec.name: spec for spec in _SPECS}
_ALIASES = {alias: spec.name for spec in _SPECS for alias in (spec.name, *spec.aliases)}
MEASURE_NAMES = tuple(REGISTRY)
_PATTERN = re.compile(r"\s*([a-z_]+)\s*(?:@\s*([0-9]+))?\s*", re.ASCII)


def _expected() -> str:
    return "expected one of " + ", ".join(spec.display() for spec in _SPECS) + " (k an int >= 1)"


def parse_measure(text) -> Measure:
    """Parse one measure name (case-insensitive), e.g. ``"recall@5"``, ``"P@10"``, ``"nDCG@10"``, ``"mrr"``.

    A cutoff is required for ``recall``, ``precision``, ``hit``; optional for ``mrr``, ``ndcg``,
    ``map`` (without it the whole ranking counts). ``k`` is written in ASCII digits.
    An unknown name raises :class:`~rag_metrics.InputError` listing the close matches.

    >>> parse_measure("nDCG@10"), str(parse_measure("success@5"))
    (Measure(name='ndcg', k=10), 'hit@5')
    """
    if isinstance(text, Measure):
        return text
    if not isinstance(text, str):
        raise InputError(f"Measure names are strings such as 'recall@5'. Got {text!r} instead.")
    match = _PATTERN.fullmatch(text.lower())
    if not match or match.group(1) not in _ALIASES:
        word = match.group(1) if match else text.lower().split("@")[0].strip()
        close = difflib.get_close_matches(word, list(_ALIASES), n=3, cutoff=0.6)
        hint = f" Did you mean {', '.join(repr(_ALIASES[c]) for c in dict.fromkeys(close))}?" if close else ""
        raise InputError(f"Unknown measure {text!r}: {_expected()}.{hint}")
    spec = REGISTRY[_ALIASES[match.group(1)]]
    k = int(match.group(2)) if match.group(2) is not None else None
    if k is not None and k < 1:
        raise InputError(f"Measure {text!r}: the cutoff must be an int >= 1. Got {k} instead.")
    if k is None and spec.cutoff == "required":
        raise InputError(f"Measure {text!r} needs a cutoff, e.g. {spec.name}@10.")
    if k is not None and spec.cutoff == "forbidden":
        raise InputError(f"Measure {text!r}: {spec.name} takes no cutoff; write {spec.name}.")
    return Measure(spec.name, k)


def parse_measures(texts) -> tuple[Measure, ...]:
    """Parse several names; duplicates (after canonicalisation) are kept once, in first order."""
    if isinstance(texts, (str, Measure)):
        texts = [texts]
    out: list[Measure] = []
    for text in texts:
        m = parse_measure(text)
        if m not in out:
            out.append(m)
    if not out:
        raise InputError("No measure given: expected at least one name such as 'recall@5'.")
    return tuple(out)


def measure_table() -> str:
    """README's measure table (a Markdown table), generated from the registry; a test keeps README in sync."""
    rows = ["| measure | also accepted | no relevant gold | trec_eval | definition |", "|---|---|---|---|---|"]
    for spec in _SPECS:
        aliases = ", ".join(f"`{a}`" for a in spec.aliases) or "-"
        undefined = "`None`" if spec.undefined_without_relevant else "0.0"
        trec = ", ".join(f"`{n.replace('{k}', 'k')}`" for n in spec.trec_eval if n) or "-"
        rows.append(f"| `{spec.display()}` | {aliases} | {undefined} | {trec} | {spec.summary} |")
    return "\n".join(rows)


DEFAULT_MEASURES = parse_measures(["recall@5", "precision@5", "hit@5", "mrr", "ndcg@10", "map"])
