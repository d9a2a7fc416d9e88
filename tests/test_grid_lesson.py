"""Notebook 02's sentences chosen in the package (rag_metrics.report.grid_lesson): flatness read per cutoff, never
from one cutoff for all; each claim's shown text true of its figures, on each side of the two-question line."""

from types import SimpleNamespace

import pandas as pd
import pytest

from rag_metrics.report.grid_lesson import FLAT_QUESTIONS, cutoff_spreads, grid_claims, grid_parameters

N = 50  # questions: one question = 0.02 of recall


def summary(recalls: dict) -> pd.DataFrame:
    """A grid summary: ``{k: [recall of each configuration]}``."""
    return pd.DataFrame([{"size": s, "overlap": 0, "k": k, "recall": r}
                         for k, values in recalls.items() for s, r in zip((200, 400, 800), values)])


MISSES = SimpleNamespace(gold=10, missed=5, cross_language=5, cannot_fit=0, avoidable=5, avoidable_cross_language=5,
                         table=pd.DataFrame({"cross_language": [True] * 5}))


def claims_of(recalls, k=3, misses=MISSES):
    found = grid_claims(summary(recalls), misses, n_eval=N, compare=(400, 0, k), retriever="bm25")
    return {c["name"]: c for c in found}


def shown(c):
    return c["text_if_true"] if c["condition"] else c["text_if_false"]


def test_spreads_per_cutoff_and_the_two_question_line():
    s = cutoff_spreads(summary({1: [0.5, 0.54, 0.52], 3: [0.5, 0.5, 0.5], 10: [0.5, 0.56, 0.6]}), N)
    assert s["spread"].round(9).to_dict() == {1: 0.04, 3: 0.0, 10: 0.1}
    assert s["flat"].to_dict() == {1: True, 3: True, 10: False}  # 2 questions is flat (the boundary), 5 is not
    assert s["questions"].round(9).to_dict() == {1: 2.0, 3: 0.0, 10: 5.0}
    assert FLAT_QUESTIONS == 2


def test_flat_at_every_cutoff():
    c = claims_of({1: [0.5, 0.52, 0.5], 3: [0.7, 0.7, 0.74]})["grid_flat"]
    assert c["condition"] and "flat at every cutoff" in shown(c) and "k=3: 0.040 (2.0 questions)" in shown(c)


def test_flat_at_the_compared_k_but_not_at_another_is_not_called_flat():
    """The error kind of issue 33: a grid called flat at k=2 while at k=10 the spread is 0.17."""
    cs = claims_of({2: [0.6, 0.62, 0.6], 10: [0.7, 0.8, 0.87]}, k=2)
    c = cs["grid_flat"]
    assert not c["condition"] and c["text_if_true"] == ""
    assert "flat at k = 2" in shown(c) and "not at k = 10" in shown(c) and "k=10: 0.170 (8.5 questions)" in shown(c)
    lever = cs["lever_is_multilingual"]  # the headline speaks of its own k, where the grid is flat
    assert lever["condition"] and shown(lever).startswith("**At k=2 the grid is flat")
    assert lever["figures"]["flat"] and lever["figures"]["spread"] == pytest.approx(0.02)


def test_flat_nowhere_and_the_lever_names_its_k():
    cs = claims_of({1: [0.4, 0.5, 0.6], 3: [0.5, 0.6, 0.7]})
    assert "not flat at any cutoff" in shown(cs["grid_flat"])
    assert not cs["lever_is_multilingual"]["condition"]
    assert "at k=3 the grid is not flat (10.0 questions" in shown(cs["lever_is_multilingual"])


def test_just_above_two_questions_is_not_flat():
    c = claims_of({3: [0.5, 0.5, 0.5 + 2.5 / N]})["grid_flat"]
    assert not c["condition"] and "not flat at any cutoff" in shown(c)


def test_lever_reasons_when_misses_are_few_or_not_cross_language():
    few = SimpleNamespace(**{**vars(MISSES), "missed": 2, "avoidable": 2, "avoidable_cross_language": 2})
    assert "only 2 misses" in shown(claims_of({3: [0.5, 0.5, 0.5]}, misses=few)["lever_is_multilingual"])
    mixed = SimpleNamespace(**{**vars(MISSES), "avoidable_cross_language": 2})
    assert "2 are sure to be cross-language -- not most" in shown(
        claims_of({3: [0.5, 0.5, 0.5]}, misses=mixed)["lever_is_multilingual"])
    none = SimpleNamespace(**{**vars(MISSES), "missed": 0, "cross_language": 0, "avoidable": 0,
                              "avoidable_cross_language": 0, "table": pd.DataFrame({"cross_language": []})})
    cs = claims_of({3: [0.5, 0.5, 0.5]}, misses=none)
    assert shown(cs["misses_by_language"]).startswith("No gold document is missed")
    assert not cs["cannot_fit"]["condition"] and shown(cs["cannot_fit"]) is None


def test_exactly_half_the_avoidable_misses_cross_language_is_not_most():
    """2 of 4 avoidable misses cross-language is half, not most: the lever claim is false and says why."""
    half = SimpleNamespace(**{**vars(MISSES), "missed": 4, "avoidable": 4, "avoidable_cross_language": 2})
    lever = claims_of({3: [0.5, 0.5, 0.5]}, misses=half)["lever_is_multilingual"]
    assert lever["condition"] is False
    assert "of the 4 misses a better ranking could avoid, 2 are sure to be cross-language -- not most" in shown(lever)


@pytest.mark.parametrize("bad, message", [
    ({"sizes": "[300, 'x']"}, "sizes must be a list of ints"), ({"ks": []}, "ks must be a list of ints"),
    ({"retriever": "bm26"}, "retriever must be one of"), ({"compare_k": 7}, "must be in the grid"),
    ({"compare_overlap": 400, "overlaps": [400]}, "must be smaller than compare_size"),
])
def test_parameters_refused_with_what_was_expected(bad, message):
    params = {"sizes": [400], "overlaps": [0], "ks": [3], "retriever": "bm25", "compare_size": 400,
              "compare_overlap": 0, "compare_k": 3, **bad}
    with pytest.raises(ValueError, match=message):
        grid_parameters(**params)


def test_parameters_read_from_text():
    assert grid_parameters("[600, 300, 300]", 0, [3], "bm25", 300, 0, 3) == ([300, 600], [0], [3])


def test_the_committed_notebook_shows_a_flat_and_a_spread_cutoff_at_its_defaults():
    """The lesson "a grid flat at one k may not be at another" is visible at the default parameters: the committed
    notebook 02 reads at least one cutoff flat and at least one not (with ks = [1, 3, 5] every cutoff was flat)."""
    from pathlib import Path

    from rag_metrics.report.kernel import claims

    path = Path(__file__).resolve().parent.parent / "notebooks" / "02_chunking_grid.ipynb"
    flat = next(c for c in claims(path) if c["name"] == "grid_flat")
    questions = [spread * flat["figures"]["n_eval"] for spread in flat["figures"]["spreads"].values()]
    assert min(questions) <= FLAT_QUESTIONS < max(questions), questions
    assert not flat["holds"] and "but **not at k = " in flat["shown"]
