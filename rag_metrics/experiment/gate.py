"""A merge gate: is a new run significantly worse than a baseline on one golden set and one ruler?

``rag-metrics gate --golden G --baseline BASE --run NEW`` (:func:`compare_for_gate`) reads both sides -- each a
retrieval log (JSON lines, any preset or field mapping), a TREC run file (``qid Q0 docid rank score tag``, judged by
its document IDs) or a saved history record (a file written by the experiment report or ``save_run``, or an ID in
``--history-dir``) -- evaluates them on the same golden set under the same ruler, and gives the verdict of
:func:`rag_metrics.experiment.verdict.verdict` on one measure. It fails (exit 1) by the two rules of
:func:`rag_metrics.experiment.verdict.gate`:

1. a **significant regression**: the measure fell and the paired exact test's p is below ``alpha``;
2. a **drop beyond the tolerance**: ``max_drop`` was declared and the mean fell by more than it.

It passes (exit 0) otherwise -- identical runs, a change within noise and within the tolerance, an improvement --
and refuses bad input (exit 2) before writing anything: unreadable files, another golden set or ruler than a
history record's, a measure the sides do not share.

The ruler: ``judge`` when given, else the first of overlap, page, marker, document that applies to both sides (a
TREC run has document IDs only: the document judge); a history record fixes the ruler it was judged with.
:class:`GateResult` prints the verdict and the regressed questions, and writes a Markdown summary (for a CI step
summary) and JUnit XML, every string from the users' files escaped.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from pathlib import Path

import pandas as pd

from rag_metrics.core.errors import InputError, check_alpha, check_int
from rag_metrics.stats.intervals import N_RESAMPLES
from rag_metrics.core.fingerprint import digest
from rag_metrics.judging.judges import PRIMARY_ORDER
from rag_metrics.experiment.verdict import ALPHA, GateDecision, Verdict, gate, moved_questions, verdict

__all__ = ["compare_for_gate", "GateResult", "read_side", "Side", "KINDS", "gate_settings"]

KINDS = ("log", "trec", "history")


def gate_settings(ks=None, *, alpha=ALPHA, max_drop=None) -> tuple:
    """The gate's cutoffs (default 1, 3, 5), sorted and once each, after checking what `rag-metrics gate` is given
    before any file is read: a cutoff below 1, an ``--alpha`` outside (0, 0.5] or a ``--max-drop`` outside [0, 1]
    is an :class:`~rag_metrics.InputError` naming the option."""
    ks = tuple(sorted({check_int(k, "k") for k in (ks or [1, 3, 5])}))
    check_alpha(alpha, "--alpha")
    if max_drop is not None and not 0 <= max_drop <= 1:
        raise InputError(f"--max-drop {max_drop!r}: expected a number from 0 to 1, such as 0.02 (a measure's "
                         "mean lies in [0, 1]).", field="max_drop")
    return ks


@dataclass
class Side:
    """One side of the gate: ``kind`` (:data:`KINDS`), ``name``, ``source``, and the log (``log`` and ``trec``:
    a RunLog) or the saved ``record`` (``history``)."""

    kind: str
    name: str
    source: str
    log: object = None
    record: dict | None = None


def _first_line(path: Path) -> str:
    with open(path, "rb") as f:
        head = f.read(65536)
    if head[:2] == b"\x1f\x8b":
        import gzip

        with gzip.open(path, "rb") as g:
            head = g.read(65536)
    text = head.decode("utf-8", errors="replace").lstrip("\ufeff")
    return next((line for line in text.splitlines() if line.strip()), "")


def _trec_log(path: Path):
    """A TREC run file as a RunLog (document IDs only: no pages, no text)."""
    from rag_metrics.io.formats import read_run_file
    from rag_metrics.io.logs import RunLog

    table = read_run_file(path, "trec")
    run = pd.DataFrame({"question_id": table["question_id"].astype(str), "question": None, "rank": table["rank"],
                        "doc_id": table["doc_id"].astype(str), "chunk_id": None, "pages": [()] * len(table),
                        "text": None, "score": table["score"].astype(float), "line": table["line"]})
    for col in ("question", "chunk_id", "text"):
        run[col] = pd.Series([None] * len(run), dtype=object)
    qids = list(dict.fromkeys(run["question_id"]))
    questions = pd.DataFrame({"question_id": qids, "question": None, "answer": None, "latency_ms": None,
                              "error": None, "line": 0})
    for col in ("question", "answer", "error"):
        questions[col] = pd.Series([None] * len(questions), dtype=object)
    return RunLog(run, questions, str(path), {"read": {"preset": "trec"}})


def read_side(ref, *, history_dir=None, preset: str = "native", fields=None, page_base=None) -> Side:
    """Read one side of the gate (module docstring): a history record, a TREC run or a retrieval log by content;
    a reference that is no file is looked up in ``history_dir`` (an ID, an ID prefix or a run name)."""
    from rag_metrics.io.log_presets import parse_run_spec
    from rag_metrics.io.logs import load_log
    from rag_metrics.experiment.history import load_run, read_record

    spec = parse_run_spec(str(ref))
    if spec.own and Path(spec.path).is_file():  # a log with its own shape (``langchain:LOG``)
        log = load_log(spec)
        return Side("log", log.name, spec.path, log=log)
    path = Path(str(ref))
    if not path.is_file():
        if history_dir is None:
            raise InputError("not found; expected a retrieval log, a TREC run file or a history record (or a run ID "
                             "with --history-dir DIR).", path=ref)
        rec = load_run(ref, history_dir)
        return Side("history", rec["name"], str(ref), record=rec)
    first = _first_line(path)
    if first.lstrip().startswith("{"):
        try:
            whole = json.loads(path.read_text(encoding="utf-8"))
        except (UnicodeDecodeError, json.JSONDecodeError):
            whole = None
        if isinstance(whole, dict) and {"id", "name", "timestamp", "summary", "fingerprint"} <= set(whole):
            rec = read_record(path)
            return Side("history", rec["name"], str(path), record=rec)
        log = load_log(path, preset=preset, fields=fields, page_base=page_base)
        return Side("log", log.name, str(path), log=log)
    if len(first.split()) == 6:
        log = _trec_log(path)
        return Side("trec", log.name, str(path), log=log)
    raise InputError("not a retrieval log (JSON lines), a TREC run ('qid Q0 docid rank score tag') or a history "
                     f"record (JSON); the first line reads {first[:60]!r}.", path=path, line=1)


@dataclass
class GateResult:
    """What the gate found: the ``verdict`` (new run = after), the ``decision``, the ``regressed`` questions
    (question_id, question, before, after, change), the ``judge`` and ``measure``, both ``sides`` and warnings."""

    verdict: Verdict
    decision: GateDecision
    regressed: pd.DataFrame
    judge: str
    measure: str
    baseline: Side
    new: Side
    warnings: list
    findings: list = field(default_factory=list)

    def text(self) -> str:
        """What the command prints: the outcome, the verdict line, the rules that failed, every regressed question."""
        status = "FAILED" if self.decision.failed else "passed"
        lines = [f"rag-metrics gate: {status} ({self.measure}, {self.judge} judge; {self.new.kind} "
                 f"{self.new.name} against {self.baseline.kind} {self.baseline.name})", self.verdict.line()]
        lines += [f"fails: {reason}" for reason in self.decision.reasons]
        lines += [f"warning: {w}" for w in self.warnings]
        if len(self.regressed):
            lines.append(f"regressed questions ({len(self.regressed)}): " + ", ".join(
                f"{q} ({c})" for q, c in zip(self.regressed["question_id"], self.regressed["change"])))
        else:
            lines.append("regressed questions: none")
        lines += [f"pattern: {f}" for f in self.findings]
        return "\n".join(lines)

    def reason(self, row) -> str:
        """Why a regressed question is listed: its change on the gate's measure, from which value to which."""
        return f"{row.change}: {self.measure} {row.before:.3f} → {row.after:.3f}"

    def markdown(self, report: str | None = None) -> str:
        """A Markdown summary for a CI step summary (GitHub ``$GITHUB_STEP_SUMMARY``) or a merge-request note.

        Self-contained: it starts and ends with a blank line, so that appended after other blocks (or followed by
        one) no renderer pulls a neighbour's heading into its table. ``report``: a link to the experiment report,
        shown under the heading. Each regressed question is listed with its reason (:meth:`reason`)."""
        from rag_metrics.core.html import md_escape

        status = "❌ failed" if self.decision.failed else "✅ passed"
        rules = f"a significant regression (p < {self.verdict.alpha:g})"
        if self.decision.max_drop is not None:
            rules += f" or a drop of more than {self.decision.max_drop:g} (`--max-drop`)"
        out = ["", f"## rag-metrics gate: {status}", ""]
        out += [f"[The experiment report]({_md_link(report)})", ""] if report else []
        out += [f"{md_escape(self.new.name)} ({self.new.kind}) against the baseline {md_escape(self.baseline.name)} "
                f"({self.baseline.kind}) on {md_escape(self.measure)}, {md_escape(self.judge)} judge.", "",
                self.verdict.markdown(), "", f"The gate fails on {rules}."]
        out += ["", *[f"- **fails**: {md_escape(r)}" for r in self.decision.reasons]] if self.decision.reasons else []
        out += ["", *[f"- warning: {md_escape(w)}" for w in self.warnings]] if self.warnings else []
        out += ["", f"### Regressed questions ({len(self.regressed)})", ""]
        if len(self.regressed):
            out += ["| question | reason | text |", "|---|---|---|"]
            for row in self.regressed.itertuples(index=False):
                out.append(f"| {md_escape(row.question_id)} | {md_escape(self.reason(row))} | "
                           f"{md_escape(row.question if isinstance(row.question, str) else '')} |")
        else:
            out.append("None.")
        if self.findings:
            out += ["", f"### Patterns ({len(self.findings)})", "", *[f"- {md_escape(f)}" for f in self.findings]]
        return "\n".join(out) + "\n\n"

    def junit(self) -> str:
        """JUnit XML: one test case for the gate itself (failed when the gate fails, with the verdict), then one per
        regressed question with its reason -- failed when the gate fails, skipped (regressed, but within what the
        gate allows) when it passes."""
        import xml.etree.ElementTree as ET

        n = len(self.regressed)
        failed = self.decision.failed
        suite = ET.Element("testsuite", name="rag-metrics gate", tests=str(1 + n),
                           failures=str((1 + n) if failed else 0), errors="0", skipped="0" if failed else str(n))
        case = ET.SubElement(suite, "testcase", classname="rag_metrics.gate",
                             name=_xml_text(f"{self.measure}: {self.new.name} against {self.baseline.name}"))
        if failed:
            failure = ET.SubElement(case, "failure", message=_xml_text("; ".join(self.decision.reasons)),
                                    type="regression")
            failure.text = _xml_text(self.text())
        else:  # the summary once: in the failure when the gate fails, else as the case's output
            ET.SubElement(case, "system-out").text = _xml_text(self.text())
        for row in self.regressed.itertuples(index=False):
            question = ET.SubElement(suite, "testcase", classname="rag_metrics.gate.questions",
                                     name=_xml_text(str(row.question_id)))
            why = _xml_text(self.reason(row))
            if failed:
                ET.SubElement(question, "failure", message=why, type="regressed question").text = _xml_text(
                    f"{row.question_id}: {why}\n{row.question if isinstance(row.question, str) else ''}")
            else:
                ET.SubElement(question, "skipped", message=_xml_text(f"{why} (the gate passed)"))
        root = ET.Element("testsuites")
        root.append(suite)
        return '<?xml version="1.0" encoding="UTF-8"?>\n' + ET.tostring(root, encoding="unicode") + "\n"


def _md_link(target: str) -> str:
    """A link target made inert in Markdown: an http(s) URL or a relative path (no ``javascript:``, and no
    network-path reference ``//host/...`` -- a browser reads ``\\host`` so too --, which leaves for another host),
    percent-encoded where it could end the link or open markup."""
    from urllib.parse import quote, urlsplit

    scheme = urlsplit(str(target)).scheme.lower()
    if scheme not in ("", "http", "https"):
        raise InputError(f"report link {str(target)[:60]!r}: expected an http(s) URL or a relative path.",
                         field="report_link")
    if not scheme and re.match(r"\s*[/\\]{2}", str(target)):
        raise InputError(f"report link {str(target)[:60]!r}: a network-path reference (it names another host); "
                         "expected an http(s) URL or a relative path.", field="report_link")
    return quote(str(target), safe="/:#?=&.-_~%")


_XML_INVALID = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ufffe\uffff\ud800-\udfff]")


def _xml_text(text: str) -> str:
    """``text`` with the characters XML 1.0 cannot hold replaced by U+FFFD (escaping is ElementTree's)."""
    return _XML_INVALID.sub("\ufffd", str(text))


def _judge_of(record: dict) -> dict:
    judge = record.get("judge") or (record.get("config") or {}).get("judge")
    if not isinstance(judge, dict) or "judge" not in judge:
        raise InputError("the history record does not say which judge it was evaluated with.", path=record.get("id"))
    return judge


def _check_coverage(golden, baseline: Side, new: Side, results: dict, warnings: list):
    """Refuse a log none of whose questions is in the golden set; warn of golden questions a log never holds, of
    questions that errored, and of a log whose ``.settings.json`` names another golden set. Returns the golden
    questions some log answered without an error (None when both sides are history records)."""
    usable = None
    for side in (baseline, new):
        r = results.get(id(side))
        if r is None:
            continue
        logged = set(r.question_map.values())
        if not logged:
            raise InputError(f"none of the {len(r.log.questions)} logged questions is in the golden set "
                             f"{golden.source} (their IDs, or their texts when the log has no IDs, match no golden "
                             "question); is it a log of another golden set?", path=side.source)
        usable = (usable or set()) | (logged - set(r.failed_questions))
        answerable = golden.answerable
        never = [q for q in r.missing_questions if q in set(answerable)]
        if never:
            warnings.append(f"{side.name}: {len(never)} of the {len(answerable)} golden questions compared were never "
                            "logged (counted as misses)")
        if r.failed_questions:
            warnings.append(f"{side.name}: {len(r.failed_questions)} of {len(logged)} logged golden questions errored "
                            "(counted as misses)")
        stated = r.log.settings.get("golden")
        if isinstance(stated, str) and stated != golden.fingerprint():
            warnings.append(f"{side.name}: its .settings.json says it ran on golden set {stated}, not on --golden "
                            f"({golden.fingerprint()}); its questions or gold may differ")
    return usable


def compare_for_gate(golden, baseline: Side, new: Side, corpus=None, *, ks=(1, 3, 5), min_chars: int = 24,
                     window: int = 1, judge: str | None = None, measure: str | None = None, alpha: float = ALPHA,
                     max_drop: float | None = None, n_resamples: int = N_RESAMPLES) -> GateResult:
    """Evaluate both sides on ``golden`` under one ruler and apply the gate's rules (module docstring)."""
    from rag_metrics.experiment.evaluate import evaluate_log

    ks = tuple(sorted(set(ks)))
    measure = measure or f"hit@{max(ks)}"
    fixed = _recorded_ruler(golden, [s.record for s in (baseline, new) if s.kind == "history"], measure)
    if fixed is not None:
        if judge is not None and judge != fixed["judge"]:
            raise InputError(f"--judge {judge}: the history record was judged by {fixed['judge']}; one ruler only.",
                             field="judge")
        judge = fixed["judge"]
        min_chars = fixed.get("min_chars", min_chars)
        window = fixed.get("window", window)
    results = {}
    for side in (baseline, new):
        if side.log is not None:
            results[id(side)] = evaluate_log(golden, side.log, corpus, ks=ks, min_chars=min_chars, window=window)
    judge = _common_judge(golden, baseline, new, results, judge)
    warnings = []
    usable = _check_coverage(golden, baseline, new, results, warnings)
    before, after = (_side_values(side, results.get(id(side)), golden, judge, measure, warnings)
                     for side in (baseline, new))
    if usable is not None and not usable:
        raise InputError("every golden question errored on both sides (each log records its error): there is nothing "
                         "to compare.")
    if set(before.index) != set(after.index):
        raise InputError("the two sides hold different questions: a gate compares runs on one golden set.")
    v = verdict(before, after, measure, before_name=baseline.name, after_name=new.name, alpha=alpha,
                n_resamples=n_resamples)
    decision = gate(v, max_drop=max_drop)
    moved = moved_questions(before, after)
    regressed = moved[moved["change"].isin(("newly missed", "worsened"))].copy()
    regressed.insert(1, "question", regressed["question_id"].map(golden.questions["question"]))
    findings = []
    if all(id(s) in results for s in (baseline, new)):  # the patterns of the report's diagnosis, for two logs
        from rag_metrics.experiment.diagnosis import diagnose

        rb, rn = results[id(baseline)], results[id(new)]
        findings = [f.sentence for f in diagnose([rb, rn], rn, moved, golden)]
    return GateResult(v, decision, regressed.reset_index(drop=True), judge, measure, baseline, new, warnings,
                      findings)


def _recorded_ruler(golden, records: list, measure: str) -> dict | None:
    """The judge and its parameters the history records were evaluated with (None without a record): the records must
    agree on it, be evaluated on ``golden`` and hold ``measure``."""
    fixed = None
    for rec in records:
        params = _judge_of(rec)
        if fixed is not None and params != fixed:
            raise InputError(f"the two history records were judged differently ({fixed} vs {params}): one ruler only.")
        fixed = params
        if rec["fingerprint"].get("golden") != digest(golden.fingerprint()):
            raise InputError("the history record was evaluated on another golden set than --golden (fingerprints "
                             "differ): a gate compares runs on one golden set.", path=rec.get("id"))
        if measure not in rec["summary"]:
            raise InputError(f"the history record {rec['id']!r} holds no {measure} (it has "
                             f"{', '.join(rec['summary'])}); choose --measure or -k accordingly.", field="measure")
    return fixed


def _common_judge(golden, baseline: Side, new: Side, results: dict, judge: str | None) -> str:
    """The one judge both evaluated logs are read with: the one asked for, which must apply to both, else the first of
    :data:`PRIMARY_ORDER` that applies to both (the document judge when the golden set has no gold pages)."""
    pages_gold = bool(len(golden.gold_pages))
    if not pages_gold and judge not in (None, "document"):
        raise InputError(f"--judge {judge}: the golden set has no gold pages (gold_docs only), so only the document "
                         "judge applies.", path=golden.source, field="judge")
    if judge is None:
        common = [n for n in PRIMARY_ORDER if all(n in r.pages for r in results.values())] if pages_gold else \
            ["document"]
        judge = common[0]
    for side, r in ((s, results.get(id(s))) for s in (baseline, new)):
        if r is not None and judge not in r.pages:
            raise InputError(f"judge {judge!r} does not apply to {side.name} (applicable: {', '.join(r.pages)}).",
                             path=side.source, field="judge")
    return judge


def _side_values(side: Side, result, golden, judge: str, measure: str, warnings: list) -> pd.Series:
    """One side's per-question values of ``measure``: from its history record, or from its evaluated log (``result``)
    under ``judge``, adding to ``warnings`` what the reader of the gate should know about that log."""
    if result is None:
        from rag_metrics.experiment.history import per_question

        return per_question(side.record, measure)
    ev = result.pages[judge] if len(golden.gold_pages) else result.document  # gold_docs only: document level
    if measure not in ev.per_question:
        raise InputError(f"measure {measure!r} is not evaluated (measures: {', '.join(ev.measures)}).",
                         field="measure")
    if result.depth_warning():
        warnings.append(result.depth_warning())
    if result.unknown_questions and len(result.unknown_questions) * 2 > len(result.log.questions):
        warnings.append(f"{side.name}: {len(result.unknown_questions)} of {len(result.log.questions)} logged questions "
                        "are not in the golden set (not used)")
    return ev.per_question[measure]
