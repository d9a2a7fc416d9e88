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
from pathlib import Path, PurePath

import numpy as np
import pandas as pd

from rag_metrics.core.errors import InputError, check_names, wrong_type
from rag_metrics.measures.evaluator import evaluator
from rag_metrics.measures.evaluation import Evaluation
from rag_metrics.core.serialize import jsonable
from rag_metrics.stats import N_RESAMPLES, compare_to_baseline
from rag_metrics.experiment.result import ExperimentResult

__all__ = ["compare_runs", "compare", "comparison_table", "Comparison", "MARKS"]

MARKS = {"better": "▲", "worse": "▼"}
"""How :meth:`Comparison.wide` marks a run significantly better / worse than the baseline (Holm over the runs)."""


@dataclass(frozen=True)
class Comparison:
    """``table``: one row per (run, measure) -- mean, evaluated, and against the baseline ``delta``, ``ci_low``,
    ``ci_high`` (the run's own 95% interval, consistent with ``p_value``), ``p_value``, ``p_holm``, ``wins``,
    ``ties``, ``losses``, ``min_p`` (the smallest p the test can give with that many questions differing),
    ``verdict`` (from ``p_holm``), ``within_noise`` and ``method`` (empty for the baseline). ``evaluations``:
    each run's :class:`~rag_metrics.Evaluation`."""

    table: pd.DataFrame
    evaluations: dict

    def wide(self, digits: int = 3) -> pd.DataFrame:
        """ranx's ``compare()`` table: one row per run (the baseline first), one column per measure, each cell the
        mean marked ``▲`` / ``▼`` when significantly better / worse than the baseline (the exact paired test,
        Holm-adjusted over the runs), then ``W/T/L`` per measure: the questions it won, tied and lost against the
        baseline."""
        cells: dict = {}
        for (run, measure), row in self.table.iterrows():
            mean = "-" if row["mean"] is None or row["mean"] != row["mean"] else f"{row['mean']:.{digits}f}"
            cells.setdefault(run, {})[measure] = mean + MARKS.get(row["verdict"] or "", "")
            cells[run][f"{measure} W/T/L"] = ("" if row["wins"] != row["wins"]
                                              else f"{int(row['wins'])}/{int(row['ties'])}/{int(row['losses'])}")
        wide = pd.DataFrame.from_dict(cells, orient="index")
        wide.index.name = "run"
        return wide

    def __repr__(self) -> str:
        runs = list(self.evaluations)
        measures = list(dict.fromkeys(self.table.index.get_level_values("measure")))
        marked = {f"{r} {m}: {v}" for (r, m), v in self.table["verdict"].items() if v in MARKS}
        text = (f"<Comparison of {len(runs)} runs against {runs[0]} on {', '.join(measures)}: "
                f"{'; '.join(sorted(marked)) or 'no change beyond noise'}>")
        return text if len(text) <= 480 else text[:477] + "...>"

    def _repr_html_(self) -> str:
        from rag_metrics.core.html import summary

        return summary(f"{len(self.evaluations)} runs against the baseline {next(iter(self.evaluations))}: "
                       "▲ / ▼ significantly better / worse (exact paired test, Holm over the runs); W/T/L questions "
                       "won / tied / lost.", (None, self.wide().head(30)))

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
    values = {name: {m: pd.Series(ev.values[m], index=list(ev.questions)) for m in ev.measures}
              for name, ev in evaluations.items()}
    return Comparison(comparison_table(values, n_resamples=n_resamples, seed=seed), evaluations)


def comparison_table(values: dict, *, n_resamples: int = N_RESAMPLES, seed: int = 0) -> pd.DataFrame:
    """The table of a :class:`Comparison`: ``values`` is ``{run: {measure: per-question Series}}``, the baseline
    first, every run holding the baseline's measures; one row per (run, measure) -- ``mean`` and ``evaluated`` over
    the defined values, and against the baseline the paired test's numbers, Holm-adjusted over the runs
    (:func:`rag_metrics.stats.compare_to_baseline`)."""
    names = list(values)
    base_name = names[0]
    rows = []
    for m in values[base_name]:
        series = {name: v[m] for name, v in values.items()}
        others = {name: s for name, s in series.items() if name != base_name}
        stats = compare_to_baseline(series[base_name], others, n_resamples=n_resamples, seed=seed, measure=m)
        for name, s in series.items():
            defined = s.dropna()
            row = {"run": name, "measure": m, "mean": float(defined.mean()) if len(defined) else None,
                   "evaluated": int(len(defined))}
            if name == base_name:
                row |= {k: np.nan for k in ("delta", "ci_low", "ci_high", "p_value", "p_holm", "wins", "ties", "losses",
                                            "min_p")}
                row |= {"verdict": None, "within_noise": None, "method": None}
            else:
                t = stats.loc[name]
                row |= {"delta": t["mean_diff"], "ci_low": t["ci_low"], "ci_high": t["ci_high"], "p_value": t["p_value"],
                        "p_holm": t["p_holm"], "wins": t["wins"], "ties": t["ties"], "losses": t["losses"],
                        "min_p": t["min_p"], "verdict": t["verdict"], "within_noise": bool(t["within_noise"]),
                        "method": t["method"]}
            rows.append(row)
    return pd.DataFrame(rows).set_index(["run", "measure"])


def compare(results, measures=None, *, level: str | None = None, judge: str | None = None,
            n_resamples: int = N_RESAMPLES, seed: int = 0) -> Comparison:
    """Several evaluated runs (:func:`rag_metrics.evaluate_log` results, the baseline first) on the same golden set,
    compared as :func:`compare_runs` compares TREC runs: :meth:`Comparison.wide` is the runs x measures table with
    significance marks and wins/ties/losses. ``measures`` (any, at any cutoff: the results compute what they lack)
    default: the baseline's headline measures; ``level``/``judge`` as :meth:`ExperimentResult.at
    <rag_metrics.experiment.result.ExperimentResult.at>`."""
    if isinstance(results, (str, bytes)) or not hasattr(results, "__iter__"):
        raise wrong_type(results, "results", "a list of results of evaluate_log, the baseline first", func="compare")
    results = list(results)
    for r in results:
        if not isinstance(r, ExperimentResult):
            hint = ("Evaluate each log first: results = [rm.evaluate_log(golden, path, corpus) for path in paths]."
                    if isinstance(r, (str, PurePath)) else "")
            raise wrong_type(r, "results", "a list of results of evaluate_log (ExperimentResult), the baseline first",
                             func="compare", hint=hint)
    if len(results) < 2:
        raise InputError("compare needs at least two results: the baseline first, then the runs to compare with it.")
    fingerprints = {r.golden.fingerprint() for r in results}
    if len(fingerprints) > 1:
        raise InputError("compare: the results were evaluated on different golden sets; a paired comparison needs the "
                         "same questions and gold.")
    measures = results[0].headline_measures if measures is None else check_names(measures, func="compare")
    taken: set = set()
    names = [_label(Path(r.name), taken) for r in results]
    values = {name: {m: r.values(m, level, judge) for m in measures} for name, r in zip(names, results)}
    evaluations = {name: r.at(level, judge) for name, r in zip(names, results)}
    return Comparison(comparison_table(values, n_resamples=n_resamples, seed=seed), evaluations)
