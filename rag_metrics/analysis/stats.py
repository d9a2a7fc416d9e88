"""Small-sample statistics for golden sets of 40-200 questions.

* :func:`bootstrap_ci` -- percentile bootstrap CI of a mean (seeded; ``n_resamples``
  default 10,000).
* :func:`paired_comparison` -- two runs on the same questions: mean difference, paired
  bootstrap CI of the difference, paired randomization (sign-flip) test p-value, win/tie/loss.
  The p-value is exact (all 2^m sign assignments of the m non-zero differences) when
  m <= ``exact_max`` (default 20), Monte Carlo otherwise; this is the Fisher randomization
  test of Smucker, Allan & Carterette (CIKM 2007), as in ranx. A difference whose CI
  includes 0 is flagged ``within_noise``.
* :func:`compare_to_baseline` -- several systems against one baseline, with Holm's
  step-down correction of the p-values.
* :func:`paired_t_test` -- the paired t-test, as a cross-check.
* :func:`minimum_detectable_difference` / :func:`questions_needed` -- from the standard
  deviation of per-question differences (normal approximation of the paired test):
  MDD = (z_{1-alpha/2} + z_{power}) * sd / sqrt(n).

Undefined per-question values (NaN) are excluded and counted, never treated as 0.
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass
from statistics import NormalDist

import numpy as np
import pandas as pd

from ..errors import InputError

__all__ = [
    "bootstrap_ci", "paired_comparison", "PairedComparison", "compare_to_baseline", "holm",
    "paired_t_test", "minimum_detectable_difference", "questions_needed", "summary_with_ci",
    "ci_width_by_size", "N_RESAMPLES",
]

N_RESAMPLES = 10_000


def _values(values, name="values") -> np.ndarray:
    arr = np.asarray(pd.Series(values, dtype=float), dtype=float)
    if np.isinf(arr).any():
        raise InputError(f"{name}: infinite values cannot be averaged.")
    return arr


def bootstrap_ci(values, *, n_resamples: int = N_RESAMPLES, confidence: float = 0.95,
                 seed: int = 0) -> tuple[float, float, float, int]:
    """``(mean, low, high, n)`` -- percentile bootstrap CI of the mean over the defined values.

    NaN values are excluded (``n`` counts the rest). With fewer than 2 values the CI is
    (mean, mean) for n = 1 and all NaN for n = 0.
    """
    arr = _values(values)
    arr = arr[~np.isnan(arr)]
    n = arr.size
    if n == 0:
        return math.nan, math.nan, math.nan, 0
    mean = float(arr.mean())
    if n == 1:
        return mean, mean, mean, 1
    rng = np.random.default_rng(seed)
    means = arr[rng.integers(0, n, size=(n_resamples, n))].mean(axis=1)
    alpha = (1 - confidence) / 2
    low, high = np.quantile(means, [alpha, 1 - alpha])
    return mean, float(low), float(high), n


def summary_with_ci(evaluation, measures=None, **kwargs) -> pd.DataFrame:
    """Mean, bootstrap CI, evaluated and excluded counts (and excluded IDs) per measure.

    ``evaluation``: an :class:`~rag_metrics.Evaluation` (``measures`` default: all of them) or a
    per-question table with one column per measure. ``kwargs`` go to :func:`bootstrap_ci`.
    """
    per_question = evaluation.per_question if hasattr(evaluation, "per_question") else evaluation
    if measures is None:
        if not hasattr(evaluation, "measures"):
            raise InputError("summary_with_ci: name the measures (columns) of a per-question table.")
        measures = evaluation.measures
    rows = {}
    for m in measures:
        mean, low, high, n = bootstrap_ci(per_question[m], **kwargs)
        rows[m] = {"mean": mean, "ci_low": low, "ci_high": high, "evaluated": n, "excluded": int(len(per_question) - n),
                   "excluded_ids": tuple(per_question.index[per_question[m].isna().to_numpy()])}
    out = pd.DataFrame.from_dict(rows, orient="index")
    out.index.name = "measure"
    return out


@dataclass(frozen=True)
class PairedComparison:
    """Result of :func:`paired_comparison` (b minus a)."""

    n: int
    excluded: int
    mean_a: float
    mean_b: float
    mean_diff: float
    ci_low: float
    ci_high: float
    p_value: float
    method: str
    wins: int
    ties: int
    losses: int
    within_noise: bool

    def to_dict(self) -> dict:
        return asdict(self)


def _align(a, b):
    a, b = pd.Series(a, dtype=float), pd.Series(b, dtype=float)
    if set(a.index) != set(b.index):
        only_a, only_b = sorted(set(a.index) - set(b.index)), sorted(set(b.index) - set(a.index))
        raise InputError(
            f"paired comparison needs the same questions in both runs: only in a {only_a[:5]}, only in b {only_b[:5]}."
        )
    b = b.loc[a.index]
    defined = a.notna() & b.notna()
    return a[defined].to_numpy(), b[defined].to_numpy(), int((~defined).sum())


def _randomization_p(diffs: np.ndarray, *, n_resamples: int, seed: int, exact_max: int):
    nonzero = diffs[diffs != 0]
    m = nonzero.size
    if m == 0:
        return 1.0, "exact"
    observed = abs(diffs.sum())
    tol = 1e-12 * max(1.0, np.abs(diffs).sum())
    if m <= exact_max:
        signs = ((np.arange(2**m)[:, None] >> np.arange(m)) & 1) * 2 - 1
        sums = np.abs(signs @ nonzero)
        return float(np.mean(sums >= observed - tol)), "exact"
    rng = np.random.default_rng(seed)
    count = 0
    for start in range(0, n_resamples, 2000):
        size = min(2000, n_resamples - start)
        signs = rng.integers(0, 2, size=(size, m)) * 2 - 1
        count += int(np.sum(np.abs(signs @ nonzero) >= observed - tol))
    return (count + 1) / (n_resamples + 1), "monte_carlo"


def paired_comparison(a, b, *, n_resamples: int = N_RESAMPLES, confidence: float = 0.95, seed: int = 0,
                      exact_max: int = 20) -> PairedComparison:
    """Compare run ``b`` against run ``a`` on the same questions (Series indexed by question ID).

    Questions where either value is undefined (NaN) are excluded and counted. The
    difference is ``b - a``; its CI is the percentile paired bootstrap (questions resampled
    together). The p-value is two-sided.
    """
    xa, xb, excluded = _align(a, b)
    diffs = xb - xa
    n = diffs.size
    if n == 0:
        raise InputError("paired comparison: no question has a defined value in both runs.")
    mean_diff, low, high, _ = bootstrap_ci(diffs, n_resamples=n_resamples, confidence=confidence, seed=seed)
    p, method = _randomization_p(diffs, n_resamples=n_resamples, seed=seed, exact_max=exact_max)
    return PairedComparison(
        n=n, excluded=excluded, mean_a=float(xa.mean()), mean_b=float(xb.mean()), mean_diff=mean_diff,
        ci_low=low, ci_high=high, p_value=p, method=method,
        wins=int((diffs > 0).sum()), ties=int((diffs == 0).sum()), losses=int((diffs < 0).sum()),
        within_noise=bool(low <= 0 <= high),
    )


def holm(p_values) -> np.ndarray:
    """Holm's step-down adjusted p-values (same order as given), capped at 1."""
    p = np.asarray(list(p_values), dtype=float)
    order = np.argsort(p, kind="stable")
    m = p.size
    adjusted = np.empty(m)
    running = 0.0
    for rank, i in enumerate(order):
        running = max(running, (m - rank) * p[i])
        adjusted[i] = min(1.0, running)
    return adjusted


def compare_to_baseline(baseline, systems: dict, **kwargs) -> pd.DataFrame:
    """Each system vs the baseline: difference, CI, p-value, Holm-adjusted p-value, within_noise, W/T/L."""
    rows = {name: paired_comparison(baseline, values, **kwargs).to_dict() for name, values in systems.items()}
    table = pd.DataFrame.from_dict(rows, orient="index")
    table["p_holm"] = holm(table["p_value"])
    table.index.name = "system"
    return table[["n", "mean_a", "mean_b", "mean_diff", "ci_low", "ci_high", "p_value", "p_holm", "method",
                  "wins", "ties", "losses", "within_noise", "excluded"]]


def paired_t_test(a, b) -> tuple[float, float]:
    """``(t, p)`` of the two-sided paired t-test of b - a (NaN pairs excluded). Needs scipy (``analysis`` extra)."""
    from scipy import stats

    xa, xb, _ = _align(a, b)
    d = xb - xa
    n = d.size
    sd = d.std(ddof=1)
    if n < 2 or sd == 0:
        return math.nan, math.nan
    t = d.mean() / (sd / math.sqrt(n))
    return float(t), float(2 * stats.t.sf(abs(t), df=n - 1))


def _z(alpha, power):
    normal = NormalDist()
    return normal.inv_cdf(1 - alpha / 2) + normal.inv_cdf(power)


def minimum_detectable_difference(n: int, sd_diff: float, *, alpha: float = 0.05, power: float = 0.8) -> float:
    """Smallest mean difference a paired test on ``n`` questions detects with ``power`` at level ``alpha``."""
    if n < 2:
        raise InputError(f"The 'n' parameter must be an int >= 2. Got {n!r} instead.")
    return float(_z(alpha, power) * sd_diff / math.sqrt(n))


def questions_needed(delta: float, sd_diff: float, *, alpha: float = 0.05, power: float = 0.8) -> int:
    """Questions needed to detect a mean difference ``delta`` (same approximation as the MDD); at least 2, the
    smallest golden set a paired test can use. ``sd_diff`` must be > 0: with no spread at all (no question
    changed) the approximation says nothing."""
    if delta <= 0:
        raise InputError(f"The 'delta' parameter must be > 0. Got {delta!r} instead.")
    if not sd_diff > 0:
        raise InputError(f"The 'sd_diff' parameter must be > 0 (the spread of per-question differences). Got {sd_diff!r}: "
                         "no question changed, so the sample size cannot be estimated from it.")
    return max(2, int(math.ceil((_z(alpha, power) * sd_diff / delta) ** 2)))


def ci_width_by_size(values, sizes, *, n_resamples: int = N_RESAMPLES, confidence: float = 0.95, seed: int = 0) -> pd.Series:
    """Expected width of the percentile bootstrap CI for golden sets of each size in ``sizes``.

    Golden sets of size n are simulated by drawing n questions with replacement from the
    observed per-question ``values`` (e.g. per-question differences between two runs); the
    width is the spread between the CI quantiles of their means.
    """
    arr = _values(values)
    arr = arr[~np.isnan(arr)]
    if arr.size == 0:
        raise InputError("ci_width_by_size: no defined value.")
    rng = np.random.default_rng(seed)
    alpha = (1 - confidence) / 2
    out = {}
    for n in sizes:
        means = arr[rng.integers(0, arr.size, size=(n_resamples, int(n)))].mean(axis=1)
        low, high = np.quantile(means, [alpha, 1 - alpha])
        out[int(n)] = float(high - low)
    return pd.Series(out, name="ci_width").rename_axis("questions")
