"""Check a held-out answer-support set in data/support/<folder>/ (standard library only): the checks every such set
shares. Each set's own check.py names its folder, answers per kind and id letter, and calls main().

Run from the repository root:  python3 data/support/heldout2/check.py   (or heldout/check.py)

Verifies that
  * every context page [doc_id, page] exists in data/corpus/<doc_id>.md,
  * every span's text occurs verbatim on its page (after whitespace normalisation),
    and that page is one of the answer's context pages,
  * every claim has exactly one label and every label belongs to a claim,
  * every answer has an answer label that agrees with its claims' labels,
  * supported claims carry a span (except refusal claims, whose support is an absence),
    unsupported claims carry none,
  * answer ids run <letter>001... in order and each of the ten kinds has the set's number of answers; prints
    counts per kind and language.
Exits with status 1 and a list of problems when a check fails.
"""
import json
import re
import sys
from collections import Counter, defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
CORPUS = ROOT / "data" / "corpus"
KINDS = ["verbatim", "paraphrase", "numeric_mismatch", "supported_but_wrong", "negation_flip",
         "partial", "hallucinated_detail", "distractor", "non_gold_support", "refusal"]


def norm(text):
    return re.sub(r"\s+", " ", text).strip()


def load_pages():
    pages = {}
    for path in sorted(CORPUS.glob("*.md")):
        text = path.read_text(encoding="utf-8")
        match = re.search(r"^doc_id:\s*(\S+)\s*$", text, re.M)
        doc_id = match.group(1) if match else path.stem
        body = text.split("\n---", 2)[-1] if text.startswith("---") else text
        parts = re.split(r"\[p\.(\d+)\]", body)
        for i in range(1, len(parts) - 1, 2):
            pages[(doc_id, int(parts[i]))] = norm(parts[i + 1])
    return pages


def read_jsonl(path):
    rows = []
    with open(path, encoding="utf-8") as f:
        for n, line in enumerate(f, 1):
            if line.strip():
                try:
                    rows.append(json.loads(line))
                except json.JSONDecodeError as e:
                    sys.exit(f"{path.name}:{n}: bad JSON: {e}")
    return rows


def main(here, per_kind, letter):
    """Check the set in folder ``here``: ``per_kind`` answers of each kind, ids ``letter``001 ... in order."""
    problems = []
    pages = load_pages()
    answers = read_jsonl(here / "answers.jsonl")
    labels = read_jsonl(here / "labels_a.jsonl")

    claim_labels = defaultdict(list)
    answer_labels = defaultdict(list)
    for row in labels:
        if "claim_id" in row:
            claim_labels[row["claim_id"]].append(row)
        elif "answer_id" in row:
            answer_labels[row["answer_id"]].append(row)
        else:
            problems.append(f"label row without claim_id or answer_id: {row}")

    seen_answers, seen_claims = set(), set()
    kinds, langs = Counter(), Counter()
    per_kind_lang = Counter()
    n_claims, n_supported = 0, 0
    answer_label_counts = Counter()
    for a in answers:
        aid = a.get("answer_id")
        for key in ("language", "kind", "question", "answer", "context", "claims"):
            if key not in a:
                problems.append(f"{aid}: missing field {key}")
        if aid in seen_answers:
            problems.append(f"{aid}: duplicate answer_id")
        seen_answers.add(aid)
        kind, lang = a.get("kind"), a.get("language")
        if kind not in KINDS:
            problems.append(f"{aid}: unknown kind {kind!r}")
        if lang not in ("en", "ja"):
            problems.append(f"{aid}: unknown language {lang!r}")
        kinds[kind] += 1
        langs[lang] += 1
        per_kind_lang[(kind, lang)] += 1

        context = {(d, int(p)) for d, p in a.get("context", [])}
        if not 1 <= len(a.get("context", [])) <= 3:
            problems.append(f"{aid}: {len(a.get('context', []))} context pages (want 1-3)")
        for key in context:
            if key not in pages:
                problems.append(f"{aid}: context page {key} not in data/corpus")

        claims = a.get("claims", [])
        if not 1 <= len(claims) <= 3:
            problems.append(f"{aid}: {len(claims)} claims (want 1-3)")
        verdicts = []
        for c in claims:
            cid = c.get("claim_id", "")
            n_claims += 1
            if not cid.startswith(aid + "."):
                problems.append(f"{cid}: claim id does not start with {aid}.")
            if not c.get("claim", "").strip():
                problems.append(f"{cid}: empty claim text")
            if cid in seen_claims:
                problems.append(f"{cid}: duplicate claim_id")
            seen_claims.add(cid)
            rows = claim_labels.get(cid, [])
            if len(rows) != 1:
                problems.append(f"{cid}: {len(rows)} labels (want 1)")
                continue
            lab = rows[0]
            sup = lab.get("supported")
            if not isinstance(sup, bool):
                problems.append(f"{cid}: supported is not true/false")
                continue
            verdicts.append(sup)
            n_supported += sup
            span = lab.get("span")
            if not sup and span is not None:
                problems.append(f"{cid}: unsupported claim with a span")
            if sup and span is None and kind != "refusal":
                problems.append(f"{cid}: supported claim without a span")
            if span is not None:
                key = (span.get("doc_id"), int(span.get("page", -1)))
                if key not in pages:
                    problems.append(f"{cid}: span page {key} not in data/corpus")
                elif key not in context:
                    problems.append(f"{cid}: span page {key} is not a context page of {aid}")
                elif norm(span.get("text", "")) not in pages[key]:
                    problems.append(f"{cid}: span text not found verbatim on {key}: {span.get('text')!r}")
                if not span.get("text", "").strip():
                    problems.append(f"{cid}: empty span text")

        rows = answer_labels.get(aid, [])
        if len(rows) != 1:
            problems.append(f"{aid}: {len(rows)} answer labels (want 1)")
        elif verdicts and len(verdicts) == len(claims):
            want = "supported" if all(verdicts) else ("unsupported" if not any(verdicts) else "partial")
            got = rows[0].get("answer_label")
            answer_label_counts[got] += 1
            if got != want:
                problems.append(f"{aid}: answer_label {got!r} but claims give {want!r}")

    for cid in claim_labels:
        if cid not in seen_claims:
            problems.append(f"{cid}: label for an unknown claim")
    for aid in answer_labels:
        if aid not in seen_answers:
            problems.append(f"{aid}: answer label for an unknown answer")
    n_answers = per_kind * len(KINDS)
    want_ids = [f"{letter}{n:03d}" for n in range(1, n_answers + 1)]
    if [a.get("answer_id") for a in answers] != want_ids:
        problems.append(f"answer ids are not {letter}001...{letter}{n_answers:03d} in order")
    for kind in KINDS:
        if kinds[kind] != per_kind:
            problems.append(f"kind {kind}: {kinds[kind]} answers (want {per_kind})")

    print(f"{len(answers)} answers ({langs['en']} en, {langs['ja']} ja), {n_claims} claims "
          f"({n_supported} supported, {n_claims - n_supported} not)")
    print("answer labels: " + ", ".join(f"{k} {v}" for k, v in sorted(answer_label_counts.items())))
    for kind in KINDS:
        print(f"  {kind:20s} {kinds[kind]:3d}  (en {per_kind_lang[(kind, 'en')]}, ja {per_kind_lang[(kind, 'ja')]})")
    if problems:
        print(f"\n{len(problems)} problem(s):")
        for p in problems:
            print("  " + p)
        sys.exit(1)
    print("OK")

