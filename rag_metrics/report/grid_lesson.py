"""The claims of notebook 02 (the chunking grid): which sentence its numbers support, chosen here and tested, so
the notebook keeps only the computation it teaches.

Each function returns claims as keyword arguments of :func:`rag_metrics.report.kernel.claim` (``condition``,
``text_if_true``, ``text_if_false``, ``name``, ``figures``, ``headline``); the notebook records them with
``for c in ...: claim(**c)``. Both texts of a claim are true sentences of their case: nothing prints a sentence to deny
it.
"""

from __future__ import annotations

import ast

import pandas as pd

from ..retrieval.retrievers import RETRIEVERS

__all__ = ["FLAT_QUESTIONS", "grid_parameters", "cutoff_spreads", "grid_claims"]

FLAT_QUESTIONS = 2
"""A grid is *flat* at a cutoff when Recall@k of its best and worst configuration differ by at most this many
questions' worth (the size of the noise on a golden set of this size: notebook 07)."""


def _int_list(value, name):
    """A sorted list of distinct ints; ``papermill -p sizes "[300, 600]"`` passes the text, read as a Python literal."""
    if isinstance(value, str):
        value = ast.literal_eval(value)
    if isinstance(value, int) and not isinstance(value, bool):
        value = [value]
    if not isinstance(value, (list, tuple)) or not value or not all(isinstance(v, int) and not isinstance(v, bool)
                                                                    for v in value):
        raise ValueError(f"The parameter {name} must be a list of ints, e.g. [300, 600]. Got {value!r}.")
    return sorted(set(value))


def grid_parameters(sizes, overlaps, ks, retriever, compare_size, compare_overlap, compare_k):
    """Notebook 02's parameters checked (each error says what was expected and what was got): ``(sizes, overlaps,
    ks)`` as sorted lists of ints."""
    sizes, overlaps, ks = _int_list(sizes, "sizes"), _int_list(overlaps, "overlaps"), _int_list(ks, "ks")
    if retriever not in RETRIEVERS:
        raise ValueError(f"The parameter retriever must be one of {RETRIEVERS}. Got {retriever!r}.")
    if compare_size not in sizes or compare_overlap not in overlaps or compare_k not in ks:
        raise ValueError(f"The comparison configuration must be in the grid: compare_size {compare_size!r} in sizes "
                         f"{sizes}, compare_overlap {compare_overlap!r} in overlaps {overlaps}, compare_k "
                         f"{compare_k!r} in ks {ks}.")
    if compare_overlap >= compare_size:
        raise ValueError(f"compare_overlap ({compare_overlap}) must be smaller than compare_size ({compare_size}).")
    return sizes, overlaps, ks


def cutoff_spreads(summary: pd.DataFrame, n_eval: int) -> pd.DataFrame:
    """Per cutoff ``k`` of a grid's ``summary`` (one row per configuration and k): the lowest and highest Recall@k
    over the configurations, their difference, that difference in questions (``× n_eval``) and whether the grid is
    flat there (at most :data:`FLAT_QUESTIONS` questions)."""
    by_k = summary.groupby("k")["recall"].agg(["min", "max", "count"])
    spread = by_k["max"] - by_k["min"]
    return pd.DataFrame({"lowest": by_k["min"], "highest": by_k["max"], "spread": spread,
                         "questions": spread * n_eval, "configurations": by_k["count"].astype(int),
                         "flat": spread * n_eval <= FLAT_QUESTIONS + 1e-9}).rename_axis("k")  # 2.0000000000000018 is 2


def _ks(ks) -> str:
    ks = [str(k) for k in ks]
    return ks[0] if len(ks) == 1 else ", ".join(ks[:-1]) + " and " + ks[-1]


def _per_k(spreads: pd.DataFrame, rows) -> str:
    return "; ".join(f"k={k}: {spreads.at[k, 'spread']:.3f} ({spreads.at[k, 'questions']:.1f} questions)" for k in rows)


def _flat_claim(spreads: pd.DataFrame, n_eval: int, retriever: str) -> dict:
    flat = spreads.index[spreads["flat"]].tolist()
    steep = spreads.index[~spreads["flat"]].tolist()
    where = (f"across the {int(spreads['configurations'].max())} configurations ({retriever}), Recall@k of the best "
             f"and the worst differ by")
    if not steep:
        true = (f"**The grid is flat at every cutoff**: {where} at most {FLAT_QUESTIONS} questions' worth out of "
                f"{n_eval} ({_per_k(spreads, spreads.index)}).")
        false = None
    else:
        true = None
        if flat:
            false = (f"The grid is flat at k = {_ks(flat)} ({_per_k(spreads, flat)}) but **not at k = {_ks(steep)}** "
                     f"({_per_k(spreads, steep)}): {where} more than {FLAT_QUESTIONS} questions' worth out of {n_eval} "
                     "there. Read each cutoff on its own: a grid flat at one k may not be at another.")
        else:
            false = (f"**The grid is not flat at any cutoff**: {where} more than {FLAT_QUESTIONS} questions' worth out "
                     f"of {n_eval} at every k ({_per_k(spreads, steep)}).")
    return {"condition": not steep, "text_if_true": true or "", "text_if_false": false, "name": "grid_flat",
            "figures": {"n_eval": n_eval, "spreads": {str(k): float(v) for k, v in spreads["spread"].items()},
                        "lowest": {str(k): float(v) for k, v in spreads["lowest"].items()},
                        "highest": {str(k): float(v) for k, v in spreads["highest"].items()}}}


def grid_claims(summary: pd.DataFrame, misses, *, n_eval: int, compare: tuple[int, int, int], retriever: str) -> list:
    """The finding of notebook 02: whether the grid is flat (per cutoff, then over all of them), where the misses at
    the compared configuration ``compare = (size, overlap, k)`` are, and -- the headline -- whether the lever is a
    multilingual retriever rather than the chunker (a claim about the compared cutoff, so flatness there)."""
    size, overlap, k = compare
    spreads = cutoff_spreads(summary, n_eval)
    flat_here = bool(spreads.at[k, "flat"])
    table = misses.table
    claims = [_flat_claim(spreads, n_eval, retriever), {
        "condition": misses.missed > 0,
        "text_if_true": f"Of the {misses.gold} gold documents, {misses.missed} are missed at k={k} in the "
                        f"{size}/{overlap} configuration; {misses.cross_language} of those are in the other language "
                        "than their question.",
        "text_if_false": f"No gold document is missed at k={k} in the {size}/{overlap} configuration.",
        "name": "misses_by_language",
        "figures": {"gold": misses.gold, "missed": misses.missed, "cross_language": misses.cross_language,
                    "table_rows": len(table), "table_cross": int(table["cross_language"].sum())}}]
    claims.append({
        "condition": misses.cannot_fit > 0, "name": "cannot_fit",
        "text_if_true": f"{misses.cannot_fit} of the {misses.gold} gold documents **cannot be in the top {k}** at "
                        f"all: their questions have more gold documents than k = {k}, and the top k chunks hold at "
                        "most k documents. No retriever or chunker reaches them; a larger k does.",
        "text_if_false": None, "figures": {"cannot_fit": misses.cannot_fit, "gold": misses.gold, "k": k}})
    avoidable, cross = misses.avoidable, misses.avoidable_cross_language
    reasons = [reason for reason, applies in (
        (f"at k={k} the grid is not flat ({spreads.at[k, 'questions']:.1f} questions between its best and worst "
         "configuration)", not flat_here),
        ("no miss is avoidable at this k -- every one is a gold document that cannot fit", avoidable == 0),
        (f"only {avoidable} misses could be avoided by a better ranking: too few to say what most of them are",
         0 < avoidable < 3),
        (f"of the {avoidable} misses a better ranking could avoid, {cross} are sure to be cross-language -- not most",
         avoidable >= 3 and cross * 2 <= avoidable)) if applies]
    claims.append({
        "condition": not reasons, "headline": True, "name": "lever_is_multilingual",
        "text_if_true": f"**At k={k} the grid is flat because most misses that a better ranking could avoid are "
                        f"cross-language gold** (at least {cross} of {avoidable}), which no chunk size fixes: the lever "
                        "is a multilingual embedding (plug one in with `DenseRetriever(embed=...)`), not the chunker.",
        "text_if_false": "Here that lesson does not show: " + "; ".join(reasons) + ".",
        "figures": {"flat": flat_here, "k": k, "spread": float(spreads.at[k, "spread"]), "n_eval": n_eval,
                    "avoidable": avoidable, "avoidable_cross_language": cross,
                    "missed": misses.missed, "cannot_fit": misses.cannot_fit}})
    return claims
