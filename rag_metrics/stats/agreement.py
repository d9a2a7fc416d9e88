"""Agreement between two sources of labels: Cohen's kappa with its interval, and prediction-powered means.

The label-specific uses (an assessor against people, the figures of one run with assessed labels) are in
:mod:`rag_metrics.labels.assessor_agreement`; a support judge against people in
:mod:`rag_metrics.experiment.answer_support`.

**The one rule for headline figures** (:func:`headline_refusal`, :func:`usable_for_headlines`): an assessor or a
judge is *usable* when at least :data:`MIN_ITEMS` (20) labelled items were compared and the **lower end** of kappa's
interval (95% by default) reaches :data:`MIN_KAPPA` (0.6, "substantial" on Landis & Koch's scale) -- agreement at
that level is then established, not only likely. Read on the point estimate, as before 2026-12, a judge whose true
kappa is 0.4 passed 17% of the time at 20 items, half of them relevant (31% at 10% relevant); read on the lower end,
at most 0.4% of the time, and a judge exactly at the bar, 0.6, at most 2.1% (``benchmarks/stat_edges.md``: 1,000
simulated judges per case, n = 20-200, 10-50% relevant; the bound is the interval's one-sided miss rate, 2.5%). The
price is items: at half relevant a true kappa of 0.8 passes 38% of the time at 50 items, 78% at 110 and 99% at 200;
0.9 passes 86% at 50 items.

**Rates of 0/1 values** (a share of questions, of claims, the people's own sample): :func:`rate_interval`, the
Clopper--Pearson interval (:func:`rag_metrics.stats.intervals.clopper_pearson`), the package's one rule for a
proportion: its coverage is at least the nominal level for every true rate, where Wilson's is 0.925 at 20 items
and a rate of 0.95, and falls to 0.86 at 20-30 items near a rate of 0.99 (exact binomial sums,
``benchmarks/stat_edges.md``). :func:`wilson_mean` is kept for comparison only.

Cohen's kappa: :math:`\\kappa = (p_o - p_e) / (1 - p_e)` with :math:`p_o` the share of items both call the same and
:math:`p_e = p_{h} p_{a} + (1 - p_{h})(1 - p_{a})` the agreement expected by chance from each side's share of
"relevant" (:math:`p_h`, :math:`p_a`). Undefined (None) when :math:`p_e = 1` (both sides put every item in one
class).

Interval: each end is a quantile of kappa over the Dirichlet posterior of the 2x2 table (cells :math:`n_{11}`
both relevant, :math:`n_{10}` people only, :math:`n_{01}` assessor only, :math:`n_{00}` neither), under the prior
least favourable to that end -- half an item on each of the two cells that pull kappa towards it::

    low  = Q_{alpha/2}   of kappa(p),  p ~ Dirichlet(n11,       n10 + 1/2, n01 + 1/2, n00)
    high = Q_{1-alpha/2} of kappa(p),  p ~ Dirichlet(n11 + 1/2, n10,       n01,       n00 + 1/2)

(a parameter of 0 makes that cell 0 in every draw), each quantile taken over ``n_resamples`` seeded draws, and the
interval widened to hold the estimate. It is Clopper--Pearson's construction (whose ends are the quantiles of
Beta(x, n - x + 1) and Beta(x + 1, n - x), the posteriors under the priors least favourable to each end): the share of
disagreements :math:`q = p_{10} + p_{01}` has exactly those two posteriors, so if :math:`p_e` were known the interval
would be the Clopper--Pearson interval of q mapped through :math:`\\kappa = 1 - q / (1 - p_e)` (a test checks it at
10,000 items, where :math:`p_e` is known to 1e-4); the Dirichlet carries the uncertainty of :math:`p_e`. Edges: a
table without any disagreement has ``high = 1`` and ``low < 1`` (never zero width); with 2 or 3 items the interval
is most of [-1, 1]; the ends stay in [-1, 1].

Measured coverage (``benchmarks/stat_edges.md``, 1,000 simulated tables per case, both sides at the same share of
"relevant"): at least 0.942 on the whole grid of n = 20, 30, 40, 50, 65, 80, 110, 150, 200 items, true kappa
0.2-0.98 and 10-50% relevant (0.945 with unequal shares), where the BCa bootstrap interval the package reported
before fell to 0.87 (20 items, half relevant, kappa 0.9; 80 items, kappa 0.98) and below 0.93 in 13 of the 315
cases: its resamples without any disagreement make an atom at kappa = 1 that pulled its upper
end below the truth. ``tests/test_agreement.py`` checks the grid at n = 20, 30, 50, 110, 200. The plain
asymptotic interval (Fleiss, Cohen & Everitt 1969) covers under 90% at 30 items, kappa 0.8, 20% relevant.

PPI for a mean of 0/1 values: :math:`\\hat\\theta = \\bar f_N + \\overline{(Y - f)}_n`, with variance
:math:`\\mathrm{Var}(\\tfrac{n}{N} f + Y - f) / n + (N - n)\\,\\mathrm{Var}(f) / N^2` (the labelled questions are among
the N). The variances come from the labelled (Y, f) table with one added to each of its four cells, and from the
unlabelled questions' assessor share with two added to each side (Agresti & Coull 1998): a sample without any
disagreement, or with every value 1, still gets an interval of positive width. Interval: estimate ± z·SE.

Both the estimate and the interval are clipped to [0, 1]: the plain estimate can leave it (a judged sample where
people say "relevant" more often than the assessor does, while the assessor says it more often on the unjudged
questions: N = 4, f = 0, 1, 1, 1, people 1, 1 on the first two -> 0.75 + 0.5 = 1.25), and a proportion above 1 is
not a figure anyone can read. Clipping is the projection onto the range of every true value: the clipped estimate
is never further from any true value in [0, 1] than the plain one, and the clipped interval holds a true value
strictly between 0 and 1 exactly when the plain one does (at 0 or 1 it can only gain), so clipping never lowers the
coverage below. Near 0 and 1 the clipped estimate is
pulled toward the middle (a bias of at most half the plain, unbiased estimate's standard deviation). ``rectifier``
stays the plain mean residual, so ``assessor_mean + rectifier`` differs from ``estimate`` exactly when the estimate
was clipped.

Measured coverage (``tests/test_agreement.py``, 2,000 simulated golden sets per case): at least 93% for
n = 30, 65, 200 judged questions, N = n, 2n, 5n, true rates 0.01, 0.05, 0.5, 0.8, 0.95, 0.99 and assessors
of sensitivity / specificity 0.99 / 0.95, 0.9 / 0.8 and 0.7 / 0.6; the uncorrected assessor-based figure covers under
50% in the worst of these cases (``benchmarks/label_intervals.md`` has the whole grid). The correction is the plain
one (no power tuning, PPI++): with a poor assessor the interval can be wider than the judged sample's alone -- at
n = 200, a true rate of 0.99 and a 0.7 / 0.6 assessor, 0.067 against 0.032 -- and :meth:`LabelFigures.table` shows
both.
"""


from __future__ import annotations

import math
from dataclasses import asdict, dataclass
from statistics import NormalDist

import numpy as np
import pandas as pd

from rag_metrics.core.errors import InputError, check_int, check_number
from rag_metrics.stats import intervals

__all__ = ["cohen_kappa", "Kappa", "confusion_matrix", "ppi_mean", "PPIEstimate", "rate_interval", "wilson_mean",
           "headline_refusal", "usable_for_headlines", "MIN_KAPPA", "MIN_ITEMS"]

MIN_KAPPA = 0.6
"""The lower end of kappa's interval must reach this for an assessor's labels or a judge's verdicts to enter headline
figures ("substantial" agreement, Landis & Koch 1977)."""
MIN_ITEMS = 20
"""Labelled items below which agreement is not measured well enough for headline figures."""
_SMOOTH = 0.25  # added to each cell of the kappa table before resampling (the former BCa interval)


def _z(confidence: float) -> float:
    confidence = check_number(confidence, "confidence", low=0, high=1, low_open=True, high_open=True,
                              field="confidence")
    return NormalDist().inv_cdf(0.5 + confidence / 2)


def _binary(values, name: str) -> np.ndarray:
    arr = np.asarray(pd.Series(values, dtype=object).map(
        lambda v: v if isinstance(v, (bool, np.bool_)) or v in (0, 1) else np.nan), dtype=float)
    if np.isnan(arr).any():
        pos = int(np.flatnonzero(np.isnan(arr))[0])
        raise InputError(f"{name}: value {list(values)[pos]!r} at position {pos} is not a 0/1 label.")
    return arr.astype(bool)


# --- Cohen's kappa ----------------------------------------------------------------------------------------------

def _kappa(tables: np.ndarray) -> np.ndarray:
    """Kappa of each 2x2 table ``(n11, n10, n01, n00)`` (last axis): human x assessor; NaN where p_e = 1."""
    tables = np.asarray(tables, dtype=float)
    n = tables.sum(-1)
    p11, p10, p01, p00 = np.moveaxis(tables, -1, 0) / n
    ph, pa = p11 + p10, p11 + p01
    po = p11 + p00
    pe = ph * pa + (1 - ph) * (1 - pa)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(pe < 1 - 1e-12, (po - pe) / (1 - pe), np.nan)


def _kappa_bca_intervals(tables: np.ndarray, *, confidence: float, n_resamples: int, rng) -> tuple[np.ndarray, np.ndarray]:
    """The BCa bootstrap intervals of kappa the package reported before (kept for comparison only: at 20 items, 50%
    relevant and a true kappa of 0.9 they cover 0.87; ``benchmarks/stat_edges.md``), for many tables at once."""
    tables = np.asarray(tables, dtype=float)
    s = tables.shape[0]
    n = tables.sum(1)
    smoothed = tables + _SMOOTH
    probs = smoothed / smoothed.sum(1, keepdims=True)
    counts = rng.multinomial(n.astype(np.int64)[None, :], probs[None, :, :], size=(n_resamples, s))
    boots = _kappa(counts)  # (B, S)
    center = _kappa(smoothed)
    valid = np.isfinite(boots)
    m = valid.sum(0)
    below = np.where(valid, boots < center, False).sum(0) + 0.5 * np.where(valid, boots == center, False).sum(0)
    prop = np.clip(below / np.maximum(m, 1), 1 / (2 * np.maximum(m, 1)), 1 - 1 / (2 * np.maximum(m, 1)))
    z0 = np.array([NormalDist().inv_cdf(p) for p in prop])
    # jackknife over the smoothed table: remove one observed item of each kind (weighted by its count)
    jack = np.full((s, 4), np.nan)
    for c in range(4):
        leave = smoothed.copy()
        leave[:, c] -= 1
        jack[:, c] = np.where(tables[:, c] > 0, _kappa(leave), np.nan)
    weights = np.where(np.isfinite(jack), tables, 0.0)
    jack = np.where(np.isfinite(jack), jack, 0.0)
    total = np.maximum(weights.sum(1, keepdims=True), 1e-300)
    d = (weights * jack).sum(1, keepdims=True) / total - jack
    num = (weights * d ** 3).sum(1)
    den = 6 * np.maximum((weights * d ** 2).sum(1), 0) ** 1.5
    accel = np.where(den > 0, num / np.where(den > 0, den, 1), 0.0)
    alpha = (1 - confidence) / 2
    ends = []
    sorted_boots = np.sort(np.where(valid, boots, np.inf), axis=0)  # invalid resamples sort last and are not used
    for a in (alpha, 1 - alpha):
        za = NormalDist().inv_cdf(a)
        adjusted = np.array([NormalDist().cdf(z + (z + za) / (1 - ac * (z + za))) for z, ac in zip(z0, accel)])
        pos = np.clip(np.floor(adjusted * (m - 1) + 0.5).astype(np.int64), 0, np.maximum(m - 1, 0))
        ends.append(sorted_boots[pos, np.arange(s)])
    estimate = _kappa(tables)
    low = np.where(np.isfinite(estimate), np.minimum(ends[0], estimate), ends[0])
    high = np.where(np.isfinite(estimate), np.maximum(ends[1], estimate), ends[1])
    return np.clip(low, -1, 1), np.clip(high, -1, 1)


# each end of the interval: the posterior of the 2x2 table under the prior least favourable to that end (one item's
# weight on the two cells that move kappa towards it), as Clopper-Pearson is for a proportion; cells n11, n10, n01, n00
_PRIOR_LOW = np.array([0.0, 0.5, 0.5, 0.0])
_PRIOR_HIGH = np.array([0.5, 0.0, 0.0, 0.5])
_CHUNK_DRAWS = 2**20  # gamma variates drawn at a time (tables x draws x 4)


def _kappa_intervals(tables: np.ndarray, *, confidence: float, n_resamples: int, rng) -> tuple[np.ndarray, np.ndarray]:
    """The interval of kappa (module docstring) for many 2x2 tables at once (``tables``: shape (S, 4), cells n11,
    n10, n01, n00): ``n_resamples`` posterior draws for each end, from ``rng``; a table's ends depend only on its
    counts and the draws. Tables whose kappa is undefined get the ends of their posteriors all the same."""
    tables = np.asarray(tables, dtype=float)
    s = tables.shape[0]
    alpha = 1 - confidence
    ends = []
    for prior, level in ((_PRIOR_LOW, alpha / 2), (_PRIOR_HIGH, 1 - alpha / 2)):
        shape = tables + prior
        out = np.empty(s)
        step = max(1, _CHUNK_DRAWS // (4 * n_resamples))
        for start in range(0, s, step):
            part = shape[start:start + step]
            # a Dirichlet draw is independent gammas over their sum; kappa does not depend on the sum (a zero shape
            # gives a cell that is 0 in every draw: the limit of the Dirichlet as its parameter falls to 0)
            draws = rng.standard_gamma(part[:, None, :], size=(part.shape[0], n_resamples, 4))
            k = _kappa(draws)
            # p_e = 1 needs every draw's mass in one agreement cell, impossible with the prior's two positive cells
            out[start:start + step] = np.quantile(np.where(np.isfinite(k), k, 0.0), level, axis=1)
        ends.append(out)
    estimate = _kappa(tables)
    low = np.where(np.isfinite(estimate), np.minimum(ends[0], estimate), ends[0])
    high = np.where(np.isfinite(estimate), np.maximum(ends[1], estimate), ends[1])
    return np.clip(low, -1, 1), np.clip(high, -1, 1)


@dataclass(frozen=True)
class Kappa:
    """Cohen's kappa with its interval: ``kappa`` (None when undefined), ``low``, ``high``, ``observed`` (p_o),
    ``expected`` (p_e), ``n`` items, ``confidence``."""

    kappa: float | None
    low: float | None
    high: float | None
    observed: float
    expected: float
    n: int
    confidence: float = 0.95

    def to_dict(self) -> dict:
        return asdict(self)


def _table(human: np.ndarray, assessed: np.ndarray) -> np.ndarray:
    return np.array([(human & assessed).sum(), (human & ~assessed).sum(), (~human & assessed).sum(),
                     (~human & ~assessed).sum()], dtype=float)


def cohen_kappa(human, assessed, *, confidence: float = 0.95, n_resamples: int = 2000, seed: int = 0) -> Kappa:
    """Cohen's kappa between two 0/1 labelings of the same items, with its interval (module docstring): each end a
    quantile of kappa over ``n_resamples`` draws (per end) from a Dirichlet posterior of the 2x2 table, seeded by
    ``seed``. ``kappa``, ``low`` and ``high`` are None when kappa is undefined (every item in one class on both
    sides).

    >>> k = cohen_kappa([1, 1, 0, 0, 1, 0], [1, 1, 0, 1, 1, 0])
    >>> round(k.kappa, 3), k.observed, k.expected
    (0.667, 0.8333333333333334, 0.5)
    """
    h, a = _binary(human, "human"), _binary(assessed, "assessed")
    if h.shape != a.shape:
        raise InputError(f"cohen_kappa: {len(h)} human labels but {len(a)} assessed ones; give one of each per item.")
    if h.size < 2:
        raise InputError(f"cohen_kappa needs at least 2 items; got {h.size}.")
    check_int(n_resamples, "n_resamples", low=100, func="cohen_kappa")
    _z(confidence)  # validated here, used by the interval
    table = _table(h, a)
    n = int(table.sum())
    po = float((table[0] + table[3]) / n)
    ph, pa = (table[0] + table[1]) / n, (table[0] + table[2]) / n
    pe = float(ph * pa + (1 - ph) * (1 - pa))
    kappa = float(_kappa(table[None, :])[0])
    if not math.isfinite(kappa):
        return Kappa(None, None, None, po, pe, n, confidence)
    low, high = _kappa_intervals(table[None, :], confidence=confidence, n_resamples=n_resamples,
                                 rng=np.random.default_rng(seed))
    return Kappa(kappa, float(low[0]), float(high[0]), po, pe, n, confidence)


def headline_refusal(kappa: Kappa, *, min_kappa: float = MIN_KAPPA, min_items: int = MIN_ITEMS) -> str | None:
    """Why labels agreeing with people at ``kappa`` may not enter headline figures, or None when they may (module
    docstring): fewer than ``min_items`` items compared, kappa undefined, or the lower end of its interval below
    ``min_kappa``. An interval's lower end exactly at ``min_kappa`` passes.

    >>> k = cohen_kappa([1] * 15 + [0] * 15, [1] * 14 + [0] + [1] + [0] * 14)
    >>> round(k.kappa, 3), k.low < MIN_KAPPA      # 28 of 30 agree: the point clears 0.6, the interval does not
    (0.867, True)
    >>> headline_refusal(k)
    'kappa 0.87 [0.56, 0.98]: the lower end of its 95% interval is below 0.6'
    """
    if kappa.n < min_items:
        return f"only {kappa.n} labelled items compared (at least {min_items} needed)"
    if kappa.kappa is None or kappa.low is None:
        return "kappa is undefined (every item in one class on both sides)"
    if kappa.low < min_kappa:
        return (f"kappa {kappa.kappa:.2f} [{kappa.low:.2f}, {kappa.high:.2f}]: the lower end of its "
                f"{kappa.confidence:.0%} interval is below {min_kappa:g}")
    return None


def usable_for_headlines(kappa: Kappa, *, min_kappa: float = MIN_KAPPA, min_items: int = MIN_ITEMS) -> bool:
    """Whether labels agreeing with people at ``kappa`` may enter headline figures: :func:`headline_refusal` is None."""
    return headline_refusal(kappa, min_kappa=min_kappa, min_items=min_items) is None


def confusion_matrix(human, assessed) -> pd.DataFrame:
    """Counts of human (rows: relevant, not relevant) x assessor (columns) on the same items."""
    h, a = _binary(human, "human"), _binary(assessed, "assessed")
    t = _table(h, a).astype(int)
    return pd.DataFrame([[t[0], t[1]], [t[2], t[3]]],
                        index=pd.Index(["relevant", "not relevant"], name="human"),
                        columns=pd.Index(["relevant", "not relevant"], name="assessor"))


# --- intervals for figures that use assessed labels -----------------------------------------------------------

def _rate(values, confidence: float, method) -> tuple[float, float, float, int]:
    _z(confidence)  # validated with this module's message
    arr = np.asarray(pd.Series(values, dtype=float))
    arr = arr[~np.isnan(arr)]
    n = arr.size
    if not n:
        return math.nan, math.nan, math.nan, 0
    low, high = method(arr.sum(), n, confidence)
    return float(arr.mean()), float(low), float(high), n


def rate_interval(values, *, confidence: float = 0.95) -> tuple[float, float, float, int]:
    """``(mean, low, high, n)`` of 0/1 values with the Clopper--Pearson interval, the package's rule for a rate
    (module docstring; NaN excluded, all NaN when empty). With x of n: ``low = Beta^-1(alpha/2; x, n - x + 1)`` (0
    when x = 0), ``high = Beta^-1(1 - alpha/2; x + 1, n - x)`` (1 when x = n).

    >>> [round(v, 4) for v in rate_interval([1, 1, 1, 0])[:3]]     # scipy's binomtest(3, 4) "exact" interval
    [0.75, 0.1941, 0.9937]
    """
    return _rate(values, confidence, intervals.clopper_pearson)


def wilson_mean(values, *, confidence: float = 0.95) -> tuple[float, float, float, int]:
    """``(mean, low, high, n)`` of 0/1 values with Wilson's score interval (NaN excluded; all NaN when empty) -- for
    comparison only: the package reports :func:`rate_interval` (Clopper--Pearson; module docstring)."""
    return _rate(values, confidence, intervals.wilson)


@dataclass(frozen=True)
class PPIEstimate:
    """A prediction-powered mean (:func:`ppi_mean`): ``estimate`` with ``low``/``high``, all three in [0, 1]
    (``estimate`` is ``assessor_mean + rectifier`` clipped to [0, 1]); ``n`` labelled of ``N``;
    ``assessor_mean`` (f over all N), ``rectifier`` (mean of Y - f on the labelled), ``human_mean`` with its
    Clopper--Pearson interval (``human_low``, ``human_high``: the labelled questions alone, :func:`rate_interval`)."""

    estimate: float
    low: float
    high: float
    n: int
    N: int
    assessor_mean: float
    rectifier: float
    human_mean: float
    human_low: float
    human_high: float
    confidence: float = 0.95

    def to_dict(self) -> dict:
        return asdict(self)


def _ppi(y: np.ndarray, f: np.ndarray, labelled: np.ndarray, z: float):
    """Vectorized PPI over rows: ``y`` (S, N) (used only where ``labelled``), ``f`` (S, N), ``labelled`` (S, N)."""
    n = labelled.sum(1)
    N = f.shape[1]
    unl = ~labelled
    m = N - n
    yl, fl = y & labelled, f & labelled
    est = f.mean(1) + (yl.sum(1) - fl.sum(1)) / n
    cells = np.stack([(yl & fl).sum(1), (yl & ~f & labelled).sum(1), (~y & f & labelled).sum(1),
                      (~y & ~f & labelled).sum(1)], 1).astype(float) + 1.0
    p = cells / cells.sum(1, keepdims=True)
    r = n / N
    vals = np.stack([r, np.ones_like(r), r - 1, np.zeros_like(r)], 1)  # r*f + (Y - f) in each cell
    mean_u = (p * vals).sum(1)
    var_u = (p * vals ** 2).sum(1) - mean_u ** 2
    pf = ((f & unl).sum(1) + 2.0) / (m + 4.0)
    var = var_u / n + m * pf * (1 - pf) / N ** 2
    se = np.sqrt(var)  # the interval around the plain estimate, then both clipped to [0, 1] (module docstring)
    return np.clip(est, 0, 1), np.clip(est - z * se, 0, 1), np.clip(est + z * se, 0, 1)


def ppi_mean(human, assessed, *, confidence: float = 0.95) -> PPIEstimate:
    """Prediction-powered estimate of the mean of a 0/1 per-question value (module docstring).

    Parameters
    ----------
    human : Series of 0/1 (index question ID), the value with complete human labels; NaN (or absent) for the
        questions without them. The labelled questions must be a random sample of all of them.
    assessed : Series of 0/1 for every question, the value with the assessor's labels filling the gaps.

    >>> import pandas as pd
    >>> f = pd.Series([1, 1, 1, 0, 1, 1, 0, 1], index=list("abcdefgh"))
    >>> y = pd.Series([1, 0, 1, 0], index=list("abcd"))   # people disagree with the assessor on b
    >>> round(ppi_mean(y, f).estimate, 3)   # 6/8 - 1/4
    0.5
    >>> p = ppi_mean(pd.Series([1, 1], index=list("ab")), pd.Series([0, 1, 1, 1], index=list("abcd")))
    >>> p.assessor_mean + p.rectifier, p.estimate   # 3/4 + 1/2, clipped
    (1.25, 1.0)
    """
    z = _z(confidence)
    f = pd.Series(assessed, dtype=object)
    if not len(f):
        raise InputError("ppi_mean: no question; give the assessor-based value of every question.")
    f_arr = _binary(f.to_numpy(), "assessed")
    y = pd.Series(human, dtype=float).reindex(f.index)
    extra = sorted(set(pd.Series(human).index) - set(f.index), key=str)
    if extra:
        raise InputError(f"ppi_mean: question {extra[0]!r} has a human value but no assessed one.")
    labelled = y.notna().to_numpy()
    n = int(labelled.sum())
    if n < 2:
        raise InputError(f"ppi_mean needs at least 2 questions with complete human labels; got {n}.")
    y_arr = np.zeros(len(f), dtype=bool)
    y_arr[labelled] = _binary(y[labelled].to_numpy(), "human")
    est, low, high = _ppi(y_arr[None, :], f_arr[None, :], labelled[None, :], z)
    hm, hl, hh, _ = rate_interval(y[labelled].to_numpy(dtype=float), confidence=confidence)
    return PPIEstimate(float(est[0]), float(low[0]), float(high[0]), n, int(len(f)), float(f_arr.mean()),
                       float((y_arr[labelled].astype(float) - f_arr[labelled]).mean()), hm, hl, hh, confidence)
