"""Issue 48, "typical mistakes give tracebacks": what an analyst types first in a notebook either works -- a path where
the object is unambiguous, one int where a list of cutoffs is expected -- or is one InputError saying what was
expected (scikit-learn style), never an AttributeError or a bare KeyError from deep inside."""

import subprocess
import sys

import pandas as pd
import pytest

import rag_metrics as rm
from rag_metrics import InputError
from rag_metrics.core.errors import InputTypeError
from rag_metrics.io.corpus import data_dir
from rag_metrics.measures.page_level import evaluate_pages

DATA = data_dir()
GOLDEN, CORPUS = str(DATA / "golden.jsonl"), str(DATA / "corpus")
LOG_A, LOG_B = str(DATA / "examples" / "bm25_c300o50.jsonl"), str(DATA / "examples" / "bm25_c400o100.jsonl")


@pytest.fixture(scope="module")
def results(golden, corpus):
    return rm.evaluate_log(golden, rm.load_log(LOG_A), corpus), rm.evaluate_log(golden, rm.load_log(LOG_B), corpus)


def test_subpackages_are_attributes_loaded_on_first_use():
    code = ("import sys, rag_metrics as rm\nassert 'pandas' not in sys.modules\n"
            "assert callable(rm.stats.paired_test) and rm.judging.judges.OverlapJudge().name == 'overlap'\n"
            "assert {'judging', 'stats', 'experiment'} <= set(dir(rm))\n"
            "try:\n    rm.statz\nexcept AttributeError:\n    print('ok')\n")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert done.stdout.strip() == "ok", done.stderr


def test_paths_are_read_where_the_object_is_expected(golden, corpus, results):
    by_path = rm.evaluate_log(GOLDEN, LOG_B, CORPUS)
    assert by_path.settings["corpus"] == CORPUS and by_path.golden.fingerprint() == golden.fingerprint()
    assert by_path.evaluation.summary_dict() == results[1].evaluation.summary_dict()


@pytest.mark.parametrize("kwargs, message", [
    (dict(golden=3), r"The 'golden' parameter of evaluate_log must be a GoldenSet or the path of a golden set"),
    (dict(log=pd.DataFrame()), r"The 'log' parameter of evaluate_log must be a RunLog or the path .* Got a DataFrame "
                               r"instead\. A run table \(log\.run\) is what rag_metrics\.evaluate takes"),
    (dict(corpus=["data/corpus"]), r"The 'corpus' parameter of evaluate_log must be a Corpus or the path"),
    (dict(ks="5"), r"The 'ks' parameter of evaluate_log must be an int >= 1 or a list of them.*Got '5' instead"),
    (dict(ks=[0, 3]), r"The 'ks' parameter of evaluate_log must be an int >= 1"),
    (dict(judge=OSError), r"The 'judge' parameter of evaluate_log must be a judge name"),
    (dict(judge="markers"), r"The 'judge' parameter of evaluate_log must be one of .*Did you mean 'marker'\?"),
    (dict(level="pages"), r"The 'level' parameter of evaluate_log must be one of \('page', 'document', 'chunk'\)"),
])
def test_a_wrong_kind_of_value_says_what_was_expected(golden, corpus, kwargs, message):
    args = {"golden": golden, "log": LOG_B, "corpus": corpus, **kwargs}
    with pytest.raises(InputError, match=message):
        rm.evaluate_log(args.pop("golden"), args.pop("log"), args.pop("corpus"), **args)


def test_wrong_types_stay_type_errors_too():
    with pytest.raises(TypeError) as err:
        rm.evaluate_log(3, LOG_B)
    assert isinstance(err.value, InputTypeError) and isinstance(err.value, InputError)


def test_one_int_is_one_cutoff(golden, corpus):
    result = rm.evaluate_log(golden, LOG_B, corpus, ks=5)
    assert result.ks == (5,) and "hit@5" in result.evaluation.measures


def test_evaluate_takes_a_golden_set_and_a_log_as_it_takes_their_tables(golden):
    log = rm.load_log(LOG_B)
    by_object = rm.evaluate(golden, log, ["mrr", "recall@5"])
    by_table = rm.evaluate(golden.gold, log.run, ["mrr", "recall@5"])
    assert by_object.summary_dict() == by_table.summary_dict() == rm.evaluate(golden.gold, log, ["mrr", "recall@5"]).summary_dict()
    with pytest.raises(InputError, match=r"The 'golden' parameter of evaluate must be .* evaluate_trec\(qrels_path, "
                                         r"run_path\) reads TREC files"):
        rm.evaluate(GOLDEN, log)
    with pytest.raises(InputError, match=r"The 'run' parameter of evaluate must be a pandas DataFrame, a RunLog or Run"):
        rm.evaluate(golden, 3)


def test_paired_test_of_two_evaluations_asks_for_the_measure(results):
    a, b = (r.evaluation for r in results)
    with pytest.raises(InputError, match=r"paired_test compares one measure of two evaluations: name the measure.*"
                                         r"measure='hit@1'.*paired_verdict\(a, b\) compares several"):
        rm.stats.paired_test(a, b)
    with pytest.raises(InputError, match=r"'hit5' is not a measure both hold.*Did you mean 'hit@5'\?"):
        rm.stats.paired_test(a, b, measure="hit5")
    t = rm.stats.paired_test(a, b, measure="hit@5")
    same = rm.stats.paired_test(a.per_question["hit@5"], b.per_question["hit@5"], measure="hit@5")
    assert (t.delta, t.p_value, t.wins, t.losses) == (same.delta, same.p_value, same.wins, same.losses)
    assert rm.stats.paired_test(*results, measure="mrr").n == t.n  # experiment results too


def test_paired_verdict_compares_measures_not_attributes(results):
    a, b = (r.evaluation for r in results)
    v = rm.stats.paired_verdict(a, b)  # crashed on the 'type' column ("could not convert string to float: 'fact'")
    assert [t.measure for t in v.tests] == a.measures
    table = rm.stats.paired_verdict(a.per_question.drop(columns="type"), b.per_question.drop(columns="type"))
    assert [t.measure for t in table.tests] == a.measures  # n_relevant and n_retrieved are counts, not measures
    assert [t.measure for t in rm.stats.paired_verdict(*results).tests] == results[0].measures


def test_slicing_by_a_list_of_attributes(results):
    ev = results[1].evaluation
    assert ev.by(["type"]).equals(ev.by("type"))
    with pytest.raises(InputError, match=r"'tpye' is not a question attribute .* available: \['type'\]\. "
                                         r"Did you mean 'type'\?"):
        ev.by("tpye")


def test_a_misspelled_ruler_names_the_rulers(results):
    with pytest.raises(InputError, match=r"The 'ruler' parameter of ruler_disagreements must be one of .*'marker'.* "
                                         r"Got 'markers' instead\. Did you mean 'marker'\?"):
        results[1].ruler_disagreements("overlap", "markers")


def test_misses_at_any_cutoff(results):
    r = results[1]
    assert r.misses(5) == r.misses()
    deeper = r.misses(7)  # not evaluated: computed from the judged rows (the log holds 5 items: the same as at 5)
    assert deeper == r.misses(5) and r.misses(1) == [q for q, v in r.evaluation.per_question["hit@1"].items() if v == 0]
    with pytest.raises(InputError, match=r"The 'k' parameter of misses must be an int >= 1. Got 0 instead"):
        r.misses(0)


def test_a_drilldown_shows_at_least_one_item(results):
    with pytest.raises(InputError, match=r"The 'k' parameter of explain must be an int >= 1. Got 0 instead"):
        results[1].explain("q001", k=0)
    with pytest.raises(InputError, match=r"The 'k' parameter of explain"):
        results[1].explain_data("q001", k=-1)


def test_evaluate_pages_takes_a_judge_by_name_and_a_log(golden, corpus):
    log = rm.load_log(LOG_B, golden=golden, corpus=corpus)
    by_name = evaluate_pages(golden, log, ["hit@5", "mrr"], judge="overlap", corpus=corpus)
    by_object = evaluate_pages(golden, log.run, ["hit@5", "mrr"], judge=rm.judging.judges.OverlapJudge(),
                                  corpus=corpus)
    assert by_name.summary_dict() == by_object.summary_dict()
    with pytest.raises(InputError, match=r"The 'judge' parameter of evaluate_pages must be one of .*Did you mean "
                                         r"'overlap'\?"):
        evaluate_pages(golden, log, ["mrr"], judge="overlaps", corpus=corpus)
    with pytest.raises(InputError, match=r"evaluate_pages: give the judge: judge='overlap'"):
        evaluate_pages(golden, log, ["mrr"], corpus=corpus)
