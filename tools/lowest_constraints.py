"""Print pip constraints that pin every runtime dependency to the lowest version pyproject.toml allows.

`make test` installs a second environment (.venv-lowest) with these constraints, so the declared lower bounds are
tested, not guessed: the base dependencies and those of the `report` extra (what `make report` installs) are pinned
to their `>=` bound; test-only tools resolve as usual. Usage: python tools/lowest_constraints.py > constraints.txt
"""

from __future__ import annotations

import re
import sys
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
EXTRAS = ("report",)  # runtime extras whose lower bounds are pinned (recursively through rag_metrics[...])
# Test-only packages that the pins above would otherwise leave broken: pip installs the newest pyarrow (for dask and
# ragas' datasets), and pyarrow 26 refuses numpy < 2 at import while declaring no numpy requirement.
TEST_ONLY = ["pyarrow<26"]


def requirements(project: dict, extras=EXTRAS) -> list[str]:
    """The base dependencies and those of ``extras``, following ``rag_metrics[...]`` self-references."""
    optional = project.get("optional-dependencies", {})
    out, seen, todo = list(project.get("dependencies", [])), set(), list(extras)
    while todo:
        extra = todo.pop()
        if extra in seen:
            continue
        seen.add(extra)
        for req in optional.get(extra, []):
            own = re.fullmatch(r"rag_metrics\[([^\]]+)\]", req.replace(" ", ""))
            if own:
                todo += own.group(1).split(",")
            else:
                out.append(req)
    return out


def lowest(reqs: list[str]) -> list[str]:
    """``name==bound`` for each requirement with a ``>=`` bound (the first one, extras dropped)."""
    pins = {}
    for req in reqs:
        m = re.match(r"\s*([A-Za-z0-9_.\-]+)(?:\[[^\]]*\])?\s*(.*)", req)
        name, spec = m.group(1).lower(), m.group(2)
        bound = re.search(r">=\s*([0-9][^,;\s]*)", spec)
        if bound and name not in pins:
            pins[name] = bound.group(1)
    return [f"{name}=={version}" for name, version in sorted(pins.items())]


def main() -> int:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    print("\n".join(lowest(requirements(project)) + TEST_ONLY))
    return 0


if __name__ == "__main__":
    sys.exit(main())
