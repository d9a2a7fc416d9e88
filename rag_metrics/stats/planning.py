"""How many questions does a golden set need to detect a change? Planned for the exact tests the verdict uses.

* **0/1 values** (hit@k): from the **discordant rate** ``psi`` -- the share of questions on which two
  configurations differ -- and the change ``delta`` to detect. A discordant question is a win with probability
  ``pi = (1 + delta / psi) / 2``; with n questions, ``m ~ Binomial(n, psi)`` differ and the exact sign test
  rejects at level alpha for some of the ``w ~ Binomial(m, pi)`` wins. The power is that probability, summed
  exactly::

      power(n) = sum_m  P(M = m) * P(sign test on m rejects at alpha | pi)

  :func:`questions_needed_binary` is the smallest n whose power reaches the target (bisection; power grows with
  n up to small saw-tooth steps of the discrete test). It can never be below :func:`~.paired.min_discordant`
  (6 at alpha = 0.05): with fewer discordant questions the exact test cannot reach alpha at all
  (smallest p = 2^(1 - m)). A change larger than ``psi`` is impossible (every discordant question would have to
  be a win): an error.
* **other values** (MRR, nDCG): from the standard deviation ``sd`` of per-question differences, the paired test's
  t approximation -- the smallest n with ``(t_{1-alpha/2, n-1} + t_{power, n-1}) sd / sqrt(n) <= delta``
  (:func:`minimum_detectable_difference` is that left side) -- raised to the same floor: at least
  ``min_discordant(alpha)`` questions that differ, i.e. ``ceil(min_discordant / discordant_rate)`` questions when
  the share of questions that differ is known. This plans for a test as powerful as t; the package's verdict on
  such values is the bounded-mean test (:func:`~.bounded_mean.bounded_mean_rows`), which holds its level whatever the skew
  of the changes and needs more questions below about 200 (at 65 questions it calls a mean change of +0.05 in ~15%
  of runs where t calls 52%; ``benchmarks/stat_edges.md``): read the plan as a lower bound.

:func:`sample_size` plans from two runs' per-question values (it picks the case from the values);
:func:`interval_width_by_size` shows how the reported interval narrows with the number of questions.
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass

import numpy as np
import pandas as pd

from rag_metrics.core.errors import InputError, check_alpha, check_int, check_number
from rag_metrics.stats.intervals import clopper_pearson, mean_interval_rows, values_1d
from rag_metrics.stats.bounded_mean import bounded_mean_rows
from rag_metrics.stats.paired import ALPHA, align_runs, min_discordant, sign_test

__all__ = ["exact_power", "questions_needed_binary", "questions_needed", "minimum_detectable_difference",
           "SampleSize", "sample_size", "interval_width_by_size"]


def _check_power(power) -> float:
    return check_number(power, "power", low=0, high=1, low_open=True, high_open=True, field="power")


def _check_delta(delta) -> float:
    return check_number(delta, "delta", low=0, low_open=True, field="delta")


def _check_rate(rate, delta) -> float:
    rate = check_number(rate, "discordant_rate", low=0, high=1, low_open=True, field="discordant_rate")
    if delta > rate + 1e-12:
        raise InputError(f"a change of {delta:g} needs at least {delta:.1%} of the questions to differ; with a "
                         f"discordant rate of {rate:.1%} it cannot happen (plan with a larger discordant rate).",
                         field="discordant_rate")
    return float(rate)


def _reject_from(m: np.ndarray, alpha: float) -> np.ndarray:
    """Smallest number of wins ``c`` of ``m`` discordant questions at which the two-sided exact sign test rejects
    (``2 P(W >= c) < alpha``, W ~ Binomial(m, 1/2)); ``m + 1`` when it never does. By symmetry it also rejects
    at ``m - c`` wins or fewer."""
    from scipy.stats import binom

    m = np.asarray(m)
    c = np.clip(np.asarray(binom.isf(alpha / 2, m, 0.5), dtype=float) + 1, 0, m + 1)
    c = np.where(np.isnan(c), m + 1, c)
    for _ in range(3):  # settle the boundary exactly (isf works to <=, the test to <)
        c = np.where((c <= m) & ~(2 * binom.sf(c - 1, m, 0.5) < alpha), c + 1, c)
        c = np.where((c - 1 >= 0) & (c - 1 > m / 2) & (2 * binom.sf(c - 2, m, 0.5) < alpha), c - 1, c)
    return np.minimum(c, m + 1).astype(int)


def exact_power(n: int, delta: float, discordant_rate: float, *, alpha: float = ALPHA) -> float:
    """Power of the exact sign test on ``n`` questions to detect a change ``delta`` of a 0/1 measure when a share
    ``discordant_rate`` of the questions differ (module docstring)."""
    from scipy.stats import binom

    alpha, delta = check_alpha(alpha), _check_delta(delta)
    psi = _check_rate(discordant_rate, delta)
    pi = min(1.0, (1 + delta / psi) / 2)
    m = np.arange(int(n) + 1)
    c = _reject_from(m, alpha)
    given_m = np.where(c <= m, binom.sf(c - 1, m, pi) + binom.cdf(m - c, m, pi), 0.0)
    return float((binom.pmf(m, int(n), psi) * given_m).sum())


def questions_needed_binary(delta: float, discordant_rate: float, *, alpha: float = ALPHA, power: float = 0.8,
                            max_n: int = 1_000_000) -> int:
    """Questions needed for the exact sign test to detect ``delta`` with ``power`` (module docstring)."""
    alpha, power, delta = check_alpha(alpha), _check_power(power), _check_delta(delta)
    psi = _check_rate(discordant_rate, delta)
    low = min_discordant(alpha) - 1           # below this the test cannot reject at all
    high = max(low + 1, 8)
    while exact_power(high, delta, psi, alpha=alpha) < power:
        low, high = high, high * 2
        if high > max_n:
            raise InputError(f"detecting a change of {delta:g} with a discordant rate of {psi:.1%} needs more than "
                             f"{max_n:,} questions.", field="delta")
    while high - low > 1:
        mid = (low + high) // 2
        if exact_power(mid, delta, psi, alpha=alpha) >= power:
            high = mid
        else:
            low = mid
    return int(high)


def _t_sum(n: int, alpha: float, power: float) -> float:
    from scipy.stats import t

    return float(t.ppf(1 - alpha / 2, n - 1) + t.ppf(power, n - 1))


def minimum_detectable_difference(n: int, sd_diff: float, *, alpha: float = ALPHA, power: float = 0.8) -> float:
    """Smallest mean difference the paired test on ``n`` questions detects with ``power`` at level ``alpha``, from
    the standard deviation of per-question differences (t approximation, module docstring). For 0/1 measures
    prefer :func:`questions_needed_binary`."""
    n = check_int(n, "n", low=2, field="n")
    alpha, power = check_alpha(alpha), _check_power(power)
    return float(_t_sum(int(n), alpha, power) * sd_diff / math.sqrt(n))


def questions_needed(delta: float, sd_diff: float | None = None, *, discordant_rate: float | None = None,
                     alpha: float = ALPHA, power: float = 0.8) -> int:
    """Questions needed to detect a mean change ``delta`` (module docstring).

    With ``sd_diff`` (values other than 0/1): the t approximation, raised to the exact tests' floor --
    ``min_discordant(alpha)`` questions, or ``ceil(min_discordant / discordant_rate)`` when ``discordant_rate``
    is given. With only ``discordant_rate`` (0/1 values): the exact sign test's power
    (:func:`questions_needed_binary`). Never fewer than the exact test can resolve (6 at alpha = 0.05). A ``delta``
    above ``discordant_rate`` is refused either way: on a measure in [0, 1] the mean cannot move by more than the
    share of questions that differ.
    """
    alpha, power, delta = check_alpha(alpha), _check_power(power), _check_delta(delta)
    if sd_diff is None:
        if discordant_rate is None:
            raise InputError("questions_needed: give sd_diff (the spread of per-question differences) or "
                             "discordant_rate (the share of questions that differ, for 0/1 measures).")
        return questions_needed_binary(delta, discordant_rate, alpha=alpha, power=power)
    sd_diff = check_number(sd_diff, "sd_diff", low=0, low_open=True, field="sd_diff",
                           hint="It is the spread of per-question differences: at 0 no question changed, so the "
                                "sample size cannot be estimated from it.")
    floor = min_discordant(alpha)
    if discordant_rate is not None:  # a measure in [0, 1]: a question that does not differ moves the mean by 0
        floor = math.ceil(floor / _check_rate(discordant_rate, delta) - 1e-9)
    n = max(2, math.ceil(((_t_sum(10**6, alpha, power)) * sd_diff / delta) ** 2))
    while _t_sum(n, alpha, power) * sd_diff / math.sqrt(n) > delta:  # the z start is a lower bound; t is wider
        n += max(1, n // 50)
    while n > 2 and _t_sum(n - 1, alpha, power) * sd_diff / math.sqrt(n - 1) <= delta:
        n -= 1
    return int(max(n, floor))


@dataclass(frozen=True)
class SampleSize:
    """A golden-set size planned from two runs (:func:`sample_size`): ``questions`` needed to detect ``delta``
    with ``power`` at ``alpha``, by ``method``; the inputs it was planned from (``discordant_rate``: share of the
    ``n_observed`` questions that differ; ``sd_diff``: spread of the differences, None for 0/1 values); ``floor``:
    the fewest questions the exact test can resolve at that rate; ``note``: why no size could be planned, if so
    (then ``questions`` is None)."""

    questions: int | None
    delta: float
    alpha: float
    power: float
    method: str
    values: str
    n_observed: int
    discordant_rate: float
    sd_diff: float | None
    floor: int | None
    note: str

    def to_dict(self) -> dict:
        from rag_metrics.core.serialize import jsonable

        return jsonable(asdict(self))


def sample_size(a, b, delta: float, *, alpha: float = ALPHA, power: float = 0.8) -> SampleSize:
    """Plan a golden set's size from two runs' per-question values of one measure (module docstring).

    0/1 values: the exact sign test's power at the observed discordant rate; other values: the t approximation
    from the observed spread of differences, with the exact tests' floor at the observed discordant rate. When no
    question differs, or ``delta`` exceeds the share that differ (0/1), ``questions`` is None and ``note`` says
    why.
    """
    alpha, power, delta = check_alpha(alpha), _check_power(power), _check_delta(delta)
    xa, xb, _ = align_runs(a, b)
    d = xb - xa
    n = d.size
    binary = bool(np.isin(xa, (0.0, 1.0)).all() and np.isin(xb, (0.0, 1.0)).all())
    rate = float((d != 0).mean()) if n else 0.0
    sd = float(d.std(ddof=1)) if n > 1 else 0.0
    common = dict(delta=delta, alpha=alpha, power=power, values="binary" if binary else "continuous",
                  n_observed=int(n), discordant_rate=rate, sd_diff=None if binary else sd)
    if rate == 0:
        return SampleSize(questions=None, method="none", floor=None, note="no question differs between the runs: "
                          "the discordant rate is 0, so nothing can be planned from them", **common)
    floor = math.ceil(min_discordant(alpha) / rate - 1e-9)
    if binary:
        if delta > rate:
            return SampleSize(questions=None, method="exact sign test power", floor=floor,
                              note=f"a change of {delta:g} needs at least {delta:.1%} of the questions to differ; "
                                   f"these runs differ on {rate:.1%}", **common)
        q = questions_needed_binary(delta, rate, alpha=alpha, power=power)
        return SampleSize(questions=q, method="exact sign test power", floor=floor, note="", **common)
    q = questions_needed(delta, sd, discordant_rate=rate, alpha=alpha, power=power)
    return SampleSize(questions=q, method="t approximation with the exact tests' floor", floor=floor, note="",
                      **common)


def interval_width_by_size(values, sizes, *, paired: bool = False, confidence: float = 0.95, n_sets: int = 400,
                           n_resamples: int = 2000, seed: int = 0) -> pd.Series:
    """Expected width of the interval the package reports, for golden sets of each size in ``sizes``.

    Golden sets of n questions are drawn with replacement from the observed per-question ``values``. For a mean
    (``paired=False``): the width of :func:`~.intervals.mean_interval` -- exact (a binomial sum) for 0/1 values,
    else averaged over ``n_sets`` simulated sets. For per-question differences of two runs (``paired=True``): the
    width of the paired test's interval (the sign test's for differences in {-1, 0, 1}, else the bounded-mean
    test's), averaged over ``n_sets`` sets.
    """
    from scipy.stats import binom

    arr, _ = values_1d(values)
    if arr.size == 0:
        raise InputError("interval_width_by_size: no defined value.")
    rng = np.random.default_rng(seed)
    out = {}
    ternary = bool(np.isin(arr, (-1.0, 0.0, 1.0)).all())
    binary = bool(np.isin(arr, (0.0, 1.0)).all())
    for n in sizes:
        n = int(n)
        if not paired and binary:
            x = np.arange(n + 1)
            low, high = clopper_pearson(x, n, confidence)
            out[n] = float((binom.pmf(x, n, arr.mean()) * (high - low)).sum())
            continue
        sets = arr[rng.integers(0, arr.size, (n_sets, n))]
        if not paired:
            r = mean_interval_rows(sets, confidence=confidence, n_resamples=n_resamples, seed=seed)
        elif ternary:
            r = sign_test((sets > 0).sum(axis=1), (sets < 0).sum(axis=1), n, alpha=1 - confidence)
        else:
            r = bounded_mean_rows(sets, alpha=1 - confidence, n_resamples=n_resamples, seed=seed)
        out[n] = float(np.mean(r["high"] - r["low"]))
    return pd.Series(out, name="interval_width").rename_axis("questions")
