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

from ..analysis.stats import ALPHA, format_p, paired_test
from ..retrieval.retrievers import RETRIEVERS

__all__ = ["grid_parameters", "cutoff_spreads", "grid_claims"]


def config_name(size, overlap) -> str:
    """A configuration's label, ``size/overlap`` (``heading/-`` for the heading chunker, whose overlap is missing)."""
    return f"{size}/{'-' if overlap is None or overlap != overlap else int(overlap)}"


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


def cutoff_spreads(summary: pd.DataFrame, per_question: pd.DataFrame, n_eval: int, *, alpha: float = ALPHA
                   ) -> pd.DataFrame:
    """Per cutoff ``k`` of a grid (``summary``: one row per configuration and k, with ``recall`` and
    ``context_chars``; ``per_question``: one row per question, configuration and k): the worst and best
    configuration by Recall@k, their difference (``spread``, and ``questions`` = spread × ``n_eval``, in questions'
    worth), the paired test of best against worst on the same questions (:func:`rag_metrics.analysis.stats.paired_test`;
    ``p``, and ``flat`` = within noise at ``alpha``) and ``context_ratio``: the best's mean context characters over the
    worst's (at a fixed k a larger chunk hands the LLM more text)."""
    summary = summary.assign(config=[config_name(s, o) for s, o in zip(summary["size"], summary["overlap"])])
    answers = per_question.assign(config=[config_name(s, o) for s, o in
                                          zip(per_question["size"], per_question["overlap"])])
    rows = {}
    for k, part in summary.groupby("k"):
        best, worst = part.loc[part["recall"].idxmax()], part.loc[part["recall"].idxmin()]
        at_k = answers[answers["k"] == k]
        values = {c: at_k[at_k["config"] == c].set_index("question_id")["recall"] for c in (best.config, worst.config)}
        test = paired_test(values[worst.config], values[best.config], measure=f"Recall@{k}", alpha=alpha)
        spread = float(best["recall"] - worst["recall"])
        rows[k] = {"lowest": float(worst["recall"]), "highest": float(best["recall"]), "spread": spread,
                   "questions": spread * n_eval, "configurations": len(part), "best": best.config,
                   "worst": worst.config, "p": test.p_value, "flat": not test.significant,
                   "context_ratio": float(best["context_chars"] / worst["context_chars"])}
    table = pd.DataFrame.from_dict(rows, orient="index").rename_axis("k")
    return table.astype({"flat": bool, "configurations": int})


def _ks(ks) -> str:
    ks = [str(k) for k in ks]
    return ks[0] if len(ks) == 1 else ", ".join(ks[:-1]) + " and " + ks[-1]


def _per_k(spreads: pd.DataFrame, rows, alpha: float) -> str:
    return "; ".join(f"k={k}: {spreads.at[k, 'best']} vs {spreads.at[k, 'worst']}, {spreads.at[k, 'questions']:.1f} "
                     f"questions' worth, {format_p(spreads.at[k, 'p'], alpha)}" for k in rows)


def _context(spreads: pd.DataFrame, k) -> str:
    return (f"at k={k} the best configuration ({spreads.at[k, 'best']}) hands the LLM "
            f"{spreads.at[k, 'context_ratio']:.1f}× the context characters of the worst ({spreads.at[k, 'worst']}): at "
            "a fixed k the chunk size also sets how much text the LLM reads, so compare at equal context before "
            "crediting the chunker")


def _flat_claim(spreads: pd.DataFrame, n_eval: int, retriever: str, alpha: float) -> dict:
    flat = spreads.index[spreads["flat"]].tolist()
    steep = spreads.index[~spreads["flat"]].tolist()
    widest = spreads["questions"].idxmax()
    test = (f"the paired test of best against worst on the same {n_eval} questions, "
            f"{int(spreads['configurations'].max())} configurations, {retriever}")
    if not steep:
        true = (f"**No cutoff picks a chunking**: at every k the best and the worst configuration are within noise "
                f"of each other ({_per_k(spreads, spreads.index, alpha)}; {test}). The widest gap is a context gap "
                f"too: {_context(spreads, widest)}.")
        false = None
    else:
        true = None
        false = (f"**At k = {_ks(steep)} the best configuration beats the worst beyond noise** "
                 f"({_per_k(spreads, steep, alpha)}; {test}) -- but {_context(spreads, steep[0])}."
                 + (f" At k = {_ks(flat)} best and worst are within noise ({_per_k(spreads, flat, alpha)})." if flat
                    else ""))
    return {"condition": not steep, "text_if_true": true or "", "text_if_false": false, "name": "grid_flat",
            "figures": {"n_eval": n_eval, "alpha": alpha,
                        **{name: {str(k): (float(v) if name != "best" and name != "worst" else v)
                                  for k, v in spreads[name].items()}
                           for name in ("spread", "lowest", "highest", "p", "context_ratio", "best", "worst")}}}


def _share(part: int, whole: int) -> str:
    return f"all {whole}" if part == whole else f"{part} of {whole}"


def grid_claims(summary: pd.DataFrame, per_question: pd.DataFrame, misses, *, n_eval: int,
                compare: tuple[int, int, int], retriever: str, alpha: float = ALPHA) -> list:
    """The finding of notebook 02: whether the grid is flat (per cutoff, then over all of them), where the misses at
    the compared configuration ``compare = (size, overlap, k)`` are, and -- the headline -- whether the lever is a
    multilingual retriever rather than the chunker (a claim about the compared cutoff, so flatness there)."""
    size, overlap, k = compare
    spreads = cutoff_spreads(summary, per_question, n_eval, alpha=alpha)
    flat_here = bool(spreads.at[k, "flat"])
    table = misses.table
    claims = [_flat_claim(spreads, n_eval, retriever, alpha), {
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
        (f"at k={k} the best configuration beats the worst beyond noise ({spreads.at[k, 'questions']:.1f} "
         f"questions' worth, {format_p(spreads.at[k, 'p'], alpha)})", not flat_here),
        ("no miss is avoidable at this k -- every one is a gold document that cannot fit", avoidable == 0),
        (f"only {avoidable} misses could be avoided by a better ranking: too few to say what most of them are",
         0 < avoidable < 3),
        (f"of the {avoidable} misses a better ranking could avoid, {cross} are sure to be cross-language -- not most",
         avoidable >= 3 and cross * 2 <= avoidable)) if applies]
    claims.append({
        "condition": not reasons, "headline": True, "name": "lever_is_multilingual",
        "text_if_true": f"**At k={k} no chunking wins because the misses a better ranking could avoid are "
                        f"mostly cross-language gold** ({_share(cross, avoidable)} are), which no chunk size fixes: the lever "
                        "is a multilingual embedding (plug one in with `DenseRetriever(embed=...)`), not the chunker.",
        "text_if_false": "Here that lesson does not show: " + "; ".join(reasons) + ".",
        "figures": {"flat": flat_here, "k": k, "spread": float(spreads.at[k, "spread"]), "n_eval": n_eval,
                    "p": float(spreads.at[k, "p"]), "alpha": alpha,
                    "avoidable": avoidable, "avoidable_cross_language": cross,
                    "missed": misses.missed, "cannot_fit": misses.cannot_fit}})
    return claims
