"""The mutants of the independent audit M (docs/mutant_audit.md) that their modules' own tests let through, each now
pinned at the input the auditor named -- tests written after the audit was replayed, so they do not count in its
score."""

import argparse
import json

import numpy as np
import pandas as pd
import pytest

from rag_metrics.cli import options
from rag_metrics.experiment.compare import comparison_table
from rag_metrics.io.golden import load_golden


@pytest.mark.parametrize("text, labelled", [("TRUE", True), (" True ", True), ("true", True), ("FALSE", False),
                                            ("False", False)])
def test_m03_labelled_as_text_is_read_in_any_case(tmp_path, text, labelled):
    row = {"question_id": "q1", "question": "What?", "gold_docs": ["expense_policy"] if labelled else [],
           "gold_pages": [], "answer": None, "labelled": text}
    path = tmp_path / "golden.jsonl"
    path.write_text(json.dumps(row) + "\n", encoding="utf-8")
    golden = load_golden(path)
    assert bool(golden.questions.at["q1", "labelled"]) is labelled


def test_m22_evaluated_counts_only_the_questions_a_measure_is_defined_on():
    base = pd.Series([1, 0, np.nan, 1, 1, 0], dtype=float)
    new = pd.Series([1, 1, np.nan, 1, 0, np.nan], dtype=float)
    table = comparison_table({"base": {"recall": base}, "new": {"recall": new}}, n_resamples=200)
    assert table.at[("base", "recall"), "evaluated"] == 5 and table.at[("new", "recall"), "evaluated"] == 4
    assert table.at[("base", "recall"), "mean"] == pytest.approx(3 / 5)
    assert table.at[("new", "recall"), "mean"] == pytest.approx(3 / 4)


def test_m29_the_judges_page_window_defaults_to_the_documented_one():
    parser = argparse.ArgumentParser()
    options.ruler(parser, judge_help="the judge")
    assert parser.parse_args([]).window == 1
    assert parser.parse_args(["--window", "0"]).window == 0
    assert "(default 1)" in parser.format_help()
