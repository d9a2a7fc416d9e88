"""The claims of notebook 02 (the chunking grid): which sentence its numbers support, chosen here and tested, so
the notebook keeps only the computation it teaches.

Each claim function returns keyword arguments of :func:`rag_metrics.report.kernel.claim` (``condition``,
``text_if_true``, ``text_if_false``, ``name``, ``figures``, ``headline``). Both texts of a claim are true sentences of
their case: nothing prints a sentence to deny it.

Which tests a sentence rests on decides its correction. The headline ("some pair of configurations differs at some
k", or "none at any k") rests on every pair at every cutoff, so :func:`grid_tests` Holm-corrects over all of them
(``pairs x cutoffs`` tests): corrected within each k only, as before 2026-12, the headline saw a difference in 7-8% of
grids where none exists (0.070 at 150 questions, 7 configurations, 4 cutoffs; 0.083 at 300 questions or 6 cutoffs),
over every test in at most 0.021 (``benchmarks/stat_edges.md``). The cost claim
is about one cutoff chosen before looking (``compare_k``) and the pair it picks there, so it is corrected over the
pairs of that k (:func:`holm_pairs`).
"""

from __future__ import annotations

import ast
from itertools import combinations
from math import comb

import pandas as pd

from rag_metrics.stats import ALPHA, format_p, holm, paired_test
from rag_metrics.stats.paired import min_discordant
from rag_metrics.retrieval.retrievers import RETRIEVERS

__all__ = ["config_name", "grid_parameters", "holm_pairs", "grid_tests", "cutoff_spreads", "spreads_table",
           "grid_headline", "detectable_gap", "context_cost", "heat_map_figure"]


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


def grid_parameters(sizes, overlaps, ks, retriever, compare_k):
    """Notebook 02's parameters checked (each error says what was expected and what was got): ``(sizes, overlaps,
    ks)`` as sorted lists of ints."""
    sizes, overlaps, ks = _int_list(sizes, "sizes"), _int_list(overlaps, "overlaps"), _int_list(ks, "ks")
    if retriever not in RETRIEVERS:
        raise ValueError(f"The parameter retriever must be one of {RETRIEVERS}. Got {retriever!r}.")
    if compare_k not in ks:
        raise ValueError(f"The parameter compare_k must be one of the cutoffs ks {ks}. Got {compare_k!r}.")
    if not any(o < s for s in sizes for o in overlaps):
        raise ValueError(f"Some overlap must be smaller than some chunk size. Got sizes {sizes}, overlaps {overlaps}.")
    return sizes, overlaps, ks


def _configs(frame: pd.DataFrame) -> pd.DataFrame:
    return frame.assign(config=[config_name(s, o) for s, o in zip(frame["size"], frame["overlap"])])


def holm_pairs(per_question: pd.DataFrame, k, *, alpha: float = ALPHA) -> pd.DataFrame:
    """Every pair of configurations at cutoff ``k`` (``per_question``: one row per question, configuration and k,
    with ``recall``), tested on the same questions (:func:`rag_metrics.stats.paired_test`) and
    Holm-adjusted over all the pairs of that k: columns ``a``, ``b``, ``p`` (uncorrected), ``p_holm``."""
    at_k = _configs(per_question[per_question["k"] == k])
    values = {c: part.set_index("question_id")["recall"] for c, part in at_k.groupby("config", sort=False)}
    pairs = list(combinations(values, 2))
    raw = [paired_test(values[a], values[b], measure=f"Recall@{k}", alpha=alpha).p_value for a, b in pairs]
    return pd.DataFrame({"a": [a for a, _ in pairs], "b": [b for _, b in pairs], "p": raw,
                         "p_holm": list(holm(raw)) if pairs else []}, columns=["a", "b", "p", "p_holm"])


def grid_tests(per_question: pd.DataFrame, ks, *, alpha: float = ALPHA) -> pd.DataFrame:
    """Every pair of configurations at every cutoff in ``ks`` (:func:`holm_pairs` at each k), Holm-adjusted over all
    of them together -- the family the headline rests on: columns ``k``, ``a``, ``b``, ``p`` (uncorrected),
    ``p_holm_k`` (Holm over the pairs of that k) and ``p_holm`` (Holm over every test of every k)."""
    parts = [holm_pairs(per_question, k, alpha=alpha).rename(columns={"p_holm": "p_holm_k"}).assign(k=k) for k in ks]
    tests = (pd.concat(parts, ignore_index=True) if parts else
             pd.DataFrame(columns=["a", "b", "p", "p_holm_k", "k"]))
    tests["p_holm"] = list(holm(tests["p"])) if len(tests) else []
    return tests[["k", "a", "b", "p", "p_holm_k", "p_holm"]]


def _pair_p(pairs: pd.DataFrame, a: str, b: str) -> float:
    """The Holm-adjusted p of the pair ``a``, ``b`` (1 for a configuration against itself)."""
    if a == b:
        return 1.0
    row = pairs[((pairs["a"] == a) & (pairs["b"] == b)) | ((pairs["a"] == b) & (pairs["b"] == a))]
    return float(row["p_holm"].iloc[0])


def differing(per_question: pd.DataFrame, k, a: str, b: str) -> tuple[int, int]:
    """The questions on which configurations ``a`` and ``b`` differ at cutoff ``k``: ``(for a, for b)``, the number
    where ``a``'s Recall@k is higher and the number where ``b``'s is -- what a paired test counts, unlike a gap in
    questions' worth, where the two directions cancel."""
    at_k = _configs(per_question[per_question["k"] == k])
    recall = at_k.pivot_table(index="question_id", columns="config", values="recall")
    if a == b:
        return 0, 0
    diff = recall[a] - recall[b]
    return int((diff > 1e-12).sum()), int((diff < -1e-12).sum())


def _binary(per_question: pd.DataFrame, k, a: str, b: str) -> bool:
    """Whether every Recall@k of configurations ``a`` and ``b`` at cutoff ``k`` is 0 or 1 -- the case where
    :func:`rag_metrics.stats.paired_test` uses the exact sign test; a partial recall (e.g. 0.5) sends it to the
    bounded-mean test."""
    at_k = _configs(per_question[per_question["k"] == k])
    values = at_k.loc[at_k["config"].isin([a, b]), "recall"]
    return bool(values.isin([0.0, 1.0]).all())


def _tied(values: pd.Series, target: float) -> pd.Series:
    return (values - target).abs() < 1e-12


def _ties(tied: list, names: list) -> str:
    """The configurations tied at one end of a cutoff: listed, or ``all 7`` / ``6 of 7: all but X`` when the
    exceptions are the shorter list by two or more (so a row of near-equal cells does not read as a list of winners)."""
    if len(tied) == len(names) and len(names) > 1:
        return f"all {len(names)}"
    if len(names) - len(tied) < len(tied) - 1:
        return f"{len(tied)} of {len(names)}: all but {', '.join(n for n in names if n not in tied)}"
    return ", ".join(tied)


def cutoff_spreads(summary: pd.DataFrame, per_question: pd.DataFrame, n_eval: int, *, alpha: float = ALPHA
                   ) -> pd.DataFrame:
    """Per cutoff ``k`` of a grid (``summary``: one row per configuration and k, with ``recall``): every configuration
    tied at the highest Recall@k (``best``: comma-separated, or ``all 7`` / ``6 of 7: all but X`` when most tie) and at
    the lowest (``worst``, the same), their difference
    (``spread``, and ``questions`` = spread × ``n_eval``, in questions' worth), and ``p``, the smallest Holm-adjusted p
    at that k, Holm over every pair at every k of the grid (:func:`grid_tests`; ``pairs`` tested at each k, ``tests``
    in all), beside ``p_raw``, the smallest uncorrected p; ``flat`` = no pair at that k differs beyond noise at
    ``alpha`` once every test is counted; ``for`` / ``against``: the questions on which the best configuration
    (``top``, the cheapest of its tie) beats the worst (``bottom``, the cheapest of its tie) and loses to it
    (:func:`differing`)."""
    summary = _configs(summary)
    rows = {}
    tests = grid_tests(per_question, sorted(summary["k"].unique()), alpha=alpha)
    for k, part in summary.groupby("k"):
        part = part.sort_values(["context_chars", "config"])
        pairs = tests[tests["k"] == k]
        p = float(pairs["p_holm"].min()) if len(pairs) else 1.0
        spread = float(part["recall"].max() - part["recall"].min())
        names = part["config"].tolist()
        top = part.loc[_tied(part["recall"], part["recall"].max()), "config"].iloc[0]
        bottom = part.loc[_tied(part["recall"], part["recall"].min()), "config"].iloc[0]
        won, lost = differing(per_question, k, top, bottom)
        pair = pairs[((pairs["a"] == top) & (pairs["b"] == bottom)) | ((pairs["a"] == bottom) & (pairs["b"] == top))]
        rows[k] = {"best": _ties(part.loc[_tied(part["recall"], part["recall"].max()), "config"].tolist(), names),
                   "highest": float(part["recall"].max()),
                   "worst": _ties(part.loc[_tied(part["recall"], part["recall"].min()), "config"].tolist(), names),
                   "lowest": float(part["recall"].min()), "spread": spread, "questions": spread * n_eval,
                   "configurations": len(part), "pairs": len(pairs), "tests": len(tests), "p": p,
                   "p_raw": float(pairs["p"].min()) if len(pairs) else 1.0, "flat": bool(p >= alpha),
                   "top": top, "bottom": bottom, "for": won, "against": lost,
                   "pair_p": float(pair["p"].iloc[0]) if len(pair) else 1.0,
                   "pair_binary": _binary(per_question, k, top, bottom)}
    table = pd.DataFrame.from_dict(rows, orient="index").rename_axis("k")
    return table.astype({"flat": bool, "configurations": int, "pairs": int, "tests": int, "for": int, "against": int})


def spreads_table(spreads: pd.DataFrame, n_eval: int, *, alpha: float = ALPHA) -> pd.DataFrame:
    """:func:`cutoff_spreads` as the notebook shows it: human column names, the gap in questions, the smallest p before
    and after Holm's correction over every test of the grid side by side (so the reader sees what the correction
    does)."""
    tests = int(spreads["tests"].max()) if len(spreads) else 0
    return (spreads.assign(gap=spreads["questions"].map("{:.1f}".format),
                           p_raw=[format_p(p, alpha) for p in spreads["p_raw"]],
                           p=[format_p(p, alpha) for p in spreads["p"]])
            [["best", "highest", "worst", "lowest", "gap", "p_raw", "p"]]
            .rename(columns={"best": "best (ties)", "highest": "best Recall@k",
                             "worst": "worst (ties)", "lowest": "worst Recall@k", "gap": f"gap, in questions of {n_eval}",
                             "p_raw": "smallest p, uncorrected", "p": f"smallest p, after Holm over all {tests} tests"}))


def _ks(ks) -> str:
    ks = [str(k) for k in ks]
    return ks[0] if len(ks) == 1 else ", ".join(ks[:-1]) + " and " + ks[-1]


def grid_headline(spreads: pd.DataFrame, n_eval: int, *, alpha: float = ALPHA) -> dict:
    """The lesson's headline: whether any pair of configurations differs beyond noise at any cutoff (every pair at
    every k tested, Holm-adjusted over all of those tests: the sentence rests on every one), in one sentence; the
    numbers stay in the table."""
    steep = spreads.index[~spreads["flat"]].tolist()
    flat = spreads.index[spreads["flat"]].tolist()
    widest = float(spreads["questions"].max())
    tests = int(spreads["tests"].max()) if len(spreads) else 0
    true = (f"**No chunking in this grid beats another beyond noise, at any k.** The largest gap is {widest:.1f} "
            f"questions' worth (of {n_eval}), and with every pair at every k tested on the same questions, "
            f"Holm-corrected over all {tests} tests, no gap can be told from chance: read as a ranking, the heat map "
            "would crown noise.")
    false = (f"**At k = {_ks(steep)} some pair of configurations differs beyond noise** (every pair at every k "
             f"tested, Holm-corrected over all {tests} tests)" + (f"; at k = {_ks(flat)} none does, so a winner holds "
                                                                  "only at its own k" if flat else "")
             + ". Before crediting the chunker, check the cost table below: a larger chunk is also a longer "
             "prompt.") if steep else None
    return {"condition": not steep, "text_if_true": true, "text_if_false": false, "name": "grid_flat",
            "headline": True,
            "figures": {"n_eval": n_eval, "alpha": alpha, "widest": widest, "tests": tests,
                        **{name: {str(k): float(v) for k, v in spreads[name].items()}
                           for name in ("spread", "lowest", "highest", "p")}}}


def detectable_gap(spreads: pd.DataFrame, n_eval: int, n_documents: int, *, alpha: float = ALPHA) -> dict:
    """How big a gap would have to be to count: Holm multiplies the smallest p of the grid by its number of tests (every
    pair at every k: the headline's family), and a paired test with ``m`` questions that differ gives at best ``p =
    2^(1-m)`` (:func:`rag_metrics.stats.paired.min_discordant`), so a pair needs at least ``min_discordant(alpha /
    tests)`` differing questions -- all of them the same way -- before it can count. Beside it, like with like: the
    questions on which the best and worst configurations of the widest gap differ (for and against the best), and the
    corpus size, the lesson's limitation. True when that pair differs on fewer questions than needed."""
    pairs = int(spreads["pairs"].max()) if len(spreads) else 0
    tests = int(spreads["tests"].max()) if len(spreads) else 0
    needed = min_discordant(alpha / max(tests, 1))
    k = spreads["questions"].idxmax() if len(spreads) else None
    won, lost = (int(spreads.at[k, "for"]), int(spreads.at[k, "against"])) if k is not None else (0, 0)
    pair_p = float(spreads.at[k, "pair_p"]) if k is not None else 1.0
    binary = bool(spreads.at[k, "pair_binary"]) if k is not None else True
    sign_p = min(1.0, 2.0 * 0.5 ** (won + lost) * sum(comb(won + lost, i) for i in range(min(won, lost) + 1)))
    test = (f" (uncorrected p = {pair_p:.3f}, the exact sign test)" if binary else
            f" (uncorrected p = {pair_p:.3f}, not the {sign_p:.3f} a sign test would give {won} to {lost}: some of "
            "these questions have a partial recall such as 0.5, so the pair is tested with the bounded-mean test, "
            "which weighs how much each question differs, not only which way)")
    widest = (f"The widest gap here (k={k}, {spreads.at[k, 'top']} over {spreads.at[k, 'bottom']}) rests on "
              f"{won + lost} questions that differ, {won} for the best and {lost} against" + test if k is not None
              else "The grid has no gap")
    size = (f"This corpus is small ({n_documents} documents, {n_eval} questions): a real difference smaller than "
            "that cannot show here.")
    cutoffs = len(spreads)
    lead = (f"How big a gap must be to count: {tests} {'test' if tests == 1 else 'tests'} ({pairs} "
            f"{'pair' if pairs == 1 else 'pairs'} x {cutoffs} {'cutoff' if cutoffs == 1 else 'cutoffs'}) means a "
            f"pair needs at least {needed} questions that differ, all the same way, for its Holm p to fall below "
            f"{alpha:g} -- the floor of the exact sign test, which decides a 0/1 measure (m questions all one way give "
            "at best p = 2^(1-m)); the bounded-mean test, which decides a pair with partial recalls, gives no "
            "smaller p on as many questions and needs more when they differ by less than a whole 1")
    return {"condition": won + lost < needed, "name": "detectable_gap",
            "text_if_true": f"{lead}. {widest}. {size}",
            "text_if_false": (f"{lead}. {widest}: enough for the test to flag it if nearly all go one way, and the "
                              f"table above says whether it did. {size}"),
            "figures": {"pairs": pairs, "tests": tests, "needed": needed, "for": won, "against": lost, "alpha": alpha,
                        "pair_p": pair_p, "binary": binary, "sign_p": sign_p,
                        "n_eval": n_eval, "n_documents": n_documents}}


def context_cost(summary: pd.DataFrame, per_question: pd.DataFrame, k, n_eval: int, *, alpha: float = ALPHA) -> dict:
    """The cost claim at cutoff ``k``: the best configuration (the cheapest of those tied at the highest Recall@k)
    against the cheapest configuration (fewest mean context characters), their pair tested as one of all the pairs of
    that k (Holm-adjusted, :func:`holm_pairs`). Within noise there is no evidence the costlier one is better (not
    evidence that they are equal), so the cheaper is preferred -- saying the set is too small to tell when the pair
    differs on fewer questions than any pair of that k needs to count (:func:`detectable_gap`); beyond noise, the
    gain has to be weighed against the longer prompt."""
    rows = _configs(summary[summary["k"] == k]).sort_values(["context_chars", "config"])
    cheap = rows.iloc[0]
    best = rows[_tied(rows["recall"], rows["recall"].max())].iloc[0]
    pairs = holm_pairs(per_question, k, alpha=alpha)
    p = _pair_p(pairs, best["config"], cheap["config"])
    needed = min_discordant(alpha / max(len(pairs), 1))
    won, lost = differing(per_question, k, best["config"], cheap["config"])
    binary = _binary(per_question, k, best["config"], cheap["config"])
    small = won + lost < needed
    verdict = (f"no evidence that {best['config']} is better -- this set is too small to tell (the two differ on "
               f"{won + lost} questions, {won} for and {lost} against; with Holm over the {len(pairs)} pairs of this "
               f"one k, fixed before looking, the exact sign test needs {needed} for a 0/1 pair"
               + ("" if binary else ", and the bounded-mean test that decides this pair, with its partial recalls, "
                  "needs at least as many") + ") -- so prefer the "
               "cheaper one." if small else f"no evidence that {best['config']} is better, so prefer the cheaper one.")
    ratio = float(best["context_chars"] / cheap["context_chars"])
    gap = float(best["recall"] - cheap["recall"])
    if best["config"] == cheap["config"]:
        true = (f"At k={k} the cheapest configuration, {cheap['config']} ({cheap['context_chars']:.0f} context "
                f"characters), is also the best (Recall@{k} {cheap['recall']:.3f}): nothing to trade.")
    else:
        true = (f"At k={k} the best, {best['config']} (Recall@{k} {best['recall']:.3f}), hands the LLM {ratio:.1f}× "
                f"the context characters of the cheapest, {cheap['config']} ({cheap['recall']:.3f}), for "
                f"{gap * n_eval:.1f} questions' worth more, within noise ({format_p(p, alpha, name='Holm p')}): "
                + verdict)
    return {"condition": p >= alpha, "name": "prefer_the_cheaper", "text_if_true": true,
            "text_if_false": (f"At k={k} the best, {best['config']}, beats the cheapest, {cheap['config']}, beyond "
                              f"noise ({format_p(p, alpha, name='Holm p')}) by {gap * n_eval:.1f} questions' worth, "
                              f"for {ratio:.1f}× the context characters: weigh that gain against the longer prompt."),
            "figures": {"k": k, "alpha": alpha, "p": p, "ratio": ratio, "gap": gap, "n_eval": n_eval,
                        "needed": needed, "for": won, "against": lost, "too_small": small, "pairs": len(pairs),
                        "binary": binary,
                        "best": best["config"], "cheap": cheap["config"],
                        "recalls": rows["recall"].tolist(), "chars": rows["context_chars"].tolist(),
                        "best_recall": float(best["recall"]), "cheap_chars": float(cheap["context_chars"]),
                        "best_chars": float(best["context_chars"])}}


def heat_map_figure(summary: pd.DataFrame, ks, retriever: str):
    """Notebook 02's figure: each configuration's Recall@k (``summary``: one row per configuration and k) as two heat
    maps of the same numbers, the left on the plotting library's default colour scale (lowest to highest cell), the
    right on 0-1. Returns the figure."""
    import matplotlib.pyplot as plt
    import numpy as np

    heat = _configs(summary).pivot_table(index="config", columns="k", values="recall", sort=False)
    values = heat.to_numpy()
    fig, axes = plt.subplots(1, 2, figsize=(2.2 * len(ks) + 5, 0.45 * len(heat) + 1.8), sharey=True,
                             layout="constrained")
    scales = {"auto colour scale: a winner jumps out": (values.min(), values.max()),
              "0-1 scale: the gaps as small as they are": (0, 1)}
    for ax, (title, (low, high)) in zip(axes, scales.items()):
        image = ax.imshow(values, cmap="viridis", vmin=low, vmax=high, aspect="auto")
        for (i, j), value in np.ndenumerate(values):
            dark = value < low + 0.6 * (high - low)
            ax.text(j, i, f"{value:.3f}", ha="center", va="center", color="white" if dark else "black", fontsize=8)
        ax.set_xticks(range(len(heat.columns)), [f"k = {k}" for k in heat.columns])
        ax.set_title(title, fontsize=10)
        fig.colorbar(image, ax=ax, label="Recall@k")
    axes[0].set_yticks(range(len(heat)), heat.index)
    axes[0].set_ylabel("chunk size / overlap")
    fig.suptitle(f"{retriever}: Recall@k per configuration, the same numbers twice")
    return fig
