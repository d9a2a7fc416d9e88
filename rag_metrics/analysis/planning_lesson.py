"""The planning section of lesson 10 (comparing two systems): how many questions a golden set needs, and its sentences.

:func:`plan_golden_set` computes the plan from the per-question differences of the compared pair and of the other
candidates, and returns the claims as :func:`rag_metrics.report.kernel.claim`'s arguments, so the notebook only
shows the table and calls ``claim(**c)``. No sample size is given for a gain the data cannot reach: on a measure in
[0, 1] the mean moves by at most the share of questions that differ (the discordant rate).
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from .paired import min_discordant
from .planning import exact_power, questions_needed, questions_needed_binary

__all__ = ["plan_golden_set"]


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
        # the plan depends on how many questions the change touches: from the fewest possible (all won) to 4 times that
        rates = sorted({round(r, 4) for r in (target_gain, 1.5 * target_gain, 2 * target_gain, 4 * target_gain)
                        if r <= 1} | ({round(rate_plan, 4)} if reachable else set()))
        plan = pd.DataFrame({"discordant rate": rates})
        plan["share of those won"] = (1 + target_gain / plan["discordant rate"]) / 2
        plan["questions for 80% power"] = [questions_needed_binary(target_gain, r, alpha=alpha) for r in rates]
        plan[f"power with {n_now} questions"] = [exact_power(n_now, target_gain, r, alpha=alpha) for r in rates]
        out["plan"] = plan
        first, last = plan.iloc[0], plan.iloc[-1]
        claims.append(_claim(
            plan["questions for 80% power"].is_monotonic_increasing and len(plan) > 1,
            f"The same gain of {target_gain:g} needs **{int(first['questions for 80% power'])} questions** when it "
            f"touches only {first['discordant rate']:.0%} of them (every one won) and "
            f"**{int(last['questions for 80% power'])}** when it touches {last['discordant rate']:.0%} "
            f"({last['share of those won']:.1%} of those won): the more questions a change reshuffles, the more noise "
            "hides it.",
            name="plan_grows_with_rate", figures={"questions": plan["questions for 80% power"].tolist()}))
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
            True, f"At the rate measured here, {rate_plan:.1%}, a gain of {target_gain:g} is out of reach: it needs at "
                  f"least {target_gain:.0%} of the questions to differ, all for the better (on a measure in [0, 1] "
                  "the mean moves by at most the share of questions that differ). No golden set size can fix that; "
                  "plan a smaller gain, or compare configurations that differ more.",
            name="gain_out_of_reach", figures={"target_gain": target_gain, "rate_plan": rate_plan}))
    elif binary:
        needed = questions_needed_binary(target_gain, rate_plan, alpha=alpha)
        power_now = exact_power(n_now, target_gain, rate_plan, alpha=alpha)
        out["needed"] = needed
        claims.append(_claim(
            needed > n_now,
            f"At the rate measured here, {rate_plan:.1%}, detecting a gain of {target_gain:g} with 80% power at "
            f"{alpha} needs **{needed} questions**; this golden set has {n_now} (power {power_now:.0%}).",
            f"At the rate measured here, {rate_plan:.1%}, {needed} questions give 80% power to detect a gain of "
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
