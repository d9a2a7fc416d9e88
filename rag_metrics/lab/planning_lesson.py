"""The planning section of lesson 10 (comparing two systems): how many questions a golden set needs, and its sentences.

:func:`plan_golden_set` computes the plan from the per-question differences of the compared pair and of the other
candidates, and returns the claims as :func:`rag_metrics.report.kernel.claim`'s arguments, so the notebook only
shows the table and calls ``claim(**c)``. No sample size is given for a gain the data cannot reach: on a measure in
[0, 1] the mean moves by at most the share of questions that differ (the discordant rate).
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from rag_metrics.core.errors import check_alpha
from rag_metrics.core.text import counted
from rag_metrics.stats.paired import format_p, min_discordant
from rag_metrics.stats.planning import exact_power, questions_needed, questions_needed_binary

__all__ = ["floor_count_claim", "holm_claims", "GAINS", "FEWEST", "TWICE", "plan_table", "plan_shown", "plan_golden_set", "holm_example",
           "share_of", "check_parameters", "source_claims", "pair_claims", "tango_example", "t_test_trap",
           "why_sign_test_claim", "same_questions_claim", "floor_claims", "floor_figure"]

GAINS = (0.01, 0.02, 0.05, 0.1, 0.2)
"""The gains of a 0/1 measure the planning table shows (the target gain is added)."""
FEWEST = "golden set needed: only those, all won"
TWICE = "... twice as many, 3 in 4 won"


def plan_table(target_gain: float, rate: float, *, alpha: float, gains=GAINS, ceiling: float = 1.0) -> pd.DataFrame:
    """Golden-set sizes for 80% power of the exact sign test at ``alpha``, one row per gain of a 0/1 measure: the
    share of questions that must change at least (the gain), the size when the change touches only those (all won),
    when it touches twice as many, and when it touches ``rate`` of them (``None``: a gain above ``rate`` cannot
    happen at that rate). Gains above ``ceiling`` (1 - the baseline's mean: the most it can gain) are left out."""
    rows = {}
    for g in sorted(g for g in {*gains, target_gain} if g <= ceiling + 1e-12):
        rows[g] = {"questions that must change, at least": g,
                   FEWEST: questions_needed_binary(g, g, alpha=alpha),
                   TWICE: questions_needed_binary(g, min(1.0, 2 * g), alpha=alpha),
                   f"... configurations like these ({rate:.1%})":
                       questions_needed_binary(g, rate, alpha=alpha) if 0 < g <= rate else None}
    return pd.DataFrame.from_dict(rows, orient="index", dtype=object).rename_axis("gain to detect")


def plan_shown(table: pd.DataFrame) -> pd.DataFrame:
    """:func:`plan_table` as a reader reads it: gains as ``+0.05``, shares as ``5%``, sizes as ``3,135``, and
    ``share too small`` where the gain is larger than the share of questions that change."""
    shown = pd.DataFrame(index=pd.Index([f"+{g:g}" for g in table.index], name=table.index.name))
    shown[table.columns[0]] = [f"{v:.0%}" for v in table.iloc[:, 0]]
    for column in table.columns[1:]:
        shown[column] = ["share too small" if pd.isna(v) else f"{int(v):,}" for v in table[column]]
    return shown


def holm_example(alpha: float, k: int) -> dict:
    """A verdict Holm's correction changes, computed: the best of ``k`` candidates wins every one of the fewest
    discordant questions that can reach ``alpha``; its own p is below ``alpha``, its Holm p (``k`` times, at least
    ``alpha``) is not. Returns the claim as :func:`~rag_metrics.report.kernel.claim`'s arguments."""
    from rag_metrics.stats.paired import holm, sign_test

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
                    alpha: float, baseline: float | None = None) -> dict:
    """The plan for detecting ``target_gain`` with 80% power at ``alpha`` (the exact paired test's).

    ``diffs``: per-question differences of the compared pair; ``candidate_diffs``: those of every candidate against
    the baseline (the pair's included). The discordant rate planned with is the larger of the pair's and the
    candidates' mean. ``baseline``: the baseline's mean of a 0/1 measure, whose gain cannot exceed 1 - baseline.
    Returns ``{"rate_pair", "rate_mean", "rate_plan", "plan" (a table for 0/1 values, else None),
    "needed" (None when nothing can be planned), "sd_plan" (the spread planned with, None for 0/1 values; absent
    when the target gain is above the ceiling), "claims"}``.

    The steps: :func:`_binary_plan` (the table and its claims, 0/1 values), :func:`_spread_of` (other values), the
    size and its claim (:func:`_size_claim`), and the claim that the size is above the exact test's floor.
    """
    diffs = diffs.dropna()
    need = min_discordant(alpha)  # the fewest discordant questions that can reach alpha
    rate_pair = _rate(diffs)
    rate_mean = float(np.mean([_rate(d) for d in candidate_diffs])) if candidate_diffs else 0.0
    rate_plan = max(rate_pair, rate_mean)
    out = {"rate_pair": rate_pair, "rate_mean": rate_mean, "rate_plan": rate_plan, "plan": None, "needed": None}
    claims = []
    if binary:
        ceiling = 1.0 - baseline if baseline is not None else 1.0
        out["plan"], plan_claims = _binary_plan(target_gain, rate_plan, alpha=alpha, baseline=baseline,
                                                ceiling=ceiling)
        claims += plan_claims
        if target_gain > ceiling + 1e-12:
            out["claims"] = claims
            return out
    spread = None if binary else _spread_of(diffs, candidate_diffs)
    out["sd_plan"] = spread
    out["needed"], size_claim = _size_claim(diffs, candidate_diffs, binary=binary, target_gain=target_gain,
                                            alpha=alpha, rates=(rate_pair, rate_mean, rate_plan), spread=spread,
                                            need=need)
    claims.append(size_claim)
    if out["needed"] is not None:
        claims.append(_claim(out["needed"] >= need,
                             f"The plan never asks for fewer questions than the exact test can resolve ({need} that "
                             f"differ): it asks for {out['needed']}.",
                             name="plan_above_floor", figures={"needed": out["needed"], "need": need}))
    out["claims"] = claims
    return out


def _binary_plan(target_gain: float, rate_plan: float, *, alpha: float, baseline: float | None,
                 ceiling: float) -> tuple[pd.DataFrame | None, list[dict]]:
    """``(plan, claims)`` for a 0/1 measure: :func:`plan_table` (None when no gain fits under ``ceiling``); a claim
    naming the shown gains above the ceiling, if any; and, when the target gain is not above it, how the size grows
    with the share of questions a change touches (only those, all won; twice as many, 3 in 4 won)."""
    plan = plan_table(target_gain, rate_plan, alpha=alpha, ceiling=ceiling)
    shown = plan if len(plan) else None
    claims = []
    above = [g for g in sorted({*GAINS, target_gain}) if g > ceiling + 1e-12]
    if above:
        gains = " or ".join(f"+{g:g}" for g in above) if len(above) < 3 else \
            ", ".join(f"+{g:g}" for g in above[:-1]) + f" or +{above[-1]:g}"
        claims.append(_claim(
            True, f"A baseline of {baseline:.3f} cannot gain {gains} at all: the most it can gain is "
                  f"1 − {baseline:.3f} = {ceiling:.3f}" + ("; the table stops below that." if shown is not None
                                                           else "."),
            name="above_ceiling", figures={"gains": above, "ceiling": ceiling, "baseline": baseline}))
    order = plan_order_claim(plan, rate_plan) if shown is not None else None
    if order is not None and order["condition"]:  # said only when the table is not ordered
        claims.append(order)
    if target_gain > ceiling + 1e-12:
        return shown, claims
    row = plan.loc[target_gain]
    fewest, twice = row[FEWEST], row[TWICE]
    claims.append(_claim(
        fewest <= twice,
        f"To detect a gain of {target_gain:g} (80% power, exact test at {alpha}), a golden set needs at least "
        f"**{fewest:,} questions** -- if the change touches only the {target_gain:.0%} of questions it must, and "
        f"wins every one -- and **{twice:,}** if it touches twice as many (three in four won): the more questions "
        "a change reshuffles, the more noise hides it.",
        name="plan_grows_with_rate", figures={"fewest": int(fewest), "twice": int(twice)}))
    return shown, claims


def plan_order_claim(plan: pd.DataFrame, rate: float) -> dict:
    """The claim that explains a planning table (:func:`plan_table`) whose sizes do not grow left to right along a
    row, or do not fall as the gain grows down a column; nothing is shown when they do. Along a row the last column
    is the share ``rate`` the configurations touch: when that share is below twice the gain it touches fewer
    questions than the column before it, so it needs fewer. Any other reversal is the exact test's discreteness."""
    columns = list(plan.columns[1:])
    rows = [[None if pd.isna(v) else int(v) for v in plan.loc[g, columns]] for g in plan.index]
    along, down = [], []
    for g, sizes in zip(plan.index, rows):
        for i in range(len(sizes) - 1):
            if sizes[i] is not None and sizes[i + 1] is not None and sizes[i + 1] < sizes[i]:
                along.append((float(g), i, sizes[i], sizes[i + 1], i == len(sizes) - 2 and rate < 2 * g))
    for j in range(len(columns)):
        col = [(float(g), r[j]) for g, r in zip(plan.index, rows) if r[j] is not None]
        down += [(a, b, x, y) for (a, x), (b, y) in zip(col, col[1:]) if y > x]
    figures = {"rows": rows, "gains": [float(g) for g in plan.index], "rate": rate, "along": along, "down": down}
    parts = []
    for g, i, x, y, by_rate in along:
        parts.append(f"in the +{g:g} row, {y:,} is fewer than the {x:,} beside it: "
                     + (f"configurations like these touch {rate:.1%} of the questions, less than the {2 * g:.0%} "
                        "(twice the gain) of the column before, and a change that touches fewer questions needs "
                        "fewer -- the columns are ordered by their labels, not by the share they touch"
                        if by_rate else "the exact test's discreteness (the count of wins it needs moves in whole "
                        "questions, so its power does not grow smoothly with the golden set's size)"))
    for a, b, x, y in down:
        parts.append(f"{y:,} questions for +{b:g} but {x:,} for +{a:g}: the exact test's discreteness (the count of "
                     "wins it needs moves in whole questions)")
    text = ("Why the table is not ordered everywhere: " + "; ".join(parts) + ".") if parts else None
    return _claim(bool(parts), text or "", None, name="plan_order", figures=figures)


def _spread_of(diffs: pd.Series, candidate_diffs: list) -> float:
    """The spread planned with: the larger of the pair's standard deviation of the differences (0 for fewer than
    two) and the candidates' mean one (each 0 for fewer than two; 0 with no candidates)."""
    return max(float(diffs.std(ddof=1)) if len(diffs) > 1 else 0.0,
               float(np.mean([d.dropna().std(ddof=1) if d.dropna().size > 1 else 0.0
                              for d in candidate_diffs])) if candidate_diffs else 0.0)


def _size_claim(diffs: pd.Series, candidate_diffs: list, *, binary: bool, target_gain: float, alpha: float,
                rates: tuple, spread: float | None, need: int) -> tuple[int | None, dict]:
    """``(needed, claim)``: the golden set's size (None when it cannot be planned) and the claim saying so, by the
    first that holds: no candidate differs; the differences have no spread (not 0/1); the target gain is above
    the discordant rate (:func:`_out_of_reach_claim`); else the size from the rate (0/1 values) or the spread.
    ``rates``: the pair's, the candidates' mean and the planned discordant rates; ``need``: the fewest discordant
    questions that can reach ``alpha`` (:func:`~rag_metrics.stats.paired.min_discordant`)."""
    rate_plan = rates[2]
    n_now = len(diffs)
    if rate_plan == 0:
        return None, _claim(True, "No candidate differs from the baseline on any question: nothing can be planned "
                                  "from them; compare configurations that differ.",
                            name="nothing_to_plan", figures={"rate_plan": rate_plan})
    if not binary and not spread > 0:
        return None, _claim(True, "Every question that differs differs by the same amount: the spread of the "
                                  "differences is 0 and the sample size cannot be planned from it.",
                            name="no_spread", figures={"sd_plan": spread, "rate_plan": rate_plan})
    if not 0 < target_gain <= rate_plan:
        return None, _out_of_reach_claim(diffs, candidate_diffs, binary=binary, target_gain=target_gain, alpha=alpha,
                                         rates=rates)
    if binary:
        needed = questions_needed_binary(target_gain, rate_plan, alpha=alpha)
        power_now = exact_power(n_now, target_gain, rate_plan, alpha=alpha)
        return needed, _claim(
            needed > n_now,
            f"Configurations like these differ on {rate_plan:.1%} of the questions: at that rate, detecting a gain of "
            f"{target_gain:g} with 80% power at {alpha} needs **{needed:,} questions**; this golden set has {n_now} "
            f"(power {power_now:.0%}).",
            f"Configurations like these differ on {rate_plan:.1%} of the questions: at that rate {needed} questions give 80% power to detect a gain of "
            f"{target_gain:g} at {alpha}; this golden set has {n_now}, enough (power {power_now:.0%}).",
            name="needs_more_questions", figures={"needed": needed, "n_now": n_now})
    needed = questions_needed(target_gain, spread, discordant_rate=rate_plan, alpha=alpha)
    floor = int(np.ceil(need / rate_plan - 1e-9))
    return needed, _claim(
        needed == floor,
        f"The spread of the differences alone would ask for fewer questions, but at a discordant rate of "
        f"{rate_plan:.1%} fewer than {floor} questions hold fewer than {need} that differ, and then no result can "
        f"reach p < {alpha}: **plan {needed} questions**.",
        f"To detect a gain of {target_gain:g} with 80% power at {alpha}, plan **{needed} questions** (the spread "
        f"of the differences, {spread:.3f}; at least {floor} for {need} to differ); this golden set has {n_now}.",
        name="plan_at_floor", figures={"needed": needed, "floor": floor})


def _out_of_reach_claim(diffs: pd.Series, candidate_diffs: list, *, binary: bool, target_gain: float, alpha: float,
                        rates: tuple) -> dict:
    """The claim that the configurations measured cannot make ``target_gain``: a question that does not
    change cannot raise the mean, so the gain is at most the discordant rate; with the Clopper-Pearson upper bound
    (level 1 - ``alpha``) of the share of the configuration that changes most, saying whether that rules it out."""
    from rag_metrics.stats.intervals import clopper_pearson

    rate_pair, rate_mean, rate_plan = rates
    n_now = len(diffs)
    counts = [int(d.dropna().ne(0).sum()) for d in candidate_diffs] or [0]
    k_max = max(int(diffs.ne(0).sum()), *counts)
    upper = float(clopper_pearson(k_max, n_now, 1 - alpha)[1]) if n_now else 1.0
    return _claim(
        True, f"**The configurations measured here change too few questions to make a gain of {target_gain:g}.** "
              f"They differ on "
              f"{rate_plan:.1%} of the questions (this pair on {rate_pair:.1%}, the candidates on {rate_mean:.1%} "
              "on average), and a question that does not change cannot raise the mean: even if every one that "
              f"differs were won, the mean would rise by {rate_plan:.3f}. That share comes from {n_now} questions: "
              f"for the configuration that changes most ({k_max} of {n_now}) its {1 - alpha:.0%} upper bound is "
              f"{upper:.1%}"
              + (f", above {target_gain:g}: configurations of this kind that change more questions could make it, "
                 "so the gain is not ruled out." if upper >= target_gain
                 else f", below {target_gain:g} too.")
              + " Plan for a smaller gain"
              + (" (the table's last column gives the golden set for each gain they can make)" if binary else "")
              + ", or compare configurations that differ more.",
        name="gain_out_of_reach", figures={"target_gain": target_gain, "rate_plan": rate_plan, "upper": upper,
                                           "k_max": k_max, "n": n_now})


# ---- the comparison sections of lesson 10: their sentences, chosen from the numbers ------------------------------

def share_of(k: int, n: int) -> str:
    """The one way lesson 10 writes a share of the questions: ``1 of 65 questions (1.5%)``."""
    return f"{k} of {n} questions ({k / n:.1%})" if n else "none of 0 questions"


def check_parameters(*, measure: str, retrievers, alpha: float, target_gain: float) -> None:
    """Refuse parameters the lesson cannot use, with the name of the parameter and what was expected."""
    from rag_metrics.measures.registry import parse_measure
    from rag_metrics.retrieval.retrievers import RETRIEVERS

    parse_measure(measure)  # a clear error for a name that is not a measure
    for name in retrievers:
        if name not in RETRIEVERS:
            raise ValueError(f"retriever_a/b must be one of {RETRIEVERS}. Got {name!r}.")
    check_alpha(alpha, high=0.2)
    if not 0 < target_gain < 1:
        raise ValueError(f"target_gain must be in (0, 1). Got {target_gain!r}.")


SOURCE_P = {"randomization test": 0.0138, "bootstrap test": 0.0107, "Wilcoxon signed-rank test": 0.0560,
            "sign test": 0.3222}
"""Smucker, Allan & Carterette (CIKM 2007), MAP of two TREC 3 runs on 50 topics: each test's two-sided p."""


def source_claims() -> list[dict]:
    """The source's sign test recomputed from its counts, and how far it sits from the other tests (a factor)."""
    from rag_metrics.stats.paired import sign_test

    p29, p25 = float(sign_test(29, 21, 50)["p"]), float(sign_test(25, 18, 43)["p"])
    to_rand = SOURCE_P["sign test"] / SOURCE_P["randomization test"]
    to_wilcoxon = SOURCE_P["sign test"] / SOURCE_P["Wilcoxon signed-rank test"]
    return [
        _claim(round(p29, 4) == 0.3222 and round(p25, 4) == 0.3604,
               f"This package's exact sign test gives the source's sign-test p-values from its counts: {p29:.4f} for 29 "
               f"topics won of 50, and {p25:.4f} for 25 won of the 43 that differ by at least 0.01.",
               name="source_sign_test", figures={"p29": p29, "p25": p25}),
        _claim(to_wilcoxon > 2,
               f"On MAP the sign test's p is {to_rand:.0f} times the randomization test's and {to_wilcoxon:.1f} times "
               "the Wilcoxon test's: it throws away how much each topic moved.",
               name="source_factor", figures={"to_rand": to_rand, "to_wilcoxon": to_wilcoxon, **SOURCE_P}),
    ]


def pair_claims(cmp, *, measure: str, name_a: str, name_b: str, alpha: float) -> list[dict]:
    """What the paired comparison says: where the difference comes from, the verdict, and why interval and test
    agree (``cmp``: a :class:`~rag_metrics.stats.paired.PairedTest`)."""
    m = cmp.wins + cmp.losses
    out = []
    if m:
        out.append(_claim(
            True, f"The whole difference comes from the **{counted(m, 'question')}** where the two configurations differ "
                  f"({cmp.wins} won, {cmp.losses} lost); the other {cmp.ties} are ties and say nothing about which is "
                  "better.",
            name="discordant_decide", figures={"discordant": m, "wins": cmp.wins, "losses": cmp.losses,
                                               "ties": cmp.ties, "n": cmp.n}))
    p = format_p(cmp.p_value, alpha)
    out.append({**_claim(
        cmp.verdict == "within noise",
        f"**On {cmp.n} questions, the {cmp.delta:+.3f} change of {measure} from {name_a} to {name_b} is within noise** "
        f"({p} ≥ {alpha}).",
        f"On {cmp.n} questions, the {cmp.delta:+.3f} change of {measure} from {name_a} to {name_b} is **{cmp.verdict}** "
        f"({p} < {alpha}): enough questions differ for the test to tell.",
        name="within_noise", figures={"verdict": cmp.verdict, "p": cmp.p_value, "alpha": alpha}), "headline": True})
    how = ("for 0/1 values the package takes Tango's score interval of a paired change (Tango, 1998: every change "
           "of the mean that a score test on the won and lost counts does not reject) and, whenever the sign test "
           "does not reject, extends it to reach 0" if cmp.values == "binary" else
           "the package builds it from the same bounded-mean test (the changes the test does not reject)")
    inside = cmp.ci_low <= 0 <= cmp.ci_high
    out.append(_claim(
        inside == (cmp.p_value >= alpha),
        f"The {cmp.confidence:.0%} interval of the change, {cmp.ci_low:+.3f} to {cmp.ci_high:+.3f}, "
        + ("holds 0 and p ≥ " if inside else "excludes 0 and p < ") + f"{alpha}. They agree because {how}.",
        name="interval_agrees_with_test", figures={"ci_low": cmp.ci_low, "ci_high": cmp.ci_high, "p": cmp.p_value,
                                                   "alpha": alpha}))
    return out


def tango_example(n: int, alpha: float) -> dict | None:
    """The fewest questions all won (none lost) of ``n`` for which Tango's plain score interval excludes 0 while the
    exact sign test does not reject -- why the package extends it; None when no such count exists."""
    from rag_metrics.stats.paired import sign_test, tango_interval

    for m in range(1, n + 1):
        low, high = (float(v) for v in tango_interval(m, 0, n, alpha=alpha))
        p = float(sign_test(m, 0, n, alpha=alpha)["p"])
        if p < alpha:
            return None
        if low > 0:
            return _claim(
                low > 0 and p >= alpha,
                f"Without that extension they would disagree: with {counted(m, 'question')} won and none lost of {n}, Tango's plain "
                f"interval runs from {low:+.3f} to {high:+.3f} and excludes 0, while the exact sign test gives "
                f"{format_p(p, alpha)} ≥ {alpha}.",
                name="tango_extension", figures={"m": m, "n": n, "low": low, "high": high, "p": p, "alpha": alpha})
    return None


def t_test_trap(n: int, alpha: float) -> tuple[pd.DataFrame, dict]:
    """The paired t-test against the exact sign test when m of ``n`` questions are won and none lost, for m = 1 up
    to the fewest the exact test needs: a table, and the claim naming the m where the t-test rejects at ``alpha``
    and the exact test cannot."""
    from rag_metrics.stats.paired import paired_t_test, sign_test

    rows = {}
    for m in range(1, min(n, min_discordant(alpha)) + 1):
        b = np.zeros(n)
        b[:m] = 1.0
        rows[m] = {"paired t-test": paired_t_test(np.zeros(n), b)[1],
                   "exact sign test": float(sign_test(m, 0, n, alpha=alpha)["p"])}
    table = pd.DataFrame.from_dict(rows, orient="index").rename_axis(f"questions won, none lost (of {n})")
    trap = [m for m, r in rows.items() if r["paired t-test"] < alpha <= r["exact sign test"]]
    ts = " and ".join(format_p(rows[m]["paired t-test"]) for m in trap)
    ex = " and ".join(format_p(rows[m]["exact sign test"]) for m in trap)
    ms = " or ".join(str(m) for m in trap)
    return table, _claim(
        bool(trap),
        f"**The paired t-test calls real what the exact test cannot.** With {ms} questions won and none lost of {n}, "
        f"the t-test gives {ts} -- below {alpha} -- while the exact test gives {ex}: no result on so few questions can "
        f"reach {alpha}. The t-test's normal approximation does not hold when only a handful of questions differ.",
        f"On {n} questions at alpha = {alpha} the paired t-test does not reject before the exact test does: its "
        "approximation happens to err on the safe side here.",
        name="t_test_trap", figures={"trap": trap, "alpha": alpha, "n": n,
                                     "p_t": [rows[m]["paired t-test"] for m in rows],
                                     "p_exact": [rows[m]["exact sign test"] for m in rows]})


def why_sign_test_claim(cmp, *, measure: str) -> dict:
    """Whether the sign test loses information here, against the source's MAP: on 0/1 values every question that
    differs does so by exactly 1, so counting wins and losses keeps everything (it is the randomization test); on
    other values the sizes differ, and the package reads them with the bounded-mean test instead."""
    m = cmp.wins + cmp.losses
    binary = cmp.values == "binary"
    source = ("In the source MAP differs on nearly every topic (43 of 50 by at least 0.01), by amounts of every size: "
              "there the sign test throws the sizes away. ")
    if not m:
        other = f"{source}Here {measure} differs on no question: no test can tell the two configurations apart."
    else:
        other = (f"{source}Here {measure} differs on {share_of(m, cmp.n)}, by amounts of different sizes: the sign "
                 "test would throw them away too, so for values other than 0 and 1 the package uses the bounded-mean "
                 "test, which reads them.")
    return _claim(
        binary and m > 0,
        f"**The sign test loses nothing here.** {source}Here {measure} differs on {share_of(m, cmp.n)}, always by "
        "exactly 1: counting wins and losses keeps every difference -- the sign test is the randomization test. "
        "Count the questions that differ before choosing a test or reading a p-value.",
        other, name="sign_test_loses_nothing",
        figures={"discordant": m, "n": cmp.n, "binary": binary})


def same_questions_claim(baseline: pd.Series, candidates: dict) -> dict | None:
    """When candidates show identical rows (same change, same won / tied / lost), say which questions each group of
    them wins and loses against ``baseline`` -- the same ones, or others. None when no two rows look alike."""
    changes: dict = {}
    for name, values in candidates.items():
        d = (values - baseline).dropna()
        changes[name] = (tuple(d.index[d > 0]), tuple(d.index[d < 0]))
    by_counts: dict = {}
    for name, (won, lost) in changes.items():
        by_counts.setdefault((len(won), len(lost)), []).append(name)
    alike = [names for (w, lo), names in by_counts.items() if len(names) > 1 and (w or lo)]
    if not alike:
        return None
    parts = []
    for names in alike:
        groups: dict = {}
        for name in names:
            groups.setdefault(changes[name], []).append(name)
        for (won, lost), members in groups.items():
            who = members[0] if len(members) == 1 else ", ".join(members[:-1]) + f" and {members[-1]}"
            verb = ("wins" if len(members) == 1 else "win") + (" the same" if len(members) > 1 else "")
            did = f"{verb} {', '.join(map(str, won))}" if won else ""
            if lost:
                did += (" and " if won else "") + ("loses" if len(members) == 1 else "lose") + \
                       f" {', '.join(map(str, lost))}"
            parts.append(f"{who} {did}")
    same = any(len(set(changes[n] for n in names)) < len(names) for names in alike)
    return _claim(True, "Rows that look alike are no copying mistake: " + "; ".join(parts) + " (questions against "
                  "the baseline)" + (", so the same questions decide for several candidates." if same else "."),
                  name="same_questions", figures={"groups": [list(g) for g in alike]})


def floor_claims(cmp, *, alpha: float, confidence: float) -> list[dict]:
    """This pair against the exact test's floor 2^(1-m): can any result reach ``alpha``; for graded values, why the
    interval is as wide as the share of questions that differ."""
    from rag_metrics.stats.intervals import clopper_pearson

    m, need = cmp.wins + cmp.losses, min_discordant(alpha)
    if not m:
        return []
    out = [_claim(
        not cmp.can_reach_alpha,
        f"**Here the exact test cannot reach {alpha}.** With m = {m}, the smallest possible p is 2^(1−m) = "
        f"{cmp.min_p:.3g}: the count of questions that differ decides before any test is run. At least {need} must "
        "differ.",
        f"With m = {m} an exact test can give p as small as 2^(1−m) = {cmp.min_p:.2g}, below {alpha}: a real change "
        "can show.",
        name="floor_blocks_alpha", figures={"discordant": m, "min_p": cmp.min_p, "alpha": alpha})]
    psi_high = float(clopper_pearson(m, cmp.n, confidence)[1])
    if cmp.values == "continuous" and not cmp.can_reach_alpha \
            and abs(cmp.ci_high - psi_high) < 1e-9 and abs(cmp.ci_low + psi_high) < 1e-9:
        out.append(_claim(
            True, "The interval is wide because so few questions differ: the test cannot rule out any average change "
                  "of a question that differs, so the interval only bounds the change by the most it could be if "
                  f"they all moved as far as a measure in [0, 1] can -- ±{psi_high:.3f}, the largest share of "
                  f"questions that may differ (Clopper–Pearson for {m} of {cmp.n}).",
            name="interval_bounded_by_share",
            figures={"continuous": True, "discordant": m, "min_p": cmp.min_p, "alpha": alpha,
                     "ci_low": cmp.ci_low, "ci_high": cmp.ci_high, "psi_high": psi_high}))
    return out


def floor_figure(alpha: float, discordant: int):
    """Notebook 10's figure: the smallest two-sided p an exact test can give with m questions that differ, 2^(1-m),
    as bars against ``alpha`` (grey where no result can reach it), this pair's m (``discordant``) marked. Returns the
    figure."""
    import matplotlib.pyplot as plt

    from rag_metrics.stats import min_p

    need = min_discordant(alpha)
    m = np.arange(1, max(need + 4, discordant + 2))
    floor = np.array([min_p(int(x)) for x in m])
    fig, ax = plt.subplots(figsize=(8, 3.8))
    ax.bar(m, floor, color=np.where(floor < alpha, "tab:blue", "tab:grey"), label="smallest p possible: 2^(1−m)")
    ax.axhline(alpha, color="tab:red", linestyle="--", label=f"alpha = {alpha}")
    if discordant:
        ax.annotate(f"this pair: m = {discordant}", (discordant, min_p(discordant)), xytext=(0, 12),
                    textcoords="offset points", ha="center", fontsize=9, arrowprops={"arrowstyle": "->"})
    ax.set(yscale="log", xticks=m, ylim=(None, 3), xlabel="questions that differ between the two configurations (m)",
           ylabel="smallest two-sided p (log scale)", title=f"Grey: no result on these questions can reach p < {alpha}")
    ax.legend(loc="upper right", fontsize=8)
    fig.tight_layout()
    return fig


def floor_count_claim(alpha: float) -> dict:
    """The claim on the floor of the exact test: the fewest discordant questions that can give p < ``alpha``, with
    2^(1-m) on either side of it."""
    from rag_metrics.stats.paired import min_p

    need = min_discordant(alpha)
    return dict(condition=min_p(need - 1) >= alpha > min_p(need), name="floor_count",
                figures={"need": need, "alpha": alpha},
                text_if_true=(f"At alpha = {alpha}, {need - 1} or fewer discordant questions can never give p < "
                              f"{alpha}, whatever the golden set's size; {need} can, if every one of them goes the same "
                              f"way: 2^(1−{need - 1}) = {min_p(need - 1):.4g} ≥ {alpha} > 2^(1−{need}) = "
                              f"{min_p(need):.4g}."),
                text_if_false=f"At alpha = {alpha}, the floor 2^(1−m) does not cross alpha at m = {need}.")


def holm_claims(many, alpha: float) -> list:
    """The two claims under the table of candidates (``many``: ``compare_to_baseline``'s table): which differ from the
    baseline after Holm's correction, and which differ on too few questions for any p below ``alpha``."""
    need = min_discordant(alpha)
    significant = many.index[many["p_holm"] < alpha].tolist()
    floor_rows = many.index[(many["min_p"] >= alpha)].tolist()
    return [dict(condition=bool(significant), name="holm_significant",
                 text_if_true=(f"Better or worse than the baseline at {alpha} after Holm's correction: "
                               f"{', '.join(significant)}."),
                 text_if_false=f"No candidate differs from the baseline at {alpha} after Holm's correction.",
                 figures={"p_holm": many["p_holm"].tolist(), "alpha": alpha, "significant": significant}),
            dict(condition=len(floor_rows) > 0, name="floor_rows",
                 text_if_true=(f"{len(floor_rows)} of {len(many)} candidates differ from the baseline on fewer than "
                               f"{need} questions, too few for any p below {alpha}: {', '.join(floor_rows)}."),
                 text_if_false=f"Every candidate differs from the baseline on at least {need} questions.",
                 figures={"min_p": many["min_p"].tolist(), "alpha": alpha, "floor": len(floor_rows)})]
