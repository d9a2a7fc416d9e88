"""Notebook 04's sentences (upper bounds before building): each chosen from the numbers, each true of them.

* :func:`check_f` -- a one-line guard: F longer than every chunk makes every page-level figure 0 by construction.
* :func:`misses_removed` -- per cutoff, the misses without a filter and how many the gold-document filter removes.
* :func:`source_shape` -- the source's three findings (perfect routing removes fewer than half of the misses, the
  gold document adds nothing to the gold genre, the misses at k = 5 mostly on the wrong page) set against this run.
* :func:`failure_sentence` -- the misses at k counted by kind, and where to look when one kind holds a majority.
* :func:`setting_contrast` -- what the gold-document filter removes under notebook 03's retriever and window.
* :func:`heading_comparison` -- fixed vs heading chunks, decided by the exact paired test (one noise rule).
"""

from __future__ import annotations

from rag_metrics.stats.paired import SIGN_TEST, format_p, paired_test
from rag_metrics.report.kernel import claim
from rag_metrics.lab.ruler_lesson import f_fits, longest_fragment

SOURCE_QUESTIONS = 40
SOURCE_MISSES = {"wrong_page": 4, "other": 2}

LESSONS = {
    "wrong_page": "the right document, the wrong part of it -- look inside the document first: chunking, ranking "
                  "within it (next section).",
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


def misses_removed(table, n: int, cutoffs=("hit@1", "hit@5")) -> dict:
    """{cutoff: (questions missed with no filter, misses the gold-document filter removes)} from an
    :func:`~rag_metrics.experiment.failures.upper_bounds` table (rows: no filter, gold genre, gold document) of ``n``
    questions."""
    none, document = table.iloc[0], table.iloc[2]
    return {c: (round((1 - none[c]) * n), round((document[c] - none[c]) * n)) for c in cutoffs}


def miss_bars(table, n: int, cutoffs=("hit@1", "hit@3", "hit@5")):
    """The misses without a filter at each cutoff, split by what removes them (the bars of notebook 04's figure):
    the gold-genre filter, the gold-document filter beyond it, neither. Counts of ``n`` questions."""
    import pandas as pd

    hits = (table[list(cutoffs)] * n).round().astype(int)
    none, genre, document = hits.iloc[0], hits.iloc[1], hits.iloc[2]
    bars = pd.DataFrame({"removed by the gold genre": genre - none,
                         "removed by the gold document (beyond the genre)": document - genre,
                         "still missed with the gold document only": n - document})
    if (bars < 0).any().any():
        raise ValueError(f"a narrower filter lost a hit: expected no filter <= genre <= document, got\n{hits}")
    return bars


def removed(missed: int, fixed: int) -> str:
    """"2 of 8 (25%)": the misses a filter removes, as a count and a share of the misses."""
    return f"{fixed} of {missed} ({fixed / missed:.0%})" if missed else "no miss"


def minority(removals: dict) -> bool:
    """Some question is missed, and at every cutoff with a miss the filter removes fewer than half of them."""
    return any(m for m, _ in removals.values()) and all(2 * f < m for m, f in removals.values() if m)


def _listed(removals: dict) -> str:
    """"2 of 8 at hit@1 and 1 of 3 at hit@5"."""
    return " and ".join(f"{f} of {m} at {c}" if m else f"no miss at {c}" for c, (m, f) in removals.items())


def source_shape(here: dict, source: dict, document_adds: int, wrong5: int, other5: int) -> tuple[bool, str]:
    """(all three of the source's findings hold here, the sentence setting each beside the source). ``here`` and
    ``source``: :func:`misses_removed` of this run and of the source."""
    small = minority(here)
    missed = any(m for m, _ in here.values())
    found = [
        (small,
         f"perfect routing to the gold document removes fewer than half of the misses at {' and at '.join(here)} "
         "(the table)" if small else
         f"perfect routing to the gold document removes half or more of the misses at some cutoff ({_listed(here)}; "
         f"the source {_listed(source)}), so those misses are *between* documents and routing is worth a look"
         if missed else
         f"no question is missed at {' or '.join(here)}, so there is nothing for routing to remove (the source "
         f"missed {' and '.join(f'{m} at {c}' for c, (m, _) in source.items())})"),
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


def setting_contrast(here: dict, nb03: dict) -> tuple[bool, str]:
    """What the gold-document filter removes under notebook 03's retriever and window, beside this run; ``here`` and
    ``nb03``: :func:`misses_removed`. (it removes fewer than half of the misses at every cutoff in both settings,
    the sentence)."""
    nb03_name = "notebook 03's BM25 and page window ±1"
    if minority(here) and minority(nb03):
        first = next(iter(here))
        (m, f), (m3, f3) = here[first], nb03[first]
        if (m, f) != (m3, f3):
            return True, (f"With {nb03_name} the gold-document filter also removes fewer than half of the misses, but "
                          f"how many at {first} depends on the setting ({f} of {m} here, {f3} of {m3} there): measure "
                          "it in your own setting before ruling routing out.")
        return True, f"With {nb03_name} the gold-document filter also removes fewer than half of the misses."
    big = [f"at {c} {where} ({f} of {m})" for where, r in (("in this notebook's setting", here), (f"with {nb03_name}", nb03))
           for c, (m, f) in r.items() if m and 2 * f >= m]
    if big:
        return False, (f"The gold-document filter removes half or more of the misses {' and '.join(big)}: there "
                       "routing is a lever worth measuring -- the setting decides, so measure it in your own setting.")
    return False, f"One of the two settings (this notebook's, {nb03_name}) misses no question at {' or '.join(here)}."


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
