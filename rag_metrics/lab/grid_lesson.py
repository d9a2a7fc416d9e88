"""The claims of notebook 02 (the chunking grid): which sentence its numbers support, chosen here and tested, so
the notebook keeps only the computation it teaches.

Each function returns claims as keyword arguments of :func:`rag_metrics.report.kernel.claim` (``condition``,
``text_if_true``, ``text_if_false``, ``name``, ``figures``, ``headline``); the notebook records them with
``for c in ...: claim(**c)``. Both texts of a claim are true sentences of their case: nothing prints a sentence to deny
it.
"""

from __future__ import annotations

import ast
from itertools import combinations

import pandas as pd

from rag_metrics.stats import ALPHA, format_p, holm, paired_test
from rag_metrics.retrieval.retrievers import RETRIEVERS

__all__ = ["grid_parameters", "cutoff_spreads", "grid_claims", "cheapest_at_best", "spreads_table"]


def config_name(size, overlap) -> str:
    """A configuration's label, ``size/overlap`` (``heading`` for the heading chunker, whose overlap is missing)."""
    if size == "heading":
        return "heading"
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


def _names(configs) -> str:
    return ", ".join(configs)


def cutoff_spreads(summary: pd.DataFrame, per_question: pd.DataFrame, n_eval: int, *, alpha: float = ALPHA
                   ) -> pd.DataFrame:
    """Per cutoff ``k`` of a grid (``summary``: one row per configuration and k, with ``recall`` and
    ``context_chars``; ``per_question``: one row per question, configuration and k): every configuration tied at the
    highest Recall@k (``best``, comma-separated) and at the lowest (``worst``), their difference (``spread``, and
    ``questions`` = spread × ``n_eval``, in questions' worth), and the test corrected for picking the extremes after
    looking: every pair of configurations is tested on the same questions
    (:func:`rag_metrics.stats.paired_test`), Holm-adjusted over the pairs of that k (``pairs``), and ``p``
    is the smallest adjusted p (``flat`` = within noise at ``alpha``: no pair differs); ``p_raw`` is the uncorrected p
    of the best against the worst (the cheapest of the tied best against the dearest of the tied worst -- the pair
    ``context_ratio`` divides: its mean context characters, best over worst)."""
    summary = summary.assign(config=[config_name(s, o) for s, o in zip(summary["size"], summary["overlap"])])
    answers = per_question.assign(config=[config_name(s, o) for s, o in
                                          zip(per_question["size"], per_question["overlap"])])
    rows = {}
    for k, part in summary.groupby("k"):
        part = part.sort_values(["context_chars", "config"])
        top = part[(part["recall"] - part["recall"].max()).abs() < 1e-12]
        bottom = part[(part["recall"] - part["recall"].min()).abs() < 1e-12]
        best, worst = top.iloc[0], bottom.iloc[-1]
        at_k = answers[answers["k"] == k]
        values = {c: at_k[at_k["config"] == c].set_index("question_id")["recall"] for c in part["config"]}
        pairs = list(combinations(part["config"], 2))
        raw = [paired_test(values[a], values[b], measure=f"Recall@{k}", alpha=alpha).p_value for a, b in pairs]
        adjusted = holm(raw) if pairs else [1.0]
        p_raw = (paired_test(values[worst.config], values[best.config], alpha=alpha).p_value
                 if best.config != worst.config else 1.0)
        spread = float(best["recall"] - worst["recall"])
        rows[k] = {"lowest": float(worst["recall"]), "highest": float(best["recall"]), "spread": spread,
                   "questions": spread * n_eval, "configurations": len(part), "pairs": len(pairs),
                   "best": _names(top["config"]), "worst": _names(bottom["config"]),
                   "cheapest_best": best.config, "dearest_worst": worst.config,
                   "p": float(min(adjusted)), "p_raw": float(p_raw), "flat": bool(min(adjusted) >= alpha),
                   "context_ratio": float(best["context_chars"] / worst["context_chars"])}
    table = pd.DataFrame.from_dict(rows, orient="index").rename_axis("k")
    return table.astype({"flat": bool, "configurations": int, "pairs": int})


def spreads_table(spreads: pd.DataFrame) -> pd.DataFrame:
    """:func:`cutoff_spreads` as the notebook shows it: human column names, p's formatted, ties listed."""
    return (spreads.assign(gap=spreads["questions"].map("{:.1f}".format), p=spreads["p"].map(format_p),
                           p_raw=spreads["p_raw"].map(format_p), ratio=spreads["context_ratio"].map("{:.1f}×".format))
            [["best", "highest", "worst", "lowest", "gap", "p_raw", "p", "ratio"]]
            .rename(columns={"best": "best (all tied)", "highest": "best Recall@k", "worst": "worst (all tied)",
                             "lowest": "worst Recall@k", "gap": "gap (questions' worth)",
                             "p_raw": "best vs worst, uncorrected", "p": "all pairs, Holm",
                             "ratio": "cheapest best ÷ dearest worst, context"}))


def _ks(ks) -> str:
    ks = [str(k) for k in ks]
    return ks[0] if len(ks) == 1 else ", ".join(ks[:-1]) + " and " + ks[-1]


def _per_k(spreads: pd.DataFrame, rows, alpha: float) -> str:
    return "; ".join(f"k={k}: {spreads.at[k, 'best']} vs {spreads.at[k, 'worst']}, {spreads.at[k, 'questions']:.1f} "
                     f"questions' worth, uncorrected {format_p(spreads.at[k, 'p_raw'], alpha)}, "
                     f"{format_p(spreads.at[k, 'p'], alpha, name='smallest Holm-adjusted p')}" for k in rows)


def _context(spreads: pd.DataFrame, k) -> str:
    return (f"at k={k} the cheapest of the best ({spreads.at[k, 'cheapest_best']}) hands the LLM "
            f"{spreads.at[k, 'context_ratio']:.1f}× the context characters of the dearest of the worst "
            f"({spreads.at[k, 'dearest_worst']}): at a fixed k the chunk size also sets how much text the LLM reads, "
            "so compare at equal context before crediting the chunker")


def _flat_claim(spreads: pd.DataFrame, n_eval: int, retriever: str, alpha: float) -> dict:
    flat = spreads.index[spreads["flat"]].tolist()
    steep = spreads.index[~spreads["flat"]].tolist()
    widest = spreads["questions"].idxmax()
    test = (f"every pair of the {int(spreads['configurations'].max())} configurations tested on the same {n_eval} "
            f"questions, Holm-adjusted over the {int(spreads['pairs'].max())} pairs of each k, {retriever}")
    why = ("Picking the best and the worst after looking and testing only them makes a gap look more significant "
           "than it is, so the test here compares every pair and corrects for their number. ")
    if not steep:
        true = (why + f"**No cutoff picks a chunking**: at every k no pair of configurations differs beyond noise "
                f"({_per_k(spreads, spreads.index, alpha)}; {test}). The widest gap is a context gap "
                f"too: {_context(spreads, widest)}.")
        false = None
    else:
        true = None
        false = (why + f"**At k = {_ks(steep)} some pair of configurations differs beyond noise even so** "
                 f"({_per_k(spreads, steep, alpha)}; {test}) -- but {_context(spreads, steep[0])}."
                 + (f" At k = {_ks(flat)} no pair differs beyond noise ({_per_k(spreads, flat, alpha)})." if flat
                    else ""))
    return {"condition": not steep, "text_if_true": true or "", "text_if_false": false, "name": "grid_flat",
            "figures": {"n_eval": n_eval, "alpha": alpha,
                        **{name: {str(k): (v if name in ("best", "worst") else float(v))
                                  for k, v in spreads[name].items()}
                           for name in ("spread", "lowest", "highest", "p", "p_raw", "context_ratio", "best",
                                        "worst")}}}


def cheapest_at_best(at_k: pd.DataFrame, k: int) -> dict:
    """The cost claim at one cutoff (``at_k``: one row per configuration with ``size``, ``overlap``, ``recall``,
    ``context_chars``): among every configuration tied at the highest Recall@k, the cheapest against the dearest --
    at equal quality the cheaper context wins; with no tie there is nothing to save at equal quality."""
    rows = at_k.assign(config=[config_name(s, o) for s, o in zip(at_k["size"], at_k["overlap"])])
    top = rows[(rows["recall"] - rows["recall"].max()).abs() < 1e-12].sort_values(["context_chars", "config"])
    cheap, dear = top.iloc[0], top.iloc[-1]
    return {"condition": len(top) > 1, "name": "cheapest_at_best",
            "text_if_true": f"{len(top)} configurations tie at the highest Recall@{k}, {cheap['recall']:.3f} "
                            f"({_names(top['config'])}); the cheapest, {cheap['config']}, hands the LLM "
                            f"{cheap['context_chars']:.0f} context characters, the dearest, {dear['config']}, "
                            f"{dear['context_chars']:.0f}: at equal quality, the cheaper context wins.",
            "text_if_false": f"Only {cheap['config']} reaches the highest Recall@{k}, {cheap['recall']:.3f}, with "
                             f"{cheap['context_chars']:.0f} context characters: quality and cost have to be weighed.",
            "figures": {"recalls": rows["recall"].tolist(), "chars": rows["context_chars"].tolist(),
                        "tied": len(top), "cheap_chars": float(cheap["context_chars"]),
                        "dear_chars": float(dear["context_chars"])}}


def grid_claims(summary: pd.DataFrame, per_question: pd.DataFrame, misses, *, n_eval: int,
                compare: tuple[int, int, int], retriever: str, alpha: float = ALPHA) -> list:
    """The finding of notebook 02: whether the grid is flat (per cutoff, then over all of them), where the misses at
    the compared configuration ``compare = (size, overlap, k)`` are, and -- the headline -- whether the lever is a
    multilingual retriever rather than the chunker (a claim about the compared cutoff, so flatness there)."""
    size, overlap, k = compare
    spreads = cutoff_spreads(summary, per_question, n_eval, alpha=alpha)
    flat_here = bool(spreads.at[k, "flat"])
    table = misses.table
    low = int((table["relevance"] == 1).sum()) if "relevance" in table else 0
    claims = [_flat_claim(spreads, n_eval, retriever, alpha), {
        "condition": misses.missed > 0,
        "text_if_true": f"Of the {misses.gold} gold documents, {misses.missed} are missed at k={k} in the "
                        f"{size}/{overlap} configuration; {misses.cross_language} of those are in the other language "
                        "than their question"
                        + (f"; {low} of them are lower-graded gold (label 1), and Recall@k charges for missing a "
                           "label-1 document exactly as for a label-2 one (nDCG@k weighs it less)." if low else "."),
        "text_if_false": f"No gold document is missed at k={k} in the {size}/{overlap} configuration.",
        "name": "misses_by_language",
        "figures": {"gold": misses.gold, "missed": misses.missed, "cross_language": misses.cross_language,
                    "table_rows": len(table), "table_cross": int(table["cross_language"].sum()),
                    "label_1": low}}]
    claims.append({
        "condition": misses.cannot_fit > 0, "name": "cannot_fit",
        "text_if_true": f"{misses.cannot_fit} of the {misses.gold} gold documents **cannot be in the top {k}** at "
                        f"all: their questions have more gold documents than k = {k}, and the top k chunks hold at "
                        "most k documents. No retriever or chunker reaches them; a larger k does.",
        "text_if_false": None, "figures": {"cannot_fit": misses.cannot_fit, "gold": misses.gold, "k": k}})
    avoidable, cross = misses.avoidable, misses.avoidable_cross_language
    reasons = [reason for reason, applies in (
        (f"at k={k} some pair of configurations differs beyond noise (every pair tested, Holm-adjusted: "
         f"{format_p(spreads.at[k, 'p'], alpha, name='smallest adjusted p')})", not flat_here),
        ("no miss is avoidable at this k -- every one is a gold document that cannot fit", avoidable == 0),
        (f"only {avoidable} misses could be avoided by a better ranking: too few to say what most of them are",
         0 < avoidable < 3),
        (f"of the {avoidable} misses a better ranking could avoid, {cross} are sure to be cross-language -- not most",
         avoidable >= 3 and cross * 2 <= avoidable)) if applies]
    claims.append({
        "condition": not reasons, "headline": True, "name": "lever_is_multilingual",
        "text_if_true": f"**At k={k} no chunking wins beyond noise, and the misses a better ranking could avoid are "
                        f"{'all' if cross == avoidable else 'mostly'} cross-language gold** ({cross} of {avoidable}): "
                        "gold in the other language than the question, which no chunk size reaches: the lever "
                        "is a multilingual embedding (plug one in with `DenseRetriever(embed=...)`), not the chunker.",
        "text_if_false": "Here that lesson does not show: " + "; ".join(reasons) + ".",
        "figures": {"flat": flat_here, "k": k, "spread": float(spreads.at[k, "spread"]), "n_eval": n_eval,
                    "p": float(spreads.at[k, "p"]), "alpha": alpha,
                    "avoidable": avoidable, "avoidable_cross_language": cross,
                    "missed": misses.missed, "cannot_fit": misses.cannot_fit}})
    return claims
