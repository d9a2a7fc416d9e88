"""Notebook 08's sentences, tables and figure about a reviewed golden set (lesson: building a golden set).

Each ``*_claim`` function returns the arguments of :func:`rag_metrics.report.kernel.claim`: the condition, the
sentence printed when it holds and the one printed when it does not, and the figures it states. The review itself
(flags, the review file, accepting a set) lives in :mod:`rag_metrics.golden`.
"""

from __future__ import annotations

import re

import pandas as pd

from rag_metrics.core.errors import InputError
from rag_metrics.core.html import md_escape
from rag_metrics.core.text import counted
from rag_metrics.golden.flags import HEADING_TEMPLATE, heading_copy
from rag_metrics.golden.sampler import PageSample

__all__ = ["review_drops_claim", "sample_claim", "flagged_claim", "enough_questions_claim", "ENOUGH_KEPT",
           "kept_heading_copies", "kept_questions", "why_flagged", "template_miss", "generated_count",
           "templates_vs_hand_claim", "TEMPLATE_GAP", "kept_set_claim", "template_cost_claim", "hit_by_group", "bars",
           "hit_by_group_figure"]

TEMPLATE_GAP = 0.05  # how much lower heading-template questions must score than hand-written ones to be called lower
ENOUGH_KEPT = 10  # kept questions needed to set a generated set beside a hand-written one


def review_drops_claim(dropped: int, generated: int, templated: int, per_page: float, *, source_dropped: int = 2,
                       source_generated: int = 42, source_per_page: float = 2.0) -> dict:
    """The sentence setting how many questions review dropped beside the source's count, as
    :func:`rag_metrics.report.kernel.claim`'s arguments. "Few" is at most 2 or a tenth of the questions generated;
    ``templated`` counts the questions dropped only as heading templates, ``per_page`` the questions generated per sampled page."""
    return {
        "condition": dropped <= max(2, 0.1 * generated),
        "text_if_true": (f"Review drops few questions here too ({dropped} of {generated}; the source: {source_dropped} "
                         f"of {source_generated}). The generators differ: the source's LLM wrote {source_per_page:.0f} "
                         f"questions per page as asked, the extractive generator {per_page:.2f} (it turns headings and "
                         "definitions into questions)."),
        "text_if_false": (f"Review drops {dropped} of {generated} questions here, far more than the source's "
                          f"{source_dropped} of {source_generated}. {templated} of them are dropped only for being a "
                          f"page heading wrapped in a template -- the frames of this notebook's extractive generator, "
                          f"which it keeps to show the pitfall; without them review drops {dropped - templated} of "
                          f"{generated}. None of the source's {source_dropped} was a template (its LLM was asked to "
                          "write questions the way a user would ask; section 3 lists the reasons)."),
        "name": "review_drops_few",
        "figures": {"dropped": dropped, "generated": generated, "templated": templated},
    }


def sample_claim(pages: int, documents: int, per_document: int, eligible: int, corpus_pages: int, min_chars: int,
                 shortfalls: list[tuple[str, int]]) -> dict:
    """The sentence on the page sample, as :func:`rag_metrics.report.kernel.claim`'s arguments: complete when no
    document had fewer than ``per_document`` eligible pages; ``shortfalls`` lists (document, eligible pages) of
    those that had fewer (their names Markdown-escaped here)."""
    common = (f"{eligible} of the corpus's {corpus_pages} pages are eligible (at least {min_chars} weighted characters "
              "of body text)")
    short = ", ".join(f"{md_escape(doc)} ({n})" for doc, n in shortfalls)
    return {
        "condition": not shortfalls,
        "text_if_true": f"{pages} pages from {documents} documents, {per_document} each; {common}.",
        "text_if_false": (f"{pages} pages from {documents} documents; {common}, and "
                          f"{counted(len(shortfalls), 'document has', 'documents have')} fewer than {per_document} and "
                          f"gave what {'it has' if len(shortfalls) == 1 else 'they have'}: {short}."),
        "name": "sample_complete",
        "figures": {"pages": pages, "documents": documents, "per_document": per_document,
                    "shortfalls": len(shortfalls)},
    }


def flagged_claim(flagged: int, total: int, templated: int, duplicates: int) -> dict:
    """The sentence on how many generated questions review flags, as :func:`rag_metrics.report.kernel.claim`'s
    arguments; ``templated`` and ``duplicates`` count the questions dropped only as heading templates and the near-duplicates."""
    share = flagged / total if total else 0.0
    return {
        "condition": flagged > 0,
        "text_if_true": (f"**{flagged} of {total}** generated questions ({share:.0%}) are flagged and would be dropped "
                         f"({templated} of them only for being a heading template, {duplicates} as near-duplicates); "
                         f"{total - flagged} are kept."),
        "text_if_false": "No generated question is flagged with these parameters: the examples below show what "
                         "review catches.",
        "name": "flagged",
        "figures": {"flagged": flagged, "total": total, "duplicates": duplicates, "templated": templated},
    }


def enough_questions_claim(kept: int) -> dict:
    """Whether the questions review kept are enough (:data:`ENOUGH_KEPT`) to set beside a hand-written set, as
    :func:`rag_metrics.report.kernel.claim`'s arguments."""
    return {
        "condition": kept >= ENOUGH_KEPT,
        "text_if_true": (f"{kept} generated questions survive review: enough to set beside the hand-written set, if not "
                         "to rank close retrievers (notebook 10 says how many that takes)."),
        "text_if_false": (f"Only {kept} generated questions survive review: too few to rank retrievers on (sample more "
                          "pages, or use a generator that asks the way users do). Below they serve only to show how far "
                          "a generated set's figure can be off."),
        "name": "enough_questions",
        "figures": {"kept": kept},
    }


def kept_heading_copies(review: pd.DataFrame, sample: PageSample) -> dict[str, str]:
    """``{question_id: question}`` of the questions ``review`` keeps that are a whole heading of their own page
    (:func:`rag_metrics.golden.flags.heading_copy`), in review order."""
    texts = sample.pages.set_index(["doc_id", "page"])["text"]
    keep = review[review["decision"] == "keep"]
    missing = [(d, p) for d, p in zip(keep["doc_id"], keep["page"]) if (d, p) not in texts.index]
    if missing:
        raise InputError(f"kept_heading_copies: kept questions on pages outside the sample: {missing[:3]}.")
    return {q: t for q, t, d, p in zip(keep["question_id"], keep["question"], keep["doc_id"], keep["page"])
            if heading_copy(t, texts[d, p])}


def kept_questions(review: pd.DataFrame, copies: dict[str, str]) -> pd.DataFrame:
    """Notebook 08's table of the questions ``review`` keeps, in review order: the question, its page
    ("document p. N") and "heading copy?" -- "yes" when its ID is in ``copies`` (:func:`kept_heading_copies`)."""
    keep = review[review["decision"] == "keep"]
    return pd.DataFrame({"question": list(keep["question"]),
                         "page": [f"{d} p. {p}" for d, p in zip(keep["doc_id"], keep["page"])],
                         "heading copy?": ["yes" if q in copies else "no" for q in keep["question_id"]]})


def why_flagged(review: pd.DataFrame, templated: set) -> pd.DataFrame:
    """Notebook 08's reasons table: the questions ``review`` drops, each counted once -- under the heading-template
    reason when it is in ``templated`` (dropped for that reason only), else under its first other reason (the
    reason's words before its quote or question ID) -- one row per reason, the most frequent first, with up to three
    examples."""
    flagged = review[review["decision"] == "drop"]
    kinds = [[r.split(":")[0].split(" of ")[0] for r in reasons.split("; ")] for reasons in flagged["reasons"]]
    why = [HEADING_TEMPLATE if q in templated else next(r for r in rs if r != HEADING_TEMPLATE)
           for q, rs in zip(flagged["question_id"], kinds)]
    return (flagged.assign(**{"why flagged": why}).groupby("why flagged", sort=False)
            .agg(questions=("question_id", "size"), examples=("question", lambda t: " · ".join(list(t)[:3])))
            .sort_values("questions", ascending=False, kind="stable").reset_index())


def _num(x: float) -> float | None:
    """``x``, or None for NaN (a figure that does not exist)."""
    return None if x != x else x


def _join(names: list[str]) -> str:
    """``a``, ``a and b``, ``a, b and c``."""
    return " and ".join(names) if len(names) < 3 else f"{', '.join(names[:-1])} and {names[-1]}"


def _mean(intervals: dict) -> float:
    """The mean over the retrievers of the intervals' means."""
    return sum(iv.mean for iv in intervals.values()) / len(intervals)


def _one_in(hit: float) -> str:
    """The share of misses ``1 - hit`` as words: *none*, *all* or *about 1 in N* (N rounded)."""
    miss = 1 - hit
    if miss <= 0:
        return "none"
    return "all" if miss >= 1 else f"about 1 in {max(1, round(1 / miss))}"


def template_miss(review: pd.DataFrame, templated: set, hits: dict[str, pd.Series], runs: dict[str, pd.DataFrame],
                  chunks: pd.DataFrame, k: int) -> dict:
    """One heading-template question a retriever misses, and why, as :func:`rag_metrics.report.kernel.claim`'s
    arguments. ``hits[retriever]`` is page hit@``k`` per question ID, ``runs[retriever]`` that retriever's run
    (``question_id``, ``rank``, ``chunk_id``, ``doc_id``, ``pages``) over ``chunks``; the first retriever, in order,
    that misses any question of ``templated`` gives the first such question in ``review`` order. The sentence names
    its gold page and the page(s) of the chunk ranked first, and says whether that chunk contains the heading (the
    template's topic) and which of the frame's words (the question without the heading: words of four letters or
    more, a CJK run as one word) it contains.
    Every quoted string is Markdown-escaped."""
    rows = review.set_index("question_id")
    for name, h in hits.items():
        missed = [q for q in review["question_id"] if q in templated and q in h.index and h[q] == 0]
        if missed:
            break
    else:
        return {"condition": False, "text_if_true": "",
                "text_if_false": f"Every heading-template question has its page in the top {k} for every retriever.",
                "name": "template_miss", "figures": {"question": None}}
    q = missed[0]
    row = rows.loc[q]
    topic = re.search(re.escape(HEADING_TEMPLATE) + r": '(.*)'", row["reasons"]).group(1)
    run = runs[name]
    first = run[run["question_id"] == q].sort_values("rank").iloc[0]
    text = chunks.set_index("chunk_id").at[first["chunk_id"], "text"].casefold()
    frame = list(dict.fromkeys(_WORDS.findall(row["question"].casefold().replace(topic.casefold(), " "))))
    # a Latin word as a whole word; a CJK run (no spaces around it) anywhere in the text
    shared = [w for w in frame if (re.search(rf"(?<!\w){re.escape(w)}(?!\w)", text) if w.isascii() else w in text)]
    has_topic = topic.casefold() in text
    pages = list(first["pages"])
    where = f"{md_escape(first['doc_id'])} p. {pages[0]}" + (f"–{pages[-1]}" if len(pages) > 1 else "")
    said = ", ".join(f"*{md_escape(w)}*" for w in shared)
    if has_topic:
        why = f"contains the heading *{md_escape(topic)}* too, and the question has no other word to tell the pages apart"
    elif shared:
        why = (f"does not contain the heading *{md_escape(topic)}* but does contain the template's "
               f"{'word' if len(shared) == 1 else 'words'} {said}: here the template's frame outweighed its one topic "
               "word")
    else:
        why = (f"contains neither the heading *{md_escape(topic)}* nor the template's words: with one topic word "
               "in a fixed frame, the question gives the retriever little to go on")
    return {
        "condition": True,
        "text_if_true": (f"One that fails: *{md_escape(row['question'])}* (gold page: {md_escape(row['doc_id'])} "
                         f"p. {row['page']}). {md_escape(name)} ranks first a chunk of {where}, which {why}."),
        "text_if_false": "", "name": "template_miss",
        "figures": {"question": row["question"], "retriever": name, "hit": float(hits[name][q]), "topic": topic,
                    "has_topic": has_topic, "shared": shared},
    }


_WORDS = re.compile(r"[^\W\d_]{4,}", re.U)  # words of four letters or more (a CJK run counts as one word)


def generated_count(written: pd.DataFrame, pages: int, per_page: int) -> str:
    """``"45 questions from 24 pages"``, and when that is fewer than ``pages * per_page``, why, counted from
    ``written`` (the draft's questions, with ``doc_id`` and ``page``): how many pages gave fewer questions."""
    by_page = written.groupby(["doc_id", "page"]).size()
    short = int((by_page < per_page).sum()) + pages - len(by_page)
    head = f"{counted(len(written), 'question', 'questions')} from {counted(pages, 'page', 'pages')}"
    if len(written) >= pages * per_page:
        return head
    return (f"{head} (not {pages * per_page}: on {counted(short, 'page', 'pages')} the generator found fewer than "
            f"{per_page} headings or definitions to turn into questions)")


def _hits(iv) -> int:
    """The number of hits behind a :class:`~rag_metrics.stats.intervals.MeanInterval` of a 0/1 measure
    (``mean * n``); raises when that is not a whole number (the values were not all 0 or 1)."""
    hits = round(iv.mean * iv.n)
    if abs(iv.mean * iv.n - hits) > 1e-6:
        raise InputError(f"templates_vs_hand_claim: expected a 0/1 measure per question (hit@k), so that mean × n "
                         f"is a whole number of hits. Got mean {iv.mean} over n = {iv.n}.")
    return hits


def templates_vs_hand_claim(templates: dict, hand: dict, k: int, alpha: float = 0.05) -> dict:
    """The headline: how the heading-template questions score against the hand-written set, as
    :func:`rag_metrics.report.kernel.claim`'s arguments. ``templates`` and ``hand`` map each retriever to its
    :class:`~rag_metrics.stats.intervals.MeanInterval` of page hit@``k`` (same retrievers, same order; 0 or 1 per
    question). Lower means at least :data:`TEMPLATE_GAP` lower on the mean over the retrievers; the sentence then
    says, per retriever, the two-sided p of Fisher's exact test on the hit counts (the two sets are different
    questions, so the test is unpaired), Holm-adjusted over the retrievers when there is more than one, and for which
    retrievers the gap holds at ``alpha`` (adjusted p below ``alpha``, templates below the hand-written set)."""
    from scipy.stats import fisher_exact

    from rag_metrics.stats import format_p, holm

    if list(templates) != list(hand) or not hand:
        raise InputError(f"templates_vs_hand_claim: the same retrievers in both. Got {list(templates)}, {list(hand)}.")
    n_t, n_h = next(iter(templates.values())).n, next(iter(hand.values())).n
    both = n_t > 0 and n_h > 0
    t, h = (_mean(templates), _mean(hand)) if both else (float("nan"), float("nan"))
    hits_t = [_hits(templates[r]) if both else 0 for r in hand]
    hits_h = [_hits(hand[r]) if both else 0 for r in hand]
    p = [float(fisher_exact([[a, n_t - a], [b, n_h - b]]).pvalue) if both else 1.0 for a, b in zip(hits_t, hits_h)]
    adjusted = [float(x) for x in holm(p)] if len(p) > 1 else list(p)
    holds = [r for r, a, b, q in zip(hand, hits_t, hits_h, adjusted) if both and a / n_t < b / n_h and q < alpha]
    rest = [r for r in hand if r not in holds]
    name = "Holm p" if len(hand) > 1 else "p"
    each = "; ".join(f"{r} {a} of {n_t} against {b} of {n_h}, {format_p(q, alpha, name=name)}"
                     for r, a, b, q in zip(hand, hits_t, hits_h, adjusted))
    test = (f"Fisher's exact test per retriever (unpaired: the two sets are different questions"
            f"{f', Holm over the {len(hand)} retrievers' if len(hand) > 1 else ''}): {each}")
    if not rest:
        verdict = f"the gap holds at {alpha:g} for every retriever"
    elif not holds:
        verdict = f"no single retriever shows the gap beyond noise at {alpha:g}"
    else:
        verdict = f"the gap holds at {alpha:g} for {_join(holds)}, not for {_join(rest)}"
    return {
        "condition": both and h - t >= TEMPLATE_GAP,
        "text_if_true": (f"The {n_t} heading-template questions score **{h - t:.3f} lower** than the {n_h} hand-written "
                         f"ones ({t:.3f} against {h:.3f}, page hit@{k}, mean over the retrievers): a retriever misses "
                         f"{_one_in(t)} of them, {_one_in(h)} of the hand-written ones. {test} -- {verdict}." if both
                         else ""),
        "text_if_false": (f"The heading-template questions do not score clearly lower than the hand-written ones "
                          f"({t:.3f} against {h:.3f}, page hit@{k}, mean over the retrievers)." if both else
                          f"Nothing to set side by side: {counted(n_t, 'heading-template question', 'heading-template questions')}, "
                          f"{counted(n_h, 'hand-written one', 'hand-written ones')}."),
        "headline": True, "name": "templates_below_hand",
        "figures": {"templates": _num(t), "hand": _num(h), "n_templates": n_t, "n_hand": n_h, "retrievers": list(hand),
                    "hits_templates": hits_t, "hits_hand": hits_h, "p": p, "p_holm": adjusted, "alpha": alpha,
                    "holds": holds},
    }


def kept_set_claim(kept: dict, hand: dict, copies: list[str]) -> dict:
    """The caveat on the questions review kept, as :func:`rag_metrics.report.kernel.claim`'s arguments. ``kept``
    and ``hand`` map each retriever to its :class:`~rag_metrics.stats.intervals.MeanInterval` of page hit@k;
    ``copies`` are the kept questions that are their page's own heading word for word (:func:`kept_heading_copies`;
    the first is quoted, Markdown-escaped here). True -- the bias shown to change sign -- only when some are copies
    and, for every retriever, the kept set's 95% interval lies wholly above the hand-written one's; a kept mean above
    the hand-written one with overlapping intervals says copies *can* push the score up, too few to show it. The
    interval quoted is the widest over the retrievers."""
    if list(kept) != list(hand) or not hand:
        raise InputError(f"kept_set_claim: the same retrievers in both. Got {list(kept)}, {list(hand)}.")
    n, c = next(iter(kept.values())).n, len(copies)
    m, h = (_mean(kept) if n else float("nan")), _mean(hand)
    widest = max(kept.values(), key=lambda iv: iv.high - iv.low)
    interval = f"95% interval as wide as {widest.low:.2f}–{widest.high:.2f}"
    apart = bool(n) and all(kept[r].low > hand[r].high for r in hand)
    are = (f"**{c} of the {n}** {'is its' if c == 1 else 'are their'} page's own heading word for word "
           f"(e.g. *{md_escape(copies[0])}*), which a retriever can find by the heading" if c else "")
    if not n:
        other = "No question is kept: there is no kept figure."
    elif not c:
        other = (f"None of the {counted(n, 'kept question', 'kept questions')} is its page's own heading word for word; "
                 f"{'it scores' if n == 1 else 'they score'} {m:.3f} ({interval}) against the hand-written {h:.3f}.")
    elif m <= h:
        other = (f"{are[0].upper()}{are[1:]}, yet the {counted(n, 'kept question scores', 'kept questions score')} {m:.3f} "
                 f"({interval}), not above the hand-written {h:.3f}.")
    else:
        other = (f"The {counted(n, 'question', 'questions')} review kept {'scores' if n == 1 else 'score'} {m:.3f} "
                 f"against the hand-written {h:.3f}, and {are}. Heading copies can push a generated set's score up; "
                 f"here {counted(n, 'question is', 'questions are')} too few to show it: the {interval} overlaps the "
                 "hand-written one.")
    return {
        "condition": bool(n) and c > 0 and apart,
        "text_if_true": (f"The {counted(n, 'question', 'questions')} review kept {'scores' if n == 1 else 'score'} "
                         f"{m:.3f}, above the hand-written {h:.3f} for every retriever beyond its 95% interval, and "
                         f"{are}. So the bias changes sign: heading templates pull a generated set's score **down**, "
                         "heading copies among the kept questions push it **up**; review removes the first bias, not "
                         "the second." if n and c else ""),
        "text_if_false": other,
        "name": "kept_set_flatters",
        "figures": {"copies": c, "kept": n, "kept_mean": _num(m), "hand_mean": _num(h), "low": _num(widest.low),
                    "high": _num(widest.high), "kept_low": [_num(kept[r].low) for r in hand],
                    "hand_high": [hand[r].high for r in hand]},
    }


def template_cost_claim(templates: dict, hand: dict, k: int, per_question: dict | None = None,
                        alpha: float = 0.05) -> dict:
    """Whether the heading templates cost every retriever the same, as :func:`rag_metrics.report.kernel.claim`'s
    arguments. ``templates`` and ``hand`` map each retriever to its
    :class:`~rag_metrics.stats.intervals.MeanInterval` of page hit@``k``; ``per_question`` maps each retriever to its
    per-question page hit@``k`` on the template questions. The cost is the hand-written mean minus the templates'
    mean; it "differs by retriever" when the largest and smallest cost are at least :data:`TEMPLATE_GAP` apart *and*
    the exact paired test of those two retrievers on the template questions gives p < ``alpha`` (the noise rule of
    notebooks 02 and 10): only then can a generated set be said to move a comparison, not only a level."""
    from rag_metrics.stats import format_p, paired_test

    if list(templates) != list(hand) or not hand:
        raise InputError(f"template_cost_claim: the same retrievers in both. Got {list(templates)}, {list(hand)}.")
    both = next(iter(templates.values())).n > 0 and next(iter(hand.values())).n > 0
    cost = {r: hand[r].mean - templates[r].mean for r in hand} if both else {}
    most = max(cost, key=cost.get) if cost else None
    least = min(cost, key=cost.get) if cost else None
    spread = cost[most] - cost[least] if cost else 0.0
    rest = [f"{r} {cost[r]:.2f}" for r in cost if r not in (most, least)]
    p, moved = None, 0
    if cost and spread >= TEMPLATE_GAP and per_question is not None:
        a_, b_ = per_question[most], per_question[least]
        moved = int(((b_ - a_).dropna() != 0).sum())
        p = float(paired_test(a_, b_, alpha=alpha).p_value) if moved else 1.0
    differs = bool(cost) and spread >= TEMPLATE_GAP and p is not None and p < alpha
    if cost and spread >= TEMPLATE_GAP:
        lead_t, lead_h = templates[least].mean - templates[most].mean, hand[least].mean - hand[most].mean
        n_t = templates[most].n
        costs = (f"The templates cost {most} {cost[most]:.2f} of page hit@{k} and {least} only {cost[least]:.2f}"
                 f"{' (' + ', '.join(rest) + ')' if rest else ''}: {least} minus {most} is {lead_t:+.2f} on the "
                 f"{n_t} templates ({moved} of them answered differently by the two), {lead_h:+.2f} on the "
                 "hand-written set.")
        tested = ("" if p is None else f" (exact paired test of {least} against {most} on the template questions, "
                  f"{format_p(p, alpha)}; [notebook 10](10_comparing_two_systems.ipynb) explains the test)")
        if differs:
            text = f"{costs} That lead is beyond noise{tested}: a generated set can move a comparison, not only a level."
        else:
            text = (f"{costs} That lead is within noise{tested} -- by notebook 10's rule, p at or above {alpha:g} is "
                    "noise -- so this set does "
                    "not show the templates moving a comparison; it shows them moving the level. Check the lead on "
                    "your own hand-written sample before comparing configurations on a generated set.")
    elif len(hand) < 2:
        text = f"With one retriever ({next(iter(hand))}) there is no comparison for the templates to move."
    elif not cost:
        text = "Nothing to compare: no heading-template or no hand-written question."
    else:
        text = (f"The templates cost every retriever about the same here (from {cost[least]:.2f} for {least} to "
                f"{cost[most]:.2f} for {most}, page hit@{k}): on these questions they move the level, not the comparison.")
    return {
        "condition": differs,
        "text_if_true": text if differs else "",
        "text_if_false": text,
        "name": "template_cost_differs",
        "figures": {"retrievers": list(hand), "templates": [templates[r].mean for r in hand] if both else [],
                    "hand": [hand[r].mean for r in hand] if both else [], "p": p, "alpha": alpha, "moved": moved},
    }


def hit_by_group(groups: dict[str, dict[str, pd.Series]]) -> dict[str, dict]:
    """Notebook 08's figure data: ``groups[group][retriever]`` holds per-question values (hit@k); returns
    ``intervals[group][retriever]``, the mean and its 95% interval
    (:func:`rag_metrics.stats.intervals.mean_interval`)."""
    from rag_metrics.stats.intervals import mean_interval

    if len({tuple(by) for by in groups.values()}) > 1:
        raise InputError(f"hit_by_group: every group needs the same retrievers. Got {[list(b) for b in groups.values()]}.")
    return {g: {n: mean_interval(values) for n, values in by.items()} for g, by in groups.items()}


def bars(intervals: dict[str, dict]) -> tuple[pd.DataFrame, list]:
    """``(means, yerr)`` of :func:`hit_by_group`'s intervals: ``means`` one column per group (named with its
    number of questions), one row per retriever; ``yerr`` the distances below and above each mean, in the shape
    ``DataFrame.plot.bar(yerr=...)`` takes (per group: the row below, the row above)."""
    means = pd.DataFrame({f"{g} ({next(iter(ivs.values())).n})": {n: iv.mean for n, iv in ivs.items()}
                          for g, ivs in intervals.items()})
    yerr = [[[iv.mean - iv.low for iv in ivs.values()], [iv.high - iv.mean for iv in ivs.values()]]
            for ivs in intervals.values()]
    return means.rename_axis("retriever"), yerr


def hit_by_group_figure(intervals: dict[str, dict], k: int):
    """Notebook 08's figure: page hit@``k`` per retriever, one bar per group with its 95% whiskers (:func:`bars`),
    each bar labelled with its value, the legend beside the bars. Returns the figure."""
    means, yerr = bars(intervals)
    ax = means.plot.bar(figsize=(9, 3.6), rot=0, yerr=yerr, capsize=3, title=f"Page hit@{k} by who wrote the questions")
    for group in [c for c in ax.containers if hasattr(c, "patches")]:  # the bars, not the whiskers
        ax.bar_label(group, fmt="%.2f", label_type="center", rotation=90, fontsize=8, color="white")
    ax.set(ylabel=f"page hit@{k} (share of questions)", ylim=(0, 1.05), xlabel="retriever")
    ax.legend(title="questions (how many)", loc="upper left", bbox_to_anchor=(1.01, 1))
    ax.figure.tight_layout()
    return ax.figure
