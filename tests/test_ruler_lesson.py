"""Notebook 03's F-dependent sentences (rag_metrics.report.ruler_lesson): an F longer than every chunk is named as a
case the parameters make impossible, never explained as chunks failing; each side of F = longest chunk."""

import pytest

from rag_metrics.report.ruler_lesson import f_curve_claims, f_fits, longest_fragment, ruler_claims


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


def rulers(min_chars, longest, marker=0.8, overlap=0.0):
    return by_name(ruler_claims(marker=marker, overlap=overlap, document=0.9, k=3, n_eval=50, min_chars=min_chars,
                                window=0, longest=longest, failed_by_overlap=7))


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
    assert not c["marker_only"]["condition"]


def curve(by_f, longest):
    return by_name(f_curve_claims(by_f, k=3, n_eval=50, longest=longest))


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
    assert c["flat_between_16_and_48"]["condition"]  # 0.02 x 50 = 1 question: flat
    same = curve({8: 0.9, 16: 0.9, 24: 0.9, 48: 0.86, 192: 0.9}, longest=300)
    assert "hardly matters" in shown(same["extremes_of_f"])
    assert not same["flat_between_16_and_48"]["condition"] and "2 questions" in shown(same["flat_between_16_and_48"])


@pytest.mark.parametrize("by_f", [{16: 0.985, 24: 0.970, 48: 0.954}, {16: 0.954, 24: 0.970, 48: 0.985}])
def test_f_curve_sentence_gives_no_direction_it_does_not_know(by_f):
    """The spread between F=16 and F=48 is min to max whichever F holds which: a falling curve is never read as
    'moves from the lower to the higher value' (the newcomer review found 0.954 -> 0.985 printed for a fall)."""
    flat = next(c for c in f_curve_claims(by_f, k=3, n_eval=65, longest=300) if c["name"] == "flat_between_16_and_48")
    assert flat["condition"] is False  # 0.031 of 65 questions: two questions
    assert "ranges from 0.954 to 0.985, 2 questions" in flat["text_if_false"]
    assert "moves from" not in flat["text_if_false"]


def test_f_curve_flat_window_includes_f_16_itself():
    """F=16 is inside 'between F=16 and F=48': its 0.5 against 0.9 at 32 and 48 makes the curve not flat."""
    flat = next(c for c in f_curve_claims({16: 0.5, 32: 0.9, 48: 0.9}, k=3, n_eval=10, longest=300)
                if c["name"] == "flat_between_16_and_48")
    assert flat["condition"] is False and flat["figures"]["spread"] == 4
