"""Two runs on the same questions: is the change real? One test gives the p-value, the decision and the interval, so
they never contradict each other.

:func:`paired_test` compares run ``b`` with run ``a`` question by question (``d_i = b_i - a_i``; questions
undefined in either run are left out and counted) and picks the test from the values:

* **0/1 values** (hit@k): only the *discordant* questions carry information -- ``w`` won (0 -> 1), ``l`` lost
  (1 -> 0), ``m = w + l``. The **exact sign test** (McNemar's exact test; McNemar 1947) asks whether a
  discordant question is as likely to be a win as a loss: ``W ~ Binomial(m, 1/2)`` under "nothing changed", and::

      p = min(1, 2 * min(P(W <= w), P(W >= w)))

  (equal to ``scipy.stats.binomtest(w, m).pvalue``, and to the paired randomization test, whose sign flips of
  +1/-1 differences are exactly this binomial). The interval of the change is the confidence set of one family of
  tests: at ``delta0 = 0`` the exact sign test itself (the decision), at every other ``delta0`` Tango's score test
  for paired proportions (Tango 1998; :func:`tango_z`) -- that is, Tango's score interval, extended to reach 0
  when the sign test does not reject. (Tango's test at 0 is McNemar's asymptotic test, which rejects whenever the
  exact test does -- checked for every split of up to 3,000 discordant questions at alpha 0.01-0.5 -- so the
  interval never has to be cut.) Measured coverage 0.94-1.0 at n = 30-200 (``benchmarks/error_rates.md``).
* **other values** (MRR, nDCG, recall with several gold...): the **bounded-mean test** of "the mean change is 0"
  (:func:`~rag_metrics.stats.bounded_mean.bounded_mean_rows`; the bound of Learned-Miller & Thomas 2019): the weighted
  mean of the changes with one more, unseen change at the worst value the measure allows; its interval is every mean
  change the same test does not reject. Why not the paired randomization test (:func:`randomization_rows`, kept for
  comparison), and what the test costs in power: :mod:`rag_metrics.stats.bounded_mean`.

Either way: the smallest two-sided p the test can give with ``m`` discordant questions is ``2^(1 - m)`` (the sign
test: only "all won" and "all lost" are as extreme; the bounded-mean test: ``p_low >= P(sum of m of the G_i <= G_0)
= 2^-m`` since every ``d_i <= bound``, reached when every change is ``+bound``): with 5 or fewer no change can reach p
< 0.05 (``min_p``, ``can_reach_alpha``). The verdict is ``better`` / ``worse`` when ``p < alpha`` (by the sign of the change; for
measures where higher is better), else ``within noise``; "the interval excludes 0" is the same event as
``p < alpha`` (a property test checks it on random data).

Several measures (:func:`paired_verdict`): one **primary** measure, chosen before looking, carries the verdict at
level ``alpha``; the others are shown with **Holm**-adjusted p-values (Holm 1979) over the other measures, and
their verdicts use those. Several systems against one baseline (:func:`compare_to_baseline`): Holm over the
systems.
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass, replace

import numpy as np
import pandas as pd

from rag_metrics.core.errors import InputError, check_alpha, check_names, close_matches, wrong_type
from rag_metrics.stats.bounded_mean import bounded_mean_rows
from rag_metrics.stats.intervals import N_RESAMPLES, check_resamples
from rag_metrics.stats.randomization import ALPHA, EXACT_MAX, randomization_rows

__all__ = [
    "PairedTest", "paired_test", "PairedVerdict", "paired_verdict", "compare_to_baseline", "format_p", "holm", "paired_t_test",
    "sign_test", "tango_interval", "tango_z", "randomization_rows", "min_p", "min_discordant", "VERDICTS",
    "SIGN_TEST", "BOUNDED", "RANDOMIZATION", "align_runs",
    "EXACT_MAX", "ALPHA",
]

VERDICTS = ("better", "worse", "within noise")
SIGN_TEST = "exact sign test (McNemar)"
RANDOMIZATION = "paired randomization test"
BOUNDED = "bounded-mean test"
SIGN_INTERVAL = "Tango's score interval, reaching 0 exactly when the sign test does not reject"
BOUNDED_INTERVAL = "inversion of the same bounded-mean test: every mean change it does not reject"
RANDOMIZATION_INTERVAL = ("inversion of the same randomization test for the mean change of a question that differs, "
                          "times the Clopper-Pearson interval of the share that differ")


def min_p(discordant) -> float:
    """Smallest two-sided p an exact paired test can give with ``discordant`` questions that differ: 2^(1-m)."""
    m = int(discordant)
    return 1.0 if m <= 0 else min(1.0, 2.0 ** (1 - m))


def min_discordant(alpha: float = ALPHA) -> int:
    """Fewest questions that must differ before an exact paired test can reach ``p < alpha`` (6 at 0.05)."""
    alpha = check_alpha(alpha)
    m = 1
    while min_p(m) >= alpha:
        m += 1
    return m


# ---- 0/1 values: the exact sign test ---------------------------------------------------------------------------

def tango_z(wins, losses, n, delta0) -> np.ndarray:
    """Tango's score statistic for a paired change ``delta0`` of a 0/1 measure (Tango 1998), elementwise.

    With ``b`` wins, ``c`` losses of ``n``: ``Z = (b - c - n delta0) / sqrt(n (2 q + delta0 (1 - delta0)))``,
    ``q`` the maximum-likelihood share of losses under ``delta0``: ``q = (sqrt(B^2 - 4 A C) - B) / (2 A)``,
    ``A = 2n``, ``B = -b - c + (2n - b + c) delta0``, ``C = -c delta0 (1 - delta0)``. At ``delta0 = 0`` it is
    McNemar's ``(b - c) / sqrt(b + c)``.
    """
    b, c, n, d0 = (np.asarray(v, dtype=float) for v in (wins, losses, n, delta0))
    A = 2 * n
    B = -b - c + (2 * n - b + c) * d0
    C = -c * d0 * (1 - d0)
    q = (np.sqrt(np.maximum(B * B - 4 * A * C, 0)) - B) / (2 * A)
    var = n * (2 * q + d0 * (1 - d0))
    num = b - c - n * d0
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(var > 0, num / np.sqrt(np.where(var > 0, var, 1)), np.where(num == 0, 0.0, np.sign(num) * np.inf))


def tango_interval(wins, losses, n, *, alpha: float = ALPHA) -> tuple[np.ndarray, np.ndarray]:
    """Tango's score interval of a paired change of a 0/1 measure: the ``delta0`` in [-1, 1] whose score
    statistic (:func:`tango_z`) lies within ``+-z_{1-alpha/2}`` (bisection, elementwise)."""
    from scipy.special import ndtri

    b, c, n = (np.asarray(v, dtype=float) for v in np.broadcast_arrays(wins, losses, n))
    z = float(ndtri(1 - alpha / 2))
    est = (b - c) / n

    def edge(inside, outside):
        for _ in range(60):
            mid = (inside + outside) / 2
            ok = np.abs(tango_z(b, c, n, mid)) <= z
            inside, outside = np.where(ok, mid, inside), np.where(ok, outside, mid)
        return inside

    return edge(est, np.full_like(est, -1.0)), edge(est, np.full_like(est, 1.0))


def sign_test(wins, losses, n, *, alpha: float = ALPHA) -> dict:
    """Exact sign test and the interval of the change consistent with it (module docstring), elementwise.

    ``wins``, ``losses``: discordant questions won / lost by b; ``n``: questions compared. Returns ``{"p", "low",
    "high"}`` arrays; ``low > 0 or high < 0`` exactly when ``p < alpha``.
    """
    from scipy.stats import binom

    w = np.asarray(wins, dtype=float)
    lo_ = np.asarray(losses, dtype=float)
    m = w + lo_
    with np.errstate(invalid="ignore"):
        p = np.where(m > 0, np.minimum(1.0, 2 * np.minimum(binom.cdf(w, m, 0.5), binom.sf(w - 1, m, 0.5))), 1.0)
    low, high = tango_interval(w, lo_, n, alpha=alpha)
    significant = p < alpha
    # at 0 the decision is the exact test's: the interval reaches 0 when it does not reject ...
    low = np.where(significant, low, np.minimum(low, 0.0))
    high = np.where(significant, high, np.maximum(high, 0.0))
    # ... and leaves 0 out when it does (the score interval always does then: checked for m <= 3,000)
    low = np.where(significant & (w > lo_), np.maximum(low, np.nextafter(0.0, 1.0)), low)
    high = np.where(significant & (w < lo_), np.minimum(high, np.nextafter(0.0, -1.0)), high)
    return {"p": p, "low": low, "high": high}


# ---- one measure -----------------------------------------------------------------------------------------------

@dataclass(frozen=True, repr=False)
class PairedTest:
    """Run b against run a on one measure (:func:`paired_test`; module docstring).

    ``delta = mean_b - mean_a`` over the ``n`` questions defined in both (``excluded``: undefined in either);
    ``ci_low``/``ci_high``: its interval at ``confidence = 1 - alpha``, consistent with ``p_value``; ``wins`` /
    ``ties`` / ``losses``: questions whose value rose / stayed / fell; ``min_p``: the smallest p the test can give
    with ``wins + losses`` discordant questions, ``can_reach_alpha``: whether that is below ``alpha``;
    ``p_holm``: the Holm-adjusted p when this test is one of several (None otherwise), ``decided_by``: the p the
    ``verdict`` used (``p_value`` or ``p_holm``); ``sentence``: the result in plain English.
    """

    measure: str
    n: int
    excluded: int
    mean_a: float
    mean_b: float
    delta: float
    ci_low: float
    ci_high: float
    confidence: float
    p_value: float
    alpha: float
    wins: int
    ties: int
    losses: int
    values: str
    method: str
    interval_method: str
    resamples: int | None
    min_p: float
    can_reach_alpha: bool
    verdict: str
    p_holm: float | None = None
    decided_by: str = "p_value"
    role: str = "single"
    sentence: str = ""

    @property
    def within_noise(self) -> bool:
        return self.verdict == "within noise"

    @property
    def significant(self) -> bool:
        return self.verdict != "within noise"

    @property
    def discordant(self) -> int:
        return self.wins + self.losses

    def to_dict(self) -> dict:
        from rag_metrics.core.serialize import jsonable

        return jsonable({**asdict(self), "within_noise": self.within_noise, "discordant": self.discordant})

    def __repr__(self) -> str:
        from rag_metrics.core.html import one_line

        return one_line(f"<PairedTest {self.sentence or self.measure}>")

    def _repr_html_(self) -> str:
        from rag_metrics.core.html import summary

        row = pd.DataFrame([{c: getattr(self, c) for c in _TABLE}], index=pd.Index([self.measure], name="measure"))
        return summary(self.sentence, (None, row))


def format_p(p: float, alpha: float | None = None, *, significant: bool = False, name: str = "p") -> str:
    """``p`` as printed beside a decision at level ``alpha``: ``p = 0.012`` (three decimals; three significant digits
    with ``significant``), ``p < 0.001`` below 0.001, and -- the point -- with as many more digits as it takes for the
    printed number to fall on the same side of ``alpha`` as ``p`` itself: a p of 0.04996 that decides "significant at
    0.05" prints ``p = 0.04996``, never ``p = 0.050``; past six digits it prints ``p < alpha``. ``name`` replaces
    ``p`` (e.g. ``p_holm``)."""
    if p != p:
        return f"{name} = n/a"
    if p < 0.001 and (alpha is None or alpha >= 0.001):
        return f"{name} < 0.001"
    for digits in range(3, 7):
        text = f"{p:.{digits}{'g' if significant or p < 0.001 else 'f'}}"
        if alpha is None or (float(text) < alpha) == (p < alpha):
            return f"{name} = {text}"
    return f"{name} < {alpha:g}" if p < alpha else f"{name} = {p:.6g}"


def _sentence(t: PairedTest) -> str:
    head = (f"{t.measure}: {t.mean_a:.3f} → {t.mean_b:.3f}, change {t.delta:+.3f} "
            f"({t.confidence:.0%} interval {t.ci_low:+.3f} to {t.ci_high:+.3f}); "
            f"{t.wins} question(s) better, {t.losses} worse, {t.ties} unchanged")
    test = SIGN_TEST if t.values == "binary" else BOUNDED
    if t.decided_by == "p_holm":
        p_text = (f"{test} {format_p(t.p_value, t.alpha, significant=True)}, Holm-adjusted "
                  f"{format_p(t.p_holm, t.alpha, significant=True)}")
    else:
        p_text = f"{test} {format_p(t.p_value, t.alpha, significant=True)}"
    out = f"{head}; {p_text}: {t.verdict}."
    if t.decided_by == "p_holm" and t.p_value < t.alpha <= t.p_holm:
        out += (f" On its own this change would count (p < {t.alpha:g}, its interval excludes 0), but it is one of "
                f"several measures compared: after Holm's correction it is within noise.")
    if not t.can_reach_alpha:
        need = min_discordant(t.alpha)
        out += (f" With {t.discordant} question(s) that differ no result can reach p < {t.alpha:g} (the smallest "
                f"possible p is {t.min_p:.3g}): at least {need} must differ.")
    return out


def _verdict(p: float, delta: float, alpha: float) -> str:
    if p < alpha and delta != 0:
        return "better" if delta > 0 else "worse"
    return "within noise"


def align_runs(a, b) -> tuple[np.ndarray, np.ndarray, int]:
    """``(a values, b values, undefined)``: two runs' per-question values (Series by question, dicts, or lists in
    the same order) on the questions both define, in ``a``'s order, and how many questions were left out for a NaN
    on either side. The same questions on both sides, each once, and no infinite value, or :class:`InputError`."""
    a = a if isinstance(a, pd.Series) else pd.Series(list(a) if not isinstance(a, dict) else a, dtype=float)
    b = b if isinstance(b, pd.Series) else pd.Series(list(b) if not isinstance(b, dict) else b, dtype=float)
    a, b = a.astype(float), b.astype(float)
    if a.index.has_duplicates or b.index.has_duplicates:
        raise InputError("paired comparison: a question appears twice in one run.")
    if set(a.index) != set(b.index):
        only_a, only_b = sorted(set(a.index) - set(b.index), key=str), sorted(set(b.index) - set(a.index), key=str)
        raise InputError(
            f"paired comparison needs the same questions in both runs: only in a {only_a[:5]}, only in b {only_b[:5]}."
        )
    b = b.loc[a.index]
    if np.isinf(a.to_numpy()).any() or np.isinf(b.to_numpy()).any():
        raise InputError("paired comparison: infinite values cannot be compared.")
    defined = a.notna() & b.notna()
    return a[defined].to_numpy(), b[defined].to_numpy(), int((~defined).sum())


def paired_test(a, b, *, measure: str | None = None, alpha: float = ALPHA, n_resamples: int = N_RESAMPLES,
                seed: int = 0, exact_max: int = EXACT_MAX, chunk: int | None = None) -> PairedTest:
    """Run ``b`` against run ``a`` on the same questions (module docstring).

    Parameters
    ----------
    a, b : per-question values of one measure (Series indexed by question ID, or same-order lists); NaN =
        undefined. Both runs must hold the same questions. Or two evaluations (an
        :class:`~rag_metrics.Evaluation`, an experiment result, a per-question table): then ``measure`` names the
        column compared (:func:`paired_verdict` compares several).
    measure : its name, for the sentence (and the column of two evaluations).
    alpha : the test's level; the interval's confidence is ``1 - alpha``.
    n_resamples, seed, chunk : the bounded-mean test's weight draws (values other than 0/1), their seed, and draws
        made at a time. exact_max : unused since the bounded-mean test replaced the randomization test (kept so that
        calls passing it still work).

    Examples
    --------
    >>> t = paired_test([0] * 4 + [1] * 61, [1] * 65, measure="hit@1")   # 4 wins, 61 ties
    >>> round(t.p_value, 3), t.verdict, t.can_reach_alpha
    (0.125, 'within noise', False)
    """
    alpha = check_alpha(alpha)
    n_resamples = check_resamples(n_resamples)
    a, b = _one_measure(a, b, measure)
    measure = "measure" if measure is None else measure
    xa, xb, excluded = align_runs(a, b)
    d = xb - xa
    n = d.size
    if n == 0:
        raise InputError("paired comparison: no question has a defined value in both runs.")
    wins, losses = int((d > 0).sum()), int((d < 0).sum())
    binary = bool(np.isin(xa, (0.0, 1.0)).all() and np.isin(xb, (0.0, 1.0)).all())
    if binary:
        r = sign_test(wins, losses, n, alpha=alpha)
        p, low, high = float(r["p"]), float(r["low"]), float(r["high"])
        method, interval_method, resamples = SIGN_TEST, SIGN_INTERVAL, None
    else:
        in01 = bool(((xa >= 0) & (xa <= 1) & (xb >= 0) & (xb <= 1)).all())
        values = np.concatenate([xa, xb])
        bound = 1.0 if in01 else float(values.max() - values.min())
        r = bounded_mean_rows(d[None, :], alpha=alpha, n_resamples=n_resamples, seed=seed, bound=bound, chunk=chunk)
        p, low, high = float(r["p"][0]), float(r["low"][0]), float(r["high"][0])
        how = (f"{n_resamples:,} weight draws, every change within +-1" if in01 else
               f"{n_resamples:,} weight draws, changes within +-{bound:g}, the observed range of the values")
        method, interval_method, resamples = f"{BOUNDED} ({how})", BOUNDED_INTERVAL, n_resamples
    delta = float(d.mean())
    floor = min_p(wins + losses)
    t = PairedTest(measure=str(measure), n=int(n), excluded=excluded, mean_a=float(xa.mean()),
                   mean_b=float(xb.mean()), delta=delta, ci_low=low, ci_high=high, confidence=1 - alpha, p_value=p,
                   alpha=alpha, wins=wins, ties=int(n - wins - losses), losses=losses,
                   values="binary" if binary else "continuous", method=method, interval_method=interval_method,
                   resamples=resamples, min_p=floor, can_reach_alpha=floor < alpha, verdict=_verdict(p, delta, alpha))
    return replace(t, sentence=_sentence(t))


# ---- several tests ---------------------------------------------------------------------------------------------

def holm(p_values) -> np.ndarray:
    """Holm's step-down adjusted p-values (Holm 1979), in the order given, capped at 1.

    Sorted ascending ``p_(1) <= ... <= p_(k)``: ``p_holm_(j) = max_{i <= j} min(1, (k - i + 1) p_(i))``. A
    hypothesis is rejected at level alpha exactly when its adjusted p is below alpha; the chance of any false
    rejection among the k stays at most alpha.
    """
    p = np.asarray(list(p_values), dtype=float)
    order = np.argsort(p, kind="stable")
    k = p.size
    adjusted = np.empty(k)
    running = 0.0
    for rank, i in enumerate(order):
        running = max(running, (k - rank) * p[i])
        adjusted[i] = min(1.0, running)
    return adjusted


def _with_holm(tests: list[PairedTest], role: str) -> list[PairedTest]:
    if not tests:
        return []
    adjusted = holm([t.p_value for t in tests])
    out = []
    for t, ph in zip(tests, adjusted):
        t = replace(t, p_holm=float(ph), decided_by="p_holm", role=role, verdict=_verdict(float(ph), t.delta, t.alpha))
        out.append(replace(t, sentence=_sentence(t)))
    return out


_TABLE = ["n", "mean_a", "mean_b", "delta", "ci_low", "ci_high", "p_value", "p_holm", "wins", "ties", "losses",
          "verdict"]


@dataclass(frozen=True, repr=False)
class PairedVerdict:
    """Run ``b`` (``name_b``) against run ``a`` (``name_a``) on several measures (:func:`paired_verdict`).

    ``tests``: one :class:`PairedTest` per measure, the primary first (``role="primary"``, decided by its own p)
    then the others (``role="secondary"``, decided by their Holm-adjusted p). ``verdict``: the primary's.
    """

    name_a: str
    name_b: str
    primary: str
    alpha: float
    verdict: str
    tests: tuple
    sentence: str

    def __getitem__(self, measure: str) -> PairedTest:
        for t in self.tests:
            if t.measure == measure:
                return t
        raise KeyError(measure)

    @property
    def primary_test(self) -> PairedTest:
        return self.tests[0]

    def table(self) -> pd.DataFrame:
        """One row per measure (the primary first): means, change, interval, p, p_holm, W/T/L, verdict."""
        cols = ["role", "n", "mean_a", "mean_b", "delta", "ci_low", "ci_high", "p_value", "p_holm", "decided_by",
                "wins", "ties", "losses", "min_p", "verdict", "method"]
        table = pd.DataFrame([{c: getattr(t, c) for c in cols} | {"measure": t.measure} for t in self.tests])
        return table.set_index("measure")[cols]

    def __repr__(self) -> str:
        from rag_metrics.core.html import one_line

        return one_line(f"<PairedVerdict {self.name_b} against {self.name_a}: {self.verdict} on {self.primary} "
                        f"({self.primary_test.delta:+.3f}, p = {self.primary_test.p_value:.3g}); "
                        f"{len(self.tests) - 1} other measure(s), Holm-adjusted>")

    def _repr_html_(self) -> str:
        from rag_metrics.core.html import summary

        return summary(self.sentence, (None, self.table()[["role", *_TABLE]].head(30)))

    def to_dict(self) -> dict:
        from rag_metrics.core.serialize import jsonable

        return jsonable({"name_a": self.name_a, "name_b": self.name_b, "primary": self.primary, "alpha": self.alpha,
                         "verdict": self.verdict, "sentence": self.sentence,
                         "tests": [t.to_dict() for t in self.tests]})


COUNTS = ("n_relevant", "n_retrieved")
"""Columns of an evaluation's per-question table that count items: never a measure to compare."""


def _per_question(x, func: str = "paired_verdict") -> tuple[pd.DataFrame, list]:
    """``(table, measures)`` of an evaluation: an object's ``per_question`` table and its ``measures``
    (:class:`~rag_metrics.Evaluation`, an experiment result), or a per-question table (a DataFrame or a dict of
    columns) whose measures are its numeric columns but the counts -- question attributes (``type``) are never
    compared."""
    frame = getattr(x, "per_question", x)
    if isinstance(frame, dict):
        frame = pd.DataFrame(frame)
    if not isinstance(frame, pd.DataFrame):
        raise wrong_type(x, "a", "a per-question table (a DataFrame with one column per measure, indexed by question "
                         "ID), an Evaluation or an experiment result", func=func)
    if hasattr(x, "measures") and not isinstance(x, pd.DataFrame):
        return frame, [str(m) for m in x.measures]
    numeric = [c for c in frame.columns if c not in COUNTS and pd.api.types.is_numeric_dtype(frame[c])
               and not pd.api.types.is_bool_dtype(frame[c])]
    return frame, [str(c) for c in numeric]


def _one_measure(a, b, measure):
    """The values ``paired_test`` compares: ``a`` and ``b`` as given, or -- two evaluations -- their ``measure``
    columns (which must then be named)."""
    tables = [hasattr(x, "per_question") or isinstance(x, pd.DataFrame) for x in (a, b)]
    if not any(tables):
        return a, b
    (ta, ma), (tb, mb) = _per_question(a, "paired_test"), _per_question(b, "paired_test")
    both = [m for m in ma if m in mb]
    if measure is None or str(measure) not in both:
        what = "name the measure to compare" if measure is None else f"{measure!r} is not a measure both hold"
        near = close_matches(measure, both) if measure is not None else []
        raise InputError(f"paired_test compares one measure of two evaluations: {what}, e.g. "
                         f"paired_test(a, b, measure={(both or ['hit@5'])[0]!r}); both hold {both}."
                         + (f" Did you mean {near[0]!r}?" if near else "")
                         + " paired_verdict(a, b) compares several at once.", field="measure")
    return ta[str(measure)], tb[str(measure)]


def paired_verdict(a, b, measures=None, *, primary: str | None = None, name_a: str = "a", name_b: str = "b",
                   alpha: float = ALPHA, n_resamples: int = N_RESAMPLES, seed: int = 0,
                   exact_max: int = EXACT_MAX) -> PairedVerdict:
    """Run ``b`` against run ``a`` on several measures; the primary one carries the verdict (module docstring).

    ``a``, ``b``: per-question tables (one column per measure, indexed by question ID),
    :class:`~rag_metrics.Evaluation` objects or experiment results; ``measures`` default: the measures both hold (an
    evaluation's own, a table's numeric columns but ``n_relevant`` and ``n_retrieved``: question attributes such as
    ``type`` are never compared); ``primary`` default: the first measure. The primary is tested alone at ``alpha`` (it was chosen before looking); the other measures
    form one family, Holm-adjusted among themselves.
    """
    alpha = check_alpha(alpha)
    (ta, ma), (tb, mb) = _per_question(a), _per_question(b)
    if measures is None:
        measures = [m for m in ma if m in mb]
    measures = check_names(measures, func="paired_verdict")
    if not measures:
        raise InputError("paired_verdict: no measure to compare.")
    primary = measures[0] if primary is None else str(primary)
    missing = [m for m in dict.fromkeys([primary, *measures]) if m not in ta.columns or m not in tb.columns]
    if missing:
        raise InputError(f"paired_verdict: measure(s) {missing} missing from a run; both hold "
                         f"{sorted(set(ta.columns) & set(tb.columns))}.", field="measures")
    kwargs = dict(alpha=alpha, n_resamples=n_resamples, seed=seed, exact_max=exact_max)
    first = paired_test(ta[primary], tb[primary], measure=primary, **kwargs)
    first = replace(first, role="primary")
    first = replace(first, sentence=_sentence(first))
    others = _with_holm([paired_test(ta[m], tb[m], measure=m, **kwargs) for m in measures if m != primary],
                        "secondary")
    sentence = f"{name_b} against {name_a} -- {first.sentence}"
    if others:
        sentence += (f" Other measures (Holm-adjusted over {len(others)}): "
                     + "; ".join(f"{t.measure} {t.delta:+.3f}, {format_p(t.p_holm, t.alpha, significant=True, name='p_holm')}, "
                               f"{t.verdict}" for t in others)
                     + ".")
    return PairedVerdict(name_a=str(name_a), name_b=str(name_b), primary=primary, alpha=alpha, verdict=first.verdict,
                         tests=tuple([first, *others]), sentence=sentence)


def compare_to_baseline(baseline, systems: dict, *, alpha: float = ALPHA, n_resamples: int = N_RESAMPLES,
                        seed: int = 0, exact_max: int = EXACT_MAX, measure: str = "measure",
                        confidence: float | None = None) -> pd.DataFrame:
    """Each system against the baseline on one measure, Holm-adjusted over the systems.

    One row per system: ``n``, ``mean_a`` (baseline), ``mean_b``, ``mean_diff``, ``ci_low``/``ci_high`` (the
    system's own interval, consistent with ``p_value``), ``p_value``, ``p_holm``, ``method``, ``wins``, ``ties``,
    ``losses``, ``min_p``, ``verdict`` (from ``p_holm``: several systems were tested), ``within_noise`` (the same,
    as a flag) and ``excluded``. ``confidence`` (former name) sets ``alpha = 1 - confidence``.
    """
    if confidence is not None:
        alpha = 1 - confidence
    tests = _with_holm([paired_test(baseline, values, measure=measure, alpha=alpha, n_resamples=n_resamples,
                                    seed=seed, exact_max=exact_max) for values in systems.values()], "system")
    rows = {}
    for name, t in zip(systems, tests):
        rows[name] = {"n": t.n, "mean_a": t.mean_a, "mean_b": t.mean_b, "mean_diff": t.delta, "ci_low": t.ci_low,
                      "ci_high": t.ci_high, "p_value": t.p_value, "p_holm": t.p_holm, "method": t.method,
                      "wins": t.wins, "ties": t.ties, "losses": t.losses, "min_p": t.min_p, "verdict": t.verdict,
                      "within_noise": t.within_noise, "excluded": t.excluded}
    table = pd.DataFrame.from_dict(rows, orient="index")
    table.index.name = "system"
    return table


def paired_t_test(a, b) -> tuple[float, float]:
    """``(t, p)`` of the two-sided paired t-test of b - a (NaN pairs excluded) -- a cross-check only: with few
    discordant questions its normal approximation does not hold (notebook 07 shows it)."""
    from scipy import stats

    xa, xb, _ = align_runs(a, b)
    d = xb - xa
    n = d.size
    sd = d.std(ddof=1) if n > 1 else 0.0
    if n < 2 or sd == 0:
        return math.nan, math.nan
    t = d.mean() / (sd / math.sqrt(n))
    return float(t), float(2 * stats.t.sf(abs(t), df=n - 1))
