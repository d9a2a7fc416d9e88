"""Two runs' changes on a graded measure (MRR, nDCG, recall with several gold): the bounded-mean test and its interval.

For values other than 0/1 (MRR, nDCG, recall with several gold...) :func:`~rag_metrics.stats.paired.paired_test`
uses the **bounded-mean test** of "the mean change is 0" (:func:`bounded_mean_rows`; the bound of Learned-Miller &
Thomas 2019, also in Gaffke 2005). Every change lies in ``[-bound, bound]`` (``bound`` = 1 for measures in [0, 1];
otherwise the observed range of the values, an assumption). With weights ``G_0, G_1, ..., G_n`` independent Exp(1) and
``T`` their sum (a Dirichlet(1, ..., 1) draw), each of ``B = n_resamples`` draws gives::

    M_low  = (sum_i G_i d_i - G_0 bound) / T        M_high = (sum_i G_i d_i + G_0 bound) / T
    p_low  = (1 + #{M_low <= 0}) / (B + 1)          p_high = (1 + #{M_high >= 0}) / (B + 1)
    p      = min(1, 2 min(p_low, p_high))

-- the weighted mean of the changes with one more, unseen change at the worst value the measure allows, weighted
as one observation of n + 1. The interval is every ``mu0`` the same test does not reject (``M - mu0`` for ``M``):
``low`` the k-th smallest ``M_low``, ``high`` the k-th largest ``M_high``, k the fewest draws with ``(1 + k) / (B +
1) >= alpha / 2``; it excludes 0 exactly when ``p < alpha``. Why not the paired randomization test (Fisher's sign
flips, :func:`~rag_metrics.stats.randomization.randomization_rows`, which the package used before and keeps for
comparison): it tests "each change is as likely to be +d as -d", not "the mean did not change". With 30% of the
questions changing, 80% of those up by 0.2 and 20% down by 0.8 -- a mean change of exactly 0 -- it called 12% of runs of
20-30 questions significant, and 27% of runs of 65 when 10% change by +0.1 (90%) or -0.9 (10%): the golden set rarely
shows the few large losses, and sign flips cannot allow for what was not seen. A studentized sign-flip test is the same
test (flips leave ``sum d_i^2`` unchanged and t is increasing in ``|sum d_i|`` for a fixed ``sum d_i^2``); Student's t
and a bootstrap-t do worse (0.23 and 0.20 at 20 questions). The bounded-mean test allows for a loss as large as the
measure permits: its measured false alarms stay at or below 0.05 on every skewed null of ``benchmarks/stat_edges.md`` at
n = 20-200 (its validity for every distribution on the interval is conjectured by Learned-Miller & Thomas, who found no
counterexample; here it is measured, not proven). The price is power at small n: at 20-30 questions only large changes
are called, and at 65 a mean change of +0.05 (every question moving by N(0.05, 0.2)) is called in about 15% of runs
where the sign-flip test called 51%; at 200 questions the two are close (0.86 against 0.94). Where a change must be
decided on few questions, a 0/1 measure (hit@k, the exact sign test) loses none of this power.
"""

from __future__ import annotations

import math

import numpy as np

from rag_metrics.stats.intervals import CHUNK, MAX_CELLS, N_RESAMPLES
from rag_metrics.stats.randomization import ALPHA

__all__ = ["bounded_mean_rows"]


def _needed(total: int, level: float) -> int:
    """Fewest draws ``k`` at or beyond a value for ``(1 + k) / total >= level`` (the same float comparison as p)."""
    k = max(0, math.ceil(level * total) - 1)
    while (1 + k) / total < level:
        k += 1
    while k > 0 and k / total >= level:
        k -= 1
    return k


def _weighted_sums(d: np.ndarray, *, n_resamples: int, seed, chunk: int | None):
    """``(sum_i G_i d_i, G_0, T)`` per draw and row, chunk by chunk: ``G_0, G_1..G_n`` independent Exp(1) (a
    Dirichlet(1, ..., 1) draw once divided by their sum ``T``), from ``numpy.random.default_rng(seed)``, the same draws
    for every row -- or, for one row with few distinct values (20 x distinct < n), one Gamma(count) weight per distinct
    value (the sum of its Exp(1) weights: the same distribution at a cost that does not grow with n)."""
    sets, n = d.shape
    rng = np.random.default_rng(seed)
    values, counts = np.unique(d[0], return_counts=True) if sets == 1 else (None, None)
    grouped = sets == 1 and values.size * 20 < n
    width = (values.size if grouped else n) + 1
    step = max(1, min(chunk or CHUNK, MAX_CELLS // max(width, sets, 1)))
    shapes = np.concatenate([[1.0], counts]) if grouped else None
    for start in range(0, n_resamples, step):
        size = min(step, n_resamples - start)
        # one row of weights per draw, the bound's first: drawn row by row, the same whatever the chunk size
        g = rng.standard_gamma(shapes, size=(size, width)) if grouped else rng.standard_exponential((size, width))
        sums = (g[:, 1:] @ values)[None, :] if grouped else d @ g[:, 1:].T
        yield sums, g[:, 0], g.sum(axis=1)


def bounded_mean_rows(diffs, *, alpha: float = ALPHA, n_resamples: int = N_RESAMPLES, seed: int = 0,
                      bound=1.0, chunk: int | None = None) -> dict:
    """The bounded-mean test of "the mean change is 0" on every row of ``diffs`` (``(sets, n)``, no NaN, every value
    in ``[-bound, bound]``; ``bound`` may also be ``(largest loss, largest gain)``) and its interval (module
    docstring). Each draw gives ``M_low = (sum_i G_i d_i - G_0 loss) / T`` and ``M_high = (sum_i G_i d_i + G_0 gain)
    / T``; ``p_low = (1 + #{M_low <= 0}) / (B + 1)``, ``p_high = (1 + #{M_high >= 0}) / (B + 1)``, ``p = min(1, 2
    min(p_low, p_high))``, never below its exact floor with m changes that are not 0 (``2^(1 - m)`` for a symmetric
    bound; the exact p never is below it, a few draws could be by chance); the interval is every ``mu0`` the same
    test does not reject (``M - mu0`` in place of ``M``: the test of ``d - mu0`` within ``(loss + mu0, gain - mu0)``
    on the same draws), reaching 0 when the floor lifted p to ``alpha``, so it excludes 0 exactly when ``p <
    alpha``. ``B = n_resamples`` draws, shared by the rows. Returns ``{"p", "low", "high"}``."""
    d = np.atleast_2d(np.asarray(diffs, dtype=float))
    sets, n = d.shape
    loss, gain = (float(bound), float(bound)) if np.ndim(bound) == 0 else (float(bound[0]), float(bound[1]))
    low_draws, high_draws = [], []
    for sums, g0, total in _weighted_sums(d, n_resamples=n_resamples, seed=seed, chunk=chunk):
        low_draws.append((sums - g0 * loss) / total)          # (sets, draws of this chunk)
        high_draws.append((sums + g0 * gain) / total)
    m_low, m_high = np.concatenate(low_draws, axis=1), np.concatenate(high_draws, axis=1)   # (sets, B)
    total = n_resamples + 1
    p_low = (1 + (m_low <= 0).sum(axis=1)) / total
    p_high = (1 + (m_high >= 0).sum(axis=1)) / total
    p = np.minimum(1.0, 2 * np.minimum(p_low, p_high))
    # the test's own p is never below its floor with m changes (module docstring: every d_i <= gain, so M_low <= 0
    # whenever gain x the m weights <= loss x G_0, of probability (loss / (loss + gain))^m; the same on the other
    # side): a draw-by-draw estimate can be, by chance, with few draws -- keep it at that floor, so that "m <= 5
    # cannot reach 0.05" holds for every seed
    m = (d != 0).sum(axis=1).astype(float)
    floor = 2 * np.minimum((loss / (loss + gain)) ** m, (gain / (loss + gain)) ** m)
    p = np.maximum(p, np.minimum(1.0, floor))
    k = _needed(total, alpha / 2)      # draws needed at or beyond mu0 for it not to be rejected on that side
    if 1 <= k <= n_resamples:
        low = np.sort(m_low, axis=1)[:, k - 1]                  # the k-th smallest M_low
        high = -np.sort(-m_high, axis=1)[:, k - 1]              # the k-th largest M_high
    else:                                                       # too few draws to reject anything
        low, high = np.full(sets, -loss), np.full(sets, gain)
    # where the floor lifted p to alpha or above, the interval reaches 0 (it leaves 0 out exactly when p < alpha)
    keep = p >= alpha
    low, high = np.where(keep, np.minimum(low, 0.0), low), np.where(keep, np.maximum(high, 0.0), high)
    return {"p": p, "low": low, "high": high}
