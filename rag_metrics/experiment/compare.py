"""Several runs on the same qrels, compared as ranx's ``compare`` does: one row per run and measure.

:func:`compare_runs` reads the qrels once (a prepared :func:`rag_metrics.evaluator`), evaluates each run
against them and, against the
first run (the baseline), gives for every other run and measure the paired difference of the
per-question values, the paired test's p-value (the exact sign test for 0/1 values such as hit@k, the
bounded-mean test otherwise) with the interval of the same test, wins/ties/losses, the Holm-adjusted
p-value across the runs compared and the verdict (better / worse / within noise, from the Holm-adjusted p: several
runs were tested) -- the numbers of :func:`rag_metrics.stats.compare_to_baseline`.
Questions where a measure is undefined in either run are left out of that pair (counted).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

from rag_metrics.core.errors import InputError
from rag_metrics.measures.evaluator import evaluator
from rag_metrics.measures.result import Evaluation
from rag_metrics.core.serialize import jsonable
from rag_metrics.stats import N_RESAMPLES, compare_to_baseline

__all__ = ["compare_runs", "Comparison"]


@dataclass(frozen=True)
class Comparison:
    """``table``: one row per (run, measure) -- mean, evaluated, and against the baseline ``delta``, ``ci_low``,
    ``ci_high`` (the run's own 95% interval, consistent with ``p_value``), ``p_value``, ``p_holm``, ``wins``,
    ``ties``, ``losses``, ``min_p`` (the smallest p the test can give with that many questions differing),
    ``verdict`` (from ``p_holm``), ``within_noise`` and ``method`` (empty for the baseline). ``evaluations``:
    each run's :class:`~rag_metrics.Evaluation`."""

    table: pd.DataFrame
    evaluations: dict

    def to_dict(self) -> dict:
        rows = {}
        for (run, measure), row in self.table.iterrows():
            rows.setdefault(run, {})[measure] = {k: v for k, v in row.items()}
        return jsonable({"runs": rows, "baseline": next(iter(self.evaluations)),
                         "settings": next(iter(self.evaluations.values())).settings})

    def to_csv(self) -> str:
        """CSV for spreadsheets (:func:`rag_metrics.core.serialize.csv_text`: run names neutralized), NaN as empty."""
        from rag_metrics.core.serialize import csv_text

        table = self.table.reset_index()
        return csv_text(list(table.columns), ([None if isinstance(v, float) and v != v else v for v in row]
                                              for row in table.itertuples(index=False)))

    def to_trec(self) -> str:
        """trec_eval's layout with the run name in the question column: ``measure<TAB>run<TAB>mean``."""
        lines = []
        for run, ev in self.evaluations.items():
            names = ev.trec_names()
            for m, row in ev.summary_dict().items():
                if row["mean"] is not None:
                    lines.append(f"{names[m]:<22}\t{run}\t{row['mean']:6.4f}")
        return "\n".join(lines) + "\n"

    def to_text(self) -> str:
        cols = ["mean", "delta", "ci_low", "ci_high", "p_value", "p_holm", "wins", "ties", "losses", "verdict"]
        shown = self.table[cols].copy()
        for c in ("mean", "delta", "ci_low", "ci_high", "p_value", "p_holm"):
            shown[c] = shown[c].map(lambda v: "" if v is None or v != v else f"{v:.4f}")
        for c in ("wins", "ties", "losses"):
            shown[c] = shown[c].map(lambda v: "" if v is None or v != v else str(int(v)))
        shown["verdict"] = shown["verdict"].map(lambda v: "" if v is None or v != v else v)
        notes = sorted({str(m) for m in self.table["method"].dropna() if m})
        return shown.to_string() + "\n" + "\n".join(
            ["", "delta: run - baseline; ci: the run's own 95% interval (consistent with p_value); verdict: from "
                 "p_holm (Holm over the runs compared)."] + [f"test: {m}" for m in notes]) + "\n"


def _label(path: Path, taken: set) -> str:
    name = Path(path).name
    for suffix in (".gz", ".txt", ".json", ".run", ".trec"):
        name = name.removesuffix(suffix)
    label, n = name or "run", 1
    while label in taken:
        n += 1
        label = f"{name}-{n}"
    taken.add(label)
    return label


def compare_runs(qrels, runs, measures=None, *, n_resamples: int = N_RESAMPLES, seed: int = 0,
                 order_by: str = "score", qrels_format: str = "auto", run_format: str = "auto",
                 **evaluator_kwargs) -> Comparison:
    """Evaluate every run against ``qrels`` and compare each with the first (module docstring).

    ``qrels`` is a path, a :class:`~rag_metrics.io.judgments.Qrels` or anything :func:`rag_metrics.evaluator`
    takes; it is read once. ``runs``: paths (or :class:`~rag_metrics.io.rankings.Run` objects), the baseline
    first; ``order_by`` and ``run_format`` say how run files are read. ``evaluator_kwargs`` go to
    :func:`rag_metrics.evaluator` (``min_rel``, ``gain``, ``level``, ``doc_map``, ``engine``...).
    """
    runs = list(runs)
    if len(runs) < 2:
        raise InputError("compare needs at least two runs: the baseline first, then the runs to compare with it.")
    prepared = evaluator(qrels, measures, golden_format=qrels_format, **evaluator_kwargs)
    taken: set = set()
    evaluations: dict[str, Evaluation] = {}
    for run in runs:
        label = _label(run.source or "run", taken) if hasattr(run, "source") else _label(run, taken)
        evaluations[label] = prepared.evaluate(run, run_format=run_format, order_by=order_by)
    names = list(evaluations)
    base_name, base = names[0], evaluations[names[0]]
    rows = []
    for m in base.measures:
        series = {name: pd.Series(ev.values[m], index=list(ev.questions)) for name, ev in evaluations.items()}
        others = {name: s for name, s in series.items() if name != base_name}
        stats = compare_to_baseline(series[base_name], others, n_resamples=n_resamples, seed=seed, measure=m)
        for name, ev in evaluations.items():
            summary = ev.summary_dict()[m]
            row = {"run": name, "measure": m, "mean": summary["mean"], "evaluated": summary["evaluated"]}
            if name == base_name:
                row |= {k: np.nan for k in ("delta", "ci_low", "ci_high", "p_value", "p_holm", "wins", "ties", "losses",
                                            "min_p")}
                row |= {"verdict": None, "within_noise": None, "method": None}
            else:
                s = stats.loc[name]
                row |= {"delta": s["mean_diff"], "ci_low": s["ci_low"], "ci_high": s["ci_high"], "p_value": s["p_value"],
                        "p_holm": s["p_holm"], "wins": s["wins"], "ties": s["ties"], "losses": s["losses"],
                        "min_p": s["min_p"], "verdict": s["verdict"], "within_noise": bool(s["within_noise"]),
                        "method": s["method"]}
            rows.append(row)
    table = pd.DataFrame(rows).set_index(["run", "measure"])
    return Comparison(table, evaluations)
