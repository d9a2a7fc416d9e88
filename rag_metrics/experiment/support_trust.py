"""How far a support judge's verdicts can be trusted: its agreement with people on the claims it was developed on
and on a held-out set it was not built on, and the package's one rule applied to the held-out figure.

The shipped labelled sets (``data/support/``):

* **development** -- ``claims.jsonl`` (110 claims) and ``heldout/`` (130 answers, 202 claims): the offline judge
  was tuned on both. ``heldout/`` was written blind and scored once as the held-out set of the previous release;
  its errors were then read to choose rules, so it is development data now. Their figure says how well the judge
  fits them, not how well it holds;
* **held-out** -- ``heldout2/``: 100 English and Japanese answers (166 claims), written and labelled by people who
  never saw the judge's code or its errors, before the judge was changed (``heldout2/README.md``), scored once per
  release. A set whose errors have been read to change the judge moves to development, and the next release is
  scored on a fresh one.

:func:`judge_trust` judges both sets' claims with a judge and returns their Cohen's kappas with 95% intervals
(:func:`rag_metrics.stats.agreement.cohen_kappa`); the judge is **trusted** only when the held-out kappa passes
:func:`~rag_metrics.stats.agreement.headline_refusal` (at least 20 claims, the interval's lower end at or above
0.6). The report prints :meth:`JudgeTrust.sentence` beside every support figure; an untrusted judge's diagnoses are
leads to read, not findings.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

from rag_metrics.io.corpus import data_dir
from rag_metrics.stats.agreement import Kappa, cohen_kappa, headline_refusal

__all__ = ["heldout_set", "development_set", "judge_trust", "JudgeTrust", "SUPPORT_DIAGNOSES", "HELDOUT",
           "DEVELOPMENT_FOLDERS"]

HELDOUT = "heldout2"
"""The held-out set of this release, a folder of ``data/support/``: never read while the judge was changed."""
DEVELOPMENT_FOLDERS = ("heldout",)
"""Sets in the held-out format that were scored once and then used to change the judge: development data now."""

SUPPORT_DIAGNOSES = ("answered_from_memory", "misled", "incomplete", "hallucinated", "partially_supported")
"""The diagnoses that rest on the support judge's verdicts (the others rest on retrieval and correctness alone)."""


def _rows(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def _pages(corpus):
    """A function from a labelled context -- ``[[doc_id, page], ...]`` -- to its passages, as
    :func:`rag_metrics.answers.support.context_passages` gives them for those pages (one page each, in order), with
    the corpus indexed once rather than per context."""
    text = corpus.pages.set_index(["doc_id", "page"])["text"].to_dict()

    def of(context) -> list[dict]:
        return [{"rank": rank, "doc_id": d, "page": int(p), "text": text[(d, int(p))]}
                for rank, (d, p) in enumerate(context, start=1)]
    return of


def heldout_set(corpus, folder=None) -> tuple[pd.DataFrame, pd.DataFrame]:
    """``(claims, answers)`` of the held-out set in ``folder`` (default :data:`HELDOUT`): one row per
    labelled claim -- ``claim_id``, ``kind``, ``language``, ``question``, ``claim``, ``passages`` (the context pages'
    text, :func:`rag_metrics.answers.support.context_passages`), ``human`` (supported, a bool) -- and per answer --
    ``answer_id``, ``kind``, ``language``, ``question``, ``answer``, ``passages``, ``human`` (its level). The first
    annotator's labels (``labels_a.jsonl``) are the reference."""
    folder = Path(folder) if folder is not None else data_dir() / "support" / HELDOUT
    labels = {r.get("claim_id") or r.get("answer_id"): r for r in _rows(folder / "labels_a.jsonl")}
    claims, answers = [], []
    of = _pages(corpus)
    for r in _rows(folder / "answers.jsonl"):
        passages = of(r["context"])
        answers.append({"answer_id": r["answer_id"], "kind": r["kind"], "language": r["language"],
                        "question": r["question"], "answer": r["answer"], "passages": passages,
                        "human": labels[r["answer_id"]]["answer_label"]})
        claims += [{"claim_id": c["claim_id"], "kind": r["kind"], "language": r["language"], "question": r["question"],
                    "claim": c["claim"], "passages": passages, "human": bool(labels[c["claim_id"]]["supported"])}
                   for c in r["claims"]]
    return pd.DataFrame(claims), pd.DataFrame(answers)


def development_set(corpus, path=None) -> pd.DataFrame:
    """The development claims in :func:`heldout_set`'s claim columns: by default ``data/support/claims.jsonl``
    (``question`` None: the set gives none) followed by the claims of every set in :data:`DEVELOPMENT_FOLDERS`
    (with their questions); ``path`` a claims file in ``claims.jsonl``'s format, read alone."""
    from rag_metrics.experiment.answer_support import read_support_set

    claims = read_support_set(Path(path) if path is not None else data_dir() / "support" / "claims.jsonl")
    of = _pages(corpus)
    passages = [of(ctx) for ctx in claims["context"]]
    frame = pd.DataFrame({"claim_id": claims["claim_id"], "kind": claims["kind"], "language": claims["language"],
                          "question": None, "claim": claims["claim"], "passages": passages,
                          "human": claims["supported"].astype(bool)})
    if path is not None:
        return frame
    used = [heldout_set(corpus, data_dir() / "support" / name)[0] for name in DEVELOPMENT_FOLDERS]
    return pd.concat([frame, *used], ignore_index=True)


def judged(judge, claims: pd.DataFrame) -> np.ndarray:
    """Each claim's verdict under ``judge`` (an object with ``judge(claim, passages, question=)``), read with its
    question where the set gives one."""
    return np.array([bool(judge.judge(c, p, question=q)["supported"])
                     for c, p, q in zip(claims["claim"], claims["passages"], claims["question"])])


@dataclass(frozen=True)
class JudgeTrust:
    """A support judge's agreement with people: ``development`` and ``heldout`` (:class:`Kappa`, each with its
    interval and number of claims); ``refusal`` -- why the held-out figure keeps it from being trusted, or None."""

    judge: str
    development: Kappa
    heldout: Kappa
    refusal: str | None
    heldout_name: str = "held-out"
    """What the held-out set is called in :meth:`sentence` (``judge_trust(heldout_name=)``): the coordinator names
    a fresh set (``"heldout2"``) once an older one has been used for development."""

    @property
    def trusted(self) -> bool:
        return self.refusal is None

    def sentence(self, *, kappa_once: bool = False) -> str:
        """One sentence for a page: both figures, which one decides, and what follows for the support figures.
        ``kappa_once``: the reason it is not trusted without the held-out kappa again (printed once, at 3 digits)."""
        def k(x: Kappa) -> str:
            return "undefined" if x.kappa is None else f"{x.kappa:.3f} [{x.low:.3f}, {x.high:.3f}]"

        head = (f"Support verdicts come from the {self.judge} judge, which agrees with people at kappa "
                f"{k(self.heldout)} on {self.heldout.n} {self.heldout_name} claims it was not built on "
                f"({k(self.development)} on the {self.development.n} claims it was developed on). ")
        if self.trusted:
            return head + ("The held-out interval's lower end clears 0.6: its support figures are findings, each "
                           "within that agreement.")
        reason = self.refusal
        if kappa_once and reason.startswith("kappa ") and ": " in reason:
            reason = reason.split(": ", 1)[1]  # "kappa 0.57 [0.44, 0.69]: the lower end ..." -> "the lower end ..."
        return head + (f"It is **not yet trusted** ({reason}): the diagnoses that rest on support ("
                       + ", ".join(SUPPORT_DIAGNOSES) + ") are leads to read, not findings.")


def judge_trust(judge=None, corpus=None, *, heldout=None, development=None, seed: int = 0,
                heldout_name: str | None = None) -> JudgeTrust:
    """``judge`` (default the offline judge; any object with ``judge(claim, passages, question=)``) measured on the
    development and held-out sets (:func:`development_set`, :func:`heldout_set`; ``corpus`` default the sample
    documents; ``heldout``/``development`` override the sets' locations). ``heldout_name`` names the held-out set
    in the sentence: default ``"held-out"`` for the default set, else the folder's name (``heldout2``)."""
    from rag_metrics.io.corpus import load_corpus
    from rag_metrics.answers.support import OfflineSupportJudge

    judge = OfflineSupportJudge() if judge is None else judge
    corpus = load_corpus(sample=True) if corpus is None else corpus
    held, _ = heldout_set(corpus, heldout)
    dev = development_set(corpus, development)
    k_held = cohen_kappa(held["human"].to_numpy(), judged(judge, held), seed=seed)
    k_dev = cohen_kappa(dev["human"].to_numpy(), judged(judge, dev), seed=seed)
    name = getattr(judge, "name", None) or type(judge).__name__
    if heldout_name is None:
        heldout_name = "held-out" if heldout is None else Path(heldout).name
    return JudgeTrust(str(name), k_dev, k_held, headline_refusal(k_held), heldout_name)
