"""Notebook 04's sentences (upper bounds before building): each chosen from the numbers, each true of them.

* :func:`check_f` -- a one-line guard: F longer than every chunk makes every page-level figure 0 by construction.
* :func:`source_shape` -- the source's three findings (ceilings barely move, the gold document adds nothing to the
  gold genre, the misses at k = 5 mostly on the wrong page) set against this run, in one sentence.
* :func:`failure_sentence` -- the misses at k counted by kind, and where to look when one kind holds a majority.
* :func:`setting_contrast` -- the gold-document filter's gain here beside its gain under notebook 03's defaults.
* :func:`heading_comparison` -- fixed vs heading chunks, decided by the exact paired test (one noise rule).
"""

from __future__ import annotations

from rag_metrics.stats.paired import SIGN_TEST, format_p, paired_test
from rag_metrics.report.kernel import claim
from rag_metrics.lab.ruler_lesson import f_fits, longest_fragment

SOURCE_QUESTIONS = 40
SOURCE_MISSES = {"wrong_page": 4, "other": 2}
CEILING_QUESTIONS = 2
"""A ceiling gain of at most this many questions "barely moves" (the source: one of 40)."""

LESSONS = {
    "wrong_page": "the right document, the wrong part of it. Routing is not the lever (genre folders or document "
                  "routing cannot fix that): look inside the document -- chunking, ranking within it (next section).",
    "not_retrieved": "the retriever does not reach the right document, so routing or a better first-stage retriever "
                     "is where to look before chunking.",
    "other_document_first": "another document outranks the right one, so ranking (a reranker, hybrid search) is "
                            "where to look.",
}


def questions(n: int) -> str:
    """``n`` questions in words: "no question", "one question", "3 questions"."""
    return {0: "no question", 1: "one question"}.get(abs(n), f"{abs(n)} questions")


def check_f(chunks, min_chars: int, size: int) -> bool:
    """Whether F (``min_chars``) fits in some chunk; when it does not, show why every page-level figure is 0."""
    longest = longest_fragment(chunks["text"])  # no chunk can share a longer fragment with a page
    fits = f_fits(min_chars, longest)
    claim(fits, "",
          f"**F = {min_chars} characters is longer than every chunk** (the longest of these {size}-character chunks "
          f"holds {longest} after normalization): no chunk can share that many characters with a page, so every "
          "page-level figure below is 0 by construction. The ceilings, the failure kinds and the heading comparison "
          "then say nothing about routing or chunking: run with a smaller F (`min_chars`).",
          name="f_within_chunks", figures={"min_chars": min_chars, "longest": longest, "size": size})
    return fits


def source_shape(most_questions: int, document_adds: int, wrong5: int, other5: int, n_eval: int) -> tuple[bool, str]:
    """(all three of the source's findings hold here, the sentence setting each beside the source)."""
    found = [
        (most_questions <= CEILING_QUESTIONS,
         f"no oracle filter lifts page-level hit@1, hit@3 or hit@5 by more than {questions(most_questions)} of "
         f"{n_eval} (the source: one of {SOURCE_QUESTIONS})" if most_questions <= CEILING_QUESTIONS else
         f"an oracle filter lifts page-level hit@k by up to {most_questions} of {n_eval} questions (the source: one "
         f"of {SOURCE_QUESTIONS}), so some misses are *between* documents and routing is worth a look"),
        (document_adds == 0,
         "routing to the gold *document* adds nothing to routing to the gold *genre* (page level)" if document_adds == 0 else
         f"routing to the gold *document* adds up to {questions(document_adds)} to routing to the gold *genre* "
         "(page level)"),
        (wrong5 > other5,
         f"{wrong5} of the {wrong5 + other5} misses at k = 5 are on the wrong page of a right document (the source: "
         f"{SOURCE_MISSES['wrong_page']} of {sum(SOURCE_MISSES.values())})" if wrong5 + other5 else
         f"no question is missed at k = 5 (the source missed {sum(SOURCE_MISSES.values())}, "
         f"{SOURCE_MISSES['wrong_page']} of them on the wrong page)"),
    ]
    same = [text for ok, text in found if ok]
    other = [text for ok, text in found if not ok]
    if not other:
        return True, f"**As in the source**, {same[0]}; {same[1]}; and {same[2]}."
    if not same:
        return False, f"**Unlike the source**, {'; '.join(other)}."
    return False, f"As in the source, {'; '.join(same)}. **Unlike the source**, {'; '.join(other)}."


def failure_sentence(counts: dict, k: int) -> tuple[bool, str, str]:
    """(one kind holds a majority of at least 3 misses, the sentence, that kind). ``counts``: misses per kind."""
    missed = int(sum(counts.values()))
    main = max(counts, key=lambda kind: counts[kind])
    rest = ", ".join(f"{int(counts[kind])} `{kind}`" for kind in counts if kind != main)
    if missed == 0:
        return False, f"No question is missed at k={k}.", main
    head, rest = f"{int(counts[main])} of the {missed} misses at k={k} are `{main}`", f"({rest})"
    split = f"{head} {rest}"
    if missed >= 3 and 2 * counts[main] > missed:
        return True, f"**{head}** {rest}: {LESSONS[main]}", main
    if missed < 3:
        return False, f"{split}: {'one miss is' if missed == 1 else f'{missed} misses are'} too few to say where the " \
                      "misses are.", main
    return False, f"{split}: no kind holds a majority.", main


def setting_contrast(here: dict, nb03: dict, here_name: str) -> tuple[bool, str]:
    """The gold-document filter's gain in questions at hit@1 and hit@5, this run (``here``) beside notebook 03's
    defaults (``nb03``); each dict maps "hit@1"/"hit@5" to a gain. (the gains agree at hit@5 and both stay within
    :data:`CEILING_QUESTIONS`, the sentence)."""
    text = (f"The gold-document filter gains {questions(here['hit@1'])} at hit@1 and {questions(here['hit@5'])} at "
            f"hit@5 under {here_name}; with notebook 03's retriever and page window (BM25, ±1) it gains "
            f"{questions(nb03['hit@1'])} at hit@1 and {questions(nb03['hit@5'])} at hit@5.")
    most = max(here["hit@5"], nb03["hit@5"])
    small = most <= CEILING_QUESTIONS
    if small and here["hit@1"] != nb03["hit@1"]:
        return True, text + (" What the setting changes is the **first rank** (hit@1): a team that shows only the top "
                             "result should measure routing in its own setting; at hit@5 the filter gains "
                             f"{'no question' if most == 0 else f'at most {questions(most)}'} either way.")
    if small:
        return True, text + (f" Either way the filter gains {'no question' if most == 0 else f'at most {questions(most)}'}"
                             " at hit@5.")
    return False, text + " Under one of them routing gains more at hit@5: measure it in your own setting."


def heading_comparison(fixed, heading, wrong_fixed: int, wrong_heading: int, k: int) -> tuple[bool, str, dict]:
    """Fixed vs heading chunks on page hit@k, per question, by the exact paired (sign) test: (within noise, the
    sentence, the figures)."""
    t = paired_test(fixed, heading, measure=f"page hit@{k}")
    moved = t.wins - t.losses
    within = t.verdict == "within noise"
    how = (f"{t.wins} question{'s' if t.wins != 1 else ''} better, {t.losses} worse; {SIGN_TEST} "
           f"{format_p(t.p_value, t.alpha)}")
    way = "up" if moved > 0 else "down"
    move = f"moves {way} by {questions(moved)}" if moved else "moves by no question"
    text = (f"Chunking by heading {move} on page hit@{k} ({t.mean_a:.3f} → {t.mean_b:.3f}; {how}), "
            + ("**within noise**: a difference this small is not evidence either way."
               if within else f"**beyond noise**: {t.verdict}.")
            + f" The `wrong_page` misses go from {wrong_fixed} to {wrong_heading}.")
    figures = {"fixed": t.mean_a, "heading": t.mean_b, "wins": t.wins, "losses": t.losses, "p": t.p_value,
               "alpha": t.alpha, "verdict": t.verdict, "n": t.n, "wrong_fixed": int(wrong_fixed),
               "wrong_heading": int(wrong_heading), "k": k}
    return within, text, figures
