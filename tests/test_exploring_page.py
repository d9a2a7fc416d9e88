"""docs/exploring.md is the whole exploration in at most 25 lines -- load, evaluate at several k and levels, slice by
language and document, compare two runs with a paired test, per-k curves from the long table, drill into two lost
questions, export to TREC and read it back -- and this runs its code block and checks what it claims.
(tests/test_readme.py runs it too, in a fresh clone, as every block of the docs.)"""

import contextlib
import io
import os
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PAGE = ROOT / "docs" / "exploring.md"


def _block() -> str:
    blocks = re.findall(r"```python\n(.*?)```", PAGE.read_text(encoding="utf-8"), re.S)
    assert len(blocks) == 1, "docs/exploring.md holds one code block: the whole exploration"
    return blocks[0]


def test_the_exploration_fits_in_25_lines():
    lines = [line for line in _block().splitlines() if line.strip()]
    assert len(lines) <= 25, len(lines)


@pytest.fixture(scope="module")
def ran(tmp_path_factory):
    pytest.importorskip("matplotlib")
    import matplotlib

    matplotlib.use("Agg")
    tmp = tmp_path_factory.mktemp("exploring")
    namespace: dict = {"__name__": "__exploring__"}
    out = io.StringIO()
    cwd = os.getcwd()
    os.chdir(ROOT)
    try:
        with contextlib.redirect_stdout(out):
            exec(compile(_block().replace("/tmp/", f"{tmp}/"), str(PAGE), "exec"), namespace)  # noqa: S102
    finally:
        os.chdir(cwd)
    return namespace, out.getvalue()


def test_it_evaluates_at_several_k_and_levels(ran):
    ns, printed = ran
    b = ns["b"]
    assert b.ks == (1, 3, 5, 10) and {"hit@10", "recall@3", "ndcg@5", "mrr"} <= set(b.measures)
    assert printed.startswith("<ExperimentResult bm25_c400o100: 71 labelled questions at page level under the "
                              "overlap judge")
    assert "Clopper-Pearson" in printed and "BCa bootstrap" in printed


def test_it_slices_by_language_and_document(ran):
    ns, printed = ran
    assert "document.language" in printed and "purchase_policy_ja" in printed


def test_it_compares_two_runs_with_a_paired_test(ran):
    ns, printed = ran
    assert ns["verdict"].name_a == "bm25_c300o50" and "exact sign test (McNemar)" in ns["verdict"].sentence
    assert "hit@1 W/T/L" in printed


def test_it_plots_per_k_curves_from_the_long_table(ran):
    ns, _ = ran
    curves = ns["curves"]
    assert list(curves.index) == [1, 3, 5, 10]
    # every ruler is a curve: the document level too (its judge is None; the pivot on ruler keeps it)
    assert {"overlap", "marker", "page", "document", "document level"} <= set(curves.columns)
    assert curves.notna().all().all()


def test_it_drills_into_two_lost_questions(ran):
    ns, printed = ran
    lost = ns["lost"]
    a, b = ns["a"], ns["b"]
    assert lost[0] in b.misses(1) and lost[0] not in a.misses(1)  # lost by the newer run
    assert printed.count("<drill-down of question") == 2


def test_it_exports_to_trec_and_reads_it_back_to_the_same_numbers(ran):
    ns, printed = ran
    back, b = ns["back"], ns["b"]
    dicts = [line for line in printed.splitlines() if line.startswith("{'ndcg@10'")]
    assert len(dicts) == 2 and dicts[0] == dicts[1]
    per_question = back.per_question
    for m in ("ndcg@10", "mrr", "hit@1"):
        ours = b.values(m, "document").dropna()
        assert per_question.loc[ours.index, m].round(12).tolist() == ours.round(12).tolist()
