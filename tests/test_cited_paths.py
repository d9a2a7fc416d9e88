"""Every file path and every ``rag_metrics.*`` name that a docstring, a comment, ``pyproject.toml``, the README or a
page of ``docs/`` cites exists: documentation that names a missing file or module is caught when it rots, not when a
reader follows it.

Scanned: the docstrings and comments of the package, ``tools/`` and ``benchmarks/`` (string literals in code are not
citations: a JUnit class name ``rag_metrics.gate`` is data), ``pyproject.toml``, ``README.md``, ``docs/*.md`` and the notebooks' Markdown cells.
A path is a token starting with one of the project's top folders; a name is a dotted ``rag_metrics.a.b`` that must
import as a module or resolve as an attribute of one.
"""

from __future__ import annotations

import ast
import importlib
import io
import json
import re
import tokenize
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
FOLDERS = ("benchmarks", "docs", "tools", "tests", "data", "notebooks", "rag_metrics", ".ci")
PATH = re.compile(r"(?<![\w./-])((?:%s)/[\w./-]*\w/?)" % "|".join(re.escape(f) for f in FOLDERS))
NAME = re.compile(r"(?<![\w./-])(rag_metrics(?:\.\w+)+)")
# cited on purpose although absent from a clean clone, each with its reason
NOT_IN_A_CLONE = {
    "docs/manual.pdf": "an example of a user's own file in rag_metrics/io/pages.py",
    "docs/hr/leave.pdf": "an example of a user's own file in rag_metrics/io/pages.py",
    "benchmarks/data": "written by benchmarks/generate.py",
}
NOT_A_MODULE = {"rag_metrics.egg": "the build's egg-info folder"}


def _python_texts(path: Path) -> list[str]:
    """The docstrings and comments of one Python file."""
    source = path.read_text(encoding="utf-8")
    texts = [tok.string for tok in tokenize.generate_tokens(io.StringIO(source).readline)
             if tok.type == tokenize.COMMENT]
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
            doc = ast.get_docstring(node, clean=False)
            if doc:
                texts.append(doc)
    return texts


def _sources() -> list[tuple[Path, list[str]]]:
    python = [p for folder in ("rag_metrics", "tools", "benchmarks") for p in sorted((ROOT / folder).rglob("*.py"))]
    prose = [ROOT / "pyproject.toml", ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
    notebooks = [*sorted((ROOT / "notebooks").glob("*.ipynb")), ROOT / "rag_metrics" / "report" / "experiment.ipynb"]
    return ([(p, _python_texts(p)) for p in python] + [(p, [p.read_text(encoding="utf-8")]) for p in prose]
            + [(p, _markdown_cells(p)) for p in notebooks])


def _markdown_cells(path: Path) -> list[str]:
    """The Markdown a notebook's reader sees (its code is checked by running it)."""
    cells = json.loads(path.read_text(encoding="utf-8"))["cells"]
    return ["".join(c["source"]) for c in cells if c["cell_type"] == "markdown"]


def cited_paths(text: str) -> set[str]:
    return {m.group(1).rstrip("./") for m in PATH.finditer(text) if not set(m.group(1)) & set("*{<")}


def cited_names(text: str) -> set[str]:
    return {m.group(1) for m in NAME.finditer(text)}


def resolves(name: str) -> bool:
    """True when ``name`` imports as a module, or its longest importable prefix has the rest as attributes."""
    parts = name.split(".")
    for i in range(len(parts), 0, -1):
        try:
            obj = importlib.import_module(".".join(parts[:i]))
        except ImportError:
            continue
        try:
            for attribute in parts[i:]:
                obj = getattr(obj, attribute)
        except AttributeError:
            return False
        return True
    return False


SOURCES = _sources()


@pytest.mark.parametrize("path,texts", SOURCES, ids=[str(p.relative_to(ROOT)) for p, _ in SOURCES])
def test_every_cited_path_and_name_exists(path, texts):
    missing = sorted({p for t in texts for p in cited_paths(t)
                      if p not in NOT_IN_A_CLONE and not (ROOT / p).exists()})
    unknown = sorted({n for t in texts for n in cited_names(t) if n not in NOT_A_MODULE and not resolves(n)})
    assert not missing and not unknown, f"{path.relative_to(ROOT)} cites {missing + unknown}"


def test_the_scan_sees_what_it_must():
    """The patterns find a missing path and an unknown name, and leave code literals alone."""
    assert cited_paths("see ``benchmarks/statistics.md`` and docs/gate.md.") == {"benchmarks/statistics.md",
                                                                                "docs/gate.md"}
    assert cited_names(":mod:`rag_metrics.measures.fast` and rag_metrics.io.trec_fast.") == {
        "rag_metrics.measures.fast", "rag_metrics.io.trec_fast"}
    assert not resolves("rag_metrics.measures.fast") and not resolves("rag_metrics.io.golden.NoSuchName")
    assert resolves("rag_metrics.io.golden.GoldenSet") and resolves("rag_metrics.io.trec_fast")
    texts = _python_texts(ROOT / "rag_metrics" / "experiment" / "gate.py")
    assert not any("rag_metrics.gate" in t for t in texts)  # the JUnit class name is a literal, not a citation
    assert not (ROOT / "benchmarks" / "statistics.md").exists()


@pytest.mark.parametrize("path", sorted(NOT_IN_A_CLONE))
def test_each_exception_is_still_cited(path):
    assert any(path in t for _, texts in SOURCES for t in texts), f"{path} is no longer cited: drop it from the list"
