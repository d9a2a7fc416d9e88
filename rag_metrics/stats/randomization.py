"""The paired randomization test's machinery: sign flips of the questions that differ, all of them or drawn at random,
and the test's inversion into an interval (the method is in :mod:`rag_metrics.stats.paired`'s docstring).

:func:`randomization_rows` tests many sets of differences at once (a grid of runs, a simulation); :func:`rag_metrics
.stats.paired_test` calls it for one measure's values other than 0/1.
"""

from __future__ import annotations

import math

import numpy as np

from rag_metrics.stats.intervals import CHUNK, MAX_CELLS, N_RESAMPLES, clopper_pearson

__all__ = ["randomization_rows", "ALPHA", "EXACT_MAX"]

ALPHA = 0.05
"""The tests' level unless told otherwise."""
EXACT_MAX = 12
"""Up to this many questions that differ the randomization test enumerates every sign assignment (2^12 = 4,096);
beyond, it draws ``n_resamples`` (10,000) at random."""


def _k_needed(total: int, alpha: float) -> int:
    """Fewest assignments at least as extreme as the observed (of ``total``) for ``p = count / total >= alpha``."""
    k = max(0, math.ceil(alpha * total) - 1)
    while k / total < alpha:
        k += 1
    while k > 0 and (k - 1) / total >= alpha:
        k -= 1
    return k


def _flip_sums(d: np.ndarray, *, n_resamples: int, seed, exact_max: int, chunk: int | None):
    """``(sum e_i d_i per row, sum e_i)`` for chunks of sign assignments ``e``: all ``2^n`` when
    ``n <= exact_max``; else the observed one (all +1) then ``n_resamples`` random ones, drawn ``chunk`` at a time
    from ``numpy.random.default_rng(seed)``: as +-1 signs (``integers(0, 2, (chunk, n))``), or -- one row with few
    distinct differences (20 x distinct < n) -- as how many of each distinct difference keep their sign
    (``binomial(count, 1/2)``), the same distribution at a cost that does not grow with n."""
    sets, n = d.shape
    step = max(1, min(chunk or max(CHUNK, MAX_CELLS // max(8 * sets, 1)), MAX_CELLS // max(n, sets, 1)))
    if n <= exact_max:
        for start in range(0, 2**n, step):
            codes = np.arange(start, min(2**n, start + step))
            signs = ((codes[:, None] >> np.arange(n)) & 1) * -2.0 + 1.0
            yield d @ signs.T, signs.sum(axis=1)
        return
    yield d.sum(axis=1)[:, None], np.array([float(n)])
    rng = np.random.default_rng(seed)
    values, counts = np.unique(d[0], return_counts=True) if sets == 1 else (None, None)
    grouped = sets == 1 and values.size * 20 < n
    for start in range(0, n_resamples, step):
        size = min(step, n_resamples - start)
        if grouped:
            kept = rng.binomial(counts, 0.5, size=(size, counts.size))
            net = 2.0 * kept - counts                    # per distinct value: (+1 signs) - (-1 signs)
            yield (net @ values)[None, :], net.sum(axis=1)
        else:
            signs = rng.integers(0, 2, (size, n)) * 2.0 - 1.0
            yield d @ signs.T, signs.sum(axis=1)


def _flip_rows(x: np.ndarray, *, alpha: float, n_resamples: int, seed, exact_max: int,
               chunk: int | None) -> dict:
    """The sign-flip test of every row of ``x`` (``(sets, m)``) and its inversion: the ``mu0`` for which the test
    of ``x_i - mu0`` does not reject. Returns ``{"p", "low", "high", "exact", "resamples"}``."""
    sets, n = x.shape
    total_sum = x.sum(axis=1)[:, None]
    mean = total_sum / n
    tol = 1e-9 * np.maximum(1.0, np.abs(x).max(axis=1, initial=0.0))[:, None]
    exact = n <= exact_max
    total = 2**n if exact else n_resamples + 1
    k = _k_needed(total, alpha)
    keep_lo = np.empty((sets, 0))
    keep_hi = np.empty((sets, 0))
    count0 = np.zeros(sets, dtype=np.int64)
    for s, e in _flip_sums(x, n_resamples=n_resamples, seed=seed, exact_max=exact_max, chunk=chunk):
        n_minus, n_plus = (n - e) / 2, (n + e) / 2       # flipped / unflipped values
        with np.errstate(invalid="ignore", divide="ignore"):
            m_minus = (total_sum - s) / 2 / n_minus      # mean of the flipped x_i
            m_plus = (total_sum + s) / 2 / n_plus        # mean of the unflipped x_i
        whole = (n_minus == 0) | (n_plus == 0)           # all or none flipped: as extreme as observed, always
        lo = np.where(whole, -np.inf, np.minimum(m_minus, m_plus))
        hi = np.where(whole, np.inf, np.maximum(m_minus, m_plus))
        lo = np.minimum(lo, mean) - tol                  # the observed mean is always inside (exactly, by algebra)
        hi = np.maximum(hi, mean) + tol
        count0 += ((lo <= 0) & (hi >= 0)).sum(axis=1)
        if k:
            keep_lo = np.concatenate([keep_lo, lo], axis=1)
            keep_hi = np.concatenate([keep_hi, hi], axis=1)
            if keep_lo.shape[1] > k:
                keep_lo = np.partition(keep_lo, k - 1, axis=1)[:, :k]
                keep_hi = -np.partition(-keep_hi, k - 1, axis=1)[:, :k]
    p = count0 / total
    if k:
        low, high = keep_lo.max(axis=1), keep_hi.min(axis=1)
    else:
        low, high = np.full(sets, -np.inf), np.full(sets, np.inf)
    # report the ends without the tolerance, on the same side of 0 as the tolerant ends (they decide)
    tol = tol[:, 0]
    low = np.where(low <= 0, np.minimum(low + tol, 0.0), low + tol)
    high = np.where(high >= 0, np.maximum(high - tol, 0.0), high - tol)
    # adding back the tolerance rounds (-0.5 - 1e-9 + 1e-9 is -0.49999999999999994): keep the observed mean inside
    low, high = np.minimum(low, mean[:, 0]), np.maximum(high, mean[:, 0])
    return {"p": p, "low": low, "high": high, "exact": exact, "resamples": total if exact else total - 1}


def randomization_rows(diffs, *, alpha: float = ALPHA, n_resamples: int = N_RESAMPLES, seed: int = 0,
                       exact_max: int = EXACT_MAX, chunk: int | None = None, bound: float = 1.0) -> dict:
    """Paired randomization test of every row of ``diffs`` (``(sets, n)``, no NaN) and its interval.

    Only the ``m`` questions that differ take part (a tie flips to itself): the test flips the signs of those
    ``m`` differences -- all ``2^m`` ways when ``m <= exact_max``, else ``n_resamples`` random ways drawn from
    ``numpy.random.default_rng([seed, m])`` (rows with the same m share them) -- and ``p`` is the share at least
    as extreme as observed. Its inversion gives the
    interval ``[mu_low, mu_high]`` of the mean change *of a question that differs* (clipped to
    ``[-bound, bound]``, ``bound`` the largest possible ``|d_i|``: 1 for measures in [0, 1]); the interval of the
    change per question is then ``psi * mu`` over ``psi`` in the Clopper--Pearson interval of the share that
    differ (``m`` of ``n``) and ``mu`` in ``[mu_low, mu_high]``. It excludes 0 exactly when ``p < alpha``. With
    ``m <= 5`` (at alpha = 0.05) the test cannot reject anything, and the interval is ``+- bound x psi_high``: the
    change is at most as large as the share that may differ. Returns ``{"p", "low", "high", "exact", "m"}``.
    """
    d = np.atleast_2d(np.asarray(diffs, dtype=float))
    sets, n = d.shape
    differ = d != 0
    m = differ.sum(axis=1)
    p = np.ones(sets)
    mu_low = np.full(sets, -np.inf)
    mu_high = np.full(sets, np.inf)
    exact = np.ones(sets, dtype=bool)
    for mi in np.unique(m[m > 0]):
        rows = np.flatnonzero(m == mi)
        x = d[rows][differ[rows]].reshape(rows.size, int(mi))
        r = _flip_rows(x, alpha=alpha, n_resamples=n_resamples, seed=[seed, int(mi)], exact_max=exact_max,
                       chunk=chunk)
        p[rows], mu_low[rows], mu_high[rows], exact[rows] = r["p"], r["low"], r["high"], r["exact"]
    mu_low, mu_high = np.clip(mu_low, -bound, bound), np.clip(mu_high, -bound, bound)
    psi_low, psi_high = clopper_pearson(m, n, 1 - alpha)
    low = np.where(mu_low >= 0, psi_low * mu_low, psi_high * mu_low)
    high = np.where(mu_high >= 0, psi_high * mu_high, psi_low * mu_high)
    return {"p": p, "low": low, "high": high, "exact": exact, "m": m}
