"""A support judge's trust is decided on claims it was not built on (rag_metrics.experiment.support_trust)."""

import json

import pandas as pd
import pytest

from rag_metrics.experiment.support_trust import (DEVELOPMENT_FOLDERS, HELDOUT, development_set, heldout_set,
                                                 judge_trust, judged)
from rag_metrics.io.corpus import data_dir, load_corpus
from rag_metrics.answers.support import OfflineSupportJudge, context_passages
from rag_metrics.stats.agreement import cohen_kappa


@pytest.fixture(scope="module")
def corpus():
    return load_corpus(sample=True)


class _Oracle:
    """Says what people said (looked up by claim, question and context: one claim text can be labelled twice,
    against two contexts): agreement 1."""
    name = "oracle"

    def __init__(self, claims):
        self.truth = {self.key(c, p, q): h for c, p, q, h in
                      zip(claims["claim"], claims["passages"], claims["question"], claims["human"])}

    @staticmethod
    def key(claim, passages, question):
        return claim, question, tuple(p["text"] for p in passages)

    def judge(self, claim, passages, question=None):
        return {"supported": self.truth[self.key(claim, passages, question)]}


class _Always:
    name = "always-yes"

    def judge(self, claim, passages, question=None):
        return {"supported": True}


def test_the_held_out_passages_are_the_context_passages_of_their_pages(corpus):
    claims, answers = heldout_set(corpus)
    rows = [json.loads(line) for line in (data_dir() / "support" / HELDOUT / "answers.jsonl").read_text("utf-8").splitlines()
            if line.strip()]
    assert len(answers) == len(rows) and len(claims) == sum(len(r["claims"]) for r in rows)
    for r, passages in zip(rows, answers["passages"]):
        assert passages == context_passages([{"doc_id": d, "pages": [p]} for d, p in r["context"]], corpus)
    assert claims["human"].dtype == bool and claims["human"].any() and not claims["human"].all()


def test_a_judge_that_agrees_with_people_is_trusted_and_says_so(corpus):
    held, _ = heldout_set(corpus)
    dev = development_set(corpus)
    oracle = _Oracle(pd.concat([held, dev], ignore_index=True))
    trust = judge_trust(oracle, corpus)
    assert trust.heldout.kappa == pytest.approx(1.0) and trust.trusted and trust.refusal is None
    text = trust.sentence()
    assert "clears 0.6" in text and "not yet trusted" not in text and f"on {len(held)} held-out claims" in text


def test_a_judge_that_says_yes_to_everything_is_not_trusted_and_says_so(corpus):
    trust = judge_trust(_Always(), corpus)
    assert trust.heldout.kappa is None or trust.heldout.kappa == pytest.approx(0.0)
    assert not trust.trusted and "**not yet trusted**" in trust.sentence() and "leads to read" in trust.sentence()


def test_the_shipped_judge_is_decided_on_the_held_out_figure_not_the_development_one(corpus):
    judge = OfflineSupportJudge()
    trust = judge_trust(judge, corpus)
    held, dev = heldout_set(corpus)[0], development_set(corpus)
    assert trust.heldout.kappa == pytest.approx(cohen_kappa(held["human"].to_numpy(), judged(judge, held)).kappa)
    assert trust.development.kappa == pytest.approx(cohen_kappa(dev["human"].to_numpy(), judged(judge, dev)).kappa)
    # the rule reads the held-out interval's lower end: whatever the development figure says
    assert trust.trusted is (trust.heldout.low >= 0.6 and trust.heldout.n >= 20)
    assert ("not yet trusted" in trust.sentence()) is (not trust.trusted)
    assert f"{trust.heldout.kappa:.3f}" in trust.sentence() and f"{trust.development.kappa:.3f}" in trust.sentence()


def test_a_set_read_to_change_the_judge_is_development_data_and_never_the_held_out_one(corpus):
    """The held-out set of this release is not among the development sets, and every development set's claims are in
    the development figure (with their questions), so a set whose errors were read cannot decide trust."""
    assert HELDOUT not in DEVELOPMENT_FOLDERS and DEVELOPMENT_FOLDERS
    dev = development_set(corpus)
    held_ids = set(heldout_set(corpus)[0]["claim_id"])
    assert held_ids and not held_ids & set(dev["claim_id"])
    for name in DEVELOPMENT_FOLDERS:
        used = heldout_set(corpus, data_dir() / "support" / name)[0]
        assert set(used["claim_id"]) <= set(dev["claim_id"])
        assert dev.set_index("claim_id").loc[used["claim_id"], "question"].notna().all()
    alone = development_set(corpus, data_dir() / "support" / "claims.jsonl")
    assert len(dev) == len(alone) + sum(len(heldout_set(corpus, data_dir() / "support" / n)[0])
                                        for n in DEVELOPMENT_FOLDERS)


def test_kappa_once_gives_the_reason_without_the_held_out_kappa_a_second_time():
    """The experiment report printed the held-out kappa twice, at 3 and at 2 digits (review 3a): with kappa_once the
    reason keeps only what is wrong with the interval."""
    from rag_metrics.experiment.support_trust import JudgeTrust
    from rag_metrics.stats.agreement import headline_refusal

    k = cohen_kappa([1] * 15 + [0] * 15, [1] * 14 + [0] + [1] + [0] * 14)  # 0.867 [0.56, 0.98]: not trusted
    trust = JudgeTrust("offline", k, k, headline_refusal(k))
    once = trust.sentence(kappa_once=True)
    assert "(the lower end of its 95% interval is below 0.6)" in once and "kappa 0.87" not in once
    assert once.count(f"{k.kappa:.3f}") == 2  # held-out and development, each once
    assert "kappa 0.87 [0.56, 0.98]: the lower end" in trust.sentence()  # the default keeps its old wording
