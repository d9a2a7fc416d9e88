"""Statistics: per-question values -> intervals, paired tests, sample sizes and agreement, with measured error rates.

Takes per-question values of golden sets of 30-200 questions (and labels from two sources); hands on, from one place
to import:


* Intervals of a mean (:mod:`.intervals`): :func:`mean_interval` -- Clopper--Pearson for 0/1 values (hit@k),
  BCa bootstrap otherwise (MRR, nDCG), never of zero width for 0/1 values; it says which it used.
  :func:`summary_with_ci` gives it for every measure of an evaluation.
* Two runs on the same questions (:mod:`.paired`): :func:`paired_test` -- the exact sign test (McNemar) for 0/1
  values, the bounded-mean test otherwise (its level holds whatever the skew of the changes, where the paired
  randomization test's did not; :func:`bounded_mean_rows`); the same test gives the p-value, the decision (better /
  worse / within noise) and the interval, and says when too few questions differ for any result to reach alpha
  (smallest p = 2^(1 - m) with m discordant questions). :func:`paired_verdict` -- several measures, the primary
  carries the verdict, the others Holm-adjusted; :func:`compare_to_baseline` -- several systems against one
  baseline, Holm-adjusted; :func:`holm`; :func:`paired_t_test` (a cross-check only).
* Planning (:mod:`.planning`): :func:`sample_size`, :func:`questions_needed` (exact sign-test power from the
  discordant rate for 0/1 values; the t approximation from the spread of differences otherwise; never below what
  the exact test can resolve), :func:`minimum_detectable_difference`, :func:`interval_width_by_size`.

Coverage of the intervals and false alarms of the verdict are measured by simulation in the tests
(``tests/test_stats_simulation.py``) and in ``benchmarks/error_rates.md`` (``python benchmarks/error_rates.py``) and
``benchmarks/stat_edges.md`` (``python benchmarks/stat_edges.py``: kappa's interval, the rule for headline figures,
graded paired tests on skewed changes).
Undefined per-question values (NaN) are left out and counted, never treated as 0.

The percentile bootstrap the package used before is :func:`percentile_bootstrap_ci` (for comparison only: too
narrow near 0 and 1, zero width when every value is 1).
"""

from __future__ import annotations

import pandas as pd

from rag_metrics.core.errors import InputError
from rag_metrics.stats.bounded_mean import bounded_mean_rows
from rag_metrics.stats.intervals import BCA, CLOPPER_PEARSON, N_RESAMPLES, PERCENTILE, MeanInterval, bootstrap_means, clopper_pearson, mean_interval, mean_interval_rows, percentile_bootstrap_ci, wilson
from rag_metrics.stats.paired import ALPHA, VERDICTS, PairedTest, PairedVerdict, compare_to_baseline, format_p, holm, min_discordant, min_p, paired_t_test, paired_test, paired_verdict, randomization_rows, sign_test
from rag_metrics.stats.planning import SampleSize, exact_power, interval_width_by_size, minimum_detectable_difference, questions_needed, questions_needed_binary, sample_size

__all__ = [
    "mean_interval", "MeanInterval", "summary_with_ci", "percentile_bootstrap_ci", "clopper_pearson", "wilson",
    "bootstrap_means", "mean_interval_rows", "paired_test", "PairedTest", "paired_verdict", "PairedVerdict",
    "compare_to_baseline", "format_p", "holm", "paired_t_test", "sign_test", "bounded_mean_rows", "randomization_rows", "min_p", "min_discordant",
    "sample_size", "SampleSize", "questions_needed", "questions_needed_binary", "exact_power",
    "minimum_detectable_difference", "interval_width_by_size", "N_RESAMPLES", "ALPHA", "VERDICTS", "CLOPPER_PEARSON", "BCA",
    "PERCENTILE",
]


def summary_with_ci(evaluation, measures=None, *, confidence: float = 0.95, n_resamples: int = N_RESAMPLES,
                    seed: int = 0) -> pd.DataFrame:
    """Per measure: mean, interval (:func:`mean_interval`), its method, evaluated and excluded counts (and IDs).

    ``evaluation``: an :class:`~rag_metrics.Evaluation` (``measures`` default: all of them) or a per-question
    table with one column per measure.
    """
    per_question = evaluation.per_question if hasattr(evaluation, "per_question") else evaluation
    if measures is None:
        if not hasattr(evaluation, "measures"):
            raise InputError("summary_with_ci: name the measures (columns) of a per-question table.")
        measures = evaluation.measures
    rows = {}
    for m in measures:
        r = mean_interval(per_question[m], confidence=confidence, n_resamples=n_resamples, seed=seed)
        rows[m] = {"mean": r.mean, "ci_low": r.low, "ci_high": r.high, "method": r.method, "evaluated": r.n,
                   "excluded": int(len(per_question) - r.n),
                   "excluded_ids": tuple(per_question.index[per_question[m].isna().to_numpy()])}
    out = pd.DataFrame.from_dict(rows, orient="index")
    out.index.name = "measure"
    return out

from rag_metrics.core.lazy import submodules  # noqa: E402 - after the docstring and the public names

__getattr__, __dir__ = submodules(__name__, __path__)
