"""What a notebook calls while it runs (the kernel side of a report): figures, notices and claims.

* :func:`record` -- a headline figure, collected into the run's ``summary.json`` and the index;
* :func:`banner` -- a visible notice (a parameter moved the notebook out of its lesson's regime);
* :func:`claim` -- a conclusion printed only when the numbers beside it support it, recorded with its truth;
* :func:`show` -- a table, whole (no cut text, no elided rows), escaped; nothing at all for an empty table;
* :func:`record_experiment` -- what an experiment report says about its newest run (verdict, trend), for the index.

:func:`headlines`, :func:`claims` and :func:`experiment_record` read them back from an executed notebook. Orchestration (papermill, HTML,
the index) is :mod:`rag_metrics.report.build`; this module needs only IPython (and pandas for :func:`record`).
"""

from __future__ import annotations

from rag_metrics.stats.intervals import N_RESAMPLES
from rag_metrics.core.errors import InputError
from rag_metrics.core.serialize import jsonable

__all__ = ["record", "banner", "claim", "show", "record_experiment", "headlines", "claims", "experiment_record",
           "HEADLINE_MIME", "CLAIM_MIME", "EXPERIMENT_MIME", "EXPERIMENT_KEY", "RECORD_ONLY", "HEADLINE_NOT_SHOWN",
           "HEADLINE_ALTERNATIVE"]

HEADLINE_MIME = "application/vnd.rag-metrics.headline+json"
CLAIM_MIME = "application/vnd.rag-metrics.claim+json"
EXPERIMENT_MIME = "application/vnd.rag-metrics.experiment+json"
EXPERIMENT_KEY = "_experiment"
"""The key of a run folder's ``summary.json`` that holds an experiment report's record (no notebook name starts
with ``_``)."""
RECORD_ONLY = frozenset({CLAIM_MIME, EXPERIMENT_MIME, HEADLINE_MIME})
"""Outputs made only of these are records for tests and the index, left out of the HTML page (a quiet headline,
``record(..., echo=False)``, included: nbconvert would warn that it cannot show it)."""


def _display(bundle: dict, fallback: str) -> None:
    try:
        from IPython.display import display

        display(bundle, raw=True)
    except ImportError:  # pragma: no cover - outside IPython
        if fallback:
            print(fallback)


def record(name: str, values=None, *, mean: float | None = None, ci: tuple | None = None, seed: int = 0,
           n_resamples: int = N_RESAMPLES, echo: bool = True) -> None:
    """Record a headline figure from a notebook (collected into the run's ``summary.json``).

    Give per-question ``values`` (a Series indexed by question ID; NaN = undefined,
    excluded) to get the mean with its 95% interval (:func:`rag_metrics.stats.mean_interval`:
    Clopper--Pearson for 0/1 values, BCa bootstrap otherwise; ``method`` names it) and paired deltas between
    runs, or a plain ``mean`` (and optionally ``ci``). Displays one line of text (checked by nbval)
    and a machine-readable output that :func:`headlines` reads back; with ``echo=False`` only the machine-readable
    output (for a lesson that shows the figure in its own table).
    """
    import pandas as pd

    from rag_metrics.stats import mean_interval

    data: dict = {"name": str(name)}
    if values is not None:
        series = pd.Series(values, dtype=float)
        r = mean_interval(series, seed=seed, n_resamples=n_resamples)
        data |= {"mean": r.mean, "ci_low": r.low, "ci_high": r.high, "n": r.n, "method": r.method,
                 "per_question": jsonable({str(k): v for k, v in series.items()})}
    elif mean is not None:
        data |= {"mean": float(mean), "ci_low": None if ci is None else float(ci[0]),
                 "ci_high": None if ci is None else float(ci[1]), "n": None}
    else:
        raise InputError("record: give per-question 'values' or a 'mean'.")
    data = _lab_stable(data)
    ci_text = f" [{data['ci_low']:.3f}, {data['ci_high']:.3f}]" if data.get("ci_low") is not None else ""
    n_text = f" (n={data['n']})" if data.get("n") is not None else ""
    text = f"headline {name} = {data['mean']:.3f}{ci_text}{n_text}"
    _display({HEADLINE_MIME: data, "text/plain": text} if echo else {HEADLINE_MIME: data}, text if echo else "")


def _lab_stable(value):
    """JSON that JupyterLab saves back unchanged: JavaScript writes the float 1.0 as 1, so integral floats are ints."""
    if isinstance(value, dict):
        return {k: _lab_stable(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_lab_stable(v) for v in value]
    if isinstance(value, float) and value.is_integer():
        return int(value)
    return value


def banner(message: str) -> None:
    """Show a visible notice in a notebook -- e.g. that a parameter moved it out of the regime where its lesson
    shows. Markdown in JupyterLab and the HTML report (a quoted, bold line), plain text elsewhere."""
    _display({"text/markdown": f"> **Note.** {message}", "text/plain": f"NOTE: {message}"}, f"NOTE: {message}")


def claim(condition, text_if_true: str, text_if_false: str | None = None, *, headline: bool = False,
          name: str | None = None, figures: dict | None = None, echo: bool = True) -> None:
    """Print a conclusion only when the numbers beside it support it; record every claim with its truth.

    ``condition`` is computed from the notebook's variables (``bool(condition)`` is taken). When it holds,
    ``text_if_true`` is shown (Markdown); when it does not, ``text_if_false`` if given -- another sentence, true of
    the other case, never a denial of the first -- else nothing. A sentence is shown only when it is true: a false
    ``text_if_true`` is never shown, quoted or negated anywhere. With ``headline=True`` (the lesson's main claim) a
    false condition also shows a :func:`banner` saying that the lesson's point does not show under these
    parameters, without quoting either text (:data:`HEADLINE_NOT_SHOWN`). Either way the claim -- both texts, the
    condition's value and what was shown -- is recorded in the output (``CLAIM_MIME``), so a test can check every
    run of every notebook: no shown text may belong to a condition that does not hold.

    Values interpolated into the texts that come from a user's file must go through
    :func:`rag_metrics.core.html.md_escape`. Returns nothing (a notebook's last line would echo a bool).

    ``name`` and ``figures`` (``{name: number or text}``, the values the condition and the texts are computed
    from) are recorded too: a test that knows what the sentence means can recompute the condition from the
    figures and check that the notebook's condition says what its sentence says.

    ``echo=False`` records the claim (and is checked like any other) without displaying its sentence: for a
    conclusion already on the page in another form, such as the experiment report's verdict, which its banner
    states just above.
    """
    holds = bool(condition)
    shown = text_if_true if holds else text_if_false
    data = _lab_stable({"name": name, "holds": holds, "headline": bool(headline), "text_if_true": text_if_true,
                        "text_if_false": text_if_false, "shown": shown, **({} if echo else {"echo": False}),
                        **({"figures": jsonable(dict(figures))} if figures else {})})
    bundle = {CLAIM_MIME: data}
    if shown and echo:
        bundle |= {"text/markdown": shown, "text/plain": shown}
    _display(bundle, shown if shown and echo else "")
    if headline and not holds:
        banner(HEADLINE_NOT_SHOWN + (HEADLINE_ALTERNATIVE if text_if_false else ""))


HEADLINE_NOT_SHOWN = "Under these parameters the lesson's main point does not show."
"""The banner of a headline claim whose condition fails: it names no figure and quotes no sentence (the claim's
``text_if_true`` is false here; a quoted false sentence with the current numbers filled in reads as a finding)."""
HEADLINE_ALTERNATIVE = " The sentence above says what these numbers show instead."
"""Added to the banner when the claim showed its ``text_if_false``."""


PLAIN_ROWS = 200
"""Rows a table's plain-text fallback shows (:func:`show`); its HTML shows them all."""


def show(frame, *, empty: str | None = None, float_format: str = ".3f", index: bool = True, human: bool = False,
         collapsed: str | None = None) -> None:
    """Display a table whole: every row and every character of every cell (pandas' display cuts text at 50
    characters and elides rows), each value escaped (:func:`rag_metrics.core.html.table`). An empty table draws
    nothing; ``empty``, when given, is printed instead. ``human``: through the report's formatting layer
    (:func:`rag_metrics.core.html.readable_table`: human column names, yes/no, pages as ``3–4``, times to the second,
    text left-aligned). ``collapsed``: the HTML table folded in a ``<details>`` element under this summary line
    (escaped)."""
    if frame is None or len(frame) == 0:
        if empty:
            _display({"text/plain": empty}, empty)
        return
    from rag_metrics.core.html import readable, readable_table, table

    fmt = (lambda v: format(v, float_format))  # noqa: E731 - pandas wants a callable
    if human:
        html, frame = str(readable_table(frame, float_format=fmt, index=index, na_rep="-", border=0)), readable(frame)
    else:
        html = str(table(frame, float_format=fmt, index=index, na_rep="-", border=0))
    if collapsed is not None:
        import html as _html

        html = f"<details><summary>{_html.escape(collapsed)}</summary>{html}</details>"
    if len(frame) <= PLAIN_ROWS:
        text = frame.to_string(float_format=fmt, index=index, na_rep="-")
    else:  # the plain-text fallback of a long table stays short; the HTML holds every row
        text = (frame.head(PLAIN_ROWS).to_string(float_format=fmt, index=index, na_rep="-")
                + f"\n... {len(frame) - PLAIN_ROWS} more rows in the HTML view")
    _display({"text/html": html, "text/plain": text}, text)


def record_experiment(summary: dict) -> None:
    """Record what an experiment report says about its newest run (subject, verdict, trend: a JSON-able dict),
    for the run's ``summary.json`` and the index. Shows nothing (the report shows the same in words)."""
    _display({EXPERIMENT_MIME: _lab_stable(jsonable(summary))}, "")


def experiment_record(notebook_path) -> dict | None:
    """The :func:`record_experiment` of an executed notebook (the last one), or None."""
    found = list(_outputs(notebook_path, EXPERIMENT_MIME))
    return dict(found[-1]) if found else None


def headlines(notebook_path) -> dict:
    """The figures recorded with :func:`record` in an executed notebook: ``{name: data}``."""
    found = {}
    for data in _outputs(notebook_path, HEADLINE_MIME):
        found[data["name"]] = dict(data)
    return found


def claims(notebook_path) -> list[dict]:
    """Every :func:`claim` an executed notebook made, in order, each with its ``cell`` index."""
    return [dict(data) for data in _outputs(notebook_path, CLAIM_MIME, with_cell=True)]


def _outputs(notebook_path, mime: str, *, with_cell: bool = False):
    import nbformat

    nb = nbformat.read(str(notebook_path), as_version=4)
    for i, cell in enumerate(nb.cells):
        for output in cell.get("outputs", []):
            data = output.get("data", {}).get(mime)
            if data:
                yield {**data, "cell": i} if with_cell else data
