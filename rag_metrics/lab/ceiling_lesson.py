"""Notebook 04's sentences (upper bounds before building): each chosen from the numbers, each true of them.

* :func:`check_f` -- a one-line guard: F longer than every chunk makes every page-level figure 0 by construction.
* :func:`misses_removed` / :func:`miss_bars` -- per cutoff, the misses without a filter and what each filter removes.
* :func:`ceiling_tables` / :func:`first_hit_ranks` -- the upper bounds in this setting and notebook 03's, and each
  question's rank of its first judged hit; :func:`upper_bound_table` / :func:`breakdown_table` show them.
* :func:`source_shape` -- the source's two findings on routing set against this setting.
* :func:`cutoff_gap` -- why a filter removes a miss at one cutoff and not at a smaller one.
* :func:`nb03_pointer` -- notebook 03's setting (the right panel) in one sentence, a pointer.
* :func:`failure_sentence` / :func:`kinds_vs_oracle` -- the misses at k by kind, and where the kinds (unfiltered
  ranking) and the gold-document filter disagree.
* :func:`heading_comparison` -- fixed vs heading chunks, decided by the exact paired test (one noise rule).

The ``say_*`` functions make the notebook's claims (:func:`~rag_metrics.report.kernel.claim`) from those choices, so
a notebook cell shows the numbers a sentence is decided on and one call.
"""

from __future__ import annotations

from rag_metrics.stats.paired import SIGN_TEST, format_p, paired_test
from rag_metrics.report.kernel import claim, record
from rag_metrics.lab.ruler_lesson import f_fits, longest_fragment

SOURCE_QUESTIONS = 40
SOURCE_MISSES = {"wrong_page": 4, "other": 2}
SOURCE_HITS = {"hit@1": [0.425, 0.450, 0.450], "hit@5": [0.850, 0.875, 0.875]}
"""The source's upper-bound table as it reports it: rows no filter, gold genre, gold document."""


def source_table():
    """:data:`SOURCE_HITS` as a DataFrame (rows: no filter, gold genre, gold document)."""
    import pandas as pd

    return pd.DataFrame(SOURCE_HITS, index=["no filter", "gold genre only", "gold document only"])

LESSONS = {
    "wrong_page": "the right document, the wrong part of it -- look inside the document first: its chunking (the "
                  "next section) or the ranking of its chunks.",
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


NB03 = ("bm25", 1)
"""Notebook 03's setting: (retriever, page window)."""
FEW_MISSES = 10
"""Below this many misses, a count of failure kinds is a pointer, not a measurement (the notebook says so)."""


def ceiling_tables(golden, corpus, chunks, engine, retriever: str, window: int, min_chars: int) -> dict:
    """``{(retriever, window): upper_bounds table}`` at page level (overlap judge, F = ``min_chars``) for this setting
    and notebook 03's (:data:`NB03`); computed once when they are the same. ``engine``: the built ``retriever`` over
    ``chunks``."""
    from rag_metrics.experiment.failures import upper_bounds
    from rag_metrics.judging.judges import OverlapJudge
    from rag_metrics.retrieval.retrievers import make_retriever

    tables = {}
    for key in ((retriever, window), NB03):
        if key not in tables:
            built = engine if key[0] == retriever else make_retriever(key[0], chunks)
            tables[key] = upper_bounds(golden, corpus, chunks, built,
                                       judge=OverlapJudge(min_chars=min_chars, window=key[1]))
    return tables


def _window(w: int) -> str:
    """A page window in words: "0" (the page itself) or "±1"."""
    return f"±{w}" if w else "0"


def setting_names(retriever: str, window: int) -> dict:
    """``{(retriever, window): name}`` of the settings :func:`ceiling_tables` computes, in its order."""
    names = {(retriever, window): f"this notebook ({retriever}, window {_window(window)})"}
    names.setdefault(NB03, f"notebook 03 ({NB03[0]}, window {_window(NB03[1])})")
    return names


def upper_bound_table(table, source_table, cutoffs=("hit@1", "hit@5")):
    """The upper bounds as a reader's table: rows no filter / gold genre / gold document, for each cutoff this
    notebook's figure and the source's beside it."""
    import pandas as pd

    rows = ["no filter", "gold genre only", "gold document only"]
    shown = pd.DataFrame({f"{c}, {who}": t[c].to_numpy() for c in cutoffs
                          for who, t in (("here", table), (f"the source ({SOURCE_QUESTIONS} questions)", source_table))},
                         index=pd.Index(rows, name="search restricted to"))
    return shown.round(3)


def first_hit_ranks(golden, corpus, chunks, engine, judge, depth: int = 10):
    """Per answerable question, the rank of its first judged hit (None: none in the top ``depth``) with no filter and
    with each oracle filter: a DataFrame, one column per condition of
    :func:`~rag_metrics.experiment.failures.upper_bounds`."""
    import pandas as pd

    from rag_metrics.measures.page_level import evaluate_pages
    from rag_metrics.retrieval.retrievers import oracle_runs

    ranks = {}
    for label, run in oracle_runs(engine, golden, corpus, depth).items():
        rr = evaluate_pages(golden, run, ["mrr"], judge=judge, corpus=corpus, chunks=chunks).per_question["mrr"]
        ranks[label] = {q: (round(1 / v) if v > 0 else None) for q, v in rr.dropna().items()}
    return pd.DataFrame(ranks).astype(object).where(lambda d: d.notna(), None)


def _ordinal(n: int) -> str:
    return f"{n}{'th' if 10 <= n % 100 <= 20 else {1: 'st', 2: 'nd', 3: 'rd'}.get(n % 10, 'th')}"


def cutoff_gap(ranks, a: int, b: int) -> tuple[bool, str, dict]:
    """Why the oracle filters remove misses at hit@``b`` that they do not remove at hit@``a`` (a < b): questions missed
    at ``b`` without a filter whose gold page, searched in the gold document alone, comes at a rank in (a, b]. When the
    gold genre alone already brings it into (a, b], the sentence names the genre (the blue part of the bar), else the
    document (the green part). ``ranks``: :func:`first_hit_ranks` (columns no filter, gold genre, gold document).
    (some question does, the sentence, the figures)."""
    none, genre, document = ranks.iloc[:, 0], ranks.iloc[:, 1], ranks.iloc[:, -1]
    moved = {}
    for q in ranks.index:
        if (none[q] is None or none[q] > b) and document[q] is not None and a < document[q] <= b:
            by_genre = genre[q] is not None and a < genre[q] <= b
            moved[str(q)] = [none[q], int(genre[q] if by_genre else document[q]), "genre" if by_genre else "document"]
    figures = {"a": a, "b": b, "questions": moved}
    if not moved:
        return False, "", figures
    used = {m[2] for m in moved.values()}
    who = {frozenset({"genre"}): "the gold genre (and so the gold document)",
           frozenset({"document"}): "the gold document"}.get(frozenset(used), "the gold genre or the gold document")
    which = " and ".join(f"{q}'s gold page comes {_ordinal(r)} in its gold {f}" for q, (_, r, f) in moved.items())
    return True, (f"Why {who} removes {questions(len(moved))} more at hit@{b} than at hit@{a}: with the search limited "
                  f"to it, {which} -- other chunks still rank above it -- so it enters the top {b} but not the top "
                  f"{a}."), figures


def source_shape(here: dict, source: dict, document_adds: int) -> tuple[bool, str]:
    """(both of the source's findings on routing hold here, the sentence setting each beside the source). ``here`` and
    ``source``: :func:`misses_removed` of this run and of the source."""
    small = minority(here)
    missed = any(m for m, _ in here.values())
    found = [
        (small,
         f"perfect routing to the gold document removes fewer than half of the misses at {' and at '.join(here)}"
         if small else
         f"perfect routing to the gold document removes half or more of the misses at some cutoff ({_listed(here)}; "
         f"the source {_listed(source)}), so those misses are *between* documents and routing is worth a look"
         if missed else
         f"no question is missed at {' or '.join(here)}, so there is nothing for routing to remove (the source "
         f"missed {' and '.join(f'{m} at {c}' for c, (m, _) in source.items())})"),
        (document_adds == 0,
         "routing to the gold *document* adds nothing to routing to the gold *genre*" if document_adds == 0 else
         f"routing to the gold *document* adds up to {questions(document_adds)} to routing to the gold *genre*"),
    ]
    same = [text for ok, text in found if ok]
    other = [text for ok, text in found if not ok]
    scope = "In this notebook's setting (left panel)"
    if not other:
        return True, f"{scope}, **as in the source**, {same[0]}; and {same[1]}."
    if not same:
        return False, f"{scope}, **unlike the source**, {'; '.join(other)}."
    return False, f"{scope}, as in the source, {'; '.join(same)}. **Unlike the source**, {'; '.join(other)}."


def _of(r) -> str:
    """"5 of its 10 misses (50%)", or "no miss"."""
    return f"{r[1]} of its {r[0]} misses ({r[1] / r[0]:.0%})" if r[0] else "no miss"


POINTER_BELOW = 30
"""A share of fewer than this many misses is a pointer, not a measurement (its 95% interval is wider than ±15
points)."""


def nb03_pointer(here, nb03, cutoff: str = "hit@1") -> tuple[bool, str, dict]:
    """The right panel in one sentence: the share of the misses at ``cutoff`` that the gold document removes in
    notebook 03's setting (:data:`NB03`) beside this notebook's. ``here`` and ``nb03``: :func:`misses_removed`.
    (the two shares differ, the sentence, the figures)."""
    h, o = here[cutoff], nb03[cutoff]
    figures = {"cutoff": cutoff, "here": list(h), "nb03": list(o)}
    if not h[0] or not o[0]:
        return False, (f"Right panel, notebook 03's setting: {_of(o)} at {cutoff}; here {_of(h)}: no share to "
                       "compare."), figures
    differ = h[1] * o[0] != o[1] * h[0]
    how = "a different share" if differ else "the same share"
    few = min(h[0], o[0]) < POINTER_BELOW
    size = (f"with {h[0]} and {o[0]} misses this is a pointer that the share depends on the setting, not a measurement"
            if few and differ else f"with {h[0]} and {o[0]} misses this is a pointer, not a measurement" if few
            else f"measured on {h[0]} and {o[0]} misses")
    return differ, (f"Right panel, notebook 03's setting (BM25, page window ±1): the gold document removes {_of(o)} at "
                    f"{cutoff}; here {_of(h)}, {how} -- {size}."), figures


def kinds_vs_oracle(breakdown, removed_by_document: dict) -> tuple[bool, str, dict]:
    """Failure kinds describe the ranking without a filter; the gold-document filter can disagree with them. A
    ``wrong_page`` miss the filter removes (other documents crowded the gold page out of the top k), and a miss of
    another kind the filter does not remove (the gold document searched alone still ranks its gold page too low).
    ``removed_by_document``: {question: removed}. (some miss disagrees, the sentence, the figures)."""
    kind = dict(zip(breakdown["question_id"], breakdown["failure"]))
    fixed = [q for q, f in kind.items() if f == "wrong_page" and removed_by_document.get(q)]
    stays = [q for q, f in kind.items() if f != "wrong_page" and not removed_by_document.get(q)]
    figures = {"kinds": kind, "removed": {q: bool(removed_by_document.get(q)) for q in kind},
               "wrong_page_removed": fixed, "other_kept": stays}
    parts = []
    if fixed:
        parts.append(f"a `wrong_page` miss can still be removed by the gold-document filter when chunks of other "
                     f"documents crowd the gold page out of the top k ({', '.join(fixed)})")
    if stays:
        parts.append(f"a miss of another kind can survive it when the gold document, searched alone, still ranks its "
                     f"gold page too low ({', '.join(f'{q}, `{kind[q]}`' for q in stays)})")
    if not parts:
        return False, ("Here the failure kinds and the gold-document filter agree: it removes every miss of another "
                       "kind and no `wrong_page` miss."), figures
    return True, ("The failure kinds describe the ranking *without* a filter, so they need not match the last "
                  f"column: {'; and '.join(parts)}."), figures


def failure_sentence(counts: dict, k: int) -> tuple[bool, str, str]:
    """(one kind holds a majority of at least 3 misses, the sentence, that kind). ``counts``: misses per kind. At
    k = 5 the source's count sits beside it; below :data:`FEW_MISSES` misses the sentence says it is a pointer."""
    missed = int(sum(counts.values()))
    main = max(counts, key=lambda kind: counts[kind])
    rest = ", ".join(f"{int(counts[kind])} `{kind}`" for kind in counts if kind != main)
    if missed == 0:
        return False, f"No question is missed at k={k}.", main
    source = (f"; the source: {SOURCE_MISSES['wrong_page']} of its {sum(SOURCE_MISSES.values())} misses at k = 5 on "
              "the wrong page" if k == 5 else "")
    head, rest = f"{int(counts[main])} of the {missed} misses at k={k} are `{main}`", f"({rest}{source})"
    split = f"{head} {rest}"
    if missed >= 3 and 2 * counts[main] > missed:
        few = (f" With only {missed} misses this is a pointer, not a measurement: check it on a larger golden set."
               if missed < FEW_MISSES else "")
        return True, f"**{head}** {rest}: {LESSONS[main]}{few}", main
    if missed < 3:
        return False, f"{split}: {'one miss is' if missed == 1 else f'{missed} misses are'} too few to say where the " \
                      "misses are.", main
    return False, f"{split}: no kind holds a majority.", main


def heading_comparison(fixed, heading, wrong_fixed: int, wrong_heading: int, k: int) -> tuple[bool, str, dict]:
    """Fixed vs heading chunks on page hit@k, per question, by the exact paired (sign) test: (within noise, the
    sentence, the figures)."""
    t = paired_test(fixed, heading, measure=f"page hit@{k}")
    moved = t.wins - t.losses
    within = t.verdict == "within noise"
    how = (f"{t.wins} question{'s' if t.wins != 1 else ''} better, {t.losses} worse; {SIGN_TEST} "
           f"{format_p(t.p_value, t.alpha)}")
    move = f"moves page hit@{k} from {t.mean_a:.3f} to {t.mean_b:.3f}" if moved else \
        f"leaves page hit@{k} at {t.mean_a:.3f}"
    text = (f"Chunking by heading {move} ({how}), "
            + ("**within noise**: a difference this small is not evidence either way."
               if within else f"**beyond noise**: {t.verdict}.")
            + f" The `wrong_page` misses go from {wrong_fixed} to {wrong_heading}.")
    figures = {"fixed": t.mean_a, "heading": t.mean_b, "wins": t.wins, "losses": t.losses, "p": t.p_value,
               "alpha": t.alpha, "verdict": t.verdict, "n": t.n, "wrong_fixed": int(wrong_fixed),
               "wrong_heading": int(wrong_heading), "k": k}
    return within, text, figures


# The notebook's claims: each chooser above, made a claim (shown only when true, recorded with its figures).

def say_routing(tables: dict, n: int, retriever: str, window: int, fits: bool) -> None:
    """Notebook 04's two routing claims from :func:`ceiling_tables`: :func:`source_shape` (the headline, this
    setting) and :func:`nb03_pointer` (the right panel); nothing when F fits in no chunk (:func:`check_f` said why)."""
    table = tables[(retriever, window)]
    here, source = misses_removed(table, n), misses_removed(source_table(), SOURCE_QUESTIONS)
    document_adds = int(miss_bars(table, n).iloc[:, 1].max())  # what the document adds to the genre
    holds, text = source_shape(here, source, document_adds)
    claim(fits and holds, text, text if fits else None, headline=True, name="source_shape",
          figures={"n_eval": n, "here": here, "document_adds": document_adds, "fits": fits,
                   "hits": table[["hit@1", "hit@3", "hit@5"]].to_numpy().tolist()})
    if NB03 != (retriever, window):
        holds, text, figures = nb03_pointer(here, misses_removed(tables[NB03], n))
        claim(fits and holds, text, text if fits else None, name="nb03_pointer", figures=figures | {"fits": fits})


def say_kinds_vs_oracle(breakdown, ranks, k: int, fits: bool) -> None:
    """:func:`kinds_vs_oracle` as a claim; ``ranks``: :func:`first_hit_ranks` (last column: the gold document)."""
    holds, text, figures = kinds_vs_oracle(breakdown, removed_at(ranks, k))
    claim(fits and holds, text, text if fits else None, name="kinds_vs_oracle", figures=figures | {"fits": fits, "k": k})


def removed_at(ranks, k: int) -> dict:
    """{question: the gold-document filter brings a judged hit into its top ``k``} from :func:`first_hit_ranks`."""
    return {q: r is not None and r <= k for q, r in ranks.iloc[:, -1].items()}


def breakdown_table(breakdown, ranks, k: int):
    """The failure breakdown as a reader's table: human column names, and whether the gold-document filter removes
    each miss (:func:`removed_at`)."""
    removed = removed_at(ranks, k)
    shown = breakdown.assign(removed=[("yes" if removed.get(q) else "no") for q in breakdown["question_id"]])
    return shown.sort_values("failure", kind="stable").rename(columns={
        "question_id": "question", "type": "question type", "failure": "failure kind",
        "first_document": "document ranked first", "gold_documents": "gold documents",
        "removed": "removed by the gold-document filter?"})


def say_cutoff_gap(ranks, a: int, b: int, fits: bool) -> None:
    """:func:`cutoff_gap` as a claim (nothing shown when no question explains a gap)."""
    holds, text, figures = cutoff_gap(ranks, a, b)
    claim(fits and holds, text, name="cutoff_gap", figures=figures | {"fits": fits})


def miss_figure(tables: dict, retriever: str, window: int, n_eval: int):
    """Notebook 04's figure: one panel per setting (this notebook's, then notebook 03's), a stacked bar per cutoff of
    the questions missed without a filter, split into those the gold genre removes, those the gold document removes
    beyond it, and those still missed."""
    import matplotlib.pyplot as plt

    names = setting_names(retriever, window)
    settings = {name: tables[key] for key, name in names.items()}
    fig, axes = plt.subplots(1, len(settings), figsize=(11, 3.6), sharey=True, squeeze=False)
    top = int(max(miss_bars(t, n_eval).sum(axis=1).max() for t in settings.values()))
    for ax, (name, table) in zip(axes[0], settings.items()):
        bars = miss_bars(table, n_eval)
        bars.plot.bar(ax=ax, stacked=True, rot=0, legend=False, width=0.6, color=["tab:blue", "tab:green", "silver"])
        for x, (missed, left) in enumerate(zip(bars.sum(axis=1), bars.iloc[:, 2])):
            ax.annotate(f"{missed - left} of {missed}\nremoved", (x, missed), ha="center", va="bottom", fontsize=8)
        ax.set(title=name, xlabel="cutoff", ylabel=f"questions missed (of {n_eval})", ylim=(0, top * 1.35 + 1))
        ax.yaxis.set_major_locator(plt.MaxNLocator(integer=True))
    axes[0, -1].legend(loc="upper left", bbox_to_anchor=(1.01, 1), fontsize=8)
    plt.tight_layout()
    return fig


def say_levels(table, doc_first: float, n_eval: int) -> None:
    """Two context sentences: every level above the source's (its corpus is not this one), and how often the
    retriever ranks a right document first without any filter (document level), over ``n_eval`` questions."""
    source = source_table()
    hits, src = table[["hit@1", "hit@5"]].to_numpy(), source[["hit@1", "hit@5"]].to_numpy()
    claim(bool((hits > src).all()),
          f"Every level is higher than the source's (hit@1 {table.iat[0, 0]:.3f} without a filter, the source "
          f"{source.iat[0, 0]:.3f}): the two corpora, question sets and retrievers differ, so their levels cannot be "
          "compared -- which is why this notebook compares shares of the misses.",
          "The source's corpus and retriever are not these: what the comparison is about is the share of misses removed.",
          name="levels_higher_than_source", figures={"hits": hits.tolist(), "source": src.tolist()})
    found = round(doc_first * n_eval)
    claim(doc_first >= 0.8,
          f"Without any filter the retriever already ranks a right document first for {found} of the {n_eval} "
          f"questions ({doc_first:.1%}; document-level hit@1, this notebook's setting: the table below): the "
          "document is rarely the problem.",
          f"Without any filter the retriever ranks a right document first for {found} of the {n_eval} questions "
          f"({doc_first:.1%}; document-level hit@1: the table below): finding the document is part of the problem "
          "here.",
          name="document_found_first", figures={"doc_first": doc_first, "found": found, "n_eval": n_eval})


def say_failures(counts, k: int, fits: bool) -> None:
    """:func:`failure_sentence` as a claim; ``counts``: misses per failure kind at ``k``."""
    counts = {kind: int(n) for kind, n in counts.items()}
    mostly, text, main = failure_sentence(counts, k)
    claim(fits and mostly, text, text if fits else None, name="main_failure_kind",
          figures={"counts": counts, "missed": sum(counts.values()), "main_kind": main, "fits": fits, "k": k})


def say_heading(fixed, heading, wrong_fixed: int, wrong_heading: int, k: int, fits: bool, chunking: str) -> None:
    """:func:`heading_comparison` as a claim, with the two per-question columns recorded (not shown) for the tests.
    ``chunking``: the fixed chunking's name ("300/50")."""
    within, text, compared = heading_comparison(fixed, heading, wrong_fixed, wrong_heading, k)
    claim(fits and within, text, text if fits else None, name="heading_within_noise",
          figures=compared | {"fits": fits, "chunking": chunking})
    record(f"page hit@{k} fixed {chunking}", fixed, echo=False)
    record(f"page hit@{k} by heading", heading, echo=False)
