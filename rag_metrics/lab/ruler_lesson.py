"""The claims of notebook 03 (marker vs overlap judging) that depend on the fragment length F: chosen here and tested.

The overlap judge credits a chunk when a fragment of at least F characters of its normalized text occurs on a gold
page. A chunk shorter than F can share no such fragment, whatever its content: at an F longer than every chunk, the
judge credits nothing *by construction*. That is a case the parameters make impossible, not a finding about the chunks
-- these functions say so instead of explaining a zero as "chunks that share only part of a page fail".

Each claim is the keyword arguments of :func:`rag_metrics.report.kernel.claim`; both texts are true sentences of their
case.
"""

from __future__ import annotations

from rag_metrics.stats import ALPHA, format_p, paired_test
from rag_metrics.core.text import normalize

__all__ = ["longest_fragment", "f_fits", "gap_claims", "ruler_claims", "near_f", "f_curve_claims", "footer_claim",
           "f_window_figure", "tiny_example", "source_side", "marker_failures", "where_claim", "footer_setup"]

SOURCE_GAP = 0.775 - 0.69
"""The source's page hit@3 from markers on the gold page itself (0.69) to content overlap with a ±1 window (0.775)."""


def longest_fragment(texts) -> int:
    """The longest fragment any of ``texts`` (chunk texts) can share with a page: its longest normalized text (the
    overlap judge compares normalized text: NFKC, page markers removed, whitespace collapsed)."""
    return max((len(normalize(t)) for t in texts if isinstance(t, str)), default=0)


def f_fits(min_chars: int, longest: int) -> bool:
    """Whether a chunk can share an F-character fragment with a page at all (F no longer than the longest chunk)."""
    return min_chars <= longest


def _beyond(min_chars: int, longest: int) -> str:
    return (f"F = {min_chars} characters is longer than every chunk here (the longest holds {longest} after "
            "normalization): no chunk can share that many characters with a page, so the overlap judge credits "
            "nothing at this F -- by construction, not a finding about the chunks")


def gap_claims(*, m0: float, m1: float, o0: float, o1: float, n_eval: int, fits: bool, min_chars: int,
               longest: int, mid_page: float, size: int) -> list:
    """The source's comparison on this index (its direction), then its gap taken apart (page hit@3 of the marker/overlap judge at window 0/±1: ``m0, m1, o0, o1``): what
    each change alone moves, that the two overlap, and how the whole gap compares with the source's."""
    window_alone, judge_alone, total = m1 - m0, o0 - m0, o1 - m0
    q = lambda x: round(x * n_eval)  # noqa: E731 -- a share of the questions, as a count
    overlap = window_alone + judge_alone - total
    figures = {"m0": m0, "m1": m1, "o0": o0, "o1": o1, "total": total, "window_alone": window_alone,
               "judge_alone": judge_alone, "n_eval": n_eval, "fits": fits}
    both = {
        "condition": fits and q(window_alone) >= 1 and q(judge_alone) >= 1 and q(overlap) >= 1,
        "name": "both_changes_overlap", "figures": figures,
        "text_if_true": f"**Both changes move it, and they overlap.** Only widening the marker judge's window to ±1: "
                        f"{m0:.3f} → {m1:.3f} ({window_alone:+.3f}, {q(window_alone)} questions); only changing the "
                        f"judge at window 0: {m0:.3f} → {o0:.3f} ({judge_alone:+.3f}, {q(judge_alone)} questions). "
                        f"Together they move it {total:+.3f}, less than the {window_alone + judge_alone:+.3f} of the "
                        f"two alone: {overlap:.3f} ({q(overlap)} questions) is counted by both changes. So compare "
                        "judges at the same window: at window ±1 changing "
                        f"the judge moves hit@3 by {o1 - m1:+.3f}, at window 0 by {o0 - m0:+.3f}.",
        "text_if_false": (f"Alone, widening the marker judge's window to ±1 moves hit@3 by {window_alone:+.3f} and "
                          f"changing the judge at window 0 by {judge_alone:+.3f}; together by {total:+.3f}. Compare "
                          "judges at the same window." if fits else
                          f"{_beyond(min_chars, longest)}: the window and the judge cannot be told apart here.")}
    source = {
        "condition": total > SOURCE_GAP, "name": "gap_vs_source", "figures": {"total": total, "mid_page": mid_page},
        "text_if_true": f"The gap is larger here than in the source ({total:+.3f} vs +0.085): {mid_page:.0%} of these "
                        f"{size}-character chunks start in the middle of a page, so most carry no marker of the page "
                        "they start on; the source's chunks and documents are not these.",
        "text_if_false": f"The gap is not larger here than in the source ({total:+.3f} vs +0.085), with "
                         f"{mid_page:.0%} of these {size}-character chunks starting in the middle of a page; the "
                         "source's chunks and documents are not these."}
    direction = {
        "condition": total > 0, "name": "source_direction",
        "figures": {"m0": m0, "o1": o1, "total": total, "n_eval": n_eval, "min_chars": min_chars, "longest": longest},
        "text_if_true": f"As in the source, content overlap with a ±1 window scores above markers matched on the page "
                        f"itself: {m0:.3f} → {o1:.3f} here ({total:+.3f} = {q(total)} of {n_eval} questions), "
                        "0.69 → 0.775 there.",
        "text_if_false": f"Unlike the source, content overlap with a ±1 window does not score above markers matched on "
                         f"the page itself here: {m0:.3f} → {o1:.3f} (the source: 0.69 → 0.775)"
                         + ("." if fits else f" -- {_beyond(min_chars, longest)}: the comparison cannot be made at "
                                             "this F.")}
    return [direction, both, source]


def ruler_claims(*, marker: float, overlap: float, document: float, k: int, n_eval: int, min_chars: int,
                 window: int, longest: int, failed_by_overlap: int, failed_by_marker: int, chunking: str) -> list:
    """Notebook 03's headline (changing only the judge moves page hit@k), the cases where the judges agree, and the
    overlap judge's strictness at a large F, told apart from an F no chunk can reach. Each claim but the headline
    shows nothing when false (``text_if_false`` None): a sentence that does not hold is not printed."""
    fits = f_fits(min_chars, longest)
    moved = round((overlap - marker) * n_eval)
    figures = {"marker": marker, "overlap": overlap, "document": document, "moved": moved, "n_eval": n_eval,
               "min_chars": min_chars, "longest": longest}
    headline = {
        "condition": overlap > marker, "headline": True, "name": "ruler_moves_figure", "figures": figures,
        "text_if_true": f"**Same index, same run: changing only the judge moves page hit@{k} from {marker:.3f} "
                        f"(marker) to {overlap:.3f} (overlap, F={min_chars}, window {window})**, {moved} of {n_eval} "
                        f"questions; the document judge, which ignores pages, gives {document:.3f} -- the ceiling of "
                        "both.",
        "text_if_false": (f"Here the overlap judge is not more lenient than the marker judge: page hit@{k} is "
                          f"{marker:.3f} by marker and {overlap:.3f} by overlap (F={min_chars}, window {window}); the "
                          f"document judge gives {document:.3f}." if fits else
                          f"{_beyond(min_chars, longest)}. The two judges cannot be compared at this F: page hit@{k} "
                          f"is {marker:.3f} by marker and {overlap:.3f} by overlap.")}
    strict = {
        "condition": fits and overlap < marker and min_chars > 48, "name": "large_f_is_strict",
        "figures": {"marker": marker, "overlap": overlap, "min_chars": min_chars, "longest": longest},
        "text_if_true": f"A large F ({min_chars} characters) makes the overlap judge strict: a chunk that shares only "
                        "a shorter piece with the gold page fails it, even when it carries the page's marker.",
        "text_if_false": None}
    only_marker = {
        "condition": overlap < marker, "name": "marker_only",
        "figures": {"marker": marker, "overlap": overlap, "failed_by_overlap": failed_by_overlap},
        "text_if_true": f"{failed_by_overlap} top-{k} chunk(s) carry a gold page's marker (± window) but share no "
                        f"{min_chars}-character fragment with that page or its window.",
        "text_if_false": None}
    ceiling = {
        "condition": overlap == marker == document, "name": "both_at_ceiling", "text_if_false": None,
        "figures": {"marker": marker, "overlap": overlap, "document": document},
        "text_if_true": f"Both judges reach the document ceiling ({document:.3f}): every question whose document is in "
                        f"the top {k} also has a chunk there that carries its gold page's marker and shares text with "
                        f"it, so the judges cannot differ -- with {chunking} chunks markers are rarely lost."}
    few = {
        "condition": overlap <= marker and not overlap == marker == document and min_chars <= 48,
        "name": "few_markers_lost", "text_if_false": None,
        "figures": {"marker": marker, "overlap": overlap, "document": document, "min_chars": min_chars,
                    "failed_by_marker": failed_by_marker},
        "text_if_true": f"Only {failed_by_marker} top-{k} chunk(s) satisfy a gold page by content but not by marker "
                        f"with these chunks ({chunking}): few lose their gold page's marker."}
    return [headline, ceiling, few, strict, only_marker]


def near_f(fs, min_chars: int, longest: int) -> list:
    """The chosen F and its neighbours on the curve (``fs``: the F values computed), among the F a chunk can hold: the
    values a reader would have picked instead of ``min_chars``."""
    fits = [f for f in sorted(fs) if f_fits(f, longest)]
    if min_chars not in fits:
        return [min_chars]
    i = fits.index(min_chars)
    return fits[max(i - 1, 0):i + 2]


def f_curve_claims(by_f: dict, *, k: int, n_eval: int, longest: int, min_chars: int, answers: dict | None = None,
                   alpha: float = ALPHA) -> list:
    """The claims of the F curve (``by_f``: ``{F: page hit@k}``; ``answers``: ``{F: per-question hit@k}``, for the
    paired test): whether the notebook's F (``min_chars``) against its neighbours on the curve (:func:`near_f`)
    matters beyond noise -- the exact paired test of the lowest against the highest of them on the same questions --
    and what the curve's two extremes mean (an F beyond every chunk is named as such, not read as chunks failing)."""
    fs = sorted(by_f)
    near = near_f(fs, min_chars, longest)
    f_low, f_high = min(near, key=lambda f: by_f[f]), max(near, key=lambda f: by_f[f])
    low, high = by_f[f_low], by_f[f_high]
    spread = round((high - low) * n_eval)
    p = paired_test(answers[f_low], answers[f_high], alpha=alpha).p_value if answers and spread else 1.0
    where = f"From F={near[0]} to F={near[-1]} (this notebook's F={min_chars} and its neighbours on the curve)"
    tested = f"paired test of F={f_low} against F={f_high} on the same questions, {format_p(p, alpha)}"
    if len(near) == 1:
        true_text = (f"{_beyond(min_chars, longest)}: page hit@{k} is {low:.3f} there, and no F near it can say "
                     "whether the result hinges on F.")
    elif spread == 0:
        true_text = (f"{where} page hit@{k} is {low:.3f} at every F: the result does not hinge on the exact F "
                     "here.")
    else:
        true_text = (f"{where} page hit@{k} ranges from {low:.3f} (F={f_low}) to {high:.3f} (F={f_high}), "
                     f"{spread} question(s) ({tested}): within noise -- no sign here that the result hinges on the "
                     "exact F.")
    flat = {
        "condition": p >= alpha, "name": "flat_near_f",
        "figures": {"low": low, "high": high, "spread": spread, "n_eval": n_eval, "p": p, "alpha": alpha,
                    "min_chars": min_chars, "near": near, "fs": fs, "values": [by_f[f] for f in fs],
                    "longest": longest},
        "text_if_true": true_text,
        "text_if_false": f"{where} page hit@{k} ranges from {low:.3f} (F={f_low}) to {high:.3f} (F={f_high}), "
                         f"{spread} questions ({tested}): beyond noise -- with these chunks the result depends on F, "
                         "so report F with every figure and check the chunks it fails."}
    small_f, large_f = fs[0], fs[-1]
    small, large = by_f[small_f], by_f[large_f]
    beyond = [f for f in fs if not f_fits(f, longest)]
    if not f_fits(large_f, longest):
        false_text = (f"At F={small_f} page hit@{k} is {small:.3f}; F = {', '.join(map(str, beyond))} "
                      f"{'is' if len(beyond) == 1 else 'are'} longer than every chunk here (the longest holds "
                      f"{longest} characters after normalization): no chunk can share that many characters with a "
                      f"page, so page hit@{k} is {large:.3f} there by construction -- not a finding about the chunks.")
    elif small > large:
        false_text = None
    else:
        false_text = (f"At the extremes, F={small_f} gives page hit@{k} {small:.3f} and F={large_f} gives {large:.3f}: "
                      "the fragment length hardly matters here.")
    extremes = {
        "condition": small > large and f_fits(large_f, longest), "name": "extremes_of_f",
        "figures": {"small": small, "large": large, "large_f": large_f, "longest": longest, "beyond": beyond},
        "text_if_true": f"At the extremes, F={small_f} gives {small:.3f} and "
                        f"F={large_f} gives {large:.3f}: a chunk now counts only when {large_f} of its at most "
                        f"{longest} characters lie, in one piece, on a gold page, so chunks sharing only part of a "
                        "page fail -- one that straddles a page break with fewer on the gold side, for example.",
        "text_if_false": false_text}
    return [flat, extremes]


def footer_claim(*, kept: float, default: float, n_eval: int, min_chars: int, longest_footer: int) -> dict:
    """The page-furniture sentence: how many more questions the overlap judge credits at hit@1 when it keeps the
    running footer (``kept``) than when it leaves boilerplate out (``default``), or why none (F longer than every
    footer line)."""
    false_hits = round((kept - default) * n_eval)
    why = (f" {min_chars} characters is longer than any footer line (the longest has {longest_footer}), so the footer "
           "is never a shared fragment." if min_chars > longest_footer else "")
    return {"condition": false_hits > 0, "name": "footer_false_hits",
            "figures": {"kept": kept, "default": default, "false_hits": false_hits, "n_eval": n_eval,
                        "min_chars": min_chars, "longest_footer": longest_footer},
            "text_if_true": f"**Keeping the footer, the overlap judge credits {false_hits} more question(s) at hit@1** "
                            f"({kept:.3f} instead of {default:.3f}): pages of the right document that only share the footer with the gold page.",
            "text_if_false": f"Here keeping the footer credits nothing more at hit@1 ({kept:.3f} either way).{why}"}


def f_window_figure(by_f, by_window, *, k: int, longest: int):
    """Notebook 03's figure: left, page hit@k of the overlap judge against F (``by_f``, indexed by F; the F beyond the
    longest chunk shaded); right, page hit@k of each judge against the page window (``by_window``, one column per
    judge). Returns the figure."""
    import matplotlib.pyplot as plt

    f_values = list(by_f.index)
    fig, (left, right) = plt.subplots(1, 2, figsize=(10, 3.6))
    left.plot(by_f.index, by_f[f"hit@{k}"], marker="o", label="overlap judge")
    if longest <= max(f_values):  # beyond the longest chunk no fragment can be shared: zero by construction
        left.axvspan(longest, max(f_values) * 1.1, color="grey", alpha=0.2, label=f"F > longest chunk ({longest})")
    left.set(xscale="log", ylim=(0, 1.02), xlabel="F (characters)", ylabel=f"page hit@{k}",
             title=f"overlap judge: page hit@{k} vs F")
    left.set_xticks(f_values, [str(f) for f in f_values])
    left.legend(loc="lower left")
    by_window.plot(ax=right, marker="o", title=f"page hit@{k} vs page window: marker vs overlap")
    right.set(ylim=(0, 1.02), xlabel="page window (±)", ylabel=f"page hit@{k}")
    right.set_xticks(list(by_window.index))
    right.legend(title="judge", loc="lower right")
    fig.tight_layout()
    return fig


def tiny_example() -> tuple:
    """Notebook 03's two-page example: a policy cut into 60-character chunks, gold page 2, judged by markers and by
    overlap (F=24), both at window 0. Returns ``(table, claim)``: the chunks with each judge's verdict, and the claim
    on the chunk that starts in the middle of page 2 (its text, but not its marker)."""
    import pandas as pd

    from rag_metrics.io.corpus import corpus_from_pages
    from rag_metrics.judging.judges import MarkerJudge, OverlapJudge, judge_run
    from rag_metrics.retrieval.chunking import chunk_fixed

    tiny = corpus_from_pages([
        {"doc_id": "policy", "page": 1, "text": "[p.1]\nClaims are paid monthly. Receipts are kept for seven years by "
                                                 "finance.\n"},
        {"doc_id": "policy", "page": 2, "text": "[p.2]\nEvery claim must be submitted within 30 days of the expense "
                                                 "date.\n"}])
    chunks = chunk_fixed(tiny, 60, 0)
    gold = pd.DataFrame({"question_id": ["q"], "doc_id": ["policy"], "page": [2]})
    run = chunks.assign(question_id="q", rank=range(1, len(chunks) + 1))
    verdicts = {name: judge_run(run, chunks, gold, j, tiny)["hit"].tolist()
                for name, j in {"marker": MarkerJudge(window=0), "overlap (F=24)": OverlapJudge(24, window=0)}.items()}
    table = pd.DataFrame({"chunk": chunks["text"].str.replace("\n", " / "),
                          "pages": chunks["start_page"].astype(str) + "-" + chunks["end_page"].astype(str),
                          **{name: ["hit" if v else "miss" for v in hits] for name, hits in verdicts.items()}})
    lost = [i for i, row in chunks.iterrows() if row["start_page"] == 2 and "[p.2]" not in row["text"]]
    held = chunks.loc[lost[0], "text"].strip() if lost else ""
    claim = dict(condition=len(lost) == 1 and not verdicts["marker"][lost[0]] and verdicts["overlap (F=24)"][lost[0]],
                 text_if_true=(f"The chunk that starts in the middle of page 2 holds the end of its rule -- “{held}” -- "
                               "but not `[p.2]`: the marker judge fails it, the overlap judge counts it."),
                 name="tiny_lost_marker",
                 figures={"held": held, "lost": len(lost), "marker": [bool(v) for v in verdicts["marker"]],
                          "overlap": [bool(v) for v in verdicts["overlap (F=24)"]], "at": lost[0] if lost else None})
    return table.rename_axis("chunk #"), claim


def source_side(hit_at, *, min_chars: int, label: str) -> tuple:
    """The source's four judge-and-window combinations beside this notebook's: ``hit_at(judge, 3)`` gives page hit@3
    under a judge. Returns ``(table, (m0, m1, o0, o1))`` -- marker and overlap at window 0 and ±1."""
    import pandas as pd

    from rag_metrics.judging.judges import MarkerJudge, OverlapJudge

    m0, m1 = (hit_at(MarkerJudge(window=w), 3) for w in (0, 1))
    o0, o1 = (hit_at(OverlapJudge(min_chars=min_chars, window=w), 3) for w in (0, 1))
    table = pd.DataFrame({"source": [0.69, None, None, 0.775],  # as the source reports them (page hit@3)
                          label: [m0, m1, o0, o1]},
                         index=pd.Index(["marker, window 0", "marker, window ±1", "overlap, window 0",
                                         "overlap, window ±1"], name="page hit@3, judge and window"))
    return table, (m0, m1, o0, o1)


def marker_failures(by_overlap, by_marker, chunks, window: int):
    """The judged top-k chunks the overlap judge credits and the marker judge does not, with their text and pages and
    where each lies (``lies``): on a gold page it satisfies, within ``window`` pages of one, or elsewhere."""
    failed = by_overlap[by_overlap["hit"] & ~by_marker["hit"]].merge(
        chunks[["chunk_id", "text", "start_page", "end_page"]], on="chunk_id")

    def where(row):
        pages = range(row.start_page, row.end_page + 1)
        if any(p == g for _, g in row.satisfies for p in pages):
            return "gold page"
        if any(abs(p - g) <= window for _, g in row.satisfies for p in pages):
            return "within the window"
        return "elsewhere"

    return failed.assign(lies=[where(r) for r in failed.itertuples()])


def where_claim(failed, k: int) -> dict:
    """The claim counting the chunks of :func:`marker_failures` by where they lie."""
    counts = failed["lies"].value_counts().reindex(["gold page", "within the window", "elsewhere"], fill_value=0)
    return dict(condition=len(failed) > 0,
                text_if_true=(f"{len(failed)} top-{k} chunk(s) satisfy a gold page by content but not by marker: "
                              f"{counts['gold page']} lie on the gold page itself, {counts['within the window']} on a "
                              f"page within the window of it, {counts['elsewhere']} elsewhere."),
                text_if_false=f"No top-{k} chunk satisfies a gold page by content without its marker here.",
                name="where_marker_fails", figures={"total": len(failed), **{k_: int(v) for k_, v in counts.items()}})


def judge_disagreement(top, chunks, gold_pages, marker, overlap, index, k: int) -> tuple:
    """The top-k chunks one judge credits and the other does not: ``(by_marker, by_overlap, table)``, the two judged
    runs (:func:`rag_metrics.judging.judges.judge_run`) and a two-row table of the counts."""
    import pandas as pd

    from rag_metrics.judging.judges import judge_run

    by_marker = judge_run(top, chunks, gold_pages, marker, index)
    by_overlap = judge_run(top, chunks, gold_pages, overlap, index)
    table = pd.DataFrame({f"top-{k} chunks": [int((by_marker["hit"] & ~by_overlap["hit"]).sum()),
                                               int((by_overlap["hit"] & ~by_marker["hit"]).sum())]},
                         index=["credited by marker only", "credited by overlap only"])
    return by_marker, by_overlap, table


def failure_examples(failed, n: int = 4):
    """The first ``n`` chunks the marker judge fails, gold page first, then within the window, then elsewhere: a
    table of question, rank, where it lies, the gold pages it satisfies, its pages and the start of its text."""
    import pandas as pd

    order = {"gold page": 0, "within the window": 1, "elsewhere": 2}
    ex = failed.sort_values(["lies", "question_id", "rank"], key=lambda c: c.map(order) if c.name == "lies" else c,
                            kind="stable").head(n)
    return pd.DataFrame({"question": ex["question_id"], "rank": ex["rank"], "where it lies": ex["lies"],
                         "satisfies": [", ".join(f"{d} p.{p}" for d, p in sorted(s)) for s in ex["satisfies"]],
                         "chunk pages": [f"{a}-{b}" for a, b in zip(ex["start_page"], ex["end_page"])],
                         "chunk text (start)": ex["text"].str[:120].str.replace("\n", " / ") + " ..."})


def f_and_window_tables(answers_at, hit_at, *, k: int, min_chars: int, window: int, longest: int) -> tuple:
    """Page hit@k of the overlap judge at several F (``answers_at(judge, k)``: per question) and of both judges at
    windows 0, 1, 2 and ``window`` (``hit_at(judge, k)``: the mean): ``(f_answers, by_f, by_window)``."""
    import pandas as pd

    from rag_metrics.judging.judges import MarkerJudge, OverlapJudge

    f_values = sorted({8, 16, 24, 48, 96, 192, min_chars})
    f_answers = {f: answers_at(OverlapJudge(min_chars=f, window=window), k) for f in f_values}
    by_f = pd.DataFrame({"F (characters)": f_values, f"hit@{k}": [f_answers[f].mean() for f in f_values]}
                        ).set_index("F (characters)")
    if not f_fits(max(f_values), longest):  # the column only when some F is longer than every chunk
        by_f["a chunk can hold F characters"] = ["yes" if f_fits(f, longest) else "no" for f in f_values]
    windows = sorted({0, 1, 2, window})
    by_window = pd.DataFrame({"window": windows,
                              "marker": [hit_at(MarkerJudge(window=w), k) for w in windows],
                              "overlap": [hit_at(OverlapJudge(min_chars=min_chars, window=w), k) for w in windows]}
                             ).set_index("window")
    return f_answers, by_f, by_window


def window_claim(by_window) -> dict:
    """Whether a wider page window lets more through, for either judge (window 0 against the widest)."""
    wm = (float(by_window["marker"].iloc[0]), float(by_window["marker"].iloc[-1]))
    wo = (float(by_window["overlap"].iloc[0]), float(by_window["overlap"].iloc[-1]))
    widest = by_window.index[-1]
    return {"condition": wm[1] > wm[0] or wo[1] > wo[0], "name": "window_widens",
            "text_if_true": (f"A wider window lets more through: window 0 → {widest} moves the marker judge from "
                             f"{wm[0]:.3f} to {wm[1]:.3f} and the overlap judge from {wo[0]:.3f} to {wo[1]:.3f}."),
            "text_if_false": (f"Here a wider window changes nothing: window 0 → {widest} leaves the marker judge at "
                              f"{wm[0]:.3f} and the overlap judge at {wo[0]:.3f}."),
            "figures": {"marker": list(wm), "overlap": list(wo)}}


def audit_claim(audit) -> dict:
    """The page audit of a log shifted by +1: it names the offset and the option that fixes it."""
    names_fix = audit.warning is not None and "--page-base 1" in audit.warning
    return {"condition": audit.offset == 1 and names_fix, "headline": True, "name": "audit_names_fix",
            "text_if_true": f"**The audit names the mistake and its fix**: {audit.warning}",
            "text_if_false": (f"The audit found no constant offset in the shifted log ({int(audit.counts['+1'])} of "
                              f"{audit.located} located items one page off)."),
            "figures": {"offset": audit.offset, "plus_one": int(audit.counts["+1"]), "located": audit.located,
                        "names_fix": names_fix}}


def footer_setup(corpus, retriever: str, depth: int) -> tuple:
    """The sample corpus with a running footer ``<title> <page>`` on every page, retrieved one page per chunk (as a
    PDF reader returning one text per page gives them) ``depth`` deep. Returns ``(furnished, golden, logged, index)``:
    the corpus, its golden set, the run with each item's text and pages, and its page index."""
    from rag_metrics.experiment.rulers import pages_as_chunks, with_running_text
    from rag_metrics.io.golden import load_golden
    from rag_metrics.judging.page_index import PageIndex
    from rag_metrics.retrieval.retrievers import make_retriever

    furnished = with_running_text(corpus)
    golden = load_golden(corpus=furnished, sample=True)
    page_chunks = pages_as_chunks(furnished)
    run = make_retriever(retriever, page_chunks).search(golden.labelled.reset_index(), depth)
    logged = run.merge(page_chunks[["chunk_id", "text", "start_page", "end_page"]], on="chunk_id")
    logged["pages"] = [tuple(range(a, b + 1)) for a, b in zip(logged["start_page"], logged["end_page"])]
    return furnished, golden, logged, PageIndex(furnished)
