"""Every string parameter of every teaching notebook reaches the HTML escaped (stored XSS through papermill).

A notebook shows its parameters in Markdown -- a model name inside backticks, a retriever's name in a sentence.
Every string parameter (and each list of strings) of each notebook in ``notebooks/`` is set, all at once, to a
value carrying the payloads of tests/test_hostile.py plus backticks that close a Markdown code span; the notebook is
built with ``rag-metrics report --notebook``. Either it is refused (a parameter that must name a choice: exit 2, or
the notebook fails on it) or it builds; whatever HTML was written -- the notebook's page, the index -- holds no
element, attribute or link the payloads would create.
"""

import ast
import json
from pathlib import Path

import pytest
from test_hostile import PAYLOADS, html_problems

from rag_metrics.cli import main

ROOT = Path(__file__).resolve().parent.parent
# backticks close a code span the notebook opened; then an element Markdown passes through as raw HTML (its
# attribute double-quoted: CommonMark's raw-HTML grammar refuses an unquoted value holding a quote), a script, a link
HOSTILE = "model`<img src=x onerror=\"document.body.setAttribute('data-pwned',6)\">`" + PAYLOADS[0] + PAYLOADS[3]


def string_parameters(path: Path) -> list[tuple[str, object]]:
    """The parameters cell's string and list-of-strings parameters: ``(name, hostile value)``."""
    nb = json.loads(path.read_text(encoding="utf-8"))
    cell = next(c for c in nb["cells"] if "parameters" in c.get("metadata", {}).get("tags", []))
    out = []
    for node in ast.parse("".join(cell["source"])).body:
        if isinstance(node, ast.Assign) and isinstance(node.targets[0], ast.Name):
            try:
                value = ast.literal_eval(node.value)
            except ValueError:
                continue
            if isinstance(value, str):
                out.append((node.targets[0].id, HOSTILE))
            elif isinstance(value, list) and value and all(isinstance(v, str) for v in value):
                out.append((node.targets[0].id, [HOSTILE]))
    return out


CASES = [(path.name, name, value) for path in sorted((ROOT / "notebooks").glob("*.ipynb"))
         for name, value in string_parameters(path)]
# One build per notebook with every string parameter hostile at once: each value is injected into the parameters
# cell the page shows, and the notebook stops at the first check that refuses one (its message quotes the value).
BUILDS = {nb: [(name, value) for other, name, value in CASES if other == nb] for nb, _, _ in CASES}


def test_the_cases_reach_the_parameters_a_user_types():
    names = {(nb, name) for nb, name, _ in CASES}
    assert ("06_normalization_threshold.ipynb", "stale_document") in names  # a document id, free text
    assert ("02_chunking_grid.ipynb", "retriever") in names and ("08_building_a_golden_set.ipynb", "retrievers") in names
    assert len({nb for nb, _, _ in CASES}) >= 10  # every notebook with a string parameter but 00 and 01
    assert sorted((nb, name) for nb, params in BUILDS.items() for name, _ in params) == sorted(names)


@pytest.mark.parametrize("notebook", sorted(BUILDS), ids=[nb[:2] for nb in sorted(BUILDS)])
def test_hostile_string_parameters_reach_no_page_live(tmp_path, capsys, warm_kernels, notebook):
    reports = tmp_path / "reports"
    given = []
    for name, value in BUILDS[notebook]:
        given += ["-p", f"{name}={json.dumps(value) if isinstance(value, list) else value}"]
    code = main(["report", "--experiment", "hostile", "--notebook", str(ROOT / "notebooks" / notebook),
                 "--notebooks-dir", str(ROOT / "notebooks"), "--reports-dir", str(reports), *given, "--jobs", "1"])
    err = capsys.readouterr().err
    assert code in (0, 1, 2), err
    if code == 2:  # refused before anything was written
        assert not reports.exists() or not list(reports.rglob("*.html")), err
    pages = list(reports.rglob("*.html"))
    if code != 2:  # built or failed on a value: its page shows the values (inert), so they did reach it
        own = [p for p in pages if p.name.startswith(notebook[:2])]
        assert own and all("data-pwned" in p.read_text(encoding="utf-8") for p in own), pages
    for page in pages:
        assert html_problems(page.read_text(encoding="utf-8")) == [], (page.name, [n for n, _ in BUILDS[notebook]])
