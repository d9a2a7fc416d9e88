"""The ``rag-metrics`` command line: a thin shell over the package, one module per command.

``evaluate`` / ``compare`` (TREC files, :func:`rag_metrics.evaluate_trec`), ``pages`` (documents ->
pages.jsonl), ``run`` (a retriever -> a log), ``report`` (logs or notebooks -> HTML), ``gate`` (a run against a
baseline -> exit status for CI), ``history`` (saved runs), ``golden`` (pages -> a reviewed golden set), ``labels``
(a golden set's labels audited, assessors measured) and ``answers`` (logged answers judged). Each command module
has ``add(sub)`` (its parser, built from the shared option groups of :mod:`rag_metrics.cli.options`) and
``run(args)`` (parse, call the package, print). Before a command runs, what it would write is checked against what
it reads and against its other outputs, in one place (:func:`_check_files`). Bad input
(:class:`~rag_metrics.InputError`) exits with status 2 and one line naming the file, line and what was expected;
Ctrl-C with 130 and one line; any other exception is a bug and shows its traceback.
"""

from __future__ import annotations

import argparse
import contextlib
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


class _Parser(argparse.ArgumentParser):
    """argparse's parser, its errors one line (``rag-metrics answers judge: error: ...; see --help``), exit 2: a
    usage block above the one line would hide it in a CI log."""

    def error(self, message):
        self.exit(2, f"{self.prog}: error: {message} (see {self.prog} --help)\n")


def _parser(only: str | None = None) -> argparse.ArgumentParser:
    """The command line's parser; with ``only`` (a command), that command alone: building every subcommand costs
    more than evaluating a small run (argparse looks up translations for each one)."""
    parser = _Parser(prog="rag-metrics", description="Exact retrieval metrics for RAG evaluation.")
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


class _Stdout:
    """Standard output that a reader may close early (`rag-metrics gate ... | head -1`): the first write or flush that
    meets the closed pipe points the file descriptor at the null device, and the command goes on to write its files
    and return its own decision. ``closed_early`` says it happened."""

    def __init__(self, stream):
        self._stream, self.closed_early = stream, False

    def _closed(self) -> None:
        self.closed_early = True
        with contextlib.suppress(OSError, ValueError):
            devnull = os.open(os.devnull, os.O_WRONLY)
            os.dup2(devnull, self._stream.fileno())  # the interpreter's last flush goes nowhere, quietly
            os.close(devnull)

    def write(self, text):
        if not self.closed_early:
            try:
                return self._stream.write(text)
            except BrokenPipeError:
                self._closed()
        return len(text)

    def flush(self) -> None:
        if not self.closed_early:
            try:
                self._stream.flush()
            except BrokenPipeError:
                self._closed()

    def __getattr__(self, name):
        return getattr(self._stream, name)


def _check_files(args) -> None:
    """The one rule before any command writes (:func:`rag_metrics.core.files.check_writes`): its outputs, as its
    parser declared them (:func:`rag_metrics.cli.options.files`), against its inputs and each other."""
    from rag_metrics.cli.options import declared_files
    from rag_metrics.core.files import check_writes

    reads, outputs = declared_files(args)
    if outputs:
        check_writes(reads, outputs, force=bool(getattr(args, "force", False)))


def main(argv=None) -> int:
    """Run one command; its exit status: the command's own (0, or 1 for a failing gate or a failed run), 2 for bad
    input (one line on stderr, nothing written), 130 when interrupted (Ctrl-C). A reader that closes standard output
    early changes nothing: the command still writes its files and returns its decision."""
    first = (sys.argv[1:] if argv is None else list(argv))[:1]
    args = _parser(only="evaluate" if first == ["evaluate"] else None).parse_args(argv)
    out = sys.stdout = _Stdout(sys.stdout)
    try:
        with warnings.catch_warnings():
            warnings.showwarning = _one_line_warning(args.command, warnings.showwarning)
            _check_files(args)
            code = _command(args.command).run(args)
        out.flush()
        return code
    except InputError as e:
        print(f"rag-metrics {args.command}: error: {e}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print(f"rag-metrics {args.command}: interrupted.", file=sys.stderr)
        return 130
    except OSError as e:
        if e.filename is None or isinstance(e, BrokenPipeError):
            raise
        print(f"rag-metrics {args.command}: error: {e.filename}: {e.strerror or e}", file=sys.stderr)
        return 1
    finally:
        sys.stdout = out._stream
