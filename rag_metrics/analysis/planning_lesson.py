"""The planning section of lesson 10 (comparing two systems): how many questions a golden set needs, and its sentences.

:func:`plan_golden_set` computes the plan from the per-question differences of the compared pair and of the other
candidates, and returns the claims as :func:`rag_metrics.report.kernel.claim`'s arguments, so the notebook only
shows the table and calls ``claim(**c)``. No sample size is given for a gain the data cannot reach: on a measure in
[0, 1] the mean moves by at most the share of questions that differ (the discordant rate).
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from .paired import format_p, min_discordant
from .planning import exact_power, questions_needed, questions_needed_binary

__all__ = ["GAINS", "FEWEST", "TWICE", "plan_table", "plan_shown", "plan_golden_set", "holm_example"]

GAINS = (0.01, 0.02, 0.05, 0.1, 0.2)
"""The gains of a 0/1 measure the planning table shows (the target gain is added)."""
FEWEST = "golden set needed: change touches only those, all won"
TWICE = "... touches twice as many, 3 in 4 won"


def plan_table(target_gain: float, rate: float, *, alpha: float, gains=GAINS) -> pd.DataFrame:
    """Golden-set sizes for 80% power of the exact sign test at ``alpha``, one row per gain of a 0/1 measure: the
    share of questions that must change at least (the gain), the size when the change touches only those (all won),
    when it touches twice as many, and when it touches ``rate`` of them (``None``: a gain above ``rate`` cannot
    happen at that rate)."""
    rows = {}
    for g in sorted({*gains, target_gain}):
        rows[g] = {"questions that must change, at least": g,
                   FEWEST: questions_needed_binary(g, g, alpha=alpha),
                   TWICE: questions_needed_binary(g, min(1.0, 2 * g), alpha=alpha),
                   f"... touches {rate:.1%} (configurations like these)":
                       questions_needed_binary(g, rate, alpha=alpha) if 0 < g <= rate else None}
    return pd.DataFrame.from_dict(rows, orient="index", dtype=object).rename_axis("gain to detect")


def plan_shown(table: pd.DataFrame) -> pd.DataFrame:
    """:func:`plan_table` as a reader reads it: gains as ``+0.05``, shares as ``5%``, sizes as ``3,135``, and
    ``impossible`` where the gain is larger than the share of questions that change."""
    shown = pd.DataFrame(index=pd.Index([f"+{g:g}" for g in table.index], name=table.index.name))
    shown[table.columns[0]] = [f"{v:.0%}" for v in table.iloc[:, 0]]
    for column in table.columns[1:]:
        shown[column] = ["impossible" if pd.isna(v) else f"{int(v):,}" for v in table[column]]
    return shown


def holm_example(alpha: float, k: int) -> dict:
    """A verdict Holm's correction changes, computed: the best of ``k`` candidates wins every one of the fewest
    discordant questions that can reach ``alpha``; its own p is below ``alpha``, its Holm p (``k`` times, at least
    ``alpha``) is not. Returns the claim as :func:`~rag_metrics.report.kernel.claim`'s arguments."""
    from .paired import holm, sign_test

    m = min_discordant(alpha)
    p = float(sign_test(m, 0, m, alpha=alpha)["p"])
    p_holm = float(holm([p] + [1.0] * (k - 1))[0])
    return _claim(
        p < alpha <= p_holm,
        f"For example, a candidate that wins all {m} questions on which it differs from the baseline has, on its "
        f"own, {format_p(p, alpha)} < {alpha}; tested as one of {k} candidates, its Holm-adjusted "
        f"{format_p(p_holm, alpha, name='p')} ≥ {alpha}: within noise.",
        name="holm_changes_verdict", figures={"m": m, "k": k, "p": p, "p_holm": p_holm, "alpha": alpha})


def _claim(condition, text_if_true, text_if_false=None, *, name, figures) -> dict:
    return {"condition": bool(condition), "text_if_true": text_if_true, "text_if_false": text_if_false,
            "headline": False, "name": name, "figures": figures}


def _rate(d: pd.Series) -> float:
    d = d.dropna()
    return float(d.ne(0).mean()) if len(d) else 0.0


def plan_golden_set(diffs: pd.Series, candidate_diffs: list, *, binary: bool, target_gain: float,
                    alpha: float) -> dict:
    """The plan for detecting ``target_gain`` with 80% power at ``alpha`` (the exact paired test's).

    ``diffs``: per-question differences of the compared pair; ``candidate_diffs``: those of every candidate against
    the baseline (the pair's included). The discordant rate planned with is the larger of the pair's and the
    candidates' mean. Returns ``{"rate_pair", "rate_mean", "rate_plan", "plan" (a table for 0/1 values, else None),
    "needed" (None when nothing can be planned), "claims"}``."""
    diffs = diffs.dropna()
    n_now, need = len(diffs), min_discordant(alpha)
    rate_pair = _rate(diffs)
    rate_mean = float(np.mean([_rate(d) for d in candidate_diffs])) if candidate_diffs else 0.0
    rate_plan = max(rate_pair, rate_mean)
    out = {"rate_pair": rate_pair, "rate_mean": rate_mean, "rate_plan": rate_plan, "plan": None, "needed": None}
    claims = []
    reachable = 0 < target_gain <= rate_plan
    if binary:
        out["plan"] = plan_table(target_gain, rate_plan, alpha=alpha)
        row = out["plan"].loc[target_gain]
        fewest, twice = row[FEWEST], row[TWICE]
        claims.append(_claim(
            fewest <= twice,
            f"To detect a gain of {target_gain:g} (80% power, exact test at {alpha}), a golden set needs at least "
            f"**{fewest:,} questions** -- if the change touches only the {target_gain:.0%} of questions it must, and "
            f"wins every one -- and **{twice:,}** if it touches twice as many (three in four won): the more questions "
            "a change reshuffles, the more noise hides it.",
            name="plan_grows_with_rate", figures={"fewest": int(fewest), "twice": int(twice)}))
    spread = None if binary else max(float(diffs.std(ddof=1)) if n_now > 1 else 0.0,
                                     float(np.mean([d.dropna().std(ddof=1) if d.dropna().size > 1 else 0.0
                                                    for d in candidate_diffs])) if candidate_diffs else 0.0)
    out["sd_plan"] = spread
    if rate_plan == 0:
        claims.append(_claim(True, "No candidate differs from the baseline on any question: nothing can be planned "
                                   "from them; compare configurations that differ.",
                             name="nothing_to_plan", figures={"rate_plan": rate_plan}))
    elif not binary and not spread > 0:
        claims.append(_claim(True, "Every question that differs differs by the same amount: the spread of the "
                                   "differences is 0 and the sample size cannot be planned from it.",
                             name="no_spread", figures={"sd_plan": spread, "rate_plan": rate_plan}))
    elif not reachable:
        claims.append(_claim(
            True, f"**Configurations like these cannot make a gain of {target_gain:g}, whatever the golden set's "
                  f"size.** They differ on {rate_plan:.1%} of the questions (this pair on {rate_pair:.1%}, the "
                  f"candidates on {rate_mean:.1%} on average). A question that does not change cannot raise the mean, "
                  f"so even if every question that differs were won, the mean would rise by {rate_plan:.3f} at most. "
                  "More questions measure that share better; they do not raise it. Plan for a smaller gain"
                  + (" (the table's last column gives the golden set for each gain they can make)" if binary else "")
                  + ", or compare configurations that differ more.",
            name="gain_out_of_reach", figures={"target_gain": target_gain, "rate_plan": rate_plan}))
    elif binary:
        needed = questions_needed_binary(target_gain, rate_plan, alpha=alpha)
        power_now = exact_power(n_now, target_gain, rate_plan, alpha=alpha)
        out["needed"] = needed
        claims.append(_claim(
            needed > n_now,
            f"Configurations like these differ on {rate_plan:.1%} of the questions: at that rate, detecting a gain of "
            f"{target_gain:g} with 80% power at {alpha} needs **{needed:,} questions**; this golden set has {n_now} "
            f"(power {power_now:.0%}).",
            f"Configurations like these differ on {rate_plan:.1%} of the questions: at that rate {needed} questions give 80% power to detect a gain of "
            f"{target_gain:g} at {alpha}; this golden set has {n_now}, enough (power {power_now:.0%}).",
            name="needs_more_questions", figures={"needed": needed, "n_now": n_now}))
    else:
        needed = questions_needed(target_gain, spread, discordant_rate=rate_plan, alpha=alpha)
        floor = int(np.ceil(need / rate_plan - 1e-9))
        out["needed"] = needed
        claims.append(_claim(
            needed == floor,
            f"The spread of the differences alone would ask for fewer questions, but at a discordant rate of "
            f"{rate_plan:.1%} fewer than {floor} questions hold fewer than {need} that differ, and then no result can "
            f"reach p < {alpha}: **plan {needed} questions**.",
            f"To detect a gain of {target_gain:g} with 80% power at {alpha}, plan **{needed} questions** (the spread "
            f"of the differences, {spread:.3f}; at least {floor} for {need} to differ); this golden set has {n_now}.",
            name="plan_at_floor", figures={"needed": needed, "floor": floor}))
    if out["needed"] is not None:
        claims.append(_claim(out["needed"] >= need,
                             f"The plan never asks for fewer questions than the exact test can resolve ({need} that "
                             f"differ): it asks for {out['needed']}.",
                             name="plan_above_floor", figures={"needed": out["needed"], "need": need}))
    out["claims"] = claims
    return out
