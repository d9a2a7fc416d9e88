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

__all__ = ["misled_claim", "judge_errors", "judge_error_claim", "kappa_claim", "KINDS", "kinds_table", "seed_case",
           "failed_claims", "plot_diagnoses", "plot_by_kind", "weakest_kind_claim", "seed_label_gap_claim",
           "seed_number_claim", "change_claim", "trust_claim", "baseline_claim", "agreement_counts", "counts_claim",
           "article_number_claim"]


def misled_claim(records) -> dict:
    """The claim on the wrong answers whose every claim is supported (``records``: a Diagnosis's records): the
    ``misled`` ones and the ``incomplete`` ones, named."""
    d = records["diagnosis"]
    bad, short = sorted(d.index[d == "misled"]), sorted(d.index[d == "incomplete"])
    figures = {"misled": bad, "incomplete": short}
    if not bad and not short:
        return dict(condition=False, text_if_true="", name="misled_split", figures=figures,
                    text_if_false="No wrong answer here has every claim supported.")
    text = (f"{len(bad) + len(short)} wrong answers have every claim supported by the context (by the offline judge, "
            "whose agreement with people is measured below). "
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
                              + " as negating the claim. A known limit of the offline judge (repository file "
                              "`docs/answer_support.md`): read the spans before trusting an `answered_from_memory`."))


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
        true = (f"On the {n} claims its rules were tuned on, it agrees at kappa {kappa:.3f} [{low:.3f}, {high:.3f}]: "
                f"even that interval's lower end clears the stated {min_kappa:g}, but a judge tuned on a set flatters "
                f"itself there -- the {h.n} held-out claims above decide.")
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


# The claim set's kinds (data/support/README.md), under the names this lesson prints. The set's `partial` is shown as
# "mixed" so that it is not read as the support level "partial" (some of an answer's claims supported).
KINDS = {
    "verbatim": ("near-verbatim", "the page's own words, at most lightly edited"),
    "paraphrase": ("paraphrase", "the same fact in other words"),
    "number": ("number", "a count or a duration, the page's or a changed one"),
    "date": ("date", "a day of the month, a year or a delay, the page's or a changed one"),
    "amount": ("amount", "money or a percentage, the page's or a changed one (1,500 vs 15,000)"),
    "negation": ("negation", "the page's sentence with its polarity kept or flipped"),
    "not_in_context": ("not in context", "true elsewhere in the corpus, but not on the pages given"),
    "not_in_corpus": ("not in corpus", "invented: stated nowhere in the corpus"),
    "partial": ("mixed", "one claim joining a fact the page states and a detail it does not (people: not supported); "
                "a few controls the page states whole (people: supported)"),
}


def kind_name(kind: str) -> str:
    """The name this lesson prints for a kind of the claim set (:data:`KINDS`)."""
    return KINDS.get(kind, (kind.replace("_", " "), ""))[0]


def kinds_table(by_kind):
    """The kinds of claim, defined, with how many of each the set holds (``by_kind``: ``SupportAgreement.by_kind()``)."""
    import pandas as pd

    return pd.DataFrame([{"Kind": kind_name(k), "What the claim is": KINDS.get(k, ("", ""))[1], "Claims": int(n)}
                         for k, n in by_kind["Claims"].items()])


def seed_case(golden, corpus, judge, answer: str, retrieved: list, gold_retrieved: bool) -> dict:
    """One row of the seed's table: q059 answered ``answer`` from the documents ``retrieved``, diagnosed with
    ``judge``; ``gold_retrieved`` is the seed's own ruler (expense_policy is its gold)."""
    import pandas as pd

    from rag_metrics.experiment.answer_support import diagnose_answers

    log = pd.DataFrame({"question_id": ["q059"], "generated_answer": [answer], "retrieved_ids": [retrieved]})
    d = diagnose_answers(golden, log, corpus, judge=judge, context_k=len(retrieved), retrieval={"q059": gold_retrieved})
    c = d.claims.iloc[0]
    return {"answer": answer, "retrieved": ", ".join(retrieved), "correct": d.records.at["q059", "correct"],
            "support": d.records.at["q059", "support"], "supporting or closest page": f"{c['doc_id']} p.{c['page']}",
            "judge's reason": c["reason"], "diagnosis": d.records.at["q059", "diagnosis"]}


_ORDER = {"misled": 0, "incomplete": 1, "hallucinated": 2, "answered_from_memory": 3}  # wrong but supported: top


def failed_claims(d, golden):
    """Every claim of the answers that did not pass (``d``: a Diagnosis), with the expected answer, the span that
    supports it or the closest one (with its page) and the judge's reason; wrong-but-supported answers first."""
    failed = d.records.index[d.records["diagnosis"] != "passed"]
    t = d.claims[d.claims["question_id"].isin(failed)].merge(d.records[["diagnosis"]], left_on="question_id",
                                                             right_index=True)
    t = t.assign(expected=t["question_id"].map(golden.questions["answer"]),
                 span=[f"{span} ({doc} p.{page})" if doc else "-"
                       for span, doc, page in zip(t["span"], t["doc_id"], t["page"])],
                 rank=t["diagnosis"].map(_ORDER).fillna(9))
    return t.sort_values(["rank", "question_id"], kind="stable")[
        ["question_id", "diagnosis", "expected", "claim", "span", "reason"]].rename(columns={
            "question_id": "Question", "diagnosis": "Diagnosis", "expected": "Expected answer", "claim": "Claim",
            "span": "Span (supporting, or closest) and page", "reason": "Judge's reason"})


def plot_diagnoses(runs: dict, generator: str, other: str, n: int):
    """Bars of the answers not passed, by diagnosis, for both generators (``runs``: ``{generator: Diagnosis}``);
    diagnoses no answer got are named under the axis, not drawn."""
    import matplotlib.pyplot as plt
    import pandas as pd

    counts = pd.DataFrame({g: r.counts() for g, r in runs.items()})
    none = [x for x in counts.index if x != "passed" and not counts.loc[x].any()]
    fig, ax = plt.subplots(figsize=(8, 3.4))
    counts.drop(index=["passed", *none]).plot.barh(ax=ax, color=["#4c72b0", "#dd8452"])
    ax.set_ylabel("")
    ax.invert_yaxis()
    ax.xaxis.get_major_locator().set_params(integer=True)
    gap = "; label_gap: see case 1" if "label_gap" in none else ""
    ax.set_xlabel("questions" + (f"\n(0 in the sample, not drawn: {', '.join(none)}{gap})" if none else ""))
    ax.set_title(f"Not passed, by diagnosis (passed, of {n}: {generator} {counts.loc['passed', generator]}, "
                 f"{other} {counts.loc['passed', other]})")
    fig.tight_layout()
    return fig


def plot_by_kind(by_kind):
    """Bars: the share of each kind's claims each judge labels as people did (``SupportAgreement.by_kind()``)."""
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(8, 3.2))
    by_kind[["offline", "token overlap"]].plot.bar(ax=ax, color=["#4c72b0", "#c44e52"], rot=30)
    ax.set_xticklabels([f"{kind_name(k)} ({n})" for k, n in by_kind["Claims"].items()], ha="right")
    ax.set_ylabel("share agreeing with people")
    ax.set_ylim(0, 1.05)
    ax.set_xlabel("kind of claim (claims)")
    ax.legend(loc="upper left", bbox_to_anchor=(1.01, 1), frameon=False)
    fig.tight_layout()
    return fig


def weakest_kind_claim(agreement, min_overlap: float) -> dict:
    """The claim on the offline judge's weakest kind (``agreement``: a SupportAgreement with an ``offline`` judge):
    its right count over its claims, which way its errors go, and -- only when every error goes that way -- why."""
    v = agreement.verdicts
    acc = agreement.by_kind()["offline"]
    worst = acc.idxmin()
    part = v[v["kind"] == worst]
    right = int((part["offline"] == part["human"]).sum())
    accepts = int((part["offline"].astype(bool) & ~part["human"].astype(bool)).sum())
    misses = len(part) - right - accepts
    figures = {"worst": worst, "accuracy": acc.to_dict(), "right": right, "n": len(part), "accepts": accepts,
               "misses": misses, "reason": None}
    wrong = len(part) - right
    how = ([f"called {accepts} supported where people did not"] if accepts else []) + \
          ([f"refused {misses} that people call supported"] if misses else [])
    if wrong and not misses:
        errors = f"; all {wrong} it gets wrong it called supported where people did not."
    elif wrong and not accepts:
        errors = f"; all {wrong} it gets wrong it refused where people call them supported."
    else:
        errors = f"; of the {wrong} it gets wrong, it {' and '.join(how)}." if wrong else "."
    head = (f"Its weakest kind is **{kind_name(worst)}**: the judge agrees with people on {right} of its {len(part)} "
            f"claims ({right}/{len(part)} = {right / len(part):.3f})" + errors)
    if worst == "partial" and misses == 0 and accepts:
        figures["reason"] = "mixed_accepts"
        head += (f" A mixed claim passes when its stated fact alone holds {min_overlap:g} of the claim's words in one "
                 "span: the judge checks numbers and negations, not every other detail.")
    elif worst == "paraphrase" and accepts == 0 and misses:
        figures["reason"] = "paraphrase_misses"
        head += (f" It reads words, not meaning: a claim put in other words passes only when {min_overlap:g} of its "
                 "words still stand in one span of the page.")
    return dict(condition=True, text_if_true=head, text_if_false=head, name="weakest_kind", figures=figures)


def seed_label_gap_claim(diagnosis: str) -> dict:
    """The claim on the seed's case 1 (a right answer, the gold not retrieved): a label gap when the diagnosis says so."""
    return dict(condition=diagnosis == "label_gap", name="seed_label_gap", figures={"diagnosis": diagnosis},
                text_if_true=("Case 1 is not memory: the retrieved FAQ page states 翌月５日, so the answer is supported by "
                              "a page that is not gold -- a **label gap** to hand to `labels audit`, not a retrieval "
                              "failure."),
                text_if_false=f"Case 1 is diagnosed `{diagnosis}` with these parameters, not a label gap.")


def seed_number_claim(offline: bool, overlap: bool) -> dict:
    """The claim on the seed's case 2: the offline judge refuses the changed date, the token-overlap baseline not."""
    return dict(condition=(not offline) and bool(overlap), name="seed_number",
                figures={"offline": offline, "baseline": overlap},
                text_if_true=("Case 2's claim 「翌月10日の給与と一緒に振り込まれます」 shares every word but one digit with "
                              "the FAQ page: the token-overlap baseline calls it supported, the offline judge does not "
                              "(the date differs)."),
                text_if_false=(f"On case 2's claim the offline judge says {offline} and the token-overlap baseline "
                               f"{overlap}."))


def change_claim(change: dict, generator: str, other: str) -> dict:
    """The claim on the passed share of ``generator`` minus ``other`` (``change``:
    :func:`rag_metrics.experiment.answer_support.diagnosis_change`): told apart only when its interval excludes 0."""
    text = (f"{generator} minus {other}, passed share: {change['change']:+.3f} [{change['low']:+.3f}, "
            f"{change['high']:+.3f}], exact sign test p = {change['p']:.3f}")
    return dict(condition=change["low"] <= 0 <= change["high"], name="change_interval",
                text_if_true=f"{text}: the interval holds 0 -- on these {change['n']} questions the two generators are "
                             "not told apart.",
                text_if_false=f"{text}: the interval excludes 0.",
                figures={"low": change["low"], "high": change["high"], "p": change["p"]})


def trust_claim(trust) -> dict:
    """The claim on whether the judge's verdicts are trusted (``trust``: a JudgeTrust): its held-out figure decides;
    the figure is stated once, with its interval."""
    from rag_metrics.experiment.support_trust import SUPPORT_DIAGNOSES

    h = trust.heldout
    fig = "undefined" if h.kappa is None else f"**{h.kappa:.3f}** [{h.low:.3f}, {h.high:.3f}]"
    head = (f"On {h.n} held-out claims -- claims its rules were not tuned on -- the offline judge agrees with people "
            f"at kappa {fig}")
    return dict(condition=trust.trusted, name="judge_trust",
                figures={"heldout_low": h.low, "heldout_n": h.n, "kappa": h.kappa},
                text_if_true=f"{head}: even the interval's lower end clears 0.6, so its support figures are findings.",
                text_if_false=(f"{head}: the interval's lower end is below 0.6, so its verdicts are **not yet "
                               "trusted** -- the diagnoses that rest on support (" + ", ".join(SUPPORT_DIAGNOSES)
                               + ") are leads to read, not findings."))


def agreement_counts(agreement, judge, corpus, trust):
    """The counts each kappa is computed from, per set: the claims the judge was tuned on (``agreement``, a
    SupportAgreement with an ``offline`` column) and the held-out claims (``trust``'s set, judged again here with
    ``judge``): both say supported, both say not, and the two ways to disagree; then p_o, p_e and kappa."""
    import numpy as np
    import pandas as pd

    from rag_metrics.experiment.support_trust import heldout_set, judged

    held, _ = heldout_set(corpus)
    v = agreement.verdicts
    sets = {"tuned on": (v["human"].to_numpy(bool), v["offline"].to_numpy(bool), agreement.kappas["offline"]),
            "held out": (held["human"].to_numpy(bool), np.asarray(judged(judge, held), bool), trust.heldout)}
    rows = {}
    for name, (people, said, k) in sets.items():
        rows[name] = {"Claims": len(people), "both: supported": int((people & said).sum()),
                      "both: not": int((~people & ~said).sum()),
                      "judge: supported, people: not": int((~people & said).sum()),
                      "judge: not, people: supported": int((people & ~said).sum()),
                      "p_o": k.observed, "p_e": k.expected, "Kappa": k.kappa, "95% low": k.low, "95% high": k.high}
    return pd.DataFrame(rows).T.astype({c: int for c in ("Claims", "both: supported", "both: not",
                                                         "judge: supported, people: not",
                                                         "judge: not, people: supported")})


def counts_claim(counts, name: str = "held out") -> dict:
    """The worked kappa of one row of :func:`agreement_counts`: the agreement p_o, the chance agreement p_e from the
    margins, and kappa = (p_o - p_e) / (1 - p_e) -- the arithmetic in the sentence."""
    r = counts.loc[name]
    n, yy, nn = int(r["Claims"]), int(r["both: supported"]), int(r["both: not"])
    yn, ny = int(r["judge: supported, people: not"]), int(r["judge: not, people: supported"])
    po = (yy + nn) / n
    pe = ((yy + ny) / n) * ((yy + yn) / n) + ((nn + yn) / n) * ((nn + ny) / n)
    kappa = (po - pe) / (1 - pe)
    text = (f"Kappa from the {name} row: the judge and people agree on {yy} + {nn} of {n} claims (p_o = "
            f"{po:.3f}); people call {yy + ny} supported, the judge {yy + yn}, so chance alone would agree on p_e = "
            f"{pe:.3f}; kappa = (p_o - p_e) / (1 - p_e) = ({po:.3f} - {pe:.3f}) / (1 - {pe:.3f}) = {kappa:.3f}.")
    return dict(condition=True, name="kappa_counts", text_if_true=text, text_if_false=text,
                figures={"n": n, "yy": yy, "nn": nn, "yn": yn, "ny": ny, "po": po, "pe": pe, "kappa": kappa,
                         "table_kappa": float(r["Kappa"])})


def _numbers(text: str) -> set:
    import re
    import unicodedata

    return set(re.findall(r"\d+", unicodedata.normalize("NFKC", text)))


def article_number_claim(records, claims) -> dict:
    """The claim flagging ``misled`` verdicts that rest only on an article number: a supported claim of a ``misled``
    answer whose number occurs in its span only as 「第N条」 (the number of a clause, not a figure the clause states).
    ``records``/``claims``: a Diagnosis's tables."""
    import re
    import unicodedata

    found = {}
    misled = records.index[records["diagnosis"] == "misled"]
    for q, c, span, ok in zip(claims["question_id"], claims["claim"], claims["span"], claims["supported"]):
        if q not in misled or not ok or not span:
            continue
        span = unicodedata.normalize("NFKC", str(span))
        articles = set(re.findall(r"第(\d+)条", span))
        rest = _numbers(re.sub(r"第\d+条", " ", span))
        only = sorted(n for n in _numbers(c) if n in articles and n not in rest)
        if only:
            found[q] = {"claim": c, "span": span, "numbers": only}
    figures = {"doubtful": found}
    if not found:
        return dict(condition=False, name="article_number", figures=figures, text_if_true="",
                    text_if_false="No `misled` verdict here rests on an article number alone.")
    cases = "; ".join(f"{q}: the claim 「{f['claim']}」's {', '.join(f['numbers'])} occurs in its span only as "
                      f"「第{f['numbers'][0]}条」, the number of an article" for q, f in sorted(found.items()))
    return dict(condition=True, name="article_number", figures=figures, text_if_false="",
                text_if_true=(f"**A doubtful `misled`**: {cases} -- the span does not state the claim, so this "
                              "verdict is a judge error, not a passage about something else."))


def baseline_claim(kappa: float, baseline: float) -> dict:
    """The claim comparing the token-overlap baseline's kappa with the offline judge's."""
    return dict(condition=baseline < kappa, name="baseline_below", figures={"kappa": kappa, "baseline": baseline},
                text_if_true=(f"The token-overlap baseline reaches only kappa {baseline:.2f}: without number and "
                              "negation checks it calls most changed claims supported."),
                text_if_false=(f"The token-overlap baseline reaches kappa {baseline:.2f}, not below the offline "
                               f"judge's {kappa:.2f}."))
