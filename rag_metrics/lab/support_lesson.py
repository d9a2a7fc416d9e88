"""The claims of notebook 11 (is the answer supported?) that read the diagnosis: chosen here and tested.

* :func:`misled_claim` -- a wrong answer whose every claim is supported is ``misled`` (it contradicts the expected
  answer: a passage about something else supplied it) or ``incomplete`` (it stops short of a multi-part expected
  answer); the package's diagnosis tells them apart (:func:`rag_metrics.experiment.answer_support.stops_short`).
* :func:`judge_errors` -- a right answer judged unsupported only because the closest span holds a negation the claim
  does not: the offline judge's known limit (a negation inside a noun phrase, docs/answer_support.md), not memory.
* :func:`kappa_claim` -- the judge's agreement with people, read from its interval's lower end as the command
  line's gate reads it, with the point estimate beside it.

Each claim is the keyword arguments of :func:`rag_metrics.report.kernel.claim`; both texts are true sentences of their
case.
"""

from __future__ import annotations

from rag_metrics.answers.claims import negated
from rag_metrics.stats.agreement import MIN_ITEMS

__all__ = ["misled_claim", "judge_errors", "judge_error_claim", "kappa_claim"]


def misled_claim(records) -> dict:
    """The claim on the wrong answers whose every claim is supported (``records``: a Diagnosis's records): the
    ``misled`` ones and the ``incomplete`` ones, named."""
    d = records["diagnosis"]
    bad, short = sorted(d.index[d == "misled"]), sorted(d.index[d == "incomplete"])
    figures = {"misled": bad, "incomplete": short}
    if not bad and not short:
        return dict(condition=False, text_if_true="", name="misled_split", figures=figures,
                    text_if_false="No wrong answer here has every claim supported.")
    text = (f"{len(bad) + len(short)} wrong answers have every claim supported by the context. "
            + (f"{len(bad)} are `misled` ({', '.join(bad)}): they contradict the expected answer with a number or a "
               "polarity taken from a passage about something else. " if bad else "None is `misled`. ")
            + (f"**{len(short)} are `incomplete`** ({', '.join(short)}): everything they say is in the expected "
               "answer and in the context, they stop short of its other parts -- a generation problem (answer every "
               "part), not noise in the context." if short else "None is `incomplete`."))
    return dict(condition=bool(short), name="misled_split", figures=figures, text_if_true=text, text_if_false=text)


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


def kappa_claim(kappa, low, high, min_kappa: float, n: int, heldout=None) -> dict:
    """The claim on the judge's agreement with people: the point estimate against ``min_kappa`` (the condition), then
    its interval's lower end, which the command line's gate reads (the package's one rule,
    :func:`rag_metrics.stats.agreement.headline_refusal`): "established", and the judge accepted, only when the lower
    end clears the bar too. ``heldout`` (a :class:`~rag_metrics.experiment.support_trust.JudgeTrust`): when these
    labels are the set the judge was tuned on and the held-out figure does not clear the bar, the sentence says so
    instead of calling the agreement established."""
    figures = {"kappa": kappa, "low": low, "high": high, "min_kappa": min_kappa, "n": n,
               "interval_clears": low is not None and low >= min_kappa,
               "heldout_trusted": None if heldout is None else heldout.trusted}
    if kappa is None:
        return dict(condition=False, text_if_true="", name="judge_agreement", figures=figures,
                    text_if_false="The offline judge's kappa is undefined on this set (one label only).")
    head = f"The offline judge agrees with the people's labels at kappa **{kappa:.3f}** [{low:.3f}, {high:.3f}]"
    if low >= min_kappa and heldout is not None and not heldout.trusted:
        h = heldout.heldout
        true = (f"{head}: on these {n} claims, the set its rules were tuned on, even the interval's lower end clears "
                f"the stated {min_kappa:g} -- but on {h.n} held-out claims it agrees at {h.kappa:.3f} "
                f"[{h.low:.3f}, {h.high:.3f}], below the bar, so it is **not yet trusted** (next paragraph).")
    elif low >= min_kappa:
        true = (f"{head}: even the interval's lower end clears the stated {min_kappa:g} -- agreement at that level is "
                f"established on these {n} claims"
                + (", and the command line accepts the judge." if n >= MIN_ITEMS else
                   f", though the command line asks for at least {MIN_ITEMS} claims."))
    else:
        true = (f"{head}: the point estimate clears the stated {min_kappa:g}, the interval's lower end ({low:.3f}) "
                f"does not -- on {n} claims these labels fit agreement at that level, but it is **not "
                "established**, and the command line's gate, which reads the lower end, refuses the judge for headline "
                "figures (unless `--force`). Label more claims to narrow the interval.")
    return dict(condition=kappa >= min_kappa, text_if_true=true, name="judge_agreement", figures=figures,
                text_if_false=(f"{head}: below the stated {min_kappa:g} -- the command line refuses it for headline "
                               "figures (unless `--force`)."))
