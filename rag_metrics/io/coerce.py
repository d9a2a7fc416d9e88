"""What an entry point was given, as the object it needs: a path read once, an object passed through, anything else
refused by name.

Every function that takes a golden set, the documents or a retrieval log (:func:`rag_metrics.evaluate_log`,
:func:`rag_metrics.experiment.experiment_report.experiment_report`, ...) calls these first, so a path works wherever the
object does and a wrong kind of value is one :class:`~rag_metrics.core.errors.InputTypeError` (an ``InputError`` and a
``TypeError``) saying what was expected, never an ``AttributeError`` from deep inside:

* :func:`as_corpus` -- a :class:`~rag_metrics.io.corpus.Corpus`, or a folder / ``pages.jsonl`` / document path
  (:func:`~rag_metrics.io.corpus.load_corpus`); ``None`` stays ``None``;
* :func:`as_golden` -- a :class:`~rag_metrics.io.golden.GoldenSet`, or its path (JSON lines or CSV,
  :func:`~rag_metrics.io.golden.load_golden`, checked against the corpus when one is given);
* :func:`as_log` -- a :class:`~rag_metrics.io.logs.RunLog`, or its path, a preset spec included
  (``langchain:LOG``, :func:`~rag_metrics.io.logs.load_log`);
* :func:`as_logs` -- one log or several (a single path is one log, not a string of characters).

A DataFrame is refused where a golden set or a log is expected (its columns would be guessed): the message names the
loader that reads the file.
"""

from __future__ import annotations

import os

from rag_metrics.core.errors import wrong_type

__all__ = ["as_corpus", "as_golden", "as_log", "as_logs", "is_path"]


def is_path(value) -> bool:
    """A string or an ``os.PathLike``: what the loaders read."""
    return isinstance(value, (str, os.PathLike))


def as_corpus(corpus, *, func: str = ""):
    """``corpus`` as a :class:`~rag_metrics.io.corpus.Corpus` (module docstring); None stays None."""
    from rag_metrics.io.corpus import Corpus, load_corpus

    if corpus is None or isinstance(corpus, Corpus):
        return corpus
    if is_path(corpus):
        return load_corpus(corpus)
    raise wrong_type(corpus, "corpus", "a Corpus or the path of the documents (a folder, pages.jsonl or a document)",
                     func=func, hint="Read them with rag_metrics.load_corpus(path).")


def as_golden(golden, corpus=None, *, func: str = ""):
    """``golden`` as a :class:`~rag_metrics.io.golden.GoldenSet` (module docstring): a path is read and, with a
    ``corpus``, checked against it."""
    from rag_metrics.io.golden import GoldenSet, load_golden

    if isinstance(golden, GoldenSet):
        return golden
    if is_path(golden):
        return load_golden(golden, corpus=corpus)
    hint = ("A table of gold rows (golden.gold) is what rag_metrics.evaluate takes; here give the golden set itself."
            if type(golden).__name__ == "DataFrame" else "Read it with rag_metrics.load_golden(path).")
    raise wrong_type(golden, "golden", "a GoldenSet or the path of a golden set (JSON lines or CSV)", func=func,
                     hint=hint)


def as_log(log, *, func: str = "", name: str = "log"):
    """``log`` as a :class:`~rag_metrics.io.logs.RunLog` (module docstring): a path (or ``PRESET:PATH``) is read."""
    from rag_metrics.io.logs import RunLog, load_log

    if isinstance(log, RunLog):
        return log
    if is_path(log):
        return load_log(log)
    hint = ("A run table (log.run) is what rag_metrics.evaluate takes; here give the log itself."
            if type(log).__name__ == "DataFrame" else "Read it with rag_metrics.load_log(path[, preset=...]).")
    raise wrong_type(log, name, "a RunLog or the path of a retrieval log (JSON lines; PRESET:PATH for another "
                     "shape)", func=func, hint=hint)


def as_logs(logs, *, func: str = "") -> list:
    """One log or several (:func:`as_log` each), as a list: a single path or RunLog is a list of one."""
    from rag_metrics.io.logs import RunLog

    if is_path(logs) or isinstance(logs, RunLog):
        return [as_log(logs, func=func)]
    if not hasattr(logs, "__iter__") or type(logs).__name__ == "DataFrame":
        raise wrong_type(logs, "logs", "a list of RunLogs or paths of retrieval logs", func=func)
    return [as_log(x, func=func, name="logs") for x in logs]
