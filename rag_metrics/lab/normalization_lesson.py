"""The sentences of notebook 06 (normalization and score thresholds), chosen from its numbers and tested.

Each function returns the keyword arguments of :func:`rag_metrics.report.kernel.claim` (``condition``,
``text_if_true``, ``text_if_false``, ``name``, ``figures``, ``headline``); both texts are true of the figures they carry
(tests/test_normalization_lesson.py, each branch).
"""

from __future__ import annotations

__all__ = ["SOURCE", "source_check", "seed_step_claims", "pass_count_claim", "real_vectors_claim", "raw_queries_claim",
           "audit_claim", "pass_count_figure", "cone_figure", "seed_rows"]

SOURCE = {"threshold": 0.8,  # as the source reports them: (candidate, score) in rank order, and the pass count
          "raw": ([["B", 6.0], ["C", 4.0], ["A", 2.0]], 3),
          "documents_normalized": ([["A", 2.0], ["B", 1.2], ["C", 1.109]], 3),
          "both_normalized": ([["A", 1.0], ["B", 0.6], ["C", 0.555]], 1)}
"""The source's seed case: query (2, 0); A (1, 0), B (3, 4), C (2, 3); cosine threshold 0.8."""


def _claim(condition, text_if_true, text_if_false="", *, name, figures, headline=False) -> dict:
    return {"condition": bool(condition), "text_if_true": text_if_true, "text_if_false": text_if_false,
            "name": name, "figures": figures, "headline": headline}


def source_check(ours: dict, counts: dict, threshold: float) -> tuple[dict, dict]:
    """Per regime, whether this notebook's scores (``ours``: regime -> [[id, score], ...] in rank order) and pass
    count both equal the source's, and the claim saying so (and, when not, whether only the threshold differs)."""
    same = {r: ours[r] == SOURCE[r][0] and counts[r] == SOURCE[r][1] for r in ours}
    same_scores = all(ours[r] == SOURCE[r][0] for r in ours)
    same_counts = all(counts[r] == SOURCE[r][1] for r in ours)
    if not same_scores:
        alternative = "The scores differ from the source's."
    elif same_counts:
        alternative = f"The scores are the source's (they do not depend on the threshold); so are the pass counts, " \
                      f"at threshold {threshold} as at 0.8."
    else:
        alternative = (f"The scores are the source's (they do not depend on the threshold); the pass counts differ "
                       f"because the threshold does ({threshold} here, 0.8 there).")
    return same, _claim(threshold == SOURCE["threshold"] and same_scores and same_counts,
                        "Same vectors, same threshold: every score and pass count is the source's.", alternative,
                        name="source_reproduced",
                        figures={"threshold": threshold, "ours": ours, "counts": counts,
                                 "source": {r: list(SOURCE[r]) for r in ours}})


def _scores(series) -> str:
    return ", ".join(f"{v:.3f}" for v in series)


def seed_step_claims(regime: dict, counts: dict, threshold: float, query_norm: float, ratio: list) -> list[dict]:
    """The seed case's three regimes, step by step (``regime``: regime -> table indexed by id, rank order)."""
    top = {r: v.index[0] for r, v in regime.items()}
    raw_top = regime["raw"].at[top["raw"], "score"]
    fixed = top["documents_normalized"] == top["both_normalized"] == "A" and all(
        abs(r - query_norm) <= 1e-8 + 1e-5 * abs(query_norm) for r in ratio)
    cosines = list(regime["both_normalized"]["score"])
    return [
        _claim(top["raw"] != "A",
               f"1. **raw** -- {top['raw']} ranks first with {raw_top:.3f}, although A points exactly the query's "
               f"way: the ranking is broken ({counts['raw']} of 3 pass {threshold}).",
               f"1. **raw** -- A ranks first with {raw_top:.3f}: at these vectors the raw ranking is not broken.",
               name="raw_ranking_broken", figures={"top": top, "counts": counts}),
        _claim(fixed,
               f"2. **documents_normalized** -- {top['documents_normalized']} is first again: *the ranking is fixed*. "
               f"But the scores are {_scores(regime['documents_normalized']['score'])}: each is the cosine **times the "
               f"query's length** ({query_norm:g}), and {counts['documents_normalized']} of 3 pass {threshold}.",
               f"2. **documents_normalized** -- {top['documents_normalized']} ranks first, scores "
               f"{_scores(regime['documents_normalized']['score'])}.",
               name="ranking_fixed_scores_scaled", figures={"top": top, "ratio": list(ratio),
                                                            "query_norm": query_norm}),
        _claim(True,
               f"3. **both_normalized** -- the true cosines {_scores(cosines)}: {counts['both_normalized']} of 3 pass.",
               name="true_cosines", figures={"cosines": cosines, "threshold": threshold,
                                             "passing": counts["both_normalized"]}),
    ]


def pass_count_claim(counts: dict, threshold: float) -> dict:
    """The lesson: the ranking recovers with the stored vectors normalized, the pass count does not."""
    return _claim(counts["documents_normalized"] != counts["both_normalized"],
                  f"**The ranking recovered and the pass count did not**: {counts['documents_normalized']} of 3 "
                  f"candidates pass {threshold} with only the stored vectors normalized, {counts['both_normalized']} "
                  "with both.",
                  f"At threshold {threshold} both normalizations let the same number of candidates through "
                  f"({counts['both_normalized']}): the pitfall does not show. It shows for thresholds between the true "
                  "cosines and |q| times them, e.g. 0.8.",
                  headline=True, name="pass_count_differs", figures={"counts": counts, "threshold": threshold})


def real_vectors_claim(same_top: int, n: int, moved: float, ok: float, broken: float, threshold: float,
                       query_scale: float) -> dict:
    """The sample corpus: the top chunk is the same either way (``same_top`` of ``n`` questions) while the mean pass
    count moves (``moved``: mean absolute change per question) from ``ok`` (unit query) to ``broken``."""
    return _claim(
        same_top == n and moved >= 0.5,
        f"The top-ranked chunk is the same for {same_top} of {n} questions either way -- a test that only checks the "
        f"top ID passes -- while at threshold {threshold} a normalized query lets {ok:.1f} chunks through on average "
        f"and a query of length {query_scale:g} lets {broken:.1f}.",
        f"At threshold {threshold} a normalized query lets {ok:.1f} chunks through on average and a query of length "
        f"{query_scale:g} lets {broken:.1f} (the top-ranked chunk is the same for {same_top} of {n} questions): here "
        "the query's length hardly changes what passes"
        + (" -- a query of length 1 is a unit vector." if abs(query_scale - 1) < 1e-9 else "."),
        headline=True, name="real_top_same_pass_differs",
        figures={"same_top": same_top, "n": n, "moved": moved, "ok": ok, "broken": broken,
                 "query_scale": query_scale})


def raw_queries_claim(min_norm: float, max_norm: float, natural: float, ok: float, zero: int, n: int,
                      query_scale: float) -> dict:
    """The embedder's raw query vectors: short ones let fewer chunks through than unit ones -- "the other way" only
    when the scaled query above was made longer (``query_scale`` > 1); a shorter one already showed this direction."""
    short = max_norm < 1 and natural < ok
    if query_scale > 1:
        lead = "The error also goes the other way: this embedder's raw query vectors are *short*"
    elif query_scale < 1:
        lead = (f"The same direction as the query of length {query_scale:g} above, on the embedder's own output: its "
                "raw query vectors are *short*")
    else:
        lead = "Unnormalized queries can also be too short: this embedder's raw query vectors are"
    return _claim(short,
                  f"{lead} ({min_norm:.2f}-{max_norm:.2f}), so without normalization the same threshold lets "
                  f"{natural:.1f} through instead of {ok:.1f}, and {zero} of {n} questions get nothing at all.",
                  f"This embedder's raw query vectors have lengths {min_norm:.2f}-{max_norm:.2f}; without "
                  f"normalization the threshold lets {natural:.1f} through on average, against {ok:.1f} for unit "
                  "queries.",
                  name="raw_queries_short", figures={"max_norm": max_norm, "natural": natural, "ok": ok, "zero": zero,
                                                     "query_scale": query_scale,
                                                     "other_way": query_scale > 1})


def audit_claim(off_unit: int, stale: int, same_ids: bool, document: str) -> dict:
    """The norm audit against the rows de-normalized on purpose."""
    return _claim(off_unit == stale and same_ids,
                  f"The audit flags {off_unit} off-unit vectors: exactly the {stale} chunks of `{document}` stored "
                  "before the fix, and nothing else.",
                  f"The audit flags {off_unit} off-unit vectors; {stale} chunks of `{document}` were de-normalized: "
                  "they are not the same rows.",
                  name="audit_finds_stale", figures={"off_unit": off_unit, "stale": stale, "same_ids": same_ids})


def pass_count_figure(curve, scores: dict, threshold: float, left_out: int):
    """Notebook 06's figure: left, the mean pass count per question against the threshold (one line per column of
    ``curve``, indexed by threshold); right, the (question, chunk) scores of each entry of ``scores`` as step outlines
    (so no series hides another), the ``left_out`` pairs with cosine about 0 named in the title. Returns the figure."""
    import matplotlib.pyplot as plt
    import numpy as np

    fig, (left, right) = plt.subplots(1, 2, figsize=(11, 3.8))
    curve.plot(ax=left, marker=".", xlabel="threshold", ylabel="chunks passing, mean per question",
               title="pass count vs threshold")
    left.axvline(threshold, color="black", linestyle="--", linewidth=1)
    left.set_ylim(bottom=0)
    left.legend(fontsize=8, loc="upper right")
    values = list(scores.values())
    bins = np.linspace(min(min(v.min() for v in values), 0), max(v.max() for v in values), 41)
    for name, v in scores.items():
        right.hist(v, bins=bins, histtype="step", linewidth=2, label=name)
    right.axvline(threshold, color="black", linestyle="--", linewidth=1.5,
                  label=f"threshold {threshold:g}: passes to the right")
    right.set(xlabel="score (inner product)", ylabel="(question, chunk) pairs",
              title=f"scores and the cut ({left_out} pairs with cosine ≈ 0 left out)")
    right.legend(fontsize=8, loc="upper right")
    fig.tight_layout()
    return fig


def seed_rows(audit) -> tuple[dict, dict]:
    """The seed's scores by regime (``audit``: :func:`rag_metrics.retrieval.vectors.threshold_audit` of A, B, C):
    ``(regime, ours)`` -- each regime's table indexed by id, and its ``[id, score]`` pairs in rank order (3 decimals,
    as the source prints them)."""
    t = audit.table
    regime = {r: t[t.regime == r].set_index("id") for r in ("raw", "documents_normalized", "both_normalized")}
    ours = {r: [[i, round(float(v), 3)] for i, v in regime[r]["score"].items()] for r in regime}
    return regime, ours


def cone_figure(query, docs, regime: dict, threshold: float, query_norm: float):
    """Notebook 06's seed figure: the cone of directions with cosine >= ``threshold`` to the query (green), the wider
    cone the bug lets through when only the stored vectors are normalized (hatched: score >= ``threshold`` when
    cosine >= threshold / |q|), and the vectors q, A, B, C with their cosines -- labels on a white ground, so the
    hatching never covers them. Returns the figure."""
    import matplotlib.pyplot as plt
    import numpy as np
    from matplotlib.patches import Circle, Wedge

    fig, ax = plt.subplots(figsize=(5.5, 5.0))
    half = np.degrees(np.arccos(min(threshold, 1.0)))
    reach = 8.0  # beyond every corner of the axes, so no part of a cone is cut off by an arc
    ax.add_patch(Wedge((0, 0), reach, -half, half, color="#9fd37f", alpha=0.35, label=f"cosine ≥ {threshold:g} to q"))
    effective = np.clip(threshold / query_norm, -1.0, 1.0)
    wide = np.degrees(np.arccos(effective))
    ax.add_patch(Wedge((0, 0), reach, -wide, wide, fill=False, hatch="//", edgecolor="#e8a3a4", linewidth=0,
                       label=f"the bug: score ≥ {threshold:g} when cos ≥ {effective:.2g}"))
    ax.add_patch(Circle((0, 0), 1, fill=False, linestyle=":", color="grey", label="length 1 (unit circle)"))
    for name, v, color in [("q", query, "black"), *zip("ABC", docs, ["#4c72b0", "#c44e52", "#dd8452"])]:
        ax.annotate("", xy=v, xytext=(0, 0), arrowprops=dict(arrowstyle="->", color=color, linewidth=2))
        cos = "" if name == "q" else f" (cos {regime['both_normalized'].at[name, 'score']:.2f})"
        ax.text(v[0] + 0.08, v[1] + (-0.4 if name == "q" else 0.12), name + cos, color=color, zorder=5,
                bbox=dict(facecolor="white", edgecolor="none", pad=1.5))
    inside = [n for n in "ABC" if regime["both_normalized"].at[n, "score"] >= threshold]
    bug = [n for n in "ABC" if regime["documents_normalized"].at[n, "score"] >= threshold]
    ax.set(xlim=(-0.3, 4.2), ylim=(-1.2, 4.6), aspect="equal", xlabel="x", ylabel="y",
           title=f"Cosine cone: {', '.join(inside) or 'none'}; bug's cone: {', '.join(bug) or 'none'}")
    ax.legend(loc="upper center", bbox_to_anchor=(0.5, -0.16), fontsize=8, frameon=False)
    fig.tight_layout()
    return fig
