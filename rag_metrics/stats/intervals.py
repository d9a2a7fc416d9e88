"""Confidence intervals for the mean of per-question values, chosen by what the values are.

:func:`mean_interval` is the interval the package reports for a mean (headline figures, history, reports). It
looks at the values and says which method it used (``method``):

* **0/1 values** (hit@k, success@k, recall with one gold document): the **Clopper--Pearson** interval of a
  binomial proportion (Clopper & Pearson 1934). With ``x`` successes of ``n``, at confidence ``1 - alpha``::

      low  = Beta^-1(alpha/2;     x,     n - x + 1)     (0 when x = 0)
      high = Beta^-1(1 - alpha/2; x + 1, n - x)         (1 when x = n)

  It is the set of rates the exact binomial test does not reject, so its coverage is at least ``1 - alpha`` for
  every true rate and every n. Chosen by measured coverage (exact binomial sums, ``benchmarks/error_rates.md``):
  the Wilson score interval (Wilson 1927) is ~5% narrower at n = 65, rate 0.97, but its coverage falls to 0.86 at
  n = 20-30 for rates near 0.99 (0.939 at n = 30, rate 0.97); Jeffreys falls to 0.88-0.89 and mid-p to 0.92;
  the continuity-corrected Wilson (Newcombe 1998, method 4) holds 0.95 but is wider than Clopper--Pearson at
  rates near 1 (0.180 vs 0.161 at n = 30, rate 0.97). When every value is 1 the interval is ``[(alpha/2)^(1/n),
  1]``, never of zero width.
* **other values** (MRR, nDCG, recall with several gold, precision): the **BCa bootstrap** (bias-corrected and
  accelerated, Efron 1987; Efron & Tibshirani 1993, ch. 14). From B resampled means ``m*_b`` of the n values::

      z0 = Phi^-1( (#{m*_b < mean} + #{m*_b <= mean}) / 2B )       (bias correction, mid-rank)
      a  = sum (x_i - mean)^3 / (6 (sum (x_i - mean)^2)^(3/2))      (acceleration: the jackknife of the mean,
                                                                     in closed form -- no n x n jackknife)
      alpha_1,2 = Phi( z0 + (z0 + z_{alpha/2, 1-alpha/2}) / (1 - a (z0 + z_{alpha/2, 1-alpha/2})) )

  and the interval is the ``alpha_1``, ``alpha_2`` quantiles of the ``m*_b`` (linear interpolation). Equal to
  ``scipy.stats.bootstrap(..., method="BCa")`` given the same resamples (a test checks it), but computed in
  bounded memory: resamples are drawn 500 at a time (fewer for very large n) as index counts, and the result does
  not depend on the chunk size. Its coverage, measured on MRR- and nDCG-like values at n = 30-200, is 0.94-0.97
  (``benchmarks/error_rates.md``); the percentile bootstrap's is 0.88-0.95 on the same values.
* **no spread** (every value equal): a bootstrap has nothing to resample. Values in [0, 1] get the
  Clopper--Pearson interval of the mean read as a share (``x = n * mean``): a variable in [0, 1] with mean ``mu``
  has variance at most ``mu (1 - mu)``, that of 0/1 values with the same mean, so this is the cautious choice
  when the sample shows no spread. Other values (counts) get ``[mean, mean]`` and the method says so.

Undefined values (NaN) are left out and counted (``excluded``); infinite values are an error.
:func:`percentile_bootstrap_ci` is the percentile bootstrap the package used before (the range between the
``alpha/2`` and ``1 - alpha/2`` quantiles of the resampled means); it is kept for comparison only: at n = 65 and
a hit rate of 0.97 it covers the true rate in about 85% of golden sets, not 95%.

The ``*_rows`` functions do the same on a 2-D array, one golden set per row (the simulation tests and the
benchmark call them on thousands of simulated sets at once; the 1-D functions call them on one row).
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass

import numpy as np
import pandas as pd

from rag_metrics.core.errors import InputError, check_int, check_number

__all__ = [
    "MeanInterval", "mean_interval", "percentile_bootstrap_ci", "clopper_pearson", "wilson", "bootstrap_means",
    "mean_interval_rows", "percentile_rows", "bca_rows", "N_RESAMPLES", "CHUNK", "CLOPPER_PEARSON", "BCA",
    "SHARE", "NO_SPREAD", "PERCENTILE", "mean_table", "check_confidence", "check_resamples",
]

N_RESAMPLES = 10_000
"""Bootstrap resamples (and randomization-test sign flips) by default."""
CHUNK = 500
"""Resamples drawn at a time (fewer when one resample of n values would not fit in ~2 million cells)."""
MAX_CELLS = 2**21

CLOPPER_PEARSON = "Clopper-Pearson"
BCA = "BCa bootstrap"
SHARE = "Clopper-Pearson (no spread: the mean read as a share)"
NO_SPREAD = "none (no spread)"
PERCENTILE = "percentile bootstrap"


def check_confidence(confidence) -> float:
    """The confidence level of an interval as a float in [0.5, 1) (:func:`~rag_metrics.core.errors.check_number`)."""
    return check_number(confidence, "confidence", low=0.5, high=1, high_open=True, field="confidence")


def check_resamples(n_resamples) -> int:
    """The number of bootstrap or randomization resamples as an int >= 100."""
    return check_int(n_resamples, "n_resamples", low=100, field="n_resamples")


def values_1d(values, name: str = "values") -> tuple[np.ndarray, int]:
    """The defined values as a float array and how many were undefined (NaN); infinite values are an error."""
    arr = np.asarray(pd.Series(values, dtype=float), dtype=float) if not isinstance(values, np.ndarray) \
        else values.astype(float, copy=False).ravel()
    if np.isinf(arr).any():
        raise InputError(f"{name}: infinite values cannot be averaged.")
    defined = ~np.isnan(arr)
    return arr[defined], int((~defined).sum())


# ---- proportions -----------------------------------------------------------------------------------------------

def clopper_pearson(successes, n, confidence: float = 0.95) -> tuple[np.ndarray, np.ndarray]:
    """Clopper--Pearson interval of a binomial proportion (module docstring): ``(low, high)``, elementwise.

    ``successes`` may be fractional (a mean read as a share). ``n = 0`` gives ``(0, 1)``.
    """
    from scipy.special import betaincinv

    x = np.asarray(successes, dtype=float)
    n = np.asarray(n, dtype=float)
    alpha = 1.0 - confidence
    with np.errstate(invalid="ignore", divide="ignore"):
        low = np.where(x <= 0, 0.0, betaincinv(np.maximum(x, 1e-300), np.maximum(n - x + 1, 1e-300), alpha / 2))
        high = np.where(x >= n, 1.0, betaincinv(x + 1, np.maximum(n - x, 1e-300), 1 - alpha / 2))
    return low, high


def wilson(successes, n, confidence: float = 0.95) -> tuple[np.ndarray, np.ndarray]:
    """Wilson score interval (Wilson 1927), elementwise -- for comparison; the package reports Clopper--Pearson.

    ``center = (x + z^2/2) / (n + z^2)``, ``half = z / (n + z^2) * sqrt(x (n - x) / n + z^2 / 4)``.
    """
    from scipy.special import ndtri

    x = np.asarray(successes, dtype=float)
    n = np.asarray(n, dtype=float)
    z = float(ndtri(1 - (1 - confidence) / 2))
    with np.errstate(invalid="ignore", divide="ignore"):
        center = (x + z * z / 2) / (n + z * z)
        half = z / (n + z * z) * np.sqrt(np.maximum(x * (n - x) / n, 0) + z * z / 4)
    return np.clip(center - half, 0, 1), np.clip(center + half, 0, 1)


# ---- the bootstrap, in bounded memory --------------------------------------------------------------------------

def _chunk_rows(n: int, chunk: int | None) -> int:
    limit = max(1, MAX_CELLS // max(n, 1))
    return max(1, min(chunk or CHUNK, limit))


def bootstrap_means(values, n_resamples: int = N_RESAMPLES, *, seed: int = 0, chunk: int | None = None) -> np.ndarray:
    """Means of ``n_resamples`` bootstrap resamples of each row of ``values`` (shape ``(sets, n)`` or ``(n,)``).

    A resample draws n of the row's values with replacement. Resamples are drawn ``chunk`` at a time (default
    500; fewer when ``chunk x n`` would pass ~2 million cells), so memory stays bounded whatever ``n_resamples``
    is, and the result is the same for any chunk size. How they are drawn, from
    ``numpy.random.default_rng(seed)``:

    * one row with few distinct values (20 x distinct < n, e.g. MRR on thousands of questions): how many times
      each distinct value is drawn, ``multinomial(n, share of each value)`` -- the same distribution as drawing
      indices, at a cost that does not grow with n;
    * one row otherwise: ``integers(0, n, (chunk, n))`` indices, the draws ``scipy.stats.bootstrap`` makes (a
      test checks that the BCa interval equals scipy's);
    * several rows (simulations): the same indices for every row, as counts, by one matrix product.

    Returns ``(sets, n_resamples)`` (or ``(n_resamples,)`` for 1-D input).
    """
    x = np.asarray(values, dtype=float)
    one = x.ndim == 1
    x = np.atleast_2d(x)
    sets, n = x.shape
    rng = np.random.default_rng(seed)
    step = _chunk_rows(n, chunk)
    out = np.empty((sets, n_resamples))
    support, counts = np.unique(x[0], return_counts=True) if sets == 1 else (None, None)
    grouped = sets == 1 and support.size * 20 < n
    for start in range(0, n_resamples, step):
        size = min(step, n_resamples - start)
        if grouped:
            out[0, start:start + size] = rng.multinomial(n, counts / n, size=size) @ support / n
            continue
        idx = rng.integers(0, n, (size, n))
        if sets == 1:
            out[0, start:start + size] = x[0][idx].mean(axis=1)
        else:
            drawn = np.bincount((idx + n * np.arange(size)[:, None]).ravel(), minlength=size * n).reshape(size, n)
            out[:, start:start + size] = (x @ drawn.T.astype(float)) / n
    return out[0] if one else out


def _quantile_rows(sorted_rows: np.ndarray, q: np.ndarray) -> np.ndarray:
    """Row-wise quantile at per-row levels ``q``, linear interpolation (numpy's and scipy's default)."""
    b = sorted_rows.shape[1]
    h = np.clip(q, 0, 1) * (b - 1)
    i = np.clip(np.floor(h).astype(int), 0, max(b - 2, 0))
    frac = h - i
    rows = np.arange(sorted_rows.shape[0])
    lo = sorted_rows[rows, i]
    hi = sorted_rows[rows, np.minimum(i + 1, b - 1)]
    return lo + (hi - lo) * frac


def bca_rows(values: np.ndarray, means: np.ndarray, confidence: float = 0.95) -> tuple[np.ndarray, np.ndarray]:
    """BCa interval of each row's mean from its bootstrap means (module docstring): ``(low, high)`` per row.

    ``values``: ``(sets, n)``; ``means``: ``(sets, B)`` from :func:`bootstrap_means`. Rows without spread get
    ``a = 0`` (callers send those to another method).
    """
    from scipy.special import ndtr, ndtri

    x = np.atleast_2d(np.asarray(values, dtype=float))
    m = np.atleast_2d(np.asarray(means, dtype=float))
    b = m.shape[1]
    theta = x.mean(axis=1, keepdims=True)
    prop = ((m < theta).sum(axis=1) + (m <= theta).sum(axis=1)) / (2 * b)
    z0 = ndtri(np.clip(prop, 1 / (2 * b), 1 - 1 / (2 * b)))
    u = x - theta
    ss = (u**2).sum(axis=1)
    with np.errstate(invalid="ignore", divide="ignore"):
        a = np.where(ss > 0, (u**3).sum(axis=1) / (6 * np.where(ss > 0, ss, 1) ** 1.5), 0.0)
    alpha = 1 - confidence
    levels = []
    for z in (float(ndtri(alpha / 2)), float(ndtri(1 - alpha / 2))):
        w = z0 + z
        den = 1 - a * w
        with np.errstate(invalid="ignore", divide="ignore"):
            level = np.where(den > 0, ndtr(z0 + w / np.where(den > 0, den, 1)), 0.0 if z < 0 else 1.0)
        levels.append(level)
    s = np.sort(m, axis=1)
    return _quantile_rows(s, levels[0]), _quantile_rows(s, levels[1])


def percentile_rows(means: np.ndarray, confidence: float = 0.95) -> tuple[np.ndarray, np.ndarray]:
    """Percentile interval: the ``alpha/2`` and ``1 - alpha/2`` quantiles of each row's bootstrap means."""
    alpha = 1 - confidence
    low, high = np.quantile(np.atleast_2d(means), [alpha / 2, 1 - alpha / 2], axis=1)
    return low, high


# ---- the interval the package reports --------------------------------------------------------------------------

def mean_interval_rows(values, *, confidence: float = 0.95, n_resamples: int = N_RESAMPLES, seed: int = 0,
                       chunk: int | None = None) -> dict:
    """:func:`mean_interval` on every row of a ``(sets, n)`` array of defined values (no NaN).

    Returns ``{"mean", "low", "high", "method"}``, arrays of one entry per row (``method`` holds the names
    :data:`CLOPPER_PEARSON`, :data:`BCA`, :data:`SHARE`, :data:`NO_SPREAD`). The rows that need the bootstrap are
    resampled together with the same indices.
    """
    x = np.atleast_2d(np.asarray(values, dtype=float))
    sets, n = x.shape
    mean = x.mean(axis=1) if n else np.full(sets, np.nan)
    low = np.full(sets, np.nan)
    high = np.full(sets, np.nan)
    method = np.full(sets, "", dtype=object)
    if n == 0:
        return {"mean": mean, "low": low, "high": high, "method": method}
    binary = ((x == 0) | (x == 1)).all(axis=1)
    spread = x.max(axis=1) > x.min(axis=1)
    in01 = (x.min(axis=1) >= 0) & (x.max(axis=1) <= 1)
    share = ~binary & ~spread & in01
    flat = ~binary & ~spread & ~in01
    boot = ~binary & spread
    cp = binary | share
    if cp.any():
        lo, hi = clopper_pearson(x[cp].sum(axis=1), n, confidence)
        low[cp], high[cp] = lo, hi
    method[binary] = CLOPPER_PEARSON
    method[share] = SHARE
    low[flat], high[flat] = mean[flat], mean[flat]
    method[flat] = NO_SPREAD
    if boot.any():
        xb = x[boot]
        lo, hi = bca_rows(xb, bootstrap_means(xb, n_resamples, seed=seed, chunk=chunk), confidence)
        # the mean lies inside its BCa interval up to the resolution of B resamples; keep it inside exactly
        low[boot], high[boot] = np.minimum(lo, mean[boot]), np.maximum(hi, mean[boot])
        method[boot] = BCA
    return {"mean": mean, "low": low, "high": high, "method": method}


@dataclass(frozen=True)
class MeanInterval:
    """A mean with its interval: ``mean``, ``low``, ``high`` over ``n`` defined values (``excluded``: NaN, left
    out), at ``confidence``, by ``method`` (see :mod:`rag_metrics.stats.intervals`); ``n_resamples`` is None
    when no resampling was done."""

    mean: float
    low: float
    high: float
    n: int
    excluded: int
    confidence: float
    method: str
    n_resamples: int | None

    @property
    def width(self) -> float:
        return self.high - self.low

    def to_dict(self) -> dict:
        from rag_metrics.core.serialize import jsonable

        return jsonable(asdict(self))

    def text(self, digits: int = 3) -> str:
        """``0.908 [0.831, 0.969] (n=65, Clopper-Pearson)``."""
        if self.n == 0:
            return "undefined (n=0)"
        return f"{self.mean:.{digits}f} [{self.low:.{digits}f}, {self.high:.{digits}f}] (n={self.n}, {self.method})"


def mean_interval(values, *, confidence: float = 0.95, n_resamples: int = N_RESAMPLES, seed: int = 0,
                  chunk: int | None = None) -> MeanInterval:
    """The mean of ``values`` (NaN excluded) with the interval the package reports (module docstring).

    Parameters
    ----------
    values : per-question values (Series, list, array); NaN = undefined, left out and counted.
    confidence : the interval's confidence level (default 0.95).
    n_resamples, seed, chunk : the BCa bootstrap's resamples, seed and resamples drawn at a time (only used for
        values that are not all 0 or 1).

    Examples
    --------
    >>> mean_interval([1] * 30).text()      # every question hit: not a zero-width interval
    '1.000 [0.884, 1.000] (n=30, Clopper-Pearson)'
    """
    confidence = check_confidence(confidence)
    n_resamples = check_resamples(n_resamples)
    arr, excluded = values_1d(values)
    if arr.size == 0:
        return MeanInterval(math.nan, math.nan, math.nan, 0, excluded, confidence, NO_SPREAD, None)
    r = mean_interval_rows(arr[None, :], confidence=confidence, n_resamples=n_resamples, seed=seed, chunk=chunk)
    method = str(r["method"][0])
    return MeanInterval(float(r["mean"][0]), float(r["low"][0]), float(r["high"][0]), int(arr.size), excluded,
                        confidence, method, n_resamples if method == BCA else None)


def mean_table(per_question, measures, *, n_resamples: int = N_RESAMPLES, index: str = "run") -> pd.DataFrame:
    """The one table of means with their 95% intervals (:func:`mean_interval`): one row per labelled per-question
    table, columns ``n`` (questions where the first measure present is defined), then per measure ``m``,
    ``m low``, ``m high``. A measure a table lacks is left empty in its row.

    ``per_question``: ``{label: per-question DataFrame}`` or ``[(label, DataFrame), ...]`` (labels may repeat).
    """
    pairs = list(per_question.items()) if hasattr(per_question, "items") else list(per_question)
    rows = []
    for _, pq in pairs:
        present = [m for m in measures if m in pq]
        row = {"n": int(pq[present[0]].notna().sum()) if present else 0}
        for m in present:
            iv = mean_interval(pd.to_numeric(pq[m], errors="coerce").astype(float), n_resamples=n_resamples)
            row |= {m: iv.mean, f"{m} low": iv.low, f"{m} high": iv.high}
        rows.append(row)
    table = pd.DataFrame(rows, index=pd.Index([label for label, _ in pairs], name=index))
    return table


def percentile_bootstrap_ci(values, *, confidence: float = 0.95, n_resamples: int = N_RESAMPLES, seed: int = 0,
                            chunk: int | None = None) -> MeanInterval:
    """The percentile bootstrap interval of the mean (kept for comparison; the package reports
    :func:`mean_interval`).

    It is the range between the ``alpha/2`` and ``1 - alpha/2`` quantiles of the means of resampled golden sets --
    not "an interval that covers the mean in 95% of resamples". Near 0 and 1 it is too narrow (coverage 0.85 at
    n = 65, rate 0.97), and when every value is the same it has zero width. With one value it is ``[x, x]``.
    """
    confidence = check_confidence(confidence)
    n_resamples = check_resamples(n_resamples)
    arr, excluded = values_1d(values)
    if arr.size == 0:
        return MeanInterval(math.nan, math.nan, math.nan, 0, excluded, confidence, PERCENTILE, n_resamples)
    mean = float(arr.mean())
    if arr.size == 1:
        return MeanInterval(mean, mean, mean, 1, excluded, confidence, PERCENTILE, n_resamples)
    low, high = percentile_rows(bootstrap_means(arr[None, :], n_resamples, seed=seed, chunk=chunk), confidence)
    return MeanInterval(mean, float(low[0]), float(high[0]), int(arr.size), excluded, confidence, PERCENTILE,
                        n_resamples)
