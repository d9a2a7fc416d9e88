"""Did the newest run get better, worse, or stay within noise? One verdict, in words a lead reads.

:func:`verdict` compares two runs on the same questions (per-question values of one measure, the *primary*
measure) and returns a :class:`Verdict`: both means, the paired change with its 95% interval, the two-sided
p-value of the paired test (the exact sign test for 0/1 values such as hit@k, the bounded-mean test otherwise),
wins / ties / losses, and the outcome:

* ``better`` -- the change is positive and significant at ``alpha`` (p < alpha);
* ``worse`` -- the change is negative and significant at ``alpha``;
* ``within noise`` -- otherwise (p >= alpha): the data cannot tell the runs apart.

The decision, the p-value and the interval come from the same test, so the outcome never contradicts the p or the
interval printed beside it. :func:`verdict_table` gives the same figures for every measure: the primary measure
decided by its own p, the others by their p-values Holm-adjusted among themselves (several measures tested at once); :func:`moved_questions` lists the questions whose value changed
(newly hit / newly missed for 0/1 measures such as hit@k, improved / worsened otherwise); :func:`gate` applies the
two documented rules of ``rag-metrics gate`` (a significant regression, or a drop larger than a declared
tolerance). :func:`run_interval` is the 95% interval of one run's mean that the report and the index show.

The statistics themselves live in :mod:`rag_metrics.stats`; this module only calls them.
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass, field

import numpy as np
import pandas as pd

from rag_metrics.core.errors import InputError, check_alpha
from rag_metrics.stats.intervals import N_RESAMPLES
from rag_metrics.stats import format_p

__all__ = ["Verdict", "verdict", "verdict_table", "moved_questions", "gate", "GateDecision", "drop_exceeds", "run_interval",
           "CHANGES", "ALPHA"]

ALPHA = 0.05
CHANGES = ("newly missed", "newly hit", "worsened", "improved")




@dataclass(frozen=True, repr=False)
class Verdict:
    """The paired comparison of run ``after`` with run ``before`` on ``measure`` (module docstring).

    ``delta = mean_after - mean_before`` over the ``n`` questions defined in both runs (``excluded``: undefined in
    either, left out and counted); ``ci_low``/``ci_high``: its interval at ``confidence = 1 - alpha``, from the
    same test as ``p_value`` (two-sided; ``method``), so it excludes 0 exactly when the outcome is not "within
    noise"; ``wins``/``ties``/``losses``: questions whose value rose / stayed / fell.
    """

    measure: str
    before: str
    after: str
    n: int
    excluded: int
    mean_before: float
    mean_after: float
    delta: float
    ci_low: float
    ci_high: float
    p_value: float
    wins: int
    ties: int
    losses: int
    alpha: float
    outcome: str
    method: str
    confidence: float = 0.95
    notes: tuple = field(default_factory=tuple)

    @property
    def significant(self) -> bool:
        return self.outcome != "within noise"

    def line(self) -> str:
        """One sentence: ``after`` vs ``before`` on the measure, the change, its interval and p, W/T/L, outcome.

        Plain text: run names come from users' files, so escape them (``md_escape``) before rendering as Markdown
        or HTML (:meth:`markdown` does).
        """
        return self._line(str(self.after), str(self.before))

    def markdown(self) -> str:
        """:meth:`line` as Markdown, the run names escaped and the outcome in bold."""
        from rag_metrics.core.html import md_escape

        return self._line(f"**{md_escape(self.after)}**", f"**{md_escape(self.before)}**", bold=True)

    def _line(self, after: str, before: str, bold: bool = False) -> str:
        outcome = f"**{self.outcome}**" if bold else self.outcome.capitalize()
        why = (f"significant at {self.alpha:g}" if self.significant else f"not significant at {self.alpha:g}")
        return (f"{outcome}: {after} against {before} on {self.measure}, {self.mean_before:.3f} → {self.mean_after:.3f} "
                f"(change {self.delta:+.3f}, {self.confidence:.0%} interval {self.ci_low:+.3f} to {self.ci_high:+.3f}; "
                f"{format_p(self.p_value, self.alpha)}, {why}); {self.wins} question(s) better, {self.losses} worse, "
                f"{self.ties} unchanged of {self.n}.")

    def __repr__(self) -> str:
        from rag_metrics.core.html import one_line

        return one_line(f"<Verdict: {self.line()}>")

    def _repr_html_(self) -> str:
        """The experiment report's verdict banner, in JupyterLab (without the page's links and findings)."""
        from rag_metrics.core.html import render

        return render("verdict_banner.html.j2", outcome=self.outcome, v=self, subject=self.after,
                      baseline=self.before, measure=self.measure, iv=None, p=format_p(self.p_value, self.alpha), moved=[],
                      findings=[], more_findings=0, links=False)

    def to_dict(self) -> dict:
        from rag_metrics.core.serialize import jsonable

        return jsonable({**asdict(self), "line": self.line()})


def _series(values, name) -> pd.Series:
    if isinstance(values, pd.Series):
        return values.astype(float)
    if isinstance(values, dict):
        return pd.Series(values, dtype=float)
    raise InputError(f"{name}: expected per-question values (a Series or a dict indexed by question ID).")


def _paired(before: pd.Series, after: pd.Series, measure: str, *, alpha: float, n_resamples: int, seed: int):
    """The paired statistics of ``after - before``: the one place that calls the statistics module
    (:func:`rag_metrics.stats.paired_test`: the exact sign test for 0/1 values, the bounded-mean test
    otherwise; its interval is consistent with its p)."""
    from rag_metrics.stats import paired_test

    t = paired_test(before, after, measure=measure, alpha=alpha, n_resamples=n_resamples, seed=seed)
    return t, {"n": t.n, "excluded": t.excluded, "mean_before": t.mean_a, "mean_after": t.mean_b, "delta": t.delta,
               "ci_low": t.ci_low, "ci_high": t.ci_high, "p_value": t.p_value, "wins": t.wins, "ties": t.ties,
               "losses": t.losses, "method": t.method, "outcome": t.verdict, "confidence": t.confidence}


def verdict(before, after, measure: str, *, before_name: str = "before", after_name: str = "after",
            alpha: float = ALPHA, n_resamples: int = N_RESAMPLES, seed: int = 0) -> Verdict:
    """The verdict of run ``after`` against run ``before`` on ``measure`` (module docstring).

    ``before`` and ``after`` are the runs' per-question values of ``measure`` (Series or dicts indexed by question
    ID, NaN = undefined); both must hold the same questions (the same golden set).
    """
    check_alpha(alpha)
    a, b = _series(before, "before"), _series(after, "after")
    t, s = _paired(a, b, str(measure), alpha=alpha, n_resamples=n_resamples, seed=seed)
    notes = []
    if not t.can_reach_alpha:
        changed = ("No question changed" if t.discordant == 0 else
                   f"Only {t.discordant} question{'s' if t.discordant > 1 else ''} changed")
        notes.append(f"{changed}: the smallest p the exact test can give is {t.min_p:.3g}, so no change this small "
                     f"can be significant at {alpha:g}")
    return Verdict(measure=str(measure), before=str(before_name), after=str(after_name), alpha=float(alpha),
                   notes=tuple(notes), **s)


def verdict_table(before: pd.DataFrame, after: pd.DataFrame, measures, primary: str, *, alpha: float = ALPHA,
                  n_resamples: int = N_RESAMPLES, seed: int = 0) -> pd.DataFrame:
    """Every measure's paired comparison, one row each, the primary first: before, after, change, interval, p,
    wins / ties / losses and the outcome. The primary measure (chosen before looking) is decided by its own p; the
    others form one family, decided by their Holm-adjusted p (``p_holm``)
    (:func:`rag_metrics.stats.paired_verdict`). Measures either run lacks are left out."""
    from rag_metrics.stats import paired_verdict

    measures = [primary] + [m for m in measures if m != primary]
    measures = [m for m in measures if m in before and m in after and before[m].notna().any() and after[m].notna().any()]
    columns = ["before", "after", "change", "ci_low", "ci_high", "p", "p_holm", "wins", "ties", "losses", "n",
               "outcome", "primary"]
    if primary not in measures:
        return pd.DataFrame(columns=columns).rename_axis("measure")
    v = paired_verdict(before[measures], after[measures], measures, primary=primary, alpha=alpha,
                       n_resamples=n_resamples, seed=seed)
    rows = [{"measure": t.measure, "before": t.mean_a, "after": t.mean_b, "change": t.delta, "ci_low": t.ci_low,
             "ci_high": t.ci_high, "p": t.p_value, "p_holm": t.p_holm, "wins": t.wins, "ties": t.ties,
             "losses": t.losses, "n": t.n, "outcome": t.verdict, "primary": t.role == "primary"} for t in v.tests]
    return pd.DataFrame(rows).set_index("measure")[columns]


def moved_questions(before, after) -> pd.DataFrame:
    """The questions whose value changed between two runs, regressions first.

    One row per question defined in both runs with a different value: ``question_id``, ``before``, ``after`` and
    ``change`` -- ``newly missed`` / ``newly hit`` when both values are 0 or 1 (hit@k), else ``worsened`` /
    ``improved``. Rows are ordered by :data:`CHANGES` (newly missed, newly hit, worsened, improved), then by the
    size of the change (largest first), then in the order of ``after``'s questions.
    """
    a, b = _series(before, "before"), _series(after, "after")
    a = a.reindex(b.index)
    both = a.notna() & b.notna() & (a != b)
    a, b = a[both], b[both]
    binary = a.isin([0.0, 1.0]) & b.isin([0.0, 1.0])
    change = np.where(binary, np.where(b > a, "newly hit", "newly missed"), np.where(b > a, "improved", "worsened"))
    table = pd.DataFrame({"question_id": list(b.index), "before": a.to_numpy(), "after": b.to_numpy(),
                          "change": change})
    table["_kind"] = table["change"].map(CHANGES.index)
    table["_size"] = -(table["after"] - table["before"]).abs()
    table["_pos"] = range(len(table))
    return table.sort_values(["_kind", "_size", "_pos"], kind="stable").drop(columns=["_kind", "_size", "_pos"]) \
        .reset_index(drop=True)


DROP_RTOL = 1e-9
"""Relative tolerance of :func:`drop_exceeds`: a mean of n values in [0, 1] summed in floating point is off by at
most about n * 2**-53 (1e-12 for a million questions), and no real difference between two means of a golden set
comes within a billionth of the tolerance."""


def drop_exceeds(delta: float, max_drop: float) -> bool:
    """Whether a change ``delta = mean_after - mean_before`` is a drop of more than ``max_drop``: a drop equal to
    ``max_drop`` up to the rounding of the means (an MRR drop of 0.015 computes as 0.015000000000000003) does not
    exceed it."""
    drop = -delta
    return drop > max_drop and not math.isclose(drop, max_drop, rel_tol=DROP_RTOL, abs_tol=1e-12)


def _beyond(drop: float, max_drop: float) -> str:
    """``drop`` with as many decimals (3 or more) as it takes to read larger than ``max_drop``."""
    for digits in range(3, 10):
        text = f"{drop:.{digits}f}"
        if float(text) > max_drop:
            return text
    return repr(drop)


@dataclass(frozen=True)
class GateDecision:
    """What ``rag-metrics gate`` decided: ``failed`` and, when it failed, each rule that failed it."""

    failed: bool
    reasons: tuple
    max_drop: float | None

    @property
    def exit_code(self) -> int:
        return 1 if self.failed else 0


def gate(v: Verdict, *, max_drop: float | None = None) -> GateDecision:
    """The gate's two rules on a verdict (new run = ``after``, baseline = ``before``):

    1. **significant regression**: the outcome is ``worse`` (the drop is significant at the verdict's alpha);
    2. **drop beyond the tolerance**: ``max_drop`` (0 to 1: every measure the gate compares lies in [0, 1]) is
       given and the mean fell by more than it, significant or not (:func:`drop_exceeds`: a drop equal to the
       tolerance passes, whatever rounding the means carry).

    The gate fails when either rule fires; an improvement, no change and a change within noise and within the
    tolerance pass.
    """
    if max_drop is not None and (not isinstance(max_drop, (int, float)) or isinstance(max_drop, bool)
                                 or not math.isfinite(max_drop) or not 0 <= max_drop <= 1):
        raise InputError(f"The 'max_drop' parameter must be a number from 0 to 1 (a measure's mean lies in [0, 1], so "
                         f"a larger tolerance could never fail). Got {max_drop!r} instead.", field="max_drop")
    reasons = []
    if v.outcome == "worse":
        reasons.append(f"{v.measure} fell by {-v.delta:.3f}, significant at {v.alpha:g} ({format_p(v.p_value, v.alpha)})")
    if max_drop is not None and drop_exceeds(v.delta, max_drop):
        reasons.append(f"{v.measure} fell by {_beyond(-v.delta, max_drop)}, more than the tolerated {max_drop:g} "
                       "(--max-drop)")
    return GateDecision(bool(reasons), tuple(reasons), max_drop)


def run_interval(values, *, n_resamples: int = N_RESAMPLES, seed: int = 0) -> dict:
    """One run's mean of ``values`` (NaN excluded) with its 95% interval: ``{"mean", "low", "high", "n", "method"}``
    (:func:`rag_metrics.stats.mean_interval`: Clopper--Pearson for 0/1 values, BCa bootstrap otherwise).

    The one place the report and the index get a run's interval from (computed once per run and measure, and
    stored with the run in its history).
    """
    from rag_metrics.stats import mean_interval as stats_interval

    iv = stats_interval(pd.Series(values, dtype=float), n_resamples=n_resamples, seed=seed)
    return {"mean": iv.mean, "low": iv.low, "high": iv.high, "n": int(iv.n), "method": iv.method}
