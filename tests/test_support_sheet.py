"""A labelling sheet for a team's own answers: drawn at random, read back strictly, the judge measured on it and the
supported-claim rate estimated prediction-powered (issue 35)."""

import json
import math
from pathlib import Path
from statistics import NormalDist

import numpy as np
import pandas as pd
import pytest

from rag_metrics import InputError
from rag_metrics.experiment.answer_support import Diagnosis, diagnose_answers, sheet_agreement
from rag_metrics.cli import main
from rag_metrics.labels.support_sheet import (SHEET_COLUMNS, claims_sample, judged_claims, read_support_sheet,
                                              write_support_sheet)
from rag_metrics.io.corpus import load_answers, load_corpus
from rag_metrics.io.csvfile import read_rows
from rag_metrics.io.golden import load_golden

DATA = Path(__file__).resolve().parents[1] / "data"
BASE = ["--golden", str(DATA / "golden.jsonl"), "--pages", str(DATA / "corpus"), "--answers",
        str(DATA / "answers.jsonl"), "--generator", "gen_a"]


@pytest.fixture(scope="module")
def sample_diagnosis():
    corpus = load_corpus(DATA / "corpus")
    golden = load_golden(DATA / "golden.jsonl", corpus=corpus)
    answers = load_answers(DATA / "answers.jsonl")
    return golden, diagnose_answers(golden, answers[answers["generator"] == "gen_a"], corpus)


def _diagnosis(verdicts, questions=None) -> Diagnosis:
    """A diagnosis holding only claims: one question per claim, ``verdicts`` the judge's (None: nothing to judge)."""
    ids = questions or [f"q{i:03d}" for i in range(len(verdicts))]
    claims = pd.DataFrame({"claim_id": [f"{q}#1" for q in ids], "question_id": ids,
                           "claim": [f"claim {i}" for i in range(len(ids))], "supported": verdicts,
                           "doc_id": "doc", "page": 1, "span": "a span", "reason": ""})
    records = pd.DataFrame({"context": "doc"}, index=pd.Index(ids, name="question_id"))
    return Diagnosis(records, claims, {}, {})


def _fill(sheet: pd.DataFrame, labels, path: Path, **extra) -> Path:
    filled = sheet.assign(supported=["yes" if v else "no" for v in labels], **extra)
    write_support_sheet(filled, path)
    return path


# --- drawing the sheet ----------------------------------------------------------------------------------------------

def test_the_draw_is_seeded_and_only_of_judged_claims(sample_diagnosis):
    golden, d = sample_diagnosis
    judged = judged_claims(d)
    assert len(judged) == int(d.claims["supported"].notna().sum()) and len(judged) > 0
    one = claims_sample(d, golden.questions["question"], 20, seed=3)
    again = claims_sample(d, golden.questions["question"], 20, seed=3)
    other = claims_sample(d, golden.questions["question"], 20, seed=4)
    pd.testing.assert_frame_equal(one, again)
    assert list(one["claim_id"]) != list(other["claim_id"])
    assert list(one.columns) == SHEET_COLUMNS and one["claim_id"].is_unique
    assert set(one["claim_id"]) <= set(judged["claim_id"])
    assert one["supported"].isna().all() and "judge" not in one.columns  # the verdict is not shown
    row = one.iloc[0]
    assert row["question"] == golden.questions.at[row["question_id"], "question"]
    # in the diagnosis' order, whatever order the generator drew them in
    order = {c: i for i, c in enumerate(judged["claim_id"])}
    assert [order[c] for c in one["claim_id"]] == sorted(order[c] for c in one["claim_id"])


def test_every_claim_can_be_drawn_and_no_more():
    d = _diagnosis([True, False, None, True])
    sheet = claims_sample(d, pd.Series(dtype=object), 3, seed=0)  # the claim with nothing to judge is left out
    assert sorted(sheet["claim_id"]) == ["q000#1", "q001#1", "q003#1"]
    with pytest.raises(InputError, match="4 claims asked, the judge judged 3"):
        claims_sample(d, pd.Series(dtype=object), 4)
    with pytest.raises(InputError, match="n"):
        claims_sample(d, pd.Series(dtype=object), 1)


def test_hostile_cells_read_back_as_written(tmp_path):
    d = _diagnosis([True, False, True])
    sheet = claims_sample(d, pd.Series({"q000": '=HYPERLINK("http://x","y")', "q001": "-2+3", "q002": "@SUM(A1)"}), 3)
    sheet.loc[0, "span"] = 'a "quoted", multi\nline\rspan <script>alert(1)</script> 翌月5日'
    sheet.loc[1, "context"] = "+cmd|' /C calc'!A0"
    for name in ("sheet.csv", "sheet.jsonl"):
        path = write_support_sheet(sheet, tmp_path / name)
        _, rows = read_rows(path, jsonl="x", csv_what="x")
        assert [r["question"] for _, r in rows] == list(sheet["question"])
        assert rows[0][1]["span"] == sheet.loc[0, "span"] and rows[1][1]["context"] == sheet.loc[1, "context"]
    raw = (tmp_path / "sheet.csv").read_text(encoding="utf-8-sig")
    assert "'=HYPERLINK" in raw and "'-2+3" in raw  # neutralized for spreadsheets


# --- reading it back --------------------------------------------------------------------------------------------------

def _judged():
    return judged_claims(_diagnosis([True, False, True, True]))


@pytest.mark.parametrize("rows, line, message", [
    ([], None, "no claim found"),
    ([{"claim_id": "q000#1", "supported": "maybe"}], 2, "'supported' is 'maybe'"),
    ([{"claim_id": "q000#1", "supported": None}], 2, "'supported' is ''"),
    ([{"claim_id": "q999#1", "supported": "yes"}], 2, "claim_id 'q999#1' is not among the 4 claims judged now"),
    ([{"claim_id": "q000#1", "supported": "yes"}, {"claim_id": "q000#1", "supported": "no"}], 3, "listed twice"),
    ([{"claim_id": "q000#1", "supported": "yes", "claim": "another claim"}], 2, "the 'claim' cell reads"),
    ([{"claim_id": "q000#1", "supported": "yes", "kind": "vibes"}], 2, "'kind' is 'vibes'"),
    ([{"claim_id": " ", "supported": "yes"}], 2, "claim_id ' ' is empty"),
])
def test_bad_sheets_are_refused_naming_file_line_and_field(tmp_path, rows, line, message):
    path = tmp_path / "filled.csv"
    write_support_sheet(pd.DataFrame(rows, columns=SHEET_COLUMNS), path)
    with pytest.raises(InputError, match=message) as e:
        read_support_sheet(path, _judged())
    assert e.value.path == str(path) and e.value.line == line


def test_missing_columns_are_named(tmp_path):
    path = tmp_path / "filled.csv"
    path.write_text("claim_id,relevant\nq000#1,yes\n", encoding="utf-8")
    with pytest.raises(InputError, match=r"missing column\(s\) \['supported'\]") as e:
        read_support_sheet(path, _judged())
    assert e.value.line == 1


def test_a_filled_sheet_reads_back_with_its_kinds(tmp_path):
    judged = _judged()
    sheet = claims_sample(_diagnosis([True, False, True, True]), pd.Series(dtype=object), 4)
    path = _fill(sheet, [True, True, False, True], tmp_path / "s.csv", kind=["number", None, "", "negation"])
    labels = read_support_sheet(path, judged)
    assert list(labels["human"]) == [True, True, False, True]
    assert list(labels["kind"]) == ["number", None, None, "negation"] and list(labels["line"]) == [2, 3, 4, 5]
    # the words people write: any case, spaces around
    path.write_text("claim_id,supported\nq000#1, Supported \nq001#1,N\nq002#1,TRUE\n", encoding="utf-8")
    assert list(read_support_sheet(path, judged)["human"]) == [True, False, True]


# --- agreement and the prediction-powered rate -------------------------------------------------------------------------

def _ppi_by_hand(y: dict, f: dict, z: float):
    """The prediction-powered mean written out from the formula in rag_metrics.stats.agreement's docstring, one
    claim at a time: estimate = mean_N f + mean_n (y - f); variance = Var(r f + y - f) / n + (N - n) pf (1 - pf) / N^2
    with the (y, f) table smoothed by 1 per cell and pf by 2 each side."""
    N, n = len(f), len(y)
    r = n / N
    est = sum(f.values()) / N + sum(y[c] - f[c] for c in y) / n
    cells = {(a, b): 1.0 for a in (0, 1) for b in (0, 1)}
    for c in y:
        cells[(int(y[c]), int(f[c]))] += 1
    total = sum(cells.values())
    mean = sum(w / total * (r * b + a - b) for (a, b), w in cells.items())
    var_u = sum(w / total * (r * b + a - b - mean) ** 2 for (a, b), w in cells.items())
    rest = [f[c] for c in f if c not in y]
    pf = (sum(rest) + 2) / (len(rest) + 4)
    se = math.sqrt(var_u / n + len(rest) * pf * (1 - pf) / N ** 2)
    clip = lambda v: min(1.0, max(0.0, v))  # noqa: E731
    return clip(est), clip(est - z * se), clip(est + z * se)


def test_ppi_equals_an_independent_computation():
    rng = np.random.default_rng(11)
    f = {f"c{i}": bool(v) for i, v in enumerate(rng.random(90) < 0.7)}
    sampled = sorted(rng.choice(90, 25, replace=False))
    y = {f"c{i}": bool(f[f"c{i}"]) != bool(rng.random() < 0.2) for i in sampled}  # people differ on ~20%
    result = sheet_agreement(pd.Series(y), pd.Series(f))
    est, low, high = _ppi_by_hand(y, f, NormalDist().inv_cdf(0.975))
    assert result.ppi.estimate == pytest.approx(est, abs=1e-12)
    assert (result.ppi.low, result.ppi.high) == pytest.approx((low, high), abs=1e-12)
    assert result.ppi.n == 25 and result.ppi.N == 90
    assert result.judge_rate[0] == pytest.approx(sum(f.values()) / 90)
    agree = sum(y[c] == f[c] for c in y)
    assert result.accuracy == pytest.approx(agree / 25)
    rates = result.rates().set_index("Supported-claim rate")
    assert rates.at["prediction-powered (PPI)", "Rate"] == pytest.approx(est)
    assert rates.at["people's sample only", "Rate"] == pytest.approx(sum(y.values()) / 25)


def test_all_one_label_on_both_sides_leaves_kappa_undefined_and_says_so():
    f = pd.Series([True] * 10, index=[f"c{i}" for i in range(10)])
    result = sheet_agreement(f.iloc[:5], f)
    assert result.kappa.kappa is None and not result.usable
    assert "undefined" in result.verdict() and result.ppi.estimate == 1.0
    # people all 'supported', the judge not: kappa is 0, not undefined
    f2 = f.copy()
    f2.iloc[:2] = False
    mixed = sheet_agreement(f.iloc[:5], f2)
    assert mixed.kappa.kappa == pytest.approx(0.0) and "below the stated 0.6" in mixed.verdict()


def test_a_label_outside_the_judged_claims_or_too_few_labels_are_refused():
    f = pd.Series([True, False, True], index=["a", "b", "c"])
    with pytest.raises(InputError, match="claim 'z' was labelled but is not among the 3 judged claims"):
        sheet_agreement(pd.Series({"a": True, "z": False}), f)
    with pytest.raises(InputError, match="at least 2 labelled claims"):
        sheet_agreement(pd.Series({"a": True}), f)


def test_per_kind_where_the_sheet_names_kinds():
    ids = [f"c{i}" for i in range(8)]
    f = pd.Series([True, True, False, False, True, False, True, True], index=ids)
    y = pd.Series([True, False, False, False, True, True, True, True], index=ids)
    kinds = pd.Series(["number", "number", "number", "negation", "negation", None, None, None], index=ids)
    table = sheet_agreement(y, f, kinds=kinds).by_kind().set_index("Kind")
    assert list(table.index) == ["number", "negation"]  # SUPPORT_KINDS order; unnamed kinds left out
    assert table.at["number", "Claims"] == 3 and table.at["number", "Accuracy"] == pytest.approx(2 / 3)
    assert table.at["negation", "Accuracy"] == 1.0
    assert sheet_agreement(y, f).by_kind().empty


def test_the_ppi_interval_covers_near_its_nominal_rate():
    """250 simulated teams: 300 judged claims, 40 drawn by the sheet's own draw, a judge with sensitivity 0.95 and
    specificity 0.4. The prediction-powered interval covers the true supported rate of the 300 near 95%; the judge's
    own rate, biased upward, almost never does."""
    rng = np.random.default_rng(2026)
    covered = judge_covered = 0
    reps, N, n = 250, 300, 40
    for rep in range(reps):
        truth = rng.random(N) < 0.7
        said = np.where(truth, rng.random(N) < 0.95, rng.random(N) < 0.6)
        d = _diagnosis(list(said))
        sheet = claims_sample(d, pd.Series(dtype=object), n, seed=rep)
        people = pd.Series({c: bool(truth[int(c[1:4])]) for c in sheet["claim_id"]})
        result = sheet_agreement(people, judged_claims(d).set_index("claim_id")["supported"], n_resamples=100)
        covered += result.ppi.low <= truth.mean() <= result.ppi.high
        judge_covered += result.judge_rate[1] <= truth.mean() <= result.judge_rate[2]
    print(f"coverage {covered / reps:.3f}, judge alone {judge_covered / reps:.3f}")
    assert 0.90 <= covered / reps <= 0.99
    assert judge_covered / reps < 0.2


# --- the command line --------------------------------------------------------------------------------------------------

def test_sample_then_assess_from_the_command_line(tmp_path, capsys, sample_diagnosis):
    sheet_path = tmp_path / "sheet.csv"
    assert main(["answers", "sample", *BASE, "-n", "30", "--seed", "1", "-o", str(sheet_path)]) == 0
    assert "30 of 67 judged claims of gen_a" in capsys.readouterr().out
    _, d = sample_diagnosis
    sheet = claims_sample(d, load_golden(DATA / "golden.jsonl").questions["question"], 30, seed=1)
    _, rows = read_rows(sheet_path, jsonl="x", csv_what="x")
    assert [r["claim_id"] for _, r in rows] == list(sheet["claim_id"])
    judge = judged_claims(d).set_index("claim_id")["supported"]
    labels = [bool(judge[c]) != (i % 5 == 0) for i, c in enumerate(sheet["claim_id"])]  # people differ on 6
    _fill(sheet, labels, sheet_path)
    out = tmp_path / "assess.json"
    assert main(["answers", "assess", *BASE, "--sheet", str(sheet_path), "-o", str(out)]) == 0
    text = capsys.readouterr().out
    assert "30 labelled of 67 judged claims" in text and "prediction-powered (PPI)" in text
    report = json.loads(out.read_text(encoding="utf-8"))
    assert report["accuracy"] == pytest.approx(24 / 30) and report["ppi"]["n"] == 30 and report["ppi"]["N"] == 67
    expected = sheet_agreement(pd.Series(labels, index=sheet["claim_id"]), judge)
    assert report["ppi"]["estimate"] == pytest.approx(expected.ppi.estimate)
    assert report["kappa"]["kappa"] == pytest.approx(expected.kappa.kappa)


@pytest.mark.parametrize("edit, message", [
    (lambda t, first: t.replace(",yes,", ",perhaps,", 1), "'supported' is 'perhaps'"),
    (lambda t, first: t.replace(first + ",", first[:-1] + "9,", 1), "#9' is not among"),
    (lambda t, first: t.split("\n", 1)[0] + "\n", "no claim found"),
])
def test_assess_refuses_a_bad_sheet_with_one_line_and_writes_nothing(tmp_path, capsys, sample_diagnosis, edit,
                                                                     message):
    _, d = sample_diagnosis
    sheet = claims_sample(d, pd.Series(dtype=object), 5, seed=0)
    path = _fill(sheet, [True] * len(sheet), tmp_path / "sheet.csv")
    path.write_text(edit(path.read_text(encoding="utf-8-sig"), sheet.loc[0, "claim_id"]), encoding="utf-8")
    out = tmp_path / "assess.json"
    code = main(["answers", "assess", *BASE, "--sheet", str(path), "-o", str(out)])
    err = capsys.readouterr().err
    assert code == 2 and message in err and str(path) in err and len(err.strip().splitlines()) == 1
    assert not out.exists()


def test_sample_refuses_more_claims_than_were_judged_before_writing(tmp_path, capsys):
    path = tmp_path / "sheet.csv"
    assert main(["answers", "sample", *BASE, "-n", "500", "-o", str(path)]) == 2
    assert "500 claims asked, the judge judged 67" in capsys.readouterr().err and not path.exists()


def test_the_shipped_sheet_gives_the_documented_figures(tmp_path, capsys):
    """data/support/sheet_gen_a.csv, the runnable example of docs/answer_support.md."""
    out = tmp_path / "assess.json"
    assert main(["answers", "assess", *BASE, "--sheet", str(DATA / "support" / "sheet_gen_a.csv"), "-o", str(out)]) == 0
    text = capsys.readouterr().out
    assert ("kappa 0.643 [-0.023, 0.991] on 20 claims, not usable for headline figures: the interval's lower end below "
            "the stated 0.6 (the point estimate clears it); accuracy 0.950") in text
    report = json.loads(out.read_text(encoding="utf-8"))
    differ = sorted(i["claim_id"] for i in report["items"] if i["human"] != i["judge"])
    assert differ == ["q017#1"]  # q047#1 too before issue 46's third round (「…でないことの確認書」 read as a negation)
    assert (round(report["ppi"]["estimate"], 3), round(report["ppi"]["low"], 3), round(report["ppi"]["high"], 3)) == \
        (0.905, 0.753, 1.0)
    assert report["claims_judged"] == 67 and round(report["judge_rate"]["mean"], 3) == 0.955


# ---- the claims a sheet is about, judged for support only (claim_tasks, judge_claims, support_set_tasks) --------

class _CountingJudge:
    """The offline support judge, counting what it is asked; an LLM judge's `correct` that a sheet must never call."""

    def __init__(self):
        from rag_metrics.answers.support_llm import load_judge

        self.inner, self.asked = load_judge("offline"), []

    def judge(self, claim, passages):
        self.asked.append(("support", claim))
        return self.inner.judge(claim, passages)

    def correct(self, *args, **kwargs):
        self.asked.append(("correct", args))
        raise AssertionError("a sheet never asks for correctness")


def test_judge_claims_asks_support_only_for_every_claim_claim_tasks_counts(sample_diagnosis):
    from rag_metrics.labels.support_sheet import claim_tasks, judge_claims

    corpus = load_corpus(DATA / "corpus")
    golden = sample_diagnosis[0]
    answers = load_answers(DATA / "answers.jsonl")
    frame = answers[answers["generator"] == "gen_a"]
    tasks = claim_tasks(golden, frame, corpus, context_k=3)
    assert tasks and {t[0] for t in tasks} == {"support"}
    judge = _CountingJudge()
    diagnosis, judged = judge_claims(golden, frame, corpus, judge, context_k=3)
    assert {kind for kind, _ in judge.asked} == {"support"}, "correctness is never asked"
    assert len(judge.asked) == len(tasks), "the estimate counts exactly the calls made"
    assert len(judged) == int(diagnosis.claims["supported"].notna().sum())
    assert judged.equals(judged_claims(diagnosis)) and judged["context"].notna().all(), "the sheet's claims, context"
    fewer = claim_tasks(golden, frame, corpus, context_k=1)
    assert len(fewer) == len(tasks) and [t[2] for t in fewer] != [t[2] for t in tasks], "context_k reaches it"


def test_support_set_tasks_are_what_measure_judges_asks():
    from rag_metrics.experiment.answer_support import measure_judges, read_support_set, support_set_tasks

    corpus = load_corpus(DATA / "corpus")
    claims = read_support_set(DATA / "support" / "claims.jsonl")
    tasks = support_set_tasks(claims, corpus)
    assert len(tasks) == len(claims) and [t[1] for t in tasks] == list(claims["claim"])
    assert [len(t[2]) for t in tasks] == [len(c) for c in claims["context"]], "one passage per context page"
    assert max(len(c) for c in claims["context"]) > 1
    judge = _CountingJudge()
    measure_judges(claims, corpus, {"counting": judge})
    assert [c for _, c in judge.asked] == [t[1] for t in tasks]
