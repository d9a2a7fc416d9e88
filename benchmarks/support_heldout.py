"""The support judge measured once per release on a held-out set it was not built on, beside its development figure.

The protocol (docs/answer_support.md, "Measured on what it was not built on"):

* **development sets** -- ``data/support/claims.jsonl`` (labelled by the judge's builders) and ``data/support/heldout/``
  (130 answers, 202 claims, written blind and scored once as the previous release's held-out set, then read to
  choose rules): tune on them;
* **held-out set** -- ``data/support/heldout2/``: 100 answers (166 claims, ten kinds, English and Japanese) written
  and labelled by an annotator who never read the judge's code or its errors, before the judge was changed
  (``labels_a.jsonl``); a second annotator labelled 76 of its claims blind (``labels_b.jsonl``): people's agreement
  with each other is the ceiling a judge is read against. Scored once per release; once its errors are read to
  change the judge, it moves to development and the next release writes a fresh set.

Printed (and written to ``benchmarks/support_heldout.md`` with ``--write``): claim-level Cohen's kappa with its
interval (:func:`rag_metrics.stats.agreement.cohen_kappa`), answer-level kappa -- fully supported vs not, the judge
splitting each answer itself as in a report -- and the three-level one (supported / partial / unsupported, with a
percentile bootstrap interval), accuracy per kind with each kind's share, and the human-human kappa. Every run of
the same code gives the same figures (seeded).

    .venv/bin/python benchmarks/support_heldout.py            # print
    .venv/bin/python benchmarks/support_heldout.py --write    # and update benchmarks/support_heldout.md
    .venv/bin/python benchmarks/support_heldout.py --speed 10000   # and time 10,000 answers beside the baseline
    .venv/bin/python benchmarks/support_heldout.py --set data/support/heldout   # score another labelled set

``--set DIR`` scores any labelled set in the held-out set's format (``answers.jsonl``, ``labels_a.jsonl``, and
``labels_b.jsonl`` for people's agreement when it exists) as the held-out figure; the default is the first held-out
set, ``data/support/heldout/``, which has since been used for development (issue 46's third round).

The offline judge's steps (issue 46) are scored the same way, one row each (``--steps``, on with ``--write``): what each
signal adds, per kind, on the development set and on the held-out set. An LLM judge is measured with the same code,
its cost printed before any call (``--dry-run`` stops there), its verdicts cached:

    .venv/bin/python benchmarks/support_heldout.py --judge openai --option model=M \
        --option base_url=http://127.0.0.1:8000/v1 --cache golden-work/cache --price-in 0 --price-out 0
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd
from sklearn.metrics import cohen_kappa_score

from rag_metrics.experiment import support_trust as trust_sets
from rag_metrics.experiment.support_trust import development_set, heldout_set, judged
from rag_metrics.core.options import parse_key_values
from rag_metrics.io.corpus import data_dir, load_corpus
from rag_metrics.answers.claims import lemmas_available, split_claims
from rag_metrics.answers.support import OfflineSupportJudge, answer_support, support_of_answer
from rag_metrics.answers.support_llm import load_judge
from rag_metrics.stats.agreement import cohen_kappa

HELDOUT = data_dir() / "support" / trust_sets.HELDOUT
LEVEL = {"full": "supported", "partial": "partial", "none": "unsupported", "no claims": "unsupported"}


def read_jsonl(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


heldout, development, judge_claims = heldout_set, development_set, judged  # the package's readers of the two sets


def _kappa_codes(a: np.ndarray, b: np.ndarray, k: int) -> float:
    """Cohen's kappa of two arrays of category codes 0..k-1 (the formula scikit-learn's ``cohen_kappa_score`` uses,
    on a confusion matrix counted with numpy: a bootstrap draws it thousands of times)."""
    table = np.bincount(a * k + b, minlength=k * k).reshape(k, k).astype(float)
    n = table.sum()
    expected = np.outer(table.sum(axis=1), table.sum(axis=0)) / n
    disagree = 1 - np.eye(k)
    return float(1 - (table * disagree).sum() / (expected * disagree).sum())


def bootstrap_kappa(a, b, *, n: int = 2000, seed: int = 0) -> tuple[float, float, float]:
    """Multi-class Cohen's kappa (scikit-learn) with a 95% percentile bootstrap interval over items."""
    a, b = np.asarray(a), np.asarray(b)
    point = float(cohen_kappa_score(a, b))
    labels = sorted(set(a) | set(b))
    ca, cb = np.searchsorted(labels, a), np.searchsorted(labels, b)
    assert abs(_kappa_codes(ca, cb, len(labels)) - point) < 1e-9  # the fast formula is scikit-learn's
    rng = np.random.default_rng(seed)
    draws = []
    for _ in range(n):
        i = rng.integers(0, len(a), len(a))
        if len(set(ca[i]) | set(cb[i])) > 1:
            draws.append(_kappa_codes(ca[i], cb[i], len(labels)))
    low, high = np.percentile(draws, [2.5, 97.5])
    return point, float(low), float(high)


def fmt(k) -> str:
    if isinstance(k, tuple):
        return f"{k[0]:.3f} [{k[1]:.3f}, {k[2]:.3f}]"
    return "undefined" if k.kappa is None else f"{k.kappa:.3f} [{k.low:.3f}, {k.high:.3f}]"


def measure(judge, corpus, folder: Path = HELDOUT) -> dict:
    """Every figure of one judge: kappas with intervals, per kind on both sets, and the time the held-out set took
    (``folder``: the labelled set scored as held-out, any directory in ``data/support/heldout/``'s format)."""
    claims, answers = heldout(corpus, folder)
    dev = development(corpus)
    start = time.perf_counter()
    claims["judge"] = judge_claims(judge, claims)
    levels = [LEVEL[answer_support(support_of_answer(a, p, judge, question=q))]
              for a, p, q in zip(answers["answer"], answers["passages"], answers["question"])]
    seconds = time.perf_counter() - start
    answers["judge"] = levels
    dev["judge"] = judge_claims(judge, dev)
    per_kind = claims.assign(right=claims["judge"] == claims["human"]).groupby("kind").agg(
        claims=("right", "size"), accuracy=("right", "mean"))
    per_kind["share"] = per_kind["claims"] / len(claims)
    answer_kind = answers.assign(right=(answers["judge"] == "supported") == (answers["human"] == "supported")) \
        .groupby("kind")["right"].mean()
    per_kind["answer accuracy"] = answer_kind
    dev_kind = dev.assign(right=dev["judge"] == dev["human"]).groupby("kind").agg(
        claims=("right", "size"), accuracy=("right", "mean"))
    dev_kind["share"] = dev_kind["claims"] / len(dev)
    return {
        "claim kappa (held-out)": cohen_kappa(claims["human"], claims["judge"]),
        "claim kappa (development)": cohen_kappa(dev["human"], dev["judge"]),
        "answer kappa, fully supported or not (held-out)": cohen_kappa(answers["human"] == "supported",
                                                                       answers["judge"] == "supported"),
        "answer kappa, three levels (held-out)": bootstrap_kappa(answers["human"], answers["judge"]),
        "per_kind": per_kind, "dev_kind": dev_kind, "n_claims": len(claims), "n_answers": len(answers),
        "n_dev": len(dev), "seconds": seconds,
    }


STEPS = [
    ("the shipped judge (issue 46, third round)", {}, "kept"),
    ("shipped without the concept vocabulary (synonyms and translations, answers/concepts.py)",
     {"vocabulary": False}, "kept"),
    ("shipped without refutation by a closer span (opposite polarity, or all the words with another number)",
     {"contradiction": False}, "kept"),
    ("shipped without the lemmas extra installed (its fallback: plural s, bigrams; no vocabulary)", {"lemmas": False},
     "fallback"),
    ("shipped + Japanese synonyms from SudachiPy's synonym groups", {"synonyms": True}, "off"),
    ("shipped + the claim's subject (words before its first verb, or は/が) must be in the span",
     {"subject": True}, "off"),
    ("shipped + every part of a claim joining facts must be supported on its own", {"each_part": True}, "off"),
]
"""The offline judge's switches, each measured on both sets (``--steps``): label, options, kept or not. The rules of
the third round that have no switch (polarity, refusals, quantities, identifiers) are measured against the judge
before the round in ``benchmarks/support_heldout.md``, from the previous commit's own run."""
STEP_KINDS = ("paraphrase", "refusal", "numeric_mismatch", "negation_flip")


def steps_table(corpus, folder: Path = HELDOUT) -> str:
    """One row per step of :data:`STEPS`: claim kappa on both sets, answer kappa on the held-out set, and the
    accuracy of the kinds the issue names (held-out), point estimates."""
    head = ["step", "kept", "claim kappa, development", "claim kappa, held-out", "answer kappa, held-out",
            *(f"{k} (held-out)" for k in STEP_KINDS)]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for label, options, kept in STEPS:
        r = measure(OfflineSupportJudge(**options), corpus, folder)
        kinds = r["per_kind"]["accuracy"]
        cells = [label, kept, f"{r['claim kappa (development)'].kappa:.3f}", f"{r['claim kappa (held-out)'].kappa:.3f}",
                 f"{r['answer kappa, fully supported or not (held-out)'].kappa:.3f}",
                 *(f"{kinds.get(k, float('nan')):.2f}" for k in STEP_KINDS)]
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


def human_agreement(folder: Path = HELDOUT) -> tuple | None:
    """People with each other on ``folder``: Cohen's kappa of ``labels_a.jsonl`` and ``labels_b.jsonl`` on the claims
    both labelled, the number of those claims and how many were labelled the same; None without ``labels_b.jsonl``
    or without a claim labelled by both."""
    path = Path(folder) / "labels_b.jsonl"
    if not path.exists():
        return None
    a = {r["claim_id"]: bool(r["supported"]) for r in read_jsonl(Path(folder) / "labels_a.jsonl") if "claim_id" in r}
    b = {r["claim_id"]: bool(r["supported"]) for r in read_jsonl(path) if "claim_id" in r}
    ids = [i for i in b if i in a]
    if not ids:
        return None
    return cohen_kappa([a[i] for i in ids], [b[i] for i in ids]), len(ids), sum(a[i] == b[i] for i in ids)


def report(results: dict, people, name: str) -> str:
    """The figures of one judge as Markdown: the kappas with intervals, people's agreement, per kind on both sets."""
    lines = [f"| figure | judge: {name} |", "|---|---|"]
    for key in ("claim kappa (development)", "claim kappa (held-out)", "answer kappa, fully supported or not "
                "(held-out)", "answer kappa, three levels (held-out)"):
        lines.append(f"| {key} | {fmt(results[key])} |")
    if people is not None:
        k, n, same = people
        lines.append(f"| people with each other, {n} held-out claims ({same} of {n} the same) | {fmt(k)} |")
    lines.append(f"| judging the held-out set ({results['n_answers']} answers, {results['n_claims']} claims) | "
                 f"{results['seconds']:.2f} s |")
    lines += ["", "Held-out set, per kind:", "",
              "| kind | claims | share | claim accuracy | answer accuracy (fully supported or not) |",
              "|---|---|---|---|---|"]
    for kind, row in results["per_kind"].sort_values("accuracy").iterrows():
        lines.append(f"| {kind} | {int(row['claims'])} | {row['share']:.2f} | {row['accuracy']:.2f} | "
                     f"{row['answer accuracy']:.2f} |")
    lines += ["", "Development set, per kind:", "", "| kind | claims | share | claim accuracy |", "|---|---|---|---|"]
    for kind, row in results["dev_kind"].sort_values("accuracy").iterrows():
        lines.append(f"| {kind} | {int(row['claims'])} | {row['share']:.2f} | {row['accuracy']:.2f} |")
    return "\n".join(lines)


def speed(n: int, corpus, folder: Path = HELDOUT) -> str:
    """Time judging ``n`` answers (the held-out ones drawn with replacement) with the offline judge and, on the same
    answers in the same run, the token-overlap baseline (a peer measured beside it on a machine that may be busy)."""
    _, answers = heldout(corpus, folder)
    rows = answers.sample(n, replace=True, random_state=0)
    out = []
    for name in ("offline", "token-overlap"):
        judge = load_judge(name)
        start = time.perf_counter()
        for a, p, q in zip(rows["answer"], rows["passages"], rows["question"]):
            support_of_answer(a, p, judge, question=q)
        out.append((name, time.perf_counter() - start))
    (_, ours), (_, base) = out
    return (f"judged {n:,} answers in {ours:.1f} s with the offline judge, {base:.1f} s with the token-overlap "
            f"baseline in the same run ({ours / base:.1f} times as long)")


def llm_tasks(corpus, folder: Path = HELDOUT) -> list:
    """Every request an LLM judge gets from :func:`measure`, for its cost estimate before any call."""
    claims, answers = heldout(corpus, folder)
    dev = development(corpus)
    tasks = [("support", c, p, q) for c, p, q in zip(claims["claim"], claims["passages"], claims["question"])]
    tasks += [("support", c, p, q) for a, p, q in zip(answers["answer"], answers["passages"], answers["question"])
              for c in split_claims(a)]
    return tasks + [("support", c, p, q) for c, p, q in zip(dev["claim"], dev["passages"], dev["question"])]


def _shown(folder: Path) -> str:
    """``folder`` relative to the repository when it is inside it (as the Markdown names it), else as given."""
    try:
        return str(folder.resolve().relative_to(Path(__file__).resolve().parents[1]))
    except ValueError:
        return str(folder)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--write", action="store_true", help="update benchmarks/support_heldout.md (offline judge only)")
    ap.add_argument("--speed", type=int, metavar="N", help="also time judging N answers (the held-out ones repeated)")
    ap.add_argument("--steps", action="store_true", help="also score each step of the offline judge (on with --write)")
    ap.add_argument("--set", default=str(HELDOUT), metavar="DIR",
                    help="the labelled set scored as held-out: a directory with answers.jsonl and labels_a.jsonl "
                         "(labels_b.jsonl, when there, gives people's agreement); default data/support/heldout2")
    ap.add_argument("--out", metavar="FILE", help="with --write, the file written (default benchmarks/"
                                                   "support_heldout.md)")
    ap.add_argument("--judge", default="offline", help="offline (default), token-overlap, openai or bedrock")
    ap.add_argument("--option", action="append", default=[], metavar="KEY=VALUE", help="the judge's options")
    ap.add_argument("--cache", default="golden-work/cache", help="an LLM judge's verdict cache")
    ap.add_argument("--price-in", type=float, help="USD per million input tokens, for the estimate")
    ap.add_argument("--price-out", type=float, help="USD per million output tokens, for the estimate")
    ap.add_argument("--dry-run", action="store_true", help="print an LLM judge's estimate and stop")
    args = ap.parse_args(argv)
    folder = Path(args.set)
    for name in ("answers.jsonl", "labels_a.jsonl"):
        if not (folder / name).is_file():
            ap.error(f"--set {folder}: expected a labelled set directory holding {name} (as data/support/heldout/).")
    corpus = load_corpus(data_dir() / "corpus")
    judge = load_judge(args.judge, cache_dir=args.cache, **parse_key_values(args.option))
    if hasattr(judge, "estimate"):
        print(judge.estimate(llm_tasks(corpus, folder), price_in=args.price_in, price_out=args.price_out))
        if args.dry_run:
            return 0
    if args.write and args.judge != "offline":
        ap.error("--write records the offline judge; print an LLM judge's figures without it.")
    timing = speed(args.speed, corpus, folder) if args.speed else None
    if timing:
        print(timing)
    table = f"Held-out set: `{_shown(folder)}`\n\n" + report(measure(judge, corpus, folder), human_agreement(folder),
                                                           args.judge)
    have = lemmas_available()
    table += ("\n\nDictionary forms used: " + (", ".join(f"{k} ({'simplemma' if k == 'en' else 'SudachiPy'})"
                                                      for k in ("en", "ja") if have[k]) or "none (not installed)"))
    if args.steps or args.write:
        table += ("\n\nEach step (point estimates; the shipped judge's intervals are above):\n\n"
                  + steps_table(corpus, folder))
    if timing:
        table += f"\n\nSpeed ({time.strftime('%Y-%m-%d')}, on a machine shared with other jobs): {timing}."
    print(table)
    if args.write:
        out = Path(args.out) if args.out else Path(__file__).with_suffix(".md")
        text = out.read_text(encoding="utf-8") if out.exists() else ""
        head = text.split("<!-- figures -->")[0] if "<!-- figures -->" in text else "# The support judge on a " \
            "held-out set\n\n"
        out.write_text(f"{head}<!-- figures -->\n{table}\n", encoding="utf-8")
        print(f"wrote {out}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
