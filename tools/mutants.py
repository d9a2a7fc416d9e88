"""Plant realistic one-line mutants in the package, one at a time, and count how many the unit tests catch.

Each mutant is one edit a developer could make by mistake: a flipped comparison, an off-by-one window, a tie
order reversed, a preset path dropped, a cutoff flag changed, ``|safe`` added in a template, a retry count one
short. For each one, in place (no copy of the repository):

1. the file is read and the original text must occur in it **exactly once** (otherwise the mutant is reported
   ``NOT FOUND`` or ``AMBIGUOUS`` -- never skipped silently -- and the run exits 1);
2. the mutated text is written, the mutant's test files run (``pytest -x -q -p no:cacheprovider``, without the
   nbval and langsmith plugins the unit tests do not use; one process, ``nice``), with a timeout;
3. in a ``finally`` the file's original bytes (and modification time) are written back and ``git diff`` of the
   file is checked to be what it was before the mutant (the run stops if not).

A mutant is *caught* when pytest fails (the first failing test is named) and *survives* when the tests pass. A
timeout counts as caught only when the unmutated tests finished within a third of the timeout (a baseline run of
each distinct test selection, made first, gives that time; a baseline that fails stops the run): the table says
``caught (timeout)`` then, and the baseline time.

Usage::

    python tools/mutants.py                 # every mutant against its own test files
    python tools/mutants.py --all-tests     # every mutant against ``pytest tests``
    python tools/mutants.py --check         # only check that every mutant applies exactly once
    python tools/mutants.py --only judges-page-window --only logs-langchain-query
    python tools/mutants.py --list
    python tools/mutants.py --only fast-tie-order --tests tests/test_fast.py
    python tools/mutants.py --exclude test_stats --out /tmp/without.md   # what the other tests catch

The last run's table is written to ``tools/mutants.md`` (``--out``) with the command and the date.
"""
from __future__ import annotations

import argparse
import datetime as dt
import os
import platform
import re
import signal
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


@dataclass(frozen=True)
class Mutant:
    id: str
    file: str          # relative to the repository root
    original: str      # exact text; must occur once in the file
    replacement: str
    description: str
    tests: tuple = ()  # test files run first for this mutant (before the file's own mapping)


# The test files that exercise each mutated file, run in this order (-x stops at the first failure): the behaviour
# file holding the module's edge tests first, then the module's other test files (up to two minutes here).
TESTS_FOR = {
    "rag_metrics/judging/judges.py": ["tests/test_judging.py"],
    "rag_metrics/judging/page_index.py": ["tests/test_judging.py", "tests/test_page_index.py"],
    "rag_metrics/judging/minimizers.py": ["tests/test_page_index.py", "tests/test_judging.py"],
    "rag_metrics/judging/fragments.py": ["tests/test_page_index.py", "tests/test_judging.py"],
    "rag_metrics/judging/boilerplate.py": ["tests/test_judging.py", "tests/test_page_index.py", "tests/test_rulers.py"],
    "rag_metrics/io/log_presets.py": ["tests/test_presets.py", "tests/test_inputs.py"],
    "rag_metrics/io/log_matching.py": ["tests/test_inputs.py", "tests/test_bad_input.py"],
    "rag_metrics/io/sheets.py": ["tests/test_golden_inputs.py", "tests/test_labels_inputs.py",
                                "tests/test_support_sheet.py"],
    "rag_metrics/stats/bounded_mean.py": ["tests/test_stats.py"],
    "rag_metrics/io/logs.py": ["tests/test_presets.py", "tests/test_inputs.py"],
    "rag_metrics/experiment/evaluate.py": ["tests/test_experiment_views.py", "tests/test_experiment.py"],
    "rag_metrics/golden/review.py": ["tests/test_golden.py"],
    "rag_metrics/templates/golden_review.html.j2": ["tests/test_golden.py", "tests/test_hostile.py"],
    "rag_metrics/measures/registry.py": ["tests/test_metrics.py"],
    "rag_metrics/measures/arrays.py": ["tests/test_metrics.py"],
    "rag_metrics/io/trec.py": ["tests/test_metrics.py", "tests/test_fast.py"],
    "rag_metrics/io/trec_fast.py": ["tests/test_metrics.py", "tests/test_fast.py"],
    "rag_metrics/report/build.py": ["tests/test_runner.py", "tests/test_files.py"],
    "rag_metrics/report/staging.py": ["tests/test_runner.py", "tests/test_files.py"],
    "rag_metrics/retrieval/run_retriever.py": ["tests/test_runner.py"],
    "rag_metrics/stats/intervals.py": ["tests/test_stats.py"],
    "rag_metrics/stats/paired.py": ["tests/test_stats.py"],
    "rag_metrics/stats/agreement.py": ["tests/test_stats.py", "tests/test_agreement.py"],
    "rag_metrics/labels/assessor_agreement.py": ["tests/test_stats.py", "tests/test_agreement.py"],
    "rag_metrics/golden/flags.py": ["tests/test_golden.py", "tests/test_golden_flags.py"],
    "rag_metrics/judging/locate.py": ["tests/test_rulers.py"],
    "rag_metrics/judging/page_audit.py": ["tests/test_rulers.py"],
    "rag_metrics/experiment/failures.py": ["tests/test_judging.py", "tests/test_experiment_views.py"],
    "rag_metrics/io/golden.py": ["tests/test_experiment_views.py", "tests/test_groups.py"],
}

J, IX, LG, EX = ("rag_metrics/judging/judges.py", "rag_metrics/judging/page_index.py", "rag_metrics/io/logs.py",
                 "rag_metrics/experiment/evaluate.py")
RV, TPL, RG, EN = ("rag_metrics/golden/review.py", "rag_metrics/templates/golden_review.html.j2",
                   "rag_metrics/measures/registry.py", "rag_metrics/measures/arrays.py")
TR, TF, RR, RT = ("rag_metrics/io/trec.py", "rag_metrics/io/trec_fast.py", "rag_metrics/report/build.py",
                  "rag_metrics/retrieval/run_retriever.py")
RS = "rag_metrics/report/staging.py"
IV, PA, AG = "rag_metrics/stats/intervals.py", "rag_metrics/stats/paired.py", "rag_metrics/stats/agreement.py"
LA = "rag_metrics/labels/assessor_agreement.py"
FL = "rag_metrics/golden/flags.py"
LC, AU, FA, GO = ("rag_metrics/judging/locate.py", "rag_metrics/judging/page_audit.py",
                  "rag_metrics/experiment/failures.py", "rag_metrics/io/golden.py")

MUTANTS = [
    # -- judges ------------------------------------------------------------------------------------------------------
    Mutant("judges-page-window", J, "any(abs(n - p) <= self.window for n in pages)",
           "any(abs(n - p) < self.window for n in pages)", "PageJudge window <= -> < (window 1 accepts only p)"),
    Mutant("judges-marker-window", J, "any(abs(m - p) <= self.window for m in markers)",
           "any(abs(m - p) < self.window for m in markers)", "MarkerJudge window <= -> <"),
    Mutant("judges-overlap-span", J, "np.tile(np.arange(-w, w + 1), len(pairs))",
           "np.tile(np.arange(-w, w), len(pairs))", "OverlapJudge looks at p-w .. p+w-1 (page p+w forgotten)"),
    Mutant("judges-overlap-doc", J, 'pairs = frame.merge(gold_frame, on=["question_id", "doc_id"])',
           'pairs = frame.merge(gold_frame, on=["question_id"])', "OverlapJudge joins gold pages by question only"),
    Mutant("judges-run-page-field", J,
           'zip(gold_pages["question_id"], gold_pages["doc_id"], gold_pages["page"])',
           'zip(gold_pages["question_id"], gold_pages["doc_id"], gold_pages["page"] - 1)',
           "judge_run reads gold pages 0-based (off by one page)"),
    Mutant("judges-page-batch-window", J, "frozenset(g for g in mine if any(abs(n - g[1]) <= w for n in pages))",
           "frozenset(g for g in mine if any(abs(n - g[1]) < w for n in pages))",
           "PageJudge's batch path: window <= -> <"),
    Mutant("judges-document-batch-key", J, 'return [sets.get(key, none) for key in zip(items["question_id"], items["doc_id"])]',
           'return [sets.get(key, none) for key in zip(items["question_id"], items["question_id"])]',
           "DocumentJudge's batch path looks up the wrong field"),
    Mutant("judges-kept-links", J, "for hits, into in ((shared, out), (shared_kept, out_kept)) if kept else ((shared, out),):",
           "for hits, into in ((shared, out), (shared, out_kept)) if kept else ((shared, out),):",
           "the furniture-kept answer is the ruled one", tests=("tests/test_page_index.py",)),
    # -- overlap index / boilerplate ----------------------------------------------------------------------------------
    Mutant("index-kept-candidates", IX, "done_kept[cp[sel][shared]] = True", "done_kept[cp[sel][clean]] = True",
           "shares(kept=True): the furniture-kept answer counts only furniture-free runs"),
    Mutant("index-share-strict", IX, "int(np.floor(self.share * n_pages)) + 1)",
           "int(np.floor(self.share * n_pages)))", "boilerplate on more than share -> at least share of pages"),
    Mutant("index-min-pages", IX, "if self.share >= 1 or n_pages < self.min_pages:",
           "if self.share >= 1 or n_pages <= self.min_pages:", "documents of exactly min_pages pages get no boilerplate"),
    Mutant("index-boiler-count", IX, "boiler = pages >= need[doc[first]]", "boiler = pages > need[doc[first]]",
           "a fragment must be on more pages than needed to be boilerplate"),
    Mutant("index-min-pages-default", IX, "    min_pages: int = 3", "    min_pages: int = 2",
           "default min_pages 3 -> 2 (two-page documents lose their footers)"),
    Mutant("index-cross-spread", IX, "spread = np.minimum.reduceat(row, starts) != np.maximum.reduceat(row, starts)",
           "spread = np.minimum.reduceat(row, starts) == np.maximum.reduceat(row, starts)",
           "excerpts: the minimizers held on one page only taken for those other pages share"),
    Mutant("index-excerpt-end", IX, "hi = np.searchsorted(cross_pos, begin + length[combo] - m, side=\"right\")",
           "hi = np.searchsorted(cross_pos, begin + length[combo] - n, side=\"right\")",
           "excerpts: the shared minimizers of an excerpt's last n - m characters left out"),
    Mutant("index-excerpt-start", IX, "begin = page_pos - (q_pos[chosen] - h_off[combo])",
           "begin = page_pos - q_pos[chosen]", "excerpts: the excerpt's start on the page from a global position"),
    Mutant("index-excerpt-compare", IX, "        combo, begin, row = combo[same], begin[same], row[same]\n", "",
           "excerpts: a text taken for an excerpt without comparing it with the page"),
    Mutant("index-given-offset", IX, "q_pos = item_off[q_text] + g_offset[inside]",
           "q_pos = item_off[q_text] + g_offset[inside] + 1", "shares(given=...): minimizers one character late"),
    Mutant("judges-excerpt-own-page", J, "other = (source >= 0) & (source != row[rest])", "other = source >= 0",
           "a text's pair with its own source page judged through the other pages' shared minimizers",
           tests=("tests/test_page_index.py",)),
    # -- page audit and placement --------------------------------------------------------------------------------------
    Mutant("locate-page-end", LC, 'b = before[np.searchsorted(row_starts, f_start + f_len, side="left")]',
           'b = before[np.searchsorted(row_starts, f_start + f_len, side="right")]',
           "a text ending where the next page starts is put on that page too"),
    Mutant("locate-union", LC, "q_pages[q] = tuple(sorted({x for _, pp in occ for x in pp}))",
           "q_pages[q] = tuple(sorted({x for x in occ[0][1]}))",
           "a text found twice in one document gets the pages of its first occurrence only"),
    Mutant("locate-cap", LC, "capped = rank_in_item < MAX_CANDIDATES", "capped = rank_in_item <= MAX_CANDIDATES",
           "one occurrence more than MAX_CANDIDATES kept"),
    Mutant("locate-doc-start", LC, "keep = starts >= doc_off[np.maximum(owner, 0)]", "keep = starts > doc_off[np.maximum(owner, 0)]",
           "a text at the very start of a document is never found there"),
    Mutant("audit-chunk", AU, "where = locate_items(texts[lo:lo + CHUNK], index, min_chars=min_chars, docs=docs[lo:lo + CHUNK])",
           "where = locate_items(texts[lo:lo + CHUNK], index, min_chars=min_chars, docs=docs[lo + 1:lo + CHUNK + 1])",
           "the audit's runs of items take the next items' documents"),
    Mutant("failures-first-document", FA, "elif top_docs[0] not in docs:", "elif top_docs[-1] not in docs:",
           "other_document_first looks at the last item"),
    Mutant("golden-pages-by-question", GO, "out.setdefault(q, []).append((d, int(p)))",
           "out.setdefault(q, []).append((d, int(p) - 1))", "gold pages by question read 0-based"),
    # -- logs -------------------------------------------------------------------------------------------------------
    Mutant("logs-langchain-query", LG, '"question": ("question", "query", "input")', '"question": ("question", "input")',
           "LangChain preset drops `query` as a question path"),
    Mutant("logs-langchain-base", LG, '"page_base": 0, "unwrap": _unwrap_langchain}',
           '"page_base": 1, "unwrap": _unwrap_langchain}', "LangChain (PyPDFLoader) pages read as 1-based"),
    Mutant("logs-page-number", LG, 'field="page")\n    return int(value) - base + 1',
           'field="page")\n    return int(value) - base',
           "page numbers converted to 0-based (off by one page)"),
    Mutant("logs-rank-start", LG, "for rank, item in enumerate(raw_items, start=1):",
           "for rank, item in enumerate(raw_items, start=0):", "logged items ranked from 0"),
    Mutant("logs-llamaindex-answer", LG, '"items": ("source_nodes", "nodes"), "answer": "response"',
           '"items": ("source_nodes", "nodes"), "answer": "answer"', "LlamaIndex preset reads the answer from `answer`"),
    Mutant("logs-bedrock-page", LG, '"page": "metadata.x-amz-bedrock-kb-document-page-number"',
           '"page": "metadata.x-amz-bedrock-kb-page-number"', "Bedrock preset page path misspelled"),
    Mutant("logs-ragas-question", LG, '"question": "user_input"', '"question": "question"',
           "ragas preset reads the question from `question` instead of `user_input`"),
    Mutant("logs-llamaindex-doc-order", LG,
           '("node.metadata.file_name", "node.metadata.file_path", "node.ref_doc_id")',
           '("node.metadata.file_path", "node.metadata.file_name", "node.ref_doc_id")',
           "LlamaIndex preset prefers the file path over the file name"),
    Mutant("logs-page-too-small", LG, "not isinstance(value, numbers.Integral) or value < base:",
           "not isinstance(value, numbers.Integral) or value < 0:", "page below the base (0 in a 1-based log) accepted"),
    # -- experiment -------------------------------------------------------------------------------------------------
    Mutant("experiment-breakdown-k", EX, "failure_breakdown_judged(golden, judged[primary], max(ks))",
           "failure_breakdown_judged(golden, judged[primary], min(ks))", "failure breakdown at min(ks)"),
    Mutant("experiment-misses-undefined", EX, "return [q for q, v in values.items() if v == 0.0]",
           "return [q for q, v in values.items() if v != 1.0]", "misses lists undefined (NaN) questions too"),
    Mutant("experiment-recall-k", EX, 'measures = [f"hit@{k}" for k in ks] + ["mrr", f"recall@{max(ks)}"]',
           'measures = [f"hit@{k}" for k in ks] + ["mrr", f"recall@{min(ks)}"]', "recall at min(ks)"),
    Mutant("experiment-multi-gold", EX, 'multi = (self.golden.gold_pages.groupby("question_id").size() > 1).any()',
           'multi = (self.golden.gold_pages.groupby("question_id").size() >= 1).any()',
           "recall shown though every question has one gold page"),
    Mutant("experiment-explain-k", EX, 'rows = rows[rows["rank"] <= k].sort_values("rank", kind="stable")',
           'rows = rows[rows["rank"] < k].sort_values("rank", kind="stable")', "explain drops the k-th item"),
    Mutant("experiment-no-answer-top", EX, 'top = self.run[self.run["rank"] == 1].set_index("question_id")',
           'top = self.run[self.run["rank"] == 2].set_index("question_id")', "no_answer shows the 2nd item as top"),
    # -- golden review ----------------------------------------------------------------------------------------------
    Mutant("review-near-duplicate", FL, "if sim >= threshold:", "if sim > threshold:",
           "near-duplicate threshold >= -> >"),
    Mutant("review-span-end", RV, "return index[j], index[j + len(target) - 1] + 1",
           "return index[j], index[j + len(target) - 1]", "folded answer span loses its last character"),
    Mutant("review-name-length", FL, "if not name or len(name.strip()) < 4:", "if not name or len(name.strip()) < 5:",
           "4-character document names no longer flag a question"),
    Mutant("review-safe-page", TPL, "<mark>{{ text }}</mark>", "<mark>{{ text|safe }}</mark>",
           "|safe on the highlighted page text"),
    Mutant("review-safe-question", TPL, "<p><strong>{{ it.question }}</strong></p>",
           "<p><strong>{{ it.question|safe }}</strong></p>", "|safe on the question"),
    # -- measures: registry, relevance, tie order ---------------------------------------------------------------------
    Mutant("registry-hit-cutoff", RG, 'MeasureSpec("hit", ("success", "hit_rate", "hitrate"), "required"',
           'MeasureSpec("hit", ("success", "hit_rate", "hitrate"), "allowed"', "hit without @k accepted"),
    Mutant("registry-rprec-cutoff", RG, 'MeasureSpec("rprec", ("r_precision",), "forbidden"',
           'MeasureSpec("rprec", ("r_precision",), "allowed"', "rprec@k accepted"),
    Mutant("registry-k-zero", RG, "if k is not None and k < 1:", "if k is not None and k < 0:", "cutoff @0 accepted"),
    Mutant("registry-ndcg-ideal", RG, "else ideal.rank <= k", "else ideal.rank < k",
           "nDCG@k ideal ranking cut at k-1"),
    Mutant("registry-rprec-rank", RG, "j.rq[j.rrank <= j.n_rel[j.rq]]", "j.rq[j.rrank < j.n_rel[j.rq]]",
           "R-precision counts the top R-1"),
    Mutant("registry-bpref-nonrel", RG, "nonrel = (j.label >= 0) & ~relevant", "nonrel = (j.label > 0) & ~relevant",
           "bpref forgets label-0 judged non-relevant"),
    Mutant("engine-relevance", EN, "return self.label >= self.min_rel", "return self.label > self.min_rel",
           "relevance threshold label >= min_rel -> >"),
    Mutant("trec-tie-order", TR, "within = np.lexsort((-keys, run_id[slots]))",
           "within = np.lexsort((keys, run_id[slots]))", "ties of 3+ equal scores: IDs ascending (trec_eval: descending)"),
    Mutant("trec-score-order", TR, "order = np.lexsort((-score, question))", "order = np.lexsort((score, question))",
           "unsorted runs ranked by ascending score"),
    Mutant("fast-tie-order", TF, "lambda a, b: ids[a] > ids[b])", "lambda a, b: ids[a] < ids[b])",
           "fast reader: two-way ties broken by ascending ID"),
    # -- report runner ------------------------------------------------------------------------------------------------
    Mutant("report-attempts", RR, "for attempt in range(1, attempts + 1):", "for attempt in range(1, attempts):",
           "notebook kernel start tried attempts-1 times"),
    Mutant("report-stale-alive", RS, 'and not process_alive(int(m.group("pid")))',
           'and process_alive(int(m.group("pid")))', "staging cleanup removes running builds' folders"),
    Mutant("report-stale-age", RS, "time.time() - path.stat().st_mtime > LEGACY_STAGING_AGE_S",
           "time.time() - path.stat().st_mtime < LEGACY_STAGING_AGE_S", "legacy staging cleanup removes new folders"),
    Mutant("report-publish-suffix", RS, 'target = folder / (stamp if suffix == 1 else f"{stamp}-{suffix}")',
           'target = folder / (stamp if suffix == 0 else f"{stamp}-{suffix}")', "first report published as stamp-1"),
    Mutant("report-failed-cleanup", RR, "    except BaseException:\n        shutil.rmtree(staging, ignore_errors=True)",
           "    except BaseException:\n        pass", "a failed build leaves its staging folder"),
    Mutant("report-kernel-stderr", RR, '            kw.setdefault("stderr", log)\n', "",
           "the kernel's own stderr inherited: shutdown tracebacks on the command's stderr",
           tests=("tests/test_report.py",)),
    Mutant("report-kernel-log-shown", RR, "                if told:\n", "                if not told:\n",
           "what a dying kernel wrote is not shown", tests=("tests/test_report.py",)),
    # -- retriever runner ---------------------------------------------------------------------------------------------
    Mutant("retriever-retries", RT, "if attempt > retries:", "if attempt >= retries:", "one retry short"),
    Mutant("retriever-timeout", RT, "    thread.join(timeout)", "    thread.join()", "--timeout ignored (waits forever)"),
    Mutant("retriever-too-many", RT, "if len(items) > k:", "if len(items) > k + 1:",
           "a retriever returning k+1 items is accepted"),
    Mutant("retriever-backoff", RT, "time.sleep(backoff * 2 ** (attempt - 1))", "time.sleep(backoff * 2 ** attempt)",
           "backoff doubled from the first retry"),
    # -- statistics ----------------------------------------------------------------------------------------------------
    Mutant("intervals-cp-low", IV, "np.maximum(n - x + 1, 1e-300), alpha / 2))", "np.maximum(n - x + 1, 1e-300), alpha))",
           "Clopper-Pearson lower end one-sided (alpha instead of alpha/2)"),
    Mutant("intervals-bca-midrank", IV, "prop = ((m < theta).sum(axis=1) + (m <= theta).sum(axis=1)) / (2 * b)",
           "prop = ((m < theta).sum(axis=1) + (m < theta).sum(axis=1)) / (2 * b)", "BCa bias correction without mid-rank"),
    Mutant("intervals-percentile", IV, "[alpha / 2, 1 - alpha / 2], axis=1)", "[alpha, 1 - alpha], axis=1)",
           "percentile interval at alpha instead of alpha/2"),
    Mutant("paired-sign-two-sided", PA, "np.minimum(1.0, 2 * np.minimum(binom.cdf(w, m, 0.5)",
           "np.minimum(1.0, np.minimum(binom.cdf(w, m, 0.5)", "sign test p not doubled (one-sided)"),
    Mutant("paired-significant", PA, "    significant = p < alpha", "    significant = p <= alpha",
           "sign test significant at p == alpha"),
    Mutant("paired-verdict", PA, "if p < alpha and delta != 0:", "if p <= alpha and delta != 0:",
           "verdict 'better' at p == alpha"),
    Mutant("paired-min-p", PA, "min(1.0, 2.0 ** (1 - m))", "min(1.0, 2.0 ** (-m))", "smallest reachable p one-sided"),
    Mutant("paired-holm", PA, "running = max(running, (k - rank) * p[i])", "running = max(running, (k - rank - 1) * p[i])",
           "Holm multiplier one short"),
    Mutant("paired-t-df", PA, "2 * stats.t.sf(abs(t), df=n - 1)", "2 * stats.t.sf(abs(t), df=n)", "t-test df n instead of n-1"),
    Mutant("paired-randomization-observed", PA, "    p = count0 / total", "    p = (count0 - 1) / total",
           "randomization p leaves out the observed assignment"),
    Mutant("paired-min-discordant", PA, "while min_p(m) >= alpha:", "while min_p(m) > alpha:",
           "min_discordant stops where p == alpha"),
    # -- agreement ------------------------------------------------------------------------------------------------------
    Mutant("agreement-grade", LA, 'a = (both["grade"].astype(int) >= RELEVANT_GRADE).to_numpy()',
           'a = (both["grade"].astype(int) > RELEVANT_GRADE).to_numpy()', "assessor grade 2 read as not relevant"),
    Mutant("agreement-min-kappa", AG, "    if kappa.low < min_kappa:", "    if kappa.low <= min_kappa:",
           "an interval whose lower end is exactly the minimum refused"),
    Mutant("agreement-min-items", AG, "    if kappa.n < min_items:", "    if kappa.n <= min_items:",
           "exactly min_items items refused"),
    Mutant("agreement-chance", AG, "    pe = ph * pa + (1 - ph) * (1 - pa)", "    pe = ph * pa",
           "kappa's chance agreement forgets the negative class"),
]


# -----------------------------------------------------------------------------------------------------------------
def _git(*args) -> str:
    return subprocess.run(["git", *args], cwd=ROOT, capture_output=True, text=True, check=True).stdout


def locate(m: Mutant) -> tuple[str, int]:
    """``(status, line)``: ``ok`` with the 1-based line of the original, or ``NOT FOUND`` / ``AMBIGUOUS (n)``."""
    path = ROOT / m.file
    if not path.exists():
        return "NOT FOUND (no file)", 0
    text = path.read_text(encoding="utf-8")
    n = text.count(m.original)
    if n == 0:
        return "NOT FOUND", 0
    if n > 1:
        return f"AMBIGUOUS ({n} places)", 0
    return "ok", text[:text.index(m.original)].count("\n") + 1


def tests_for(m: Mutant, all_tests: bool) -> list[str]:
    if all_tests:
        return ["tests"]
    files = list(dict.fromkeys([*m.tests, *TESTS_FOR[m.file]]))
    return [f for f in files if (ROOT / f).exists()]


def run_pytest(tests: list[str], timeout: float, workers: int) -> tuple[str, float, str]:
    """``(outcome, seconds, first failing test)``; outcome is ``pass``, ``fail`` or ``timeout``."""
    cmd = ["nice", "-n", "10", sys.executable, "-m", "pytest", "-x", "-q", "-p", "no:cacheprovider",
           "-p", "no:nbval", "-p", "no:langsmith_plugin",  # notebook and tracing plugins: 10+ s of imports per run
           "-n", str(workers), "-rfE", *tests]
    env = {**os.environ, "PYTHONDONTWRITEBYTECODE": "1"}
    start = time.perf_counter()
    proc = subprocess.Popen(cmd, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=env,
                            start_new_session=True)
    try:
        out, _ = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, 9)  # the pytest process group this call started
        proc.communicate()
        return "timeout", time.perf_counter() - start, ""
    seconds = time.perf_counter() - start
    if proc.returncode == 0:
        return "pass", seconds, ""
    failed = re.findall(r"^(?:FAILED|ERROR) (\S+)", out, re.M)
    first = failed[0] if failed else (out.strip().splitlines() or ["(no output)"])[-1][:120]
    return "fail", seconds, first


def run_mutant(m: Mutant, tests, timeout, workers) -> tuple[str, float, str]:
    path = ROOT / m.file
    before_diff = _git("diff", "--", m.file)
    raw = path.read_bytes()
    stat = path.stat()
    text = raw.decode("utf-8")
    assert text.count(m.original) == 1, m.id
    try:
        path.write_bytes(text.replace(m.original, m.replacement, 1).encode("utf-8"))
        return run_pytest(tests, timeout, workers)
    finally:
        path.write_bytes(raw)
        os.utime(path, ns=(stat.st_atime_ns, stat.st_mtime_ns))
        if path.read_bytes() != raw or _git("diff", "--", m.file) != before_diff:
            sys.exit(f"mutants: {m.file} was not restored after {m.id}; stop (git diff shows the change)")


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--all-tests", action="store_true", help="run `pytest tests` for every mutant")
    ap.add_argument("--only", action="append", default=[], help="mutant id (repeatable)")
    ap.add_argument("--timeout", type=float, default=300, help="seconds per mutant run (default 300)")
    ap.add_argument("--workers", type=int, default=0, help="pytest -n (0: one process, no xdist worker; default)")
    ap.add_argument("--tests", action="append", default=[],
                    help="run these test files for every chosen mutant instead of the mapping (repeatable)")
    ap.add_argument("--exclude", action="append", default=[],
                    help="leave out the mapped test files whose path contains this text (repeatable), e.g. "
                         "test_mutants_ to see what the other tests catch")
    ap.add_argument("--check", action="store_true", help="only check that every mutant applies exactly once")
    ap.add_argument("--list", action="store_true", help="list the mutants")
    ap.add_argument("--out", default="tools/mutants.md", help="where the results table is written")
    args = ap.parse_args(argv)
    signal.signal(signal.SIGTERM, lambda *_: sys.exit("mutants: terminated"))  # so `finally` restores the file

    ids = [m.id for m in MUTANTS]
    dup = sorted({i for i in ids if ids.count(i) > 1})
    if dup:
        sys.exit(f"mutants: duplicate ids {dup}")
    unknown = [i for i in args.only if i not in ids]
    if unknown:
        sys.exit(f"mutants: unknown ids {unknown}")
    chosen = [m for m in MUTANTS if not args.only or m.id in args.only]

    located = {m.id: locate(m) for m in chosen}
    bad = [(m, located[m.id][0]) for m in chosen if located[m.id][0] != "ok"]
    for m, status in bad:
        print(f"mutants: {m.id}: {status}: {m.original!r} in {m.file}", file=sys.stderr)
    if args.list or args.check:
        for m in chosen:
            status, line = located[m.id]
            print(f"{m.id:28s} {m.file}:{line or '?'} {status:10s} {m.description}")
        if args.check:
            print(f"{len(chosen) - len(bad)} of {len(chosen)} mutants apply exactly once")
        return 1 if bad else 0

    dirty = [m.file for m in chosen if located[m.id][0] == "ok" and _git("status", "--porcelain", "--", m.file).strip()]
    if dirty:
        sys.exit(f"mutants: uncommitted changes in {sorted(set(dirty))}; commit or stash them first")

    runnable = [m for m in chosen if located[m.id][0] == "ok"]
    selection = {m.id: tuple(t for t in (args.tests or tests_for(m, args.all_tests))
                             if not any(x in t for x in args.exclude)) for m in runnable}  # fixed for the whole run
    baselines: dict[tuple, tuple[str, float, str]] = {}
    for sel in dict.fromkeys(selection.values()):
        outcome, seconds, first = run_pytest(list(sel), args.timeout, args.workers)
        print(f"baseline {' '.join(sel)}: {outcome} in {seconds:.0f} s", flush=True)
        if outcome != "pass":
            sys.exit(f"mutants: the unmutated tests do not pass ({outcome}: {first}); fix that first")
        baselines[sel] = (outcome, seconds, first)

    rows = []
    t0 = time.perf_counter()
    for i, m in enumerate(runnable, 1):
        sel = selection[m.id]
        outcome, seconds, first = run_mutant(m, list(sel), args.timeout, args.workers)
        base = baselines[sel][1]
        if outcome == "fail":
            result, by = "caught", first
        elif outcome == "timeout":
            fair = base <= args.timeout / 3
            result = "caught (timeout)" if fair else "timeout (not counted)"
            by = f"timeout {args.timeout:.0f} s; unmutated {base:.0f} s"
        else:
            result, by = "SURVIVED", ""
        rows.append((m, located[m.id][1], result, by, seconds))
        print(f"[{i}/{len(runnable)}] {m.id}: {result} {by} ({seconds:.0f} s)", flush=True)

    caught = sum(r[2].startswith("caught") for r in rows)
    total = len(rows)
    score = f"{caught} of {total} caught ({100 * caught / total:.0f}%)" if total else "no mutant ran"
    survivors = [r[0].id for r in rows if r[2] == "SURVIVED"]
    cmd = "python tools/mutants.py " + " ".join(sys.argv[1:] if argv is None else argv)
    lines = ["# Mutation check", "",
             f"Command: `{cmd.strip()}` (from the repository root, `.venv/bin/python`)  ",
             f"Date: {dt.datetime.now(dt.timezone.utc):%Y-%m-%d %H:%M} UTC; commit {_git('rev-parse', '--short', 'HEAD').strip()}; "
             f"machine: {platform.node()} ({os.cpu_count()} cores), {time.perf_counter() - t0:.0f} s for the mutants  ",
             f"Tests per mutant: {'`pytest tests`' if args.all_tests else 'the files mapped to the mutated file (TESTS_FOR)'}"
             f"{'' if not args.exclude else ' without ' + ', '.join(f'`*{x}*`' for x in args.exclude)}"
             f", `-x -q -p no:cacheprovider -p no:nbval -p no:langsmith_plugin -n {args.workers}`, timeout {args.timeout:.0f} s", "",
             f"**Score: {score}.**" + (f" Survivors: {', '.join(survivors)}." if survivors else ""), ""]
    if bad:
        lines += ["Mutants whose line was not found (not run, not counted): "
                  + ", ".join(f"{m.id} ({s})" for m, s in bad) + ".", ""]
    lines += ["| mutant | file:line | mistake | result | caught by | s |", "|---|---|---|---|---|---|"]
    for m, line, result, by, seconds in rows:
        lines.append(f"| {m.id} | {m.file}:{line} | {m.description.replace('|', '&#124;')} | {result} | "
                     f"{by.replace('|', '&#124;')} | {seconds:.0f} |")
    (ROOT / args.out).write_text("\n".join(lines) + "\n", encoding="utf-8")
    print(f"\n{score}; table in {args.out}")
    if survivors:
        print("survivors: " + ", ".join(survivors))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
