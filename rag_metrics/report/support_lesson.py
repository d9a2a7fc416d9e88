"""The claims of notebook 11 (is the answer supported?) that read the diagnosis: chosen here and tested.

* :func:`misled_kinds` -- the diagnosis ``misled`` (a wrong answer whose every claim is supported) holds two different
  things: an answer that *contradicts* the expected one (it states another number, or the other polarity: a passage
  about something else supplied it) and one that *stops short* (everything it says is in the expected answer, which
  asks for more: a multi-part question half answered). Only the first is misled by its context.
* :func:`judge_errors` -- a right answer judged unsupported only because the closest span holds a negation the claim
  does not: the offline judge's known limit (a negation inside a noun phrase, docs/answer_support.md), not memory.
* :func:`kappa_claim` -- the judge's agreement with people, read from the point estimate *and* its interval.

Each claim is the keyword arguments of :func:`rag_metrics.report.kernel.claim`; both texts are true sentences of their
case.
"""

from __future__ import annotations

from ..judging.claims import content_tokens, negated
from ..judging.correctness import canonical_quantities

__all__ = ["stops_short", "misled_kinds", "misled_claim", "judge_errors", "judge_error_claim", "kappa_claim"]


def stops_short(answer: str, expected: str) -> bool:
    """Whether a wrong ``answer`` says part of ``expected`` and nothing against it: every number it states is one of
    the expected answer's, its polarity is the expected answer's, and it shares a number or at least half of its
    content words with the expected answer. ``False``: it contradicts the expected answer (or says something else)."""
    got, want = canonical_quantities(answer), canonical_quantities(expected)
    if any(q not in want for q in got) or negated(answer) != negated(expected):
        return False
    words, expected_words = set(content_tokens(answer)), set(content_tokens(expected))
    shared_number = any(q in want for q in got)
    return shared_number or (bool(words) and 2 * len(words & expected_words) >= len(words))


def misled_kinds(records, expected: dict, answers: dict) -> dict:
    """``{"contradicts": [...], "stops_short": [...]}``: the question IDs of ``records`` (a Diagnosis's records)
    diagnosed ``misled``, split by :func:`stops_short` of their answer (``answers``) against ``expected``."""
    misled = [q for q in records.index if records.at[q, "diagnosis"] == "misled"]
    short = [q for q in misled if stops_short(answers[q], expected[q])]
    return {"contradicts": [q for q in misled if q not in short], "stops_short": short}


def misled_claim(kinds: dict) -> dict:
    """The claim on the ``misled`` questions (:func:`misled_kinds`): how many the name fits."""
    bad, short = kinds["contradicts"], kinds["stops_short"]
    figures = {"contradicts": bad, "stops_short": short}
    if not short:
        return dict(condition=False, text_if_true="", name="misled_split", figures=figures,
                    text_if_false=(f"All {len(bad)} `misled` answers contradict the expected answer with a passage "
                                   "about something else." if bad else "No answer is diagnosed `misled` here."))
    named = ", ".join(short)
    return dict(condition=True, name="misled_split", figures=figures, text_if_false="",
                text_if_true=(f"Of the {len(bad) + len(short)} answers diagnosed `misled` (wrong, every claim "
                              f"supported), {len(bad)} fit the name: they contradict the expected answer with a number "
                              f"or a polarity taken from a passage about something else ({', '.join(bad) or 'none'}). "
                              f"**{named} are "
                              "not misled but incomplete**: everything they say is in the expected answer and in "
                              "the context, they stop short of its other parts -- a generation problem (answer every "
                              "part), not noise in the context."))


def judge_errors(records, claims) -> dict:
    """``{question_id: span}`` of the right answers (``correct``) whose support is not full only because a claim
    without negation was refused with ``"negation differs"`` -- every unsupported claim of the answer so."""
    out = {}
    for q in records.index[records["correct"] & (records["support"] != "full")]:
        refused = claims[(claims["question_id"] == q) & ~claims["supported"].astype(bool)]
        if len(refused) and all(r == "negation differs" and not negated(c)
                                for r, c in zip(refused["reason"], refused["claim"])):
            out[q] = str(refused["span"].iloc[0])
    return out


def judge_error_claim(errors: dict, diagnoses: dict) -> dict:
    """The claim naming the judge's errors (:func:`judge_errors`), with the diagnosis they got (``diagnoses``)."""
    figures = {"errors": sorted(errors), "diagnoses": {q: diagnoses[q] for q in errors}}
    if not errors:
        return dict(condition=False, text_if_true="", name="judge_error", figures=figures,
                    text_if_false="No right answer here was refused only for a negation the claim does not hold.")
    noun_phrase = all("でないこと" in span for span in errors.values())
    cases = "; ".join(f"{q} (diagnosed `{diagnoses[q]}`), span 「{span}」" for q, span in sorted(errors.items()))
    return dict(condition=True, name="judge_error", figures=figures, text_if_false="",
                text_if_true=(f"**A judge error, not memory**: {cases}. The answer is right and the span states it; "
                              "the judge read a negation elsewhere in the sentence"
                              + (" -- here inside a noun phrase (「…でないこと」) --" if noun_phrase else "")
                              + " as negating the claim. A known limit of the offline judge (docs/answer_support.md): "
                              "read the spans before trusting an `answered_from_memory`."))


def kappa_claim(kappa, low, high, min_kappa: float, n: int) -> dict:
    """The claim on the judge's agreement with people: the point estimate against ``min_kappa``, then its interval's
    lower end -- "established" only when the whole interval clears the bar."""
    figures = {"kappa": kappa, "low": low, "high": high, "min_kappa": min_kappa, "n": n,
               "interval_clears": low is not None and low >= min_kappa}
    if kappa is None:
        return dict(condition=False, text_if_true="", name="judge_agreement", figures=figures,
                    text_if_false="The offline judge's kappa is undefined on this set (one label only).")
    head = f"The offline judge agrees with the people's labels at kappa **{kappa:.3f}** [{low:.3f}, {high:.3f}]"
    if low >= min_kappa:
        true = (f"{head}: even the interval's lower end clears the stated {min_kappa:g} -- agreement at that level is "
                f"established on these {n} claims.")
    else:
        true = (f"{head}: the point estimate clears the stated {min_kappa:g}, the interval's lower end "
                f"({low:.3f}) does not -- on {n} claims agreement at that level is likely, **not established**. "
                "The command line's gate reads the point estimate and accepts the judge; quote its figures with "
                "this interval, and label more claims to narrow it.")
    return dict(condition=kappa >= min_kappa, text_if_true=true, name="judge_agreement", figures=figures,
                text_if_false=(f"{head}: below the stated {min_kappa:g} -- the command line refuses it for "
                               "headline figures (unless `--force`)."))


def second_look_claim(check: list, diagnoses: dict, short: list) -> dict:
    """Notebook 05's claim on its "check the expected answer" group (``check``: exact match missed, the logged
    faithfulness score high), read again by notebook 11's judges: ``diagnoses`` (question -> diagnosis) and
    ``short`` (the questions whose answer stops short, :func:`stops_short`; counted so when diagnosed ``misled``)."""
    groups = {"meaning matches": [q for q in check if diagnoses.get(q) in ("passed", "label_gap")],
              "stops short": [q for q in check if q in short and diagnoses.get(q) == "misled"],
              "contradicted by the context": [q for q in check if diagnoses.get(q) in ("hallucinated",
                                                                                        "generation_failure")]}
    rest = [q for q in check if not any(q in g for g in groups.values())]
    figures = {"check": list(check), "diagnoses": {q: diagnoses.get(q) for q in check}, "short": list(short),
               **{k.replace(" ", "_"): v for k, v in groups.items()}, "rest": rest}
    parts = {"meaning matches": "the meaning matches (only the wording differs)",
             "stops short": "the answer says only part of the expected one (incomplete)",
             "contradicted by the context": "a claim the context contradicts, which the logged faithfulness score "
                                            "missed (a hallucination, not a stale expected answer)"}
    said = [f"{', '.join(groups[k])}: {v}" for k, v in parts.items() if groups[k]]
    said += [f"{', '.join(rest)}: other diagnoses ({', '.join(sorted({diagnoses.get(q, '-') for q in rest}))})"] \
        if rest else []
    return dict(condition=bool(check), name="second_look", figures=figures, text_if_false="",
                text_if_true=("Notebook 11 reads the same answers from the same logged context, and counts their "
                              "retrieval as done too -- the rule plays no part here. What differs is the judging: a "
                              "meaning match instead of exact match, and each claim's numbers checked against the "
                              "page instead of the logged faithfulness score. So its names differ: "
                              + "; ".join(said) + "."))
