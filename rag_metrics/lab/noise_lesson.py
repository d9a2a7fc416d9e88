"""The computation and the claims of notebook 07 (small golden sets: what an interval on one golden set says).

:func:`coverage_curve` gives, for golden sets of ``n`` questions with 0/1 values, how often each interval rule holds
the true hit rate -- exactly, not by simulation: such a golden set is summed up by its number of hits ``k``, so each
rule gives one interval per ``k`` (the percentile bootstrap's from its own resamples), and the coverage at a true rate
is the binomial probability of the ``k`` whose interval holds it. :func:`noise_band_claim` and
:func:`coverage_claims` return claims as keyword arguments of :func:`rag_metrics.report.kernel.claim`.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from rag_metrics.core.errors import check_alpha
from rag_metrics.stats.intervals import bootstrap_means, clopper_pearson, percentile_rows

__all__ = ["coverage_figure", "SHORT_BY", "HIGH", "BANDS", "SLIGHTLY", "MARGIN", "check_parameters", "coverage_curve", "coverage_bands",
           "noise_band_claim", "coverage_claims", "own_values_claim", "questions_for_margin", "margin_claim"]

SHORT_BY = 0.02
"""An interval rule *falls short* at a true rate when it holds it in fewer golden sets than the nominal confidence
minus this (two points: the coverage of any rule for a count jumps up and down by about a point from rate to rate)."""

HIGH = 0.9
"""Above this true hit rate a retriever is *good*: where the percentile interval's shortfall concentrates."""

BANDS = ((0.5, 0.8), (0.8, 0.9), (0.9, 0.95), (0.95, 0.99))
"""The bands of true hit rates the coverage table sums up (the last one where good retrievers are)."""

SLIGHTLY = 0.03
"""A shortfall of the percentile interval below this many points (of coverage) is called *slight*."""

MARGIN = 0.03
"""The half-width (3 points) the width section plans a golden set for."""

PERCENTILE, PACKAGE = "percentile bootstrap", "package's interval (Clopper–Pearson)"


def check_parameters(*, measure: str, retriever: str, alpha: float, simulated_sets) -> None:
    """Refuse parameters the lesson cannot use, with the name of the parameter and what was expected."""
    from rag_metrics.measures.registry import parse_measure
    from rag_metrics.retrieval.retrievers import RETRIEVERS

    parse_measure(measure)  # a clear error for a name that is not a measure
    if retriever not in RETRIEVERS:
        raise ValueError(f"retriever must be one of {RETRIEVERS}. Got {retriever!r}.")
    check_alpha(alpha, high=0.2)
    if not (isinstance(simulated_sets, int) and simulated_sets >= 200):
        raise ValueError(f"simulated_sets must be an int >= 200. Got {simulated_sets!r}.")


def coverage_curve(n: int, *, confidence: float, n_resamples: int, rates=None, seed: int = 1) -> pd.DataFrame:
    """Coverage of the percentile bootstrap and of the Clopper--Pearson interval on golden sets of ``n`` questions
    with 0/1 values, at each true hit rate in ``rates`` (default 0.50 to 0.99 by 0.005): one row per rate."""
    from scipy.stats import binom

    if n < 1:
        raise ValueError(f"coverage_curve: n must be at least 1 question. Got {n!r}.")
    rates = np.round(np.arange(0.5, 0.9901, 0.005), 3) if rates is None else np.asarray(rates, dtype=float)
    k = np.arange(n + 1)
    sets = (np.arange(n)[None, :] < k[:, None]).astype(float)  # the golden set with k hits, one row per k
    p_low, p_high = percentile_rows(bootstrap_means(sets, n_resamples, seed=seed), confidence)
    c_low, c_high = clopper_pearson(k, n, confidence)
    weight = binom.pmf(k[None, :], n, rates[:, None])  # P(k hits | true rate), one row per rate

    def held(low, high):
        return (weight * ((low[None, :] <= rates[:, None]) & (rates[:, None] <= high[None, :]))).sum(axis=1)

    return pd.DataFrame({PERCENTILE: held(p_low, p_high), PACKAGE: held(c_low, c_high)},
                        index=pd.Index(rates, name="true hit rate"))


def coverage_bands(curve: pd.DataFrame) -> pd.DataFrame:
    """The lowest coverage of each rule in each band of :data:`BANDS` (bands with no rate of the curve left out).
    Each band holds its lower end and not its upper one, except the last, which holds both: a rate on a boundary
    falls in one band only, and the label says so (``0.50 to < 0.80``)."""
    rows = {}
    for i, (low, high) in enumerate(BANDS):
        last = i == len(BANDS) - 1
        part = curve[(curve.index >= low) & ((curve.index <= high) if last else (curve.index < high))]
        if len(part):
            rows[f"{low:.2f} to {'' if last else '< '}{high:.2f}"] = part.min()
    return pd.DataFrame.from_dict(rows, orient="index").rename_axis("true hit rate")


def noise_band_claim(mean: float, low: float, high: float, n: int, *, measure: str, name: str,
                     confidence: float) -> dict:
    """The pitfall on this golden set: the range of true values its mean cannot tell apart (its interval)."""
    below, above = mean - low, high - mean
    return {"condition": n > 0 and below + above > 2 / n, "headline": True, "name": "noise_band",
            "text_if_true": (
                f"**On these {n} questions, a difference of up to {below * 100:.1f} points below or {above * 100:.1f} "
                f"above {name}'s {measure} of {mean:.3f} cannot be told apart from noise.** Its {confidence:.0%} interval "
                f"runs from {low:.3f} to {high:.3f}: the true values these {n} answers do not rule out, so a fixed "
                f"target, or a figure measured on other questions, anywhere in it cannot be told apart from this one. "
                f"One question moves the mean by up to {100 / n:.1f} points."),
            "text_if_false": (
                f"On these {n} questions {name}'s {measure} of {mean:.3f} has a {confidence:.0%} interval from "
                f"{low:.3f} to {high:.3f}, no wider than two questions' worth ({200 / n:.1f} points)."),
            "figures": {"mean": mean, "low": low, "high": high, "n": n}}


def coverage_claims(curve: pd.DataFrame, *, confidence: float, n: int) -> list[dict]:
    """Where the percentile interval falls short of ``confidence`` (by more than :data:`SHORT_BY`), and that the
    package's interval never does."""
    pct, ours = curve[PERCENTILE], curve[PACKAGE]
    short = pct[pct < confidence - SHORT_BY]
    top = curve.index >= BANDS[-1][0]
    worst = float(pct.idxmin())
    figures = {"short_rates": [float(r) for r in short.index], "pct_top_min": float(pct[top].min()),
               "worst_rate": worst, "worst": float(pct.min()), "confidence": confidence, "short_by": SHORT_BY,
               "pct": [float(v) for v in pct], "rates": [float(r) for r in curve.index]}
    high_short = int((short.index > HIGH).sum())
    figures["high_short"] = high_short
    return [
        {"condition": len(short) > 0 and bool(pct[top].min() < confidence - SHORT_BY), "headline": False,
         "name": "percentile_falls_short",
         "text_if_true": (
             f"The percentile bootstrap falls short of {confidence:.0%} by more than {SHORT_BY * 100:.0f} points at "
             f"{len(short)} of the {len(curve)} true rates drawn, {high_short} of them above {HIGH:.2f} -- where good "
             f"retrievers are. At its worst, a true rate of {worst:.3f}, it holds the true rate in only "
             f"{pct.min():.1%} of golden sets of {n} questions: near 100% a golden set often has every question hit, "
             "and the percentile interval is then [1, 1]."),
         "text_if_false": (
             f"On golden sets of {n} questions the percentile bootstrap stays within {SHORT_BY * 100:.0f} points of "
             f"{confidence:.0%} at every true rate from {curve.index.min():.2f} to {curve.index.max():.2f}."),
         "figures": figures},
        {"condition": bool((ours >= confidence - 1e-9).all()), "headline": False, "name": "package_interval_covers",
         "text_if_true": (
             f"The package's interval (Clopper–Pearson) holds the true rate in at least {confidence:.0%} of golden "
             f"sets at every rate drawn (lowest {ours.min():.1%}): it is wider where the percentile one is too "
             "narrow."),
         "figures": {"coverages": [float(v) for v in ours], "confidence": confidence}},
    ]


def own_values_claim(percentile: float, package: float, *, sets: int, confidence: float, truth: float,
                     method: str) -> dict:
    """Coverage measured by simulation on a configuration's own values: does the percentile bootstrap fall short of
    ``confidence`` by more than the simulation's noise (two standard errors over ``sets`` golden sets)?"""
    noise = 2 * float(np.sqrt(confidence * (1 - confidence) / sets))
    both = f"the percentile bootstrap holds it in {percentile:.1%} of {sets:,} simulated golden sets, the package's " \
           f"interval ({method}) in {package:.1%}"
    how = "Slightly" if confidence - percentile < SLIGHTLY else "Yes"
    return {"condition": percentile < confidence - noise, "headline": False, "name": "own_values_short",
            "text_if_true": (f"**{how}: {percentile:.1%} instead of {confidence:.0%}.** On this configuration's own "
                             f"values (true value {truth:.3f}) {both}: the percentile interval falls short of "
                             f"{confidence:.0%} by more than the simulation's noise (±{noise:.1%})."),
            "text_if_false": (f"**No, not measurably here.** On this configuration's own values (true value "
                              f"{truth:.3f}) {both}: the percentile interval is within the simulation's noise "
                              f"(±{noise:.1%}) of {confidence:.0%} or above it."),
            "figures": {"percentile": percentile, "package": package, "noise": noise, "confidence": confidence,
                        "slight": confidence - percentile < SLIGHTLY}}


def questions_for_margin(values, margin: float, *, confidence: float) -> int | None:
    """About how many questions make a mean of ``values``' kind known to within ``+-margin`` at ``confidence``: the
    normal approximation n = (z * sd / margin)^2, sd the spread of the values (for 0/1 values sqrt(p(1 - p))). None
    when the values have no spread."""
    from scipy.stats import norm

    x = np.asarray(values, dtype=float)
    x = x[~np.isnan(x)]
    sd = float(x.std()) if x.size else 0.0
    if not sd > 0:
        return None
    return int(np.ceil((norm.ppf(1 - (1 - confidence) / 2) * sd / margin) ** 2 - 1e-9))


def margin_claim(values, *, measure: str, confidence: float, margin: float = MARGIN) -> dict:
    """The width section's practical sentence: the golden set that gives ``+-margin`` on these values."""
    x = np.asarray(values, dtype=float)
    x = x[~np.isnan(x)]
    need = questions_for_margin(x, margin, confidence=confidence)
    sd = float(x.std()) if x.size else 0.0
    return {"condition": need is not None, "headline": False, "name": "questions_for_margin",
            "text_if_true": (f"To know {measure} at this level ({x.mean() if x.size else float('nan'):.3f}) to within "
                             f"±{margin * 100:.0f} points at {confidence:.0%}, plan about **{need:,} questions** "
                             f"(normal approximation from the spread of its values, {sd:.3f}) -- this golden set has "
                             f"{x.size}." if need is not None else ""),
            "text_if_false": f"Every question has the same {measure}: the spread is 0 and gives no size to plan.",
            "figures": {"need": need, "sd": sd, "margin": margin, "confidence": confidence, "n": int(x.size)}}


def coverage_figure(curve: pd.DataFrame, confidence: float, n: int):
    """Notebook 07's coverage figure: each interval rule's coverage (``curve``: :func:`coverage_curve`) against the
    true hit rate on golden sets of ``n`` questions, the nominal ``confidence`` dashed, the percentile interval's
    shortfall shaded. Returns the figure."""
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(8, 4))
    ax.plot(curve.index, curve[PERCENTILE], color="tab:red", label=PERCENTILE)
    ax.plot(curve.index, curve[PACKAGE], color="tab:blue", label=PACKAGE)
    ax.axhline(confidence, color="black", linestyle="--", linewidth=1, label=f"nominal {confidence:.0%}")
    ax.fill_between(curve.index, curve[PERCENTILE], confidence, where=curve[PERCENTILE] < confidence,
                    color="tab:red", alpha=0.2, label="where the percentile interval falls short")
    ax.set_xlabel("true hit rate of the configuration")
    ax.set_ylabel(f"share of golden sets of {n} questions\nwhose interval holds the true rate")
    ax.set_title(f"Coverage of a {confidence:.0%} interval on {n} questions")
    ax.set_ylim(max(0.0, curve.to_numpy().min() - 0.05), 1.005)
    ax.legend(loc="lower left", fontsize=8)
    fig.tight_layout()
    return fig
