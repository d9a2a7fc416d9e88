"""The report's one formatting layer for tables (rag_metrics.core.html.readable / readable_table), value by value."""

import pandas as pd
import pytest

from rag_metrics.core.html import page_range, readable, readable_table


@pytest.mark.parametrize("pages, shown", [((10,), "10"), ((3, 4), "3–4"), ((4, 3, 5), "3–5"), ((2, 5), "2, 5"),
                                          ((), "-"), ([7], "7")])
def test_pages_read_as_a_person_writes_them(pages, shown):
    assert page_range(pages) == shown


def test_readable_names_columns_and_writes_cells_as_words():
    frame = pd.DataFrame({"question_id": ["q1", "q2"], "pages": [(10,), (3, 4)], "only_boilerplate": [True, False],
                          "made at": ["2026-11-30T20:48:58.859507Z", "2026-11-30T20:48:59+01:00"],
                          "ci_low": [0.25, 0.5], "bm25_c300o50": ["a_b", "c"]}).set_index("question_id")
    out = readable(frame)
    assert list(out.columns) == ["pages", "only page furniture", "made at", "interval low", "bm25_c300o50"]
    assert out.index.name == "question ID"
    assert out["pages"].tolist() == ["10", "3–4"] and out["only page furniture"].tolist() == ["yes", "no"]
    assert out["made at"].tolist() == ["2026-11-30 20:48:58 UTC", "2026-11-30 20:48:59+01:00"]
    assert out["interval low"].tolist() == [0.25, 0.5] and out["bm25_c300o50"].tolist() == ["a_b", "c"]  # data kept
    assert frame["pages"].tolist() == [(10,), (3, 4)]  # the caller's frame is not changed


def test_a_timestamp_keeps_a_negative_utc_offset_and_drops_its_fraction():
    frame = pd.DataFrame({"made at": ["2026-11-30T20:48:59.5-05:00", "2026-11-30 20:48:59-0500", "2026-11-30T20:48"]})
    assert readable(frame)["made at"].tolist() == ["2026-11-30 20:48:59-05:00", "2026-11-30 20:48:59-0500",
                                                   "2026-11-30T20:48"]  # no seconds: not a timestamp, left as is


def test_readable_table_aligns_text_left_and_numbers_right_and_escapes():
    frame = pd.DataFrame({"question": ["<b>x</b>"], "n": [3], "share": [0.5]})
    html = str(readable_table(frame, index=False))
    assert "&lt;b&gt;x&lt;/b&gt;" in html and "<b>x" not in html
    cls = html.split('class="dataframe rm-table ', 1)[1].split('"', 1)[0]
    assert f"table.rm-table.{cls} td, table.rm-table.{cls} th {{ text-align: left;" in html
    assert "td:nth-child(2) { text-align: right; }" in html and "td:nth-child(3)" in html
    assert "td:nth-child(1) " not in html
    assert str(readable_table(frame, index=False)) == html  # deterministic: the notebook's bytes do not move


def test_a_verdict_renders_as_the_reports_banner_in_jupyterlab():
    from rag_metrics.experiment.verdict import verdict

    worse = verdict({f"q{i}": 1.0 for i in range(12)}, {f"q{i}": 0.0 for i in range(12)}, "hit@5",
                    before_name="<b>old", after_name="new")
    html = worse._repr_html_()
    assert 'class="rm-verdict" data-outcome="worse"' in html and "#c62828" in html  # red
    assert "&lt;b&gt;old" in html and "<b>old" not in html and 'href="#rm-moved"' not in html  # no dead page links
    assert "<strong>12</strong> worse of 12 questions" in html
    same = verdict({"q1": 1.0}, {"q1": 1.0}, "hit@5")._repr_html_()
    assert 'data-outcome="within noise"' in same
