"""The measure registry: one entry per measure family, and the one parser of measure names.

An entry (:class:`MeasureSpec`) holds everything the rest of the package needs to know about a
family: its canonical name and the spellings users type, whether a cutoff ``@k`` is required,
allowed or forbidden, whether the value is undefined (``None``) when a question has no relevant
gold, its per-question reference function (:mod:`rag_metrics.measures.metrics`, the readable
definition) and its array kernel (computed for all questions at once from the judged rows, see
:mod:`rag_metrics.measures.arrays`). Parsing, the array kernels, the command-line help and the
measure table of docs/metrics.md all read :data:`REGISTRY`; adding a measure is one entry here (kernel included),
its definition in ``metrics.py`` and its tests.

Names are case-insensitive and accept the spellings of ir_measures and trec_eval:
``recall@5`` = ``R@5`` = ``recall_5``; ``precision@10`` = ``P@10`` = ``P_10``; ``ndcg@10`` = ``nDCG@10`` =
``ndcg_cut_10``; ``mrr`` = ``RR`` = ``recip_rank``; ``map@100`` = ``AP@100`` = ``map_cut_100``; ``hit@5`` =
``Success@5``; ``judged@10`` = ``Judged@10``; ``rprec`` = ``Rprec``; ``hits`` = ``NumRelRet`` = ``num_rel_ret``...
A relevance level goes in the name, as ranx and ir_measures write it: ``ndcg@10(rel=2)`` or
``P(rel=2)@5`` -- the same as ``min_rel=2`` for that measure alone. The canonical name printed in
every output is ``name[(rel=N)][@k]``: ``precision(rel=2)@5``.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from rag_metrics.core.errors import InputError
from rag_metrics.measures import metrics

if TYPE_CHECKING:  # pragma: no cover
    from rag_metrics.measures.arrays import Judged

__all__ = ["Measure", "MeasureSpec", "REGISTRY", "parse_measure", "parse_measures", "measures_at", "DEFAULT_MEASURES",
           "measure_table"]

CUTOFFS = ("required", "allowed", "forbidden")


@dataclass(frozen=True, order=True)
class Measure:
    """A measure, its cutoff and its own relevance level; ``str(m)`` is the canonical name
    (``"ndcg@10"``, ``"mrr"``, ``"precision(rel=2)@5"``). Usable as a dict key; ``parse_measure(str(m)) == m``.
    """

    name: str
    k: int | None = None
    rel: int | None = None

    def __str__(self) -> str:
        rel = "" if self.rel is None else f"(rel={self.rel})"
        return f"{self.name}{rel}" + ("" if self.k is None else f"@{self.k}")

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
    reference : the per-question definition, ``reference(ranked, gold, [k,] min_rel=..., [gain=...])``.
    kernel : ``kernel(judged, k) -> float array`` over all questions (:class:`~rag_metrics.measures.arrays.Judged`);
        it may return NaN where the measure is undefined for another reason (judged@k with nothing retrieved).
    summary : one line for the command-line help and docs/metrics.md.
    uses_gain : the reference and kernel depend on the ``gain`` option.
    uses_rel : the value depends on the relevance level (``(rel=N)`` is accepted).
    count : an integer count (trec_eval's ``all`` line sums it).
    trec_eval : trec_eval's names without and with a cutoff (``{k}`` marks it), ``None`` where it has none.
    ir_measures : ir_measures' name (``{k}`` for the cutoff), ``None`` where it has none.
    """

    name: str
    aliases: tuple[str, ...]
    cutoff: str
    undefined_without_relevant: bool
    reference: Callable
    kernel: Callable[[Judged, int | None], np.ndarray]
    summary: str
    uses_gain: bool = False
    uses_rel: bool = True
    count: bool = False
    trec_eval: tuple[str | None, str | None] = (None, None)
    ir_measures: tuple[str | None, str | None] = (None, None)

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


# ---- kernels: each computes one family for every question at once (see arrays.Judged) ----

def _found(j: Judged, k):
    return j.per_q(j.rq[j.within(k)])


def _recall(j: Judged, k):
    return _found(j, k) / j.n_rel_safe


def _precision(j: Judged, k):
    return _found(j, k) / k


def _hit(j: Judged, k):
    return (_found(j, k) > 0).astype(np.float64)


def _mrr(j: Judged, k):
    first = j.first_relevant
    mask = j.within(k, first)
    return j.per_q(j.rq[first][mask], 1.0 / j.rrank[first][mask])


def _ndcg(j: Judged, k):
    mask = j.within(k)
    dcg = j.per_q(j.rq[mask], j.rgain[mask] / np.log2(j.rrank[mask] + 1.0))
    ideal = j.ideal
    imask = slice(None) if k is None else ideal.rank <= k
    idcg = j.per_q(ideal.q[imask], ideal.discounted[imask])
    return dcg / np.where(idcg > 0, idcg, 1.0)


def _map(j: Judged, k):
    mask = j.within(k)
    return j.per_q(j.rq[mask], j.rord[mask] / j.rrank[mask]) / j.n_rel_safe


def _rprec(j: Judged, k):
    return j.per_q(j.rq[j.rrank <= j.n_rel[j.rq]]) / j.n_rel_safe


def _bpref(j: Judged, k):
    relevant = j.label >= j.min_rel
    nonrel = (j.label >= 0) & ~relevant  # negative labels: "in the pool, not judged" (trec_eval)
    above = j.cumulative_before(nonrel)[relevant].astype(np.float64)
    judged_nonrel = j.per_q(j.gold_q[(j.gold_label >= 0) & (j.gold_label < j.min_rel)])
    r = j.n_rel.astype(np.float64)
    q = j.q[relevant]
    cap = np.maximum(np.minimum(judged_nonrel[q], r[q]), 1.0)  # 0 only when nothing non-relevant was judged
    term = np.where(above > 0, 1.0 - np.minimum(above, r[q]) / cap, 1.0)
    return j.per_q(q, term) / j.n_rel_safe


def _f1(j: Judged, k):
    return 2.0 * _found(j, k) / (k + j.n_rel)


def _sufficiency(j: Judged, k):
    """Every evidence group of the question has a relevant member within k; without groups, hit@k."""
    hit = _hit(j, k)
    if j.group_id is None:
        return hit
    rows = j.within(k)
    keys = np.unique(j.rq[rows] * j.n_items + j.item[j.relevant][rows])
    member_keys = j.group_q * j.n_items + j.group_item
    satisfied = np.isin(member_keys, keys) & (j.group_label >= j.min_rel)
    n_groups = j.per_q(j.group_q[np.unique(j.group_id, return_index=True)[1]])
    sat_ids = np.unique(j.group_id[satisfied])
    group_q_of = np.zeros(int(j.group_id.max(initial=-1)) + 1, dtype=np.int64)
    group_q_of[j.group_id] = j.group_q
    n_satisfied = j.per_q(group_q_of[sat_ids])
    return np.where(n_groups > 0, (n_satisfied == n_groups).astype(np.float64), hit)


def _judged(j: Judged, k):
    n = j.n_within(k)
    judged = j.per_q(j.q[j.within_judged(k)])
    return np.where(n > 0, judged / np.maximum(n, 1.0), np.nan)


def _num_rel(j: Judged, k):
    return j.n_rel.astype(np.float64)


def _num_ret(j: Judged, k):
    return np.asarray(j.n_distinct, dtype=np.float64)


_SPECS = (
    MeasureSpec("recall", ("r",), "required", True, metrics.recall_at_k, _recall,
                "share of the relevant gold IDs found in the top k", trec_eval=(None, "recall_{k}"),
                ir_measures=(None, "R@{k}")),
    MeasureSpec("precision", ("p",), "required", False, metrics.precision_at_k, _precision,
                "relevant IDs in the top k, divided by k (also with fewer than k results)", trec_eval=(None, "P_{k}"),
                ir_measures=(None, "P@{k}")),
    MeasureSpec("hit", ("success", "hit_rate", "hitrate"), "required", True, metrics.hit_at_k, _hit,
                "1 if a relevant ID is in the top k, else 0", trec_eval=(None, "success_{k}"),
                ir_measures=(None, "Success@{k}")),
    MeasureSpec("mrr", ("rr", "recip_rank"), "allowed", True, metrics.reciprocal_rank, _mrr,
                "reciprocal rank of the first relevant ID (0 if none; within the top k with @k)",
                trec_eval=("recip_rank", None), ir_measures=("RR", "RR@{k}")),
    MeasureSpec("ndcg", ("ndcg_cut",), "allowed", True, metrics.ndcg_at_k, _ndcg,
                "normalized discounted cumulative gain, graded (linear gain by default)", uses_gain=True,
                trec_eval=("ndcg", "ndcg_cut_{k}"), ir_measures=("nDCG", "nDCG@{k}")),
    MeasureSpec("map", ("ap", "map_cut"), "allowed", True, metrics.average_precision, _map,
                "average precision, divided by all relevant gold IDs", trec_eval=("map", "map_cut_{k}"),
                ir_measures=("AP", "AP@{k}")),
    MeasureSpec("rprec", ("r_precision",), "forbidden", True, metrics.r_precision, _rprec,
                "precision at rank R, R = the number of relevant gold IDs", trec_eval=("Rprec", None),
                ir_measures=("Rprec", None)),
    MeasureSpec("bpref", (), "forbidden", True, metrics.bpref, _bpref,
                "binary preference: relevant IDs ranked above judged non-relevant ones (robust to missing labels)",
                trec_eval=("bpref", None), ir_measures=("Bpref", None)),
    MeasureSpec("f1", (), "required", True, metrics.f1_at_k, _f1,
                "harmonic mean of precision@k and recall@k", ir_measures=(None, None)),
    MeasureSpec("hits", ("num_rel_ret", "numrelret"), "allowed", False, metrics.hits_at_k, _found,
                "number of relevant IDs retrieved (in the top k with @k)", count=True,
                trec_eval=("num_rel_ret", None), ir_measures=("NumRelRet", None)),
    MeasureSpec("sufficiency", ("suff",), "required", True, metrics.sufficiency_at_k, _sufficiency,
                "1 if every evidence group has a relevant ID in the top k (all groups needed, any ID within a group); "
                "without groups, hit@k", ir_measures=(None, None)),
    MeasureSpec("judged", (), "required", False, metrics.judged_at_k, _judged,
                "share of the top k with any judgment (None if nothing retrieved): low means missing labels",
                uses_rel=False, ir_measures=(None, "Judged@{k}")),
    MeasureSpec("num_rel", ("numrel",), "forbidden", False, metrics.num_relevant, _num_rel,
                "number of relevant gold IDs (R)", count=True, trec_eval=("num_rel", None),
                ir_measures=("NumRel", None)),
    MeasureSpec("num_ret", ("numret",), "forbidden", False, metrics.num_retrieved, _num_ret,
                "number of distinct IDs retrieved", count=True, uses_rel=False, trec_eval=("num_ret", None),
                ir_measures=("NumRet", None)),
)

REGISTRY: dict[str, MeasureSpec] = {spec.name: spec for spec in _SPECS}
_ALIASES = {alias: spec.name for spec in _SPECS for alias in (spec.name, *spec.aliases)}
_REL = r"(?:\(\s*rel\s*=\s*([0-9]+)\s*\))?"
_PATTERN = re.compile(rf"\s*([a-z][a-z0-9_]*?)\s*{_REL}\s*(?:[@_.]\s*([0-9]+))?\s*{_REL}\s*", re.ASCII)


def _expected() -> str:
    return "expected one of " + ", ".join(spec.display() for spec in _SPECS) + " (k an int >= 1)"


def parse_measure(text) -> Measure:
    """Parse one measure name (case-insensitive; spellings in the module docstring).

    A cutoff is required for ``recall``, ``precision``, ``hit``, ``f1``, ``judged``; optional for
    ``mrr``, ``ndcg``, ``map``, ``hits`` (without it the whole ranking counts); forbidden for
    ``rprec``, ``bpref``, ``num_rel``, ``num_ret``. ``k`` and ``rel`` are written in ASCII digits.
    An unknown name raises :class:`~rag_metrics.InputError` listing the close matches.

    >>> parse_measure("nDCG@10"), str(parse_measure("success@5")), str(parse_measure("P(rel=2)@5"))
    (Measure(name='ndcg', k=10, rel=None), 'hit@5', 'precision(rel=2)@5')
    """
    if isinstance(text, Measure):
        return text
    if not isinstance(text, str):
        raise InputError(f"Measure names are strings such as 'recall@5'. Got {text!r} instead.")
    match = _PATTERN.fullmatch(text.lower())
    if not match or match.group(1) not in _ALIASES:
        word = match.group(1) if match else re.split(r"[@(]", text.lower().strip())[0].strip()
        if word in _ALIASES:  # a known measure with a malformed cutoff or relevance level
            bad = re.search(r"\(\s*rel\s*=\s*([^)]*)\)", text, re.I)
            if bad is not None and not re.fullmatch(r"\s*[0-9]+\s*", bad.group(1)):
                raise InputError(f"Measure {text!r}: the relevance level {bad.group(1).strip()!r} must be an int >= 1, "
                                 f"e.g. {_ALIASES[word]}(rel=2).")
            raise InputError(f"Measure {text!r}: expected {_ALIASES[word]}[(rel=N)][@k] with N and k ints >= 1.")
        import difflib  # only for the message (the command line's start-up stays light)

        close = difflib.get_close_matches(word, list(_ALIASES), n=6, cutoff=0.6)
        rest = text.strip()[len(word):] if text.strip().lower().startswith(word) else ""
        names = [n + rest for n in dict.fromkeys(_ALIASES[c] for c in close)]  # one per measure, cutoff kept
        names = [n for n in names if _parses(n)][:3]
        hint = f" Did you mean {', '.join(map(repr, names))}?" if names else ""
        raise InputError(f"Unknown measure {text!r}: {_expected()}.{hint}")
    word, rel_a, cut, rel_b = match.groups()
    spec = REGISTRY[_ALIASES[word]]
    if rel_a is not None and rel_b is not None:
        raise InputError(f"Measure {text!r}: give the relevance level once.")
    rel = rel_a if rel_a is not None else rel_b
    k = int(cut) if cut is not None else None
    if k is not None and k < 1:
        raise InputError(f"Measure {text!r}: the cutoff must be an int >= 1. Got {k} instead.")
    if k is None and spec.cutoff == "required":
        raise InputError(f"Measure {text!r} needs a cutoff, e.g. {spec.name}@10.")
    if k is not None and spec.cutoff == "forbidden":
        raise InputError(f"Measure {text!r}: {spec.name} takes no cutoff; write {spec.name}.")
    if rel is not None:
        if not spec.uses_rel:
            raise InputError(f"Measure {text!r}: {spec.name} does not depend on the relevance level.")
        if int(rel) < 1:
            raise InputError(f"Measure {text!r}: the relevance level must be an int >= 1. Got {rel} instead.")
    return Measure(spec.name, k, None if rel is None else int(rel))


def _parses(text: str) -> bool:
    try:
        parse_measure(text)
    except InputError:
        return False
    return True


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


def measures_at(names, ks) -> tuple[Measure, ...]:
    """Measure names with the cutoffs ``ks`` filled in, parsed (:func:`parse_measures`): a name written with
    ``@k`` (``"ndcg@k"``) or whose measure needs a cutoff and has none (``"recall"``, ``"hit"``) is taken at every k
    of ``ks``; any other name is as written (``"mrr"`` and ``"ndcg"`` search the whole ranking, ``"ndcg@10"`` cuts
    at 10).

    >>> [str(m) for m in measures_at(["hit", "ndcg@k", "mrr", "recall@10"], (1, 5))]
    ['hit@1', 'hit@5', 'ndcg@1', 'ndcg@5', 'mrr', 'recall@10']
    """
    if isinstance(names, (str, Measure)):
        names = [names]
    out: list = []
    for name in names:
        if isinstance(name, str) and name.strip().lower().endswith("@k"):
            out += [f"{name.strip()[:-2]}@{k}" for k in ks]
            continue
        try:
            out.append(parse_measure(name))
        except InputError as e:
            if "needs a cutoff" not in str(e):
                raise
            out += [f"{name}@{k}" for k in ks]
    return parse_measures(out)


def measure_table() -> str:
    """The measure table of docs/metrics.md (Markdown), generated from the registry; a test keeps the page in sync."""
    rows = ["| measure | also accepted | no relevant gold | trec_eval | ir_measures | definition |",
            "|---|---|---|---|---|---|"]
    for spec in _SPECS:
        aliases = ", ".join(f"`{a}`" for a in spec.aliases) or "-"
        undefined = "`None`" if spec.undefined_without_relevant else ("0" if spec.count else "defined")
        trec = ", ".join(f"`{n.replace('{k}', 'k')}`" for n in spec.trec_eval if n) or "-"
        irm = ", ".join(f"`{n.replace('{k}', 'k')}`" for n in spec.ir_measures if n) or "-"
        rel = "" if spec.uses_rel else " (no relevance level)"
        rows.append(f"| `{spec.display()}` | {aliases} | {undefined} | {trec} | {irm} | {spec.summary}{rel} |")
    return "\n".join(rows)


DEFAULT_MEASURES = parse_measures(["recall@5", "precision@5", "hit@5", "mrr", "ndcg@10", "map"])
