"""Near-duplicate questions: the prefix-filtered search against the all-pairs definition, on random and realistic
question lists, at thresholds where the float arithmetic of the filters is at its edge."""

from __future__ import annotations

import math

import pytest
from hypothesis import assume, example, given, settings
from hypothesis import strategies as st

from rag_metrics.core.errors import InputError
from rag_metrics.golden.flags import _trigrams, near_duplicates
from question_maker import realistic_questions


def _all_similarities(questions) -> list[tuple[int, int, float]]:
    """Every pair (i, j), i < j, ordered by j then i, with its trigram Jaccard similarity (1.0 for two empty sets)."""
    grams = [_trigrams(q) for q in questions]
    out = []
    for j in range(len(grams)):
        for i in range(j):
            union = len(grams[i] | grams[j])
            out.append((i, j, len(grams[i] & grams[j]) / union if union else 1.0))
    return out


def _near_duplicates_pairs_bruteforce(questions, threshold, similarities=None):
    """The definition, pair by pair (what ``near_duplicates`` computed before it filtered on prefixes)."""
    every = _all_similarities(questions) if similarities is None else similarities
    return [(i, j, round(sim, 3)) for i, j, sim in every if sim >= threshold]


THRESHOLDS = [1.0, 0.9, 0.75, 0.7, 0.6, 0.5, 0.4, 1 / 3, 0.3, 0.25, 0.2, 0.1, 0.05]

# short strings over a small alphabet: near-duplicates are frequent, sizes differ by one or two trigrams, and
# spaces, punctuation and case fold away (empty and 1-2 character questions included)
questions_st = st.lists(st.text(alphabet="abcAB .?", max_size=9), max_size=30)


@settings(max_examples=300, deadline=None)
@given(questions=questions_st, threshold=st.one_of(st.sampled_from(THRESHOLDS), st.floats(0.01, 1.0)))
@example(questions=["", "", "a", "ab", " ?", "abc", "abc"], threshold=1.0)
@example(questions=["abcde", "abcdf", "abcd", "bcde"], threshold=0.5)
@example(questions=["aaaa", "aaab", "aabb", "abab", "abba", "bbbb"], threshold=1 / 3)
def test_the_prefix_filtered_search_finds_exactly_the_pairs_of_the_definition(questions, threshold):
    assert near_duplicates(questions, threshold) == _near_duplicates_pairs_bruteforce(questions, threshold)


@settings(max_examples=100, deadline=None)
@given(st.lists(st.text(alphabet="abcdefgh", min_size=3, max_size=40), max_size=25),
       st.sampled_from([0.7, 0.5, 1 / 3, 0.8, 0.9]))
def test_longer_questions_at_usual_thresholds(questions, threshold):
    # with 8 letters, trigram sets of up to 38 members overlap a lot: long prefixes and the position bound at work
    assert near_duplicates(questions, threshold) == _near_duplicates_pairs_bruteforce(questions, threshold)


def _similarities(questions) -> list[float]:
    grams = [_trigrams(q) for q in questions]
    return sorted({len(a & b) / len(a | b) for j, b in enumerate(grams) for a in grams[:j] if a & b})


@settings(max_examples=200, deadline=None)
@given(questions=st.lists(st.text(alphabet="abcdAB?", min_size=1, max_size=12), min_size=2, max_size=20),
       data=st.data())
def test_a_similarity_equal_to_the_threshold_is_never_filtered_out(questions, data):
    # the threshold is one of the list's own similarities (k/u as a float): the filters' ceil(t * size) and the
    # position bound sit exactly at their edge, where an unguarded float product can round up past an integer
    sims = _similarities(questions)
    assume(sims)
    threshold = data.draw(st.sampled_from(sims))
    got = near_duplicates(questions, threshold)
    assert got == _near_duplicates_pairs_bruteforce(questions, threshold)
    assert got  # at least the pair with that similarity


def test_a_subset_at_exactly_the_threshold_is_found_where_float_products_round_up():
    # x: s distinct trigrams; y: k of them (a substring of x), similarity k/s used as the threshold. For some sizes
    # the float product t * s exceeds the integer k (0.28 * 25 = 7.000000000000001): a filter computed with t
    # itself would ask for 8 shared trigrams, or a partner larger than 7, and lose the pair. The shared trigrams are
    # the frequent ones, so they come last in x's order and x's prefix must be exactly as long as it should be.
    chars = [chr(0x4E00 + i) for i in range(64)]  # distinct CJK characters: every trigram is distinct
    rounded_up = 0
    for s in range(1, 46):
        x = "".join(chars[:s + 2])
        for k in range(1, s + 1):
            y = "".join(chars[s - k:s + 2])
            t = k / s
            rounded_up += t * s > k
            assert near_duplicates([x, y], t) == [(0, 1, round(t, 3))], (k, s)
            assert near_duplicates([y, x], t) == [(0, 1, round(t, 3))], (k, s)
            if k < s:  # and the next float above the similarity excludes it
                assert near_duplicates([x, y], math.nextafter(t, 2)) == []
    assert rounded_up >= 10  # 17 sizes up to 45 where t * s > k


def test_empty_questions_are_duplicates_of_each_other_only():
    qs = ["?", "what is it", "", "  ", "what is it?", "!!"]
    got = near_duplicates(qs, 0.9)
    assert got == [(0, 2, 1.0), (0, 3, 1.0), (2, 3, 1.0), (1, 4, 1.0), (0, 5, 1.0), (2, 5, 1.0), (3, 5, 1.0)]
    assert got == _near_duplicates_pairs_bruteforce(qs, 0.9)


def test_the_threshold_is_checked():
    for bad in (0, -0.1, 1.01):
        with pytest.raises(InputError, match=r"threshold must be in \(0, 1\]"):
            near_duplicates(["a", "b"], bad)


def test_a_few_thousand_realistic_questions_give_the_pairs_of_the_definition():
    qs = realistic_questions(2000, seed=7)
    every = _all_similarities(qs)  # computed once for the three thresholds
    for threshold in (0.7, 0.5, 1 / 3):
        got = near_duplicates(qs, threshold)
        assert got == _near_duplicates_pairs_bruteforce(qs, threshold, every)
        assert len(got) > 100  # the edited copies (and phrases of one page) are found
    assert any(sim == 1.0 for *_, sim in got)  # exact duplicates (after folding) among them


def test_a_cjk_title_is_named_by_any_six_character_run_of_it_and_only_a_whole_cjk_run():
    from rag_metrics.golden.flags import _names_document

    title = "経費精算規程集"  # seven characters: two runs of six
    assert _names_document("経費精算規程について教えて", title, None) == "経費精算規程"
    assert _names_document("費精算規程集とは何ですか", title, None) == "費精算規程集"  # the last run
    assert _names_document("費精算規程とは", title, None) is None  # five of them are not enough
    assert _names_document("a経費精算規とは", "A経費精算規程", None) is None  # five CJK and a letter: no run


@pytest.mark.parametrize("page, question", [
    ("###### Deep heading\n", "Deep heading"),            # the sixth heading level
    ("## 1.2.3 Travel claims\n", "Travel claims"),        # numbering of any depth
    ("## Travel claims.\n", "Travel claims"),             # a closing full stop
    ("# 第3章 経費の精算\n", "経費の精算"),
])
def test_a_question_that_copies_a_heading_is_told_whatever_its_level_numbering_or_closing_mark(page, question):
    from rag_metrics.golden.flags import heading_copy

    assert heading_copy(question, page)
    assert not heading_copy(question + " now", page)


def test_underscores_and_punctuation_do_not_count_toward_similarity():
    assert _trigrams("a_b c") == _trigrams("abc") == _trigrams("A-b.C")
