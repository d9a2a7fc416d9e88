"""The claims of notebook 03 (marker vs overlap judging) that depend on the fragment length F: chosen here and tested.

The overlap judge credits a chunk when a fragment of at least F characters of its normalized text occurs on a gold
page. A chunk shorter than F can share no such fragment, whatever its content: at an F longer than every chunk, the
judge credits nothing *by construction*. That is a case the parameters make impossible, not a finding about the chunks
-- these functions say so instead of explaining a zero as "chunks that share only part of a page fail".

Each claim is the keyword arguments of :func:`rag_metrics.report.kernel.claim`; both texts are true sentences of their
case.
"""

from __future__ import annotations

from ..text import normalize

__all__ = ["longest_fragment", "f_fits", "ruler_claims", "f_curve_claims"]


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


def ruler_claims(*, marker: float, overlap: float, document: float, k: int, n_eval: int, min_chars: int,
                 window: int, longest: int, failed_by_overlap: int) -> list:
    """Notebook 03's headline (changing only the ruler moves page hit@k) and the overlap judge's strictness at a
    large F, told apart from an F no chunk can reach."""
    fits = f_fits(min_chars, longest)
    moved = round((overlap - marker) * n_eval)
    figures = {"marker": marker, "overlap": overlap, "document": document, "moved": moved, "n_eval": n_eval,
               "min_chars": min_chars, "longest": longest}
    headline = {
        "condition": overlap > marker, "headline": True, "name": "ruler_moves_figure", "figures": figures,
        "text_if_true": f"**Same index, same run: changing only the ruler moves page hit@{k} from {marker:.3f} "
                        f"(marker) to {overlap:.3f} (overlap, F={min_chars}, window {window})**, {moved} of {n_eval} "
                        f"questions; the document judge, which ignores pages, gives {document:.3f} -- the ceiling of "
                        "both.",
        "text_if_false": (f"Here the overlap judge is not more lenient than the marker judge: page hit@{k} is "
                          f"{marker:.3f} by marker and {overlap:.3f} by overlap (F={min_chars}, window {window}); the "
                          f"document judge gives {document:.3f}." if fits else
                          f"{_beyond(min_chars, longest)}. The two rulers cannot be compared at this F: page hit@{k} "
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
    return [headline, strict, only_marker]


def f_curve_claims(by_f: dict, *, k: int, n_eval: int, longest: int) -> list:
    """The claims of the F curve (``by_f``: ``{F: page hit@k}``): flat between F=16 and F=48, and what its two
    extremes mean -- an F beyond every chunk is named as such, not read as chunks failing."""
    fs = sorted(by_f)
    near = [by_f[f] for f in fs if 16 <= f <= 48]
    low, high = min(near), max(near)
    spread = round((high - low) * n_eval)
    flat = {
        "condition": spread <= 1, "name": "flat_between_16_and_48",
        "figures": {"low": low, "high": high, "spread": spread, "n_eval": n_eval},
        "text_if_true": f"Between F=16 and F=48 page hit@{k} moves by at most one question (it stays between {low:.3f} "
                        f"and {high:.3f}): "
                        "the curve is flat there -- the sign of a sound setting; a result should not hinge on the "
                        "exact F.",
        "text_if_false": f"Between F=16 and F=48 page hit@{k} ranges from {low:.3f} to {high:.3f}, {spread} questions: "
                         "with these chunks the result depends on F, so report F with every figure and check the "
                         "chunks it fails."}
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
        "text_if_true": f"At the extremes, F={small_f} gives {small:.3f} (chance matches of common phrases count) and "
                        f"F={large_f} gives {large:.3f} (chunks sharing only part of a page fail: the longest chunk "
                        f"holds {longest} characters).",
        "text_if_false": false_text}
    return [flat, extremes]
