"""The ``rag-metrics`` command line: a thin shell over the package, one module per command.

``evaluate`` / ``compare`` (TREC files, :func:`rag_metrics.evaluate_trec`), ``pages`` (documents ->
pages.jsonl), ``run`` (a retriever -> a log), ``report`` (logs or notebooks -> HTML), ``gate`` (a run against a
baseline -> exit status for CI), ``history`` (saved runs), ``golden`` (pages -> a reviewed golden set), ``labels``
(a golden set's labels audited, assessors measured) and ``answers`` (logged answers judged). Each command module
has ``add(sub)`` (its parser, built from the shared option groups of :mod:`rag_metrics.cli.options`) and
``run(args)`` (parse, call the package, print). Bad input (:class:`~rag_metrics.InputError`) exits with status 2
and one line naming the file, line and what was expected; any other exception is a bug and shows its traceback.
"""

from __future__ import annotations

import argparse
import importlib
import os
import sys
import warnings
from pathlib import Path

from rag_metrics.cli.options import GOLDEN_WORK, OUTPUT_FORMATS
from rag_metrics.core.errors import InputError

__all__ = ["main", "COMMANDS", "OUTPUT_FORMATS", "GOLDEN_WORK"]

COMMANDS = ("evaluate", "compare", "history", "pages", "run", "golden", "labels", "answers", "report", "gate")
"""The commands, in the order `rag-metrics --help` lists them; each is the module ``rag_metrics.cli.<command>``."""


def _command(name: str):
    return importlib.import_module(f"rag_metrics.cli.{name}")


def _version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("rag_metrics")
    except PackageNotFoundError:  # pragma: no cover - run from a source tree without an install
        return "unknown"


class _Version(argparse.Action):
    """``--version``, looked up only when asked for: importing ``importlib.metadata`` costs ~50 ms, a third of a
    small evaluation's whole process."""

    def __init__(self, option_strings, dest=argparse.SUPPRESS, default=argparse.SUPPRESS, help="show the version"):
        super().__init__(option_strings, dest=dest, default=default, nargs=0, help=help)

    def __call__(self, parser, namespace, values, option_string=None):
        print(f"{parser.prog} {_version()}")  # on stdout, as argparse's own version action prints
        parser.exit()


def _parser(only: str | None = None) -> argparse.ArgumentParser:
    """The command line's parser; with ``only`` (a command), that command alone: building every subcommand costs
    more than evaluating a small run (argparse looks up translations for each one)."""
    parser = argparse.ArgumentParser(prog="rag-metrics", description="Exact retrieval metrics for RAG evaluation.")
    parser.add_argument("--version", action=_Version)
    sub = parser.add_subparsers(dest="command", required=True)
    for name in [only] if only else COMMANDS:
        _command(name).add(sub)
    return parser


_PACKAGE = str(Path(__file__).resolve().parent.parent)


def _one_line_warning(command: str, show):
    """The package's own warnings (a skipped history record, a broken cache entry) as one line, ``rag-metrics
    COMMAND: warning: ...``, instead of Python's file, line and source; other libraries' warnings as ``show`` does."""
    def one_line(message, category, filename, lineno, file=None, line=None):
        if issubclass(category, UserWarning) and str(Path(filename).resolve()).startswith(_PACKAGE):
            print(f"rag-metrics {command}: warning: {message}", file=sys.stderr)
        else:
            show(message, category, filename, lineno, file, line)
    return one_line


def main(argv=None) -> int:
    first = (sys.argv[1:] if argv is None else list(argv))[:1]
    args = _parser(only="evaluate" if first == ["evaluate"] else None).parse_args(argv)
    try:
        with warnings.catch_warnings():
            warnings.showwarning = _one_line_warning(args.command, warnings.showwarning)
            code = _command(args.command).run(args)
        sys.stdout.flush()
        return code
    except InputError as e:
        print(f"rag-metrics {args.command}: error: {e}", file=sys.stderr)
        return 2
    except BrokenPipeError:
        # The reader stopped early (`rag-metrics evaluate ... | head`): not an error. Point stdout at
        # devnull so that the interpreter's final flush does not fail again.
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return 0
