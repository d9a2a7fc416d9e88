"""List what is too big to read at once: modules over 600 lines, functions over 60 lines, classes over 20 methods.

    python tools/sizes.py                      # the whole package
    python tools/sizes.py --skip experiment report   # leave folders out (their owners split them)

A function's lines run from its ``def`` (decorators left out) to its last line, docstring included; nested functions
count within their parent and are listed on their own too. A class's methods are the functions defined directly in
its body (properties and static methods included). Exit status 1 when anything is listed, else 0.
"""

from __future__ import annotations

import argparse
import ast
import sys
from pathlib import Path

MODULE_LINES, FUNCTION_LINES, CLASS_METHODS = 600, 60, 20
PACKAGE = Path(__file__).resolve().parent.parent / "rag_metrics"


def oversized(root: Path = PACKAGE, skip: tuple = ()) -> list[str]:
    """One line per module, function or class over its limit under ``root``, folders in ``skip`` left out."""
    found = []
    for path in sorted(root.rglob("*.py")):
        rel = path.relative_to(root)
        if rel.parts[0] in skip:
            continue
        text = path.read_text(encoding="utf-8")
        lines = len(text.splitlines())
        if lines > MODULE_LINES:
            found.append(f"{rel}: module of {lines} lines (> {MODULE_LINES})")
        for node in ast.walk(ast.parse(text)):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                length = node.end_lineno - node.lineno + 1
                if length > FUNCTION_LINES:
                    found.append(f"{rel}:{node.lineno}: function {node.name} of {length} lines (> {FUNCTION_LINES})")
            elif isinstance(node, ast.ClassDef):
                methods = [n for n in node.body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))]
                if len(methods) > CLASS_METHODS:
                    found.append(f"{rel}:{node.lineno}: class {node.name} of {len(methods)} methods "
                                 f"(> {CLASS_METHODS})")
    return found


def main(argv=None) -> int:
    """Print what :func:`oversized` finds; 1 when anything is, else 0."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--skip", nargs="*", default=[], help="top-level folders of the package to leave out")
    args = parser.parse_args(argv)
    found = oversized(skip=tuple(args.skip))
    print("\n".join(found) if found else "nothing over the limits")
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main())
