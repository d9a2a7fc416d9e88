"""Notebook 03's F-dependent sentences (rag_metrics.lab.ruler_lesson): an F longer than every chunk is named as a
case the parameters make impossible, never explained as chunks failing; each side of F = longest chunk."""

import pytest

import pandas as pd

from rag_metrics.lab.ruler_lesson import (f_curve_claims, f_fits, footer_claim, gap_claims, longest_fragment,
                                             near_f, ruler_claims)


def shown(c):
    return c["text_if_true"] if c["condition"] else c["text_if_false"]


def by_name(claims):
    return {c["name"]: c for c in claims}


def test_longest_fragment_is_the_longest_normalized_text():
    assert longest_fragment(["[p.3]\nab  cd", "１２３４５", None]) == 5  # marker dropped, spaces collapsed, NFKC
    assert longest_fragment([]) == 0


@pytest.mark.parametrize("f, longest, fits", [(299, 300, True), (300, 300, True), (301, 300, False)])
def test_f_fits_on_each_side_of_the_longest_chunk(f, longest, fits):
    assert f_fits(f, longest) is fits


def rulers(min_chars, longest, marker=0.8, overlap=0.0, document=0.9):
    return by_name(ruler_claims(marker=marker, overlap=overlap, document=document, k=3, n_eval=50,
                                min_chars=min_chars, window=0, longest=longest, failed_by_overlap=7, failed_by_marker=2,
                                chunking="300/50"))


def test_an_f_beyond_every_chunk_is_named_not_called_strict():
    c = rulers(192, 150)
    assert not c["ruler_moves_figure"]["condition"]
    assert "longer than every chunk here (the longest holds 150" in shown(c["ruler_moves_figure"])
    assert "cannot be compared at this F" in shown(c["ruler_moves_figure"])
    assert not c["large_f_is_strict"]["condition"] and shown(c["large_f_is_strict"]) is None


def test_a_large_f_within_the_chunks_is_strict():
    c = rulers(192, 300, overlap=0.6)
    assert shown(c["ruler_moves_figure"]).startswith("Here the overlap judge is not more lenient")
    assert c["large_f_is_strict"]["condition"] and "makes the overlap judge strict" in shown(c["large_f_is_strict"])
    assert c["marker_only"]["condition"] and shown(c["marker_only"]).startswith("7 top-3 chunk(s)")


def test_the_headline_when_overlap_is_more_lenient():
    c = rulers(24, 300, marker=0.6, overlap=0.9)
    assert c["ruler_moves_figure"]["condition"] and c["ruler_moves_figure"]["headline"]
    assert "15 of 50 questions" in shown(c["ruler_moves_figure"])
    assert "changing only the judge moves page hit@3" in shown(c["ruler_moves_figure"])
    assert not c["marker_only"]["condition"]
    # neither agreement sentence is printed when the judges differ
    assert shown(c["both_at_ceiling"]) is None and shown(c["few_markers_lost"]) is None


def test_agreement_sentences_only_where_they_hold():
    """The two sentences a newcomer read as false text in the old cell: printed only on their own side."""
    ceiling = rulers(24, 300, marker=0.9, overlap=0.9, document=0.9)
    assert ceiling["both_at_ceiling"]["condition"] and "Both judges reach the document ceiling (0.900)" in shown(
        ceiling["both_at_ceiling"])
    assert shown(ceiling["few_markers_lost"]) is None  # at the ceiling the 'few' sentence is not also printed
    few = rulers(24, 300, marker=0.8, overlap=0.8, document=0.9)
    assert shown(few["few_markers_lost"]).startswith("Only 2 top-3 chunk(s)") and shown(few["both_at_ceiling"]) is None
    assert shown(rulers(96, 300, marker=0.8, overlap=0.8)["few_markers_lost"]) is None  # F above 48: not 'few'


def gaps(m0, m1, o0, o1, fits=True):
    return by_name(gap_claims(m0=m0, m1=m1, o0=o0, o1=o1, n_eval=50, fits=fits, min_chars=24, longest=300,
                              mid_page=0.9, size=300))


def test_both_changes_with_their_sizes_whichever_is_larger():
    """The default notebook's case: the judge alone moves hit@3 more than the window alone; the sentence names both
    sizes and their overlap, never 'much of the gap is the window'."""
    c = gaps(0.56, 0.80, 0.92, 0.96)["both_changes_overlap"]
    assert c["condition"] and "(+0.240, 12 questions)" in shown(c) and "(+0.360, 18 questions)" in shown(c)
    assert "less than the +0.600 of the two alone" in shown(c) and "much of" not in shown(c).lower()
    assert "0.200 (10 questions) is counted by both changes" in shown(c)  # 0.24 + 0.36 - 0.40, of 50 questions


def test_changes_that_add_up_or_one_that_does_nothing_are_not_called_overlapping():
    add = gaps(0.5, 0.6, 0.7, 0.8)["both_changes_overlap"]  # +0.1 and +0.2 alone, +0.3 together: no overlap
    assert not add["condition"] and shown(add).startswith("Alone, widening the marker judge's window to ±1 moves "
                                                          "hit@3 by +0.100 and changing the judge at window 0 by +0.200")
    assert not gaps(0.5, 0.5, 0.7, 0.6)["both_changes_overlap"]["condition"]  # the window alone moves nothing
    beyond = gaps(0.5, 0.6, 0.0, 0.0, fits=False)["both_changes_overlap"]
    assert not beyond["condition"] and "cannot be told apart" in shown(beyond)


def test_source_direction_on_each_side_and_beyond_the_chunks():
    assert shown(gaps(0.5, 0.6, 0.7, 0.52)["source_direction"]).startswith(
        "As in the source, content overlap with a ±1 window scores above markers matched on the page itself: "
        "0.500 → 0.520 here (+0.020 = 1 of 50 questions)")
    same = gaps(0.5, 0.6, 0.7, 0.5)["source_direction"]
    assert not same["condition"] and shown(same).endswith("(the source: 0.69 → 0.775).")
    beyond = gaps(0.5, 0.6, 0.0, 0.0, fits=False)["source_direction"]
    assert not beyond["condition"] and "the comparison cannot be made at this F" in shown(beyond)


def test_gap_against_the_source_on_each_side():
    assert gaps(0.5, 0.6, 0.7, 0.6)["gap_vs_source"]["condition"]  # +0.100 > +0.085
    assert not gaps(0.5, 0.52, 0.55, 0.58)["gap_vs_source"]["condition"]  # +0.080


def test_footer_sentence_on_each_side():
    c = footer_claim(kept=0.96, default=0.9, n_eval=50, min_chars=24, longest_footer=40)
    assert c["condition"] and "credits 3 more question(s) at hit@1" in shown(c)
    c = footer_claim(kept=0.9, default=0.9, n_eval=50, min_chars=48, longest_footer=40)
    assert not c["condition"] and "48 characters is longer than any footer line (the longest has 40)" in shown(c)
    c = footer_claim(kept=0.9, default=0.9, n_eval=50, min_chars=40, longest_footer=40)
    assert shown(c) == "Here keeping the footer credits nothing more at hit@1 (0.900 either way)."


def curve(by_f, longest, answers=None, min_chars=24):
    return by_name(f_curve_claims(by_f, k=3, n_eval=50, longest=longest, min_chars=min_chars, answers=answers))


def nested(hits, n=50):
    """Per-question page hit@3 of a curve: ``{F: questions hit}``, the first ``hits`` questions hit (nested sets, so
    every question that differs between two F goes the same way: the exact sign test decides)."""
    return {f: pd.Series([float(i < h) for i in range(n)], index=[f"q{i}" for i in range(n)]) for f, h in hits.items()}


def test_f_curve_beyond_the_chunks_says_by_construction():
    """The error kind of issue 33: F=192 with 150-character chunks "fails chunks that share part of a page"."""
    c = curve({8: 0.9, 16: 0.9, 24: 0.88, 48: 0.88, 192: 0.0}, longest=150)["extremes_of_f"]
    assert not c["condition"] and c["figures"]["beyond"] == [192]
    assert "F = 192 is longer than every chunk" in shown(c) and "by construction" in shown(c)
    assert "sharing only part of a page" not in shown(c)
    two = curve({8: 0.9, 16: 0.9, 24: 0.88, 48: 0.88, 96: 0.0, 192: 0.0}, longest=90)["extremes_of_f"]
    assert "F = 96, 192 are longer than every chunk" in shown(two)


def test_f_curve_within_the_chunks():
    c = curve({8: 0.9, 16: 0.9, 24: 0.88, 48: 0.88, 192: 0.5}, longest=300)
    assert c["extremes_of_f"]["condition"] and "sharing only part of a page fail" in shown(c["extremes_of_f"])
    assert "counts only when 192 of its at most 300 characters lie, in one piece, on a gold page" \
        in shown(c["extremes_of_f"])
    same = curve({8: 0.9, 16: 0.9, 24: 0.9, 48: 0.86, 192: 0.9}, longest=300)
    assert "hardly matters" in shown(same["extremes_of_f"])


@pytest.mark.parametrize("hits, p, holds", [
    ({16: 45, 24: 43, 48: 43}, "p = 0.500", True),     # 2 questions: within noise (the notebook's default case)
    ({16: 45, 24: 40, 48: 40}, "p = 0.062", True),     # 5 of 5 one way: 2/2^5 = 0.0625, still within noise
    ({16: 46, 24: 40, 48: 40}, "p = 0.031", False),    # 6 of 6 one way: 2/2^6 = 0.03125, beyond noise
])
def test_f_curve_flatness_is_the_paired_test(hits, p, holds):
    """One noise rule with notebook 02: a change of a few questions between F=16 and F=48 is called a dependence on
    F only when the exact paired test on the same questions says so."""
    c = curve({f: h / 50 for f, h in hits.items()}, longest=300, answers=nested(hits))["flat_near_f"]
    assert c["condition"] is holds and p in shown(c)
    assert ("within noise" in shown(c)) is holds and ("depends on F" in shown(c)) is not holds


def test_f_curve_sentence_gives_no_direction_it_does_not_know():
    """The spread around F is min to max whichever F holds which: a falling curve is never read as 'moves from the
    lower to the higher value' (the newcomer review found 0.954 -> 0.985 printed for a fall)."""
    for hits in ({16: 64, 24: 63, 48: 62}, {16: 62, 24: 63, 48: 64}):
        flat = curve({f: h / 65 for f, h in hits.items()}, longest=300, answers=nested(hits, 65))
        text = shown(flat["flat_near_f"])
        assert "ranges from 0.954 (F=" in text and "to 0.985 (F=" in text and "moves from" not in text


def test_f_curve_flat_window_includes_the_lower_neighbour():
    """F=16 is a neighbour of F=32: its 5 of 10 against 10 of 10 at 32 and 48 is tested (p = 0.062)."""
    hits = {16: 5, 32: 10, 48: 10}
    flat = next(c for c in f_curve_claims({f: h / 10 for f, h in hits.items()}, k=3, n_eval=10, longest=300,
                                          min_chars=32, answers=nested(hits, 10)) if c["name"] == "flat_near_f")
    assert flat["figures"]["spread"] == 5 and "F=16 against F=32" in flat["text_if_true"]


def test_f_curve_compares_the_notebooks_own_f_with_its_neighbours():
    """Issue 49: at size=800 overlap=0 dense k=5 F=48 the page said 'between F=16 and F=48 ... 0.985 and 0.985
    (paired test of F=16 against F=16)' and 'does not hinge on the exact F' while F=96 dropped to 0.908: the range is
    the chosen F's neighbours (24, 48, 96), a flat range says so without a test of an F against itself."""
    hits = {8: 64, 16: 64, 24: 64, 48: 64, 96: 59, 192: 50}
    c = by_name(f_curve_claims({f: h / 65 for f, h in hits.items()}, k=3, n_eval=65, longest=800, min_chars=48,
                               answers=nested(hits, 65)))["flat_near_f"]
    assert c["figures"]["near"] == [24, 48, 96] and c["figures"]["spread"] == 5
    assert "From F=24 to F=96" in shown(c) and "0.908 (F=96) to 0.985 (F=24)" in shown(c)
    assert "F=96 against F=24" in shown(c) and c["figures"]["p"] == pytest.approx(0.0625)
    same = curve({8: 0.9, 16: 0.9, 24: 0.9, 48: 0.9, 192: 0.5}, longest=300, min_chars=16)["flat_near_f"]
    assert same["condition"] and "page hit@3 is 0.900 at every F" in shown(same) and "paired test" not in shown(same)
    assert same["figures"]["near"] == [8, 16, 24]
    beyond = curve({8: 0.9, 16: 0.9, 192: 0.0}, longest=150, min_chars=192)["flat_near_f"]
    assert beyond["figures"]["near"] == [192] and "longer than every chunk" in shown(beyond)
    assert near_f([8, 16, 24, 48, 96, 192, 400], 400, 300) == [400]
    assert near_f([8, 16, 24, 48, 96, 192], 192, 300) == [96, 192]
