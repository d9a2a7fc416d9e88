"""Notebook 02's sentences chosen in the package (rag_metrics.lab.grid_lesson): flatness read per cutoff, never
from one cutoff for all; each claim's shown text true of its figures, on each side of the two-question line."""

from types import SimpleNamespace

import pandas as pd
import pytest

from rag_metrics.lab.grid_lesson import cheapest_at_best, cutoff_spreads, grid_claims, grid_parameters

N = 20  # questions: one question = 0.05 of recall


def grid(answers: dict):
    """A grid: ``{k: {size: number of the N questions answered (recall 1, the rest 0)}}``; context = size × k."""
    per_question = pd.DataFrame([{"question_id": f"q{i:02d}", "size": s, "overlap": 0, "k": k,
                                  "recall": float(i < hits)}
                                 for k, by_size in answers.items() for s, hits in by_size.items() for i in range(N)])
    summary = (per_question.groupby(["size", "overlap", "k"], as_index=False)["recall"].mean()
               .assign(context_chars=lambda t: t["size"] * t["k"]))
    return summary, per_question


MISSES = SimpleNamespace(gold=10, missed=5, cross_language=5, cannot_fit=0, avoidable=5, avoidable_cross_language=5,
                         table=pd.DataFrame({"cross_language": [True] * 5}))


def claims_of(answers, k=3, misses=MISSES):
    summary, per_question = grid(answers)
    found = grid_claims(summary, per_question, misses, n_eval=N, compare=(400, 0, k), retriever="bm25")
    return {c["name"]: c for c in found}


def shown(c):
    return c["text_if_true"] if c["condition"] else c["text_if_false"]


def test_spreads_show_ties_and_correct_for_picking_the_extremes():
    """Nested answers: the better configuration wins every question that differs, so each pair's exact sign test is
    2 / 2^m. At k=10, 800 vs 200 differ on 6 questions (uncorrected p = 0.03125, beyond noise) but 800 vs 400 and 400
    vs 200 on 3 (p = 0.25): Holm over the 3 pairs gives 3 × 0.03125 = 0.09375 -- within noise once the selection is
    paid for. Ties list every configuration; the ratio divides the cheapest best by the dearest worst."""
    s = cutoff_spreads(*grid({1: {200: 10, 400: 12, 800: 11}, 3: {200: 10, 400: 10, 800: 15},
                              10: {200: 10, 400: 13, 800: 16}, 5: {200: 9, 400: 9, 800: 9}}), N)
    assert s["questions"].round(9).to_dict() == {1: 2.0, 3: 5.0, 5: 0.0, 10: 6.0}
    assert s["p_raw"].round(5).to_dict() == {1: 0.5, 3: 0.0625, 5: 1.0, 10: 0.03125}
    assert s["p"].round(5).to_dict() == {1: 1.0, 3: 0.1875, 5: 1.0, 10: 0.09375}
    assert s["flat"].to_dict() == {1: True, 3: True, 5: True, 10: True}
    assert s["pairs"].tolist() == [3, 3, 3, 3]
    assert s.loc[3, ["best", "worst", "cheapest_best", "dearest_worst"]].tolist() == ["800/0", "200/0, 400/0",
                                                                                      "800/0", "400/0"]
    assert s.loc[5, ["best", "worst", "cheapest_best", "dearest_worst"]].tolist() == [
        "200/0, 400/0, 800/0", "200/0, 400/0, 800/0", "200/0", "800/0"]
    assert s["context_ratio"].round(9).to_dict() == {1: 2.0, 3: 2.0, 5: 0.25, 10: 4.0}
    at_10 = cutoff_spreads(*grid({3: {200: 10, 400: 10, 800: 15}}), N, alpha=0.2)  # the level is the caller's
    assert not at_10.at[3, "flat"] and at_10.at[3, "p"] == pytest.approx(0.1875)


def test_within_noise_at_every_cutoff_names_the_context_gap():
    c = claims_of({1: {200: 10, 400: 11, 800: 10}, 3: {200: 10, 400: 10, 800: 12}})["grid_flat"]
    assert c["condition"] and "**No cutoff picks a chunking**" in shown(c)
    assert shown(c).startswith("Picking the best and the worst after looking")
    assert ("k=3: 800/0 vs 200/0, 400/0, 2.0 questions' worth, uncorrected p = 0.500, smallest Holm-adjusted p = "
            "1.000") in shown(c)
    assert "Holm-adjusted over the 3 pairs of each k" in shown(c)
    assert ("at k=3 the cheapest of the best (800/0) hands the LLM 2.0× the context characters of the dearest of the "
            "worst (400/0)") in shown(c)


def test_beyond_noise_uncorrected_but_not_after_holm_is_within_noise():
    """The notebook's own case: best against worst p = 0.031 < 0.05, but not once every pair is counted."""
    c = claims_of({10: {200: 10, 400: 13, 800: 16}}, k=10)["grid_flat"]
    assert c["condition"] and "uncorrected p = 0.031, smallest Holm-adjusted p = 0.094" in shown(c)


def test_beyond_noise_after_holm_at_one_cutoff_says_so_with_the_context():
    cs = claims_of({2: {200: 10, 400: 11, 800: 10}, 10: {200: 4, 400: 10, 800: 16}}, k=2)
    c = cs["grid_flat"]
    assert not c["condition"] and c["text_if_true"] == ""
    assert "**At k = 10 some pair of configurations differs beyond noise even so** (k=10: 800/0 vs 200/0, 12.0" in shown(c)
    assert "but at k=10 the cheapest of the best (800/0) hands the LLM 4.0×" in shown(c)
    assert "At k = 2 no pair differs beyond noise" in shown(c)
    lever = cs["lever_is_multilingual"]  # the headline speaks of its own k, where the grid is within noise
    assert lever["condition"] and shown(lever).startswith("**At k=2 no chunking wins")
    assert "all cross-language gold** (5 of 5)" in shown(lever) and lever["figures"]["flat"]


def test_beyond_noise_at_the_compared_k_is_a_reason_against_the_lever():
    cs = claims_of({3: {200: 4, 400: 10, 800: 17}})
    assert not cs["lever_is_multilingual"]["condition"]
    assert "at k=3 some pair of configurations differs beyond noise (every pair tested, Holm-adjusted: smallest " \
           "adjusted p < 0.001)" in shown(cs["lever_is_multilingual"])


def test_lever_reasons_when_misses_are_few_or_not_cross_language():
    flat = {3: {200: 10, 400: 10, 800: 10}}
    few = SimpleNamespace(**{**vars(MISSES), "missed": 2, "avoidable": 2, "avoidable_cross_language": 2})
    assert "only 2 misses" in shown(claims_of(flat, misses=few)["lever_is_multilingual"])
    mixed = SimpleNamespace(**{**vars(MISSES), "avoidable_cross_language": 2})
    assert "2 are sure to be cross-language -- not most" in shown(claims_of(flat, misses=mixed)["lever_is_multilingual"])
    mostly = SimpleNamespace(**{**vars(MISSES), "avoidable_cross_language": 4})
    assert "mostly cross-language gold** (4 of 5)" in shown(claims_of(flat, misses=mostly)["lever_is_multilingual"])
    none = SimpleNamespace(**{**vars(MISSES), "missed": 0, "cross_language": 0, "avoidable": 0,
                              "avoidable_cross_language": 0, "table": pd.DataFrame({"cross_language": []})})
    cs = claims_of(flat, misses=none)
    assert shown(cs["misses_by_language"]).startswith("No gold document is missed")
    assert not cs["cannot_fit"]["condition"] and shown(cs["cannot_fit"]) is None


def test_label_1_misses_are_named_only_when_there_are_some():
    graded = SimpleNamespace(**{**vars(MISSES), "table": pd.DataFrame({"cross_language": [True] * 5,
                                                                        "relevance": [1, 1, 2, 1, 2]})})
    text = shown(claims_of({3: {200: 10}}, misses=graded)["misses_by_language"])
    assert "; 3 of them are lower-graded gold (label 1), and Recall@k charges for missing" in text
    top = SimpleNamespace(**{**vars(MISSES), "table": pd.DataFrame({"cross_language": [True] * 5,
                                                                     "relevance": [2] * 5})})
    text = shown(claims_of({3: {200: 10}}, misses=top)["misses_by_language"])
    assert text.endswith("than their question.") and "label 1" not in text


def _at_k(rows):
    return pd.DataFrame(rows, columns=["size", "overlap", "recall", "context_chars"])


def test_cheapest_at_best_compares_every_tied_best_not_one_chosen_row():
    c = cheapest_at_best(_at_k([(200, 100, 0.80, 592), (200, 0, 0.826, 593), ("heading", None, 0.826, 680),
                                (800, 100, 0.826, 2255)]), 3)
    assert c["condition"] and c["figures"]["tied"] == 3
    assert c["text_if_true"].startswith("3 configurations tie at the highest Recall@3, 0.826 (200/0, heading, 800/100)")
    assert "the cheapest, 200/0, hands the LLM 593 context characters, the dearest, 800/100, 2255" in c["text_if_true"]
    alone = cheapest_at_best(_at_k([(200, 0, 0.80, 593), (800, 0, 0.826, 2255)]), 3)
    assert not alone["condition"] and alone["text_if_false"].startswith("Only 800/0 reaches the highest Recall@3")


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


def test_the_committed_notebook_shows_the_context_gap_at_its_defaults():
    """The lesson is visible at the default parameters: the committed notebook 02 tests best against worst at every
    cutoff, and where they differ most the best configuration reads at least twice the context characters."""
    from pathlib import Path

    from rag_metrics.report.kernel import claims

    path = Path(__file__).resolve().parent.parent / "notebooks" / "02_chunking_grid.ipynb"
    flat = next(c for c in claims(path) if c["name"] == "grid_flat")
    f = flat["figures"]
    widest = max(f["spread"], key=f["spread"].get)
    assert f["context_ratio"][widest] >= 2, f
    assert "the chunk size also sets how much text the LLM reads" in flat["shown"]
    assert min(f["p_raw"].values()) < 0.05 <= min(f["p"].values()), "the default shows what the selection costs"
