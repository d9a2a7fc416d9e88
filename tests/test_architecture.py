"""The package's shape: folders follow the data flow, one registry of measures, one error type, one
result shape, dependencies by use."""

import ast
import importlib
import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

import rag_metrics
from rag_metrics import InputError, evaluate_trec, parse_measure
from rag_metrics.measures.registry import REGISTRY, measure_table

ROOT = Path(rag_metrics.__file__).resolve().parent
REPO = ROOT.parent

# The data flow, bottom to top: a module may import only from its own step or an earlier one.
STEPS = ["core", "io", "llm", "retrieval", "judging", "answers", "measures", "stats", "golden", "experiment", "labels",
         "report", "lab", "cli"]


def _step(module: str) -> str:
    parts = module.split(".")[1:]  # drop "rag_metrics"
    return parts[0] if parts else "core"


def _from_target(node: ast.ImportFrom, package: str) -> str:
    """The module a ``from ... import`` names, relative imports resolved against ``package``."""
    if not node.level:
        return node.module or ""
    base = package.split(".")[: len(package.split(".")) - node.level + 1]
    return ".".join(base + ([node.module] if node.module else []))


def _imports(path: Path, module: str):
    tree = ast.parse(path.read_text(encoding="utf-8"))
    package = module if path.name == "__init__.py" else module.rsplit(".", 1)[0]
    for node in ast.walk(tree):  # function-level (lazy) imports count too
        if isinstance(node, ast.ImportFrom):
            target = _from_target(node, package)
            names = [target] if node.module else [f"{target}.{a.name}" for a in node.names]
        elif isinstance(node, ast.Import):
            names = [a.name for a in node.names]
        else:
            continue
        for name in names:
            if name.startswith("rag_metrics"):
                yield node.lineno, name


def _modules():
    for path in sorted(ROOT.rglob("*.py")):
        rel = path.relative_to(REPO).with_suffix("")
        parts = list(rel.parts)
        if parts[-1] == "__init__":
            parts = parts[:-1]
        yield path, ".".join(parts)


def test_nothing_imports_from_a_later_step():
    upward = []
    for path, module in _modules():
        if module == "rag_metrics":  # the package's public names gather every step
            continue
        own = STEPS.index(_step(module))
        for line, target in _imports(path, module):
            if STEPS.index(_step(target)) > own:
                upward.append(f"{path.relative_to(REPO)}:{line} ({_step(module)}) imports {target} ({_step(target)})")
    assert not upward, "\n".join(upward)


def _graph() -> dict:
    """module -> the package modules it imports (function-level and type-only imports included): ``from .x import
    y`` leads to ``x``, and to ``x.y`` too when ``y`` is a submodule."""
    modules = {module for _, module in _modules()}
    graph = {}
    for path, module in _modules():
        tree = ast.parse(path.read_text(encoding="utf-8"))
        package = module if path.name == "__init__.py" else module.rsplit(".", 1)[0]
        edges = set()
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom):
                target = _from_target(node, package)
                targets = [target] + [f"{target}.{a.name}" for a in node.names]
            elif isinstance(node, ast.Import):
                targets = [a.name for a in node.names]
            else:
                continue
            edges |= {t for t in targets if t in modules and t != module}
        graph[module] = edges
    return graph


def _circles(graph: dict) -> list[list[str]]:
    """The strongly connected components with more than one module (Tarjan), each sorted."""
    index, low, on_stack, stack, out = {}, {}, set(), [], []

    def visit(v):
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in sorted(graph.get(v, ())):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                out.append(sorted(component))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return out


def test_no_import_circle_anywhere():
    """Not even inside one folder, not even through a lazy or type-only import: each module can be read (and
    tested) knowing only what it imports. Package ``__init__`` modules that gather public names are left out."""
    graph = {m: {t for t in edges if not _is_gathering(t)} for m, edges in _graph().items() if not _is_gathering(m)}
    assert not _circles(graph), "\n".join(" <-> ".join(c) for c in _circles(graph))


def _is_gathering(module: str) -> bool:
    return module == "rag_metrics" or (ROOT.parent / (module.replace(".", "/") + "/__init__.py")).exists()


def test_the_dask_mechanics_know_no_judge_and_no_evaluator():
    """measures/distributed.py is the Dask mechanics alone: it is handed the prepared evaluator (which imports it only
    where Dask is chosen) and the experiment's per-part function, so nothing it reaches, even lazily, judges."""
    graph = {m: {t for t in edges if not _is_gathering(t)} for m, edges in _graph().items()}
    reached, todo = set(), ["rag_metrics.measures.distributed"]
    while todo:
        for target in graph.get(todo.pop(), ()):
            if target not in reached:
                reached.add(target)
                todo.append(target)
    assert "rag_metrics.measures.evaluation" in reached
    assert not {m for m in reached if _step(m) not in ("core", "io", "measures") or m == "rag_metrics.measures.evaluator"}


def _private_uses(path: Path, module: str, modules: set) -> list[str]:
    """Where ``path`` reaches a private name (``_x``, not ``__x__``) of another package module: ``from m import _x``,
    and ``m._x`` on a module it imported (``from pkg import m``, ``import pkg.m as m``)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    package = module if path.name == "__init__.py" else module.rsplit(".", 1)[0]
    private = re.compile(r"_(?!_)")
    found, bound = [], {}
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            target = _from_target(node, package)
            for alias in node.names if target.startswith("rag_metrics") else ():
                if f"{target}.{alias.name}" in modules:
                    bound[alias.asname or alias.name] = f"{target}.{alias.name}"
                elif private.match(alias.name) and target != module:
                    found.append(f"{node.lineno}: from {target} import {alias.name}")
        elif isinstance(node, ast.Import):
            bound.update({a.asname: a.name for a in node.names if a.asname and a.name in modules})
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id in bound \
                and private.match(node.attr) and bound[node.value.id] != module:
            found.append(f"{node.lineno}: {bound[node.value.id]}.{node.attr}")
    return found


def test_no_private_name_is_imported_across_modules(tmp_path):
    """A name that starts with ``_`` belongs to its module: another module that needs it means it is a shared concept
    (make it public, with a docstring) or it lives in the wrong module (move it to its one home)."""
    modules = {module for _, module in _modules()}
    found = [f"{path.relative_to(REPO)}:{use}" for path, module in _modules()
             for use in _private_uses(path, module, modules)]
    assert not found, "\n".join(found)
    planted = tmp_path / "planted.py"  # the check sees both spellings, and leaves public and dunder names alone
    planted.write_text("from rag_metrics.stats.paired import _x, align_runs, __doc__\n"
                       "from rag_metrics.stats import paired as p\nimport rag_metrics.stats.intervals as iv\n"
                       "p._y(); iv._z; p.align_runs; iv.__name__\n", encoding="utf-8")
    assert sorted(u.split(": ", 1)[1] for u in _private_uses(planted, "rag_metrics.lab.planted", modules)) == [
        "from rag_metrics.stats.paired import _x", "rag_metrics.stats.intervals._z", "rag_metrics.stats.paired._y"]


def test_the_measures_read_no_file():
    """measures/ takes the typed inputs of io/ (judgments, rankings, a coded run) and never a reader: files are read by
    the types' constructors and methods."""
    allowed = {"rag_metrics.io.judgments", "rag_metrics.io.rankings", "rag_metrics.io.coded"}
    readers = [f"{module}:{line} imports {target}" for path, module in _modules() if module.startswith("rag_metrics.measures")
               for line, target in _imports(path, module)
               if target.startswith("rag_metrics.io") and target not in allowed]
    assert not readers, "\n".join(readers)


def test_the_circle_check_sees_circles():
    assert _circles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    assert _circles({"a": {"b"}, "b": set()}) == []


def test_every_subpackage_says_what_it_takes_and_hands_on():
    for sub in [s for s in STEPS if s != "cli"]:
        doc = (ROOT / sub / "__init__.py").read_text(encoding="utf-8")
        assert re.search(r"Takes .*hands on", doc, re.S), sub


def test_the_measure_table_of_the_docs_is_the_registry():
    assert measure_table() in (REPO / "docs" / "metrics.md").read_text(encoding="utf-8")


def test_cli_help_lists_every_measure(capsys):
    from rag_metrics.cli import main

    with pytest.raises(SystemExit):
        main(["evaluate", "--help"])
    out = capsys.readouterr().out
    for spec in REGISTRY.values():
        assert spec.display() in out
        for alias in spec.aliases:
            assert alias in out


@pytest.mark.parametrize("spec", list(REGISTRY.values()), ids=list(REGISTRY))
def test_every_name_and_alias_round_trips(spec):
    k = None if spec.cutoff == "forbidden" else 7
    for name in (spec.name, *spec.aliases):
        for spelling in (name, name.upper()):
            text = spelling if k is None else f"{spelling}@{k}"
            m = parse_measure(text)
            assert m.name == spec.name and parse_measure(str(m)) == m
    if spec.cutoff == "required":
        with pytest.raises(InputError, match="needs a cutoff"):
            parse_measure(spec.name)
    if spec.cutoff == "forbidden":
        with pytest.raises(InputError, match="takes no cutoff"):
            parse_measure(f"{spec.name}@10")


def test_unknown_names_fail_with_close_matches():
    with pytest.raises(InputError, match=r"Unknown measure 'ndgc@10'.*Did you mean 'ndcg@10'"):
        parse_measure("ndgc@10")
    with pytest.raises(InputError, match=r"Measure 'ndcg@.*': expected ndcg\[\(rel=N\)\]\[@k\] with N and k ints"):
        parse_measure("ndcg@\u0661\u0660")  # Arabic-Indic digits are not a cutoff
    with pytest.raises(InputError, match="Unknown measure 'bleu'"):
        parse_measure("bleu")


def test_registry_entries_are_complete():
    import rag_metrics.measures.metrics as metrics

    for spec in REGISTRY.values():
        assert spec.cutoff in ("required", "allowed", "forbidden")
        assert spec.reference.__module__ == metrics.__name__ and spec.reference.__name__ in metrics.__all__
        assert spec.reference.__doc__ and "None" in spec.reference.__doc__ or not spec.undefined_without_relevant
        assert callable(spec.kernel) and spec.summary


# ---- one TREC entry point, one result shape ----------------------------------------------------

QRELS = "q1 0 d1 1\nq1 0 d2 2\nq2 0 d9 0\nq3 0 d4 1\n"
RUN = "q1 Q0 d1 1 2.0 x\nq1 Q0 d3 2 2.0 x\nq1 Q0 d2 3 1.0 x\nq2 Q0 d9 1 1.0 x\nq7 Q0 d1 1 1.0 x\n"


@pytest.fixture
def trec_files(tmp_path):
    (tmp_path / "qrels.txt").write_text(QRELS)
    (tmp_path / "run.txt").write_text(RUN)
    return tmp_path / "qrels.txt", tmp_path / "run.txt"


def test_evaluate_trec_engines_agree_and_say_which_ran(trec_files, tmp_path):
    qrels, run = trec_files
    fast = evaluate_trec(qrels, run, ["mrr", "ndcg@2", "recall@2"])
    general = evaluate_trec(qrels, run, ["mrr", "ndcg@2", "recall@2"], engine="general")
    assert fast.settings["engine"] == "fast/small" and general.settings["engine"] == "general"
    assert {k: v for k, v in fast.to_dict(per_question=True).items() if k != "settings"} == \
        {k: v for k, v in general.to_dict(per_question=True).items() if k != "settings"}
    assert fast.to_dict()["unknown_questions"] == ["q7"]
    tabbed = tmp_path / "tabbed.txt"
    tabbed.write_text(RUN.replace(" ", "\t"))
    assert evaluate_trec(qrels, tabbed, ["mrr"]).settings["engine"] == "general"
    with pytest.raises(InputError, match="engine='fast' cannot evaluate these files"):
        evaluate_trec(qrels, tabbed, ["mrr"], engine="fast")


def test_evaluate_trec_with_a_doc_map(tmp_path):
    (tmp_path / "q").write_text("q 0 manual 1\nq 0 faq 1\n")
    (tmp_path / "r").write_text("".join(f"q Q0 {c} {i} {10 - i} x\n" for i, c in enumerate(["m1", "m2", "m3", "f1"], 1)))
    doc_map = {"m1": "manual", "m2": "manual", "m3": "manual", "f1": "faq"}
    ev = evaluate_trec(tmp_path / "q", tmp_path / "r", ["recall@3"], doc_map=doc_map)
    assert ev.per_question.loc["q", "recall@3"] == 0.5 and ev.settings["level"] == "document"
    (tmp_path / "m").write_text("m1\tmanual\n")
    with pytest.raises(InputError, match=r"/r:2: unknown chunk ID 'm2'"):
        evaluate_trec(tmp_path / "q", tmp_path / "r", ["recall@3"], doc_map=tmp_path / "m")


def test_the_cli_prints_the_evaluation_dict(trec_files, capsys):
    from rag_metrics.cli import main

    qrels, run = trec_files
    assert main(["evaluate", str(qrels), str(run), "-m", "mrr", "--format", "json", "--per-question"]) == 0
    printed = json.loads(capsys.readouterr().out)
    expected = evaluate_trec(qrels, run, ["mrr"]).to_dict(per_question=True)
    assert printed == expected and printed["settings"]["level"] == "document"
    assert set(printed) == {"summary", "per_query", "unknown_questions", "settings"}
    assert printed["per_query"]["q2"]["mrr"] is None and printed["summary"]["mrr"]["excluded_ids"] == ["q2"]


def test_history_saves_the_same_dict(trec_files, tmp_path):
    from rag_metrics.experiment.history import save_run

    ev = evaluate_trec(*trec_files, ["mrr"])
    rec = json.loads(save_run(ev, tmp_path / "h", name="x").read_text())
    for key, value in ev.to_dict(per_question=True).items():
        assert rec[key] == value


# ---- errors ----------------------------------------------------------------------------------

def test_cli_maps_only_input_errors_to_exit_2(trec_files, monkeypatch):
    from rag_metrics import cli
    from rag_metrics.measures import evaluator

    def broken(*args, **kwargs):
        raise ValueError("an internal bug")

    monkeypatch.setattr(evaluator, "evaluate_trec", broken)
    with pytest.raises(ValueError, match="an internal bug"):  # a bug surfaces as one, not as "bad input"
        cli.main(["evaluate", *map(str, trec_files)])


def test_fast_path_falls_back_only_on_what_it_expects(trec_files, monkeypatch):
    from rag_metrics.io import trec_fast

    def out_of_memory(*args, **kwargs):
        raise MemoryError

    monkeypatch.setattr(trec_fast, "_code_small", out_of_memory)
    with pytest.raises(MemoryError):
        evaluate_trec(*trec_files, ["mrr"])


def test_user_errors_are_input_errors_not_key_errors():
    import pandas as pd

    from rag_metrics import collapse_to_documents, evaluate

    with pytest.raises(InputError) as err:
        collapse_to_documents(["c1"], {}, 1)
    assert not isinstance(err.value, KeyError) and str(err.value).startswith("collapse_to_documents: unknown chunk")
    ev = evaluate(pd.DataFrame({"question_id": ["q"], "doc_id": ["d"]}),
                  pd.DataFrame({"question_id": ["q"], "rank": [1], "doc_id": ["d"]}), ["mrr"])
    with pytest.raises(InputError, match="'genre' is not a question attribute"):
        ev.by("genre")


# ---- dependencies by use ----------------------------------------------------------------------

BLOCK = """
import importlib.abc, sys
OPTIONAL = {"bm25s", "faiss", "sklearn", "matplotlib", "papermill", "nbformat", "nbconvert", "jinja2",
            "dask", "distributed", "yaml", "tqdm", "IPython"}
class Block(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path=None, target=None):
        if name.split(".")[0] in OPTIONAL:
            raise ImportError(f"{name} is an optional dependency (blocked by the test)")
sys.meta_path.insert(0, Block())
"""


def test_measures_trec_and_cli_need_only_the_core_dependencies(trec_files):
    qrels, run = map(str, trec_files)
    code = BLOCK + f"""
import pandas as pd
import rag_metrics as rm
from rag_metrics.cli import main
assert main(["evaluate", {qrels!r}, {run!r}, "-m", "mrr", "--engine", "general"]) == 0
assert main(["evaluate", {qrels!r}, {run!r}, "-m", "mrr"]) == 0
ev = rm.evaluate(pd.DataFrame({{"question_id": ["q"], "doc_id": ["d"]}}),
                 pd.DataFrame({{"question_id": ["q"], "rank": [1], "doc_id": ["d"]}}), ["mrr"])
assert ev.summary.loc["mrr", "mean"] == 1.0
from rag_metrics.stats import mean_interval, paired_test, questions_needed
assert questions_needed(0.05, 0.2) > 0
assert mean_interval([1.0, 0.0, 1.0]).method == "Clopper-Pearson" and paired_test([0.0, 1.0], [1.0, 1.0]).n == 2
assert main(["compare", {qrels!r}, {run!r}, {run!r}, "-m", "mrr"]) == 0
print("ok")
"""
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert done.returncode == 0 and done.stdout.strip().endswith("ok"), done.stderr[-3000:]


def test_the_package_is_typed():
    assert (ROOT / "py.typed").exists()
    import inspect

    for name in rag_metrics.__all__:
        obj = getattr(rag_metrics, name)
        if inspect.isfunction(obj):
            hints = obj.__annotations__
            assert "return" in hints, name


@pytest.mark.parametrize("step", [s for s in STEPS if s != "cli"])
def test_each_subpackage_says_what_it_takes_in_and_hands_on(step):
    doc = (importlib.import_module(f"rag_metrics.{step}").__doc__ or "").strip()
    first = doc.splitlines()[0] if doc else ""
    assert "->" in first, f"rag_metrics/{step}/__init__.py: the first docstring line should read 'input -> output'"


def test_the_cli_choices_are_the_package_constants():
    """The command line offers exactly what the package accepts: its choices are the package's own tuples, so a new
    format, engine, preset or judge reaches the CLI without being typed twice."""
    from rag_metrics.cli import OUTPUT_FORMATS, _parser
    from rag_metrics.core.errors import GAINS, ORDERS
    from rag_metrics.io.formats import QRELS_FORMATS, RUN_FORMATS
    from rag_metrics.io.judgments import LEVELS
    from rag_metrics.io.log_presets import PRESETS
    from rag_metrics.io.trec import ORDER_BY
    from rag_metrics.judging.judges import JUDGES
    from rag_metrics.measures.evaluator import ENGINES

    def parsers(parser, name="rag-metrics"):  # every command and sub-command
        yield name, parser
        for action in parser._actions:
            if isinstance(action.choices, dict):
                for sub, p in action.choices.items():
                    yield from parsers(p, f"{name} {sub}")

    subs = dict(parsers(_parser()))
    choices = {(name, a.dest): tuple(a.choices) for name, p in subs.items() for a in p._actions
               if a.choices and not isinstance(a.choices, dict)}
    expected = {"qrels_format": QRELS_FORMATS, "run_format": RUN_FORMATS, "gain": GAINS, "order": ORDERS,
                "order_by": ORDER_BY, "engine": ENGINES, "unit": LEVELS, "judge": tuple(JUDGES),
                "format": OUTPUT_FORMATS}
    seen = set()
    from rag_metrics.experiment.history import RUN_ORDERS

    for (command, dest), offered in choices.items():
        if (command, dest) == ("rag-metrics report", "order"):  # the order of the runs, not the collapsing order
            assert offered == RUN_ORDERS
        elif dest in expected:
            assert offered == tuple(expected[dest]), (command, dest, offered)
            seen.add(dest)
    assert seen == set(expected)
    # --preset is checked by the package (one line naming the presets, exit 2); its help lists the same names
    helps = [a.help for p in subs.values() for a in p._actions if a.dest == "preset"]
    assert len(helps) >= 2 and all(f"log shape: {', '.join(PRESETS)} " in h for h in helps)


def test_the_cjk_class_and_the_page_marker_are_defined_once():
    """Kana/kanji ranges and the ``[p.N]`` pattern live in rag_metrics/core/text.py alone: two copies drift apart (one had
    lost half-width katakana and the compatibility ideographs)."""
    ranges = re.compile(r"\\u(?:3040|30ff|3400|4e00|9fff|f900|ff66)|[\u3040\u3400\u4e00\uf900]-")
    marker = re.compile(r"\\\[p\\\.")
    copies = [f"{path.relative_to(REPO)}:{n}" for path, _ in _modules() if path.relative_to(ROOT).as_posix() != "core/text.py"
              for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
              if ranges.search(line) or marker.search(line)]
    assert not copies, "\n".join(copies)
    from rag_metrics.core.text import CJK_CHAR, PAGE_MARKER, cjk_count

    assert cjk_count("ｶﾀｶﾅ 﨑 かな 漢字 abc") == 9 and not CJK_CHAR.search("ＡＢＣ１２３")
    assert [m.group(1) for m in PAGE_MARKER.finditer("[p.1] a [p.12] [p.x]")] == ["1", "12"]


def test_the_experiment_loop_is_one_import_and_import_stays_light():
    code = ("import sys, rag_metrics as rm\nassert 'pandas' not in sys.modules\n"
            "from rag_metrics import evaluate_log, load_log, load_golden, load_corpus, load_answers\n"
            "from rag_metrics.experiment.evaluate import evaluate_log as deep\n"
            "assert evaluate_log is deep and 'load_log' in dir(rm) and 'evaluate_log' in rm.__all__\n"
            "try:\n    rm.no_such_name\nexcept AttributeError:\n    print('ok')\n")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert done.stdout.strip() == "ok", done.stderr


def test_later_steps_build_and_run_no_retriever():
    """Retrievers are built and searched in retrieval/; stats/, experiment/ and labels/ evaluate the runs they are handed (through
    retrieval's functions), so a change in how a run is made is one place."""
    searching = re.compile(r"\b(?:BM25Retriever|DenseRetriever|HybridRetriever|make_retriever|chunk_fixed|chunk_by_heading)\("
                           r"|\bretriever\.search\(")
    found = [f"{path.relative_to(REPO)}:{n}" for path, module in _modules() if module.split(".")[1:2] in (["stats"], ["experiment"], ["labels"])
             for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1) if searching.search(line)]
    assert not found, "\n".join(found)


def test_the_circle_check_sees_a_circle_inside_one_folder():
    """The real graph holds intra-folder and lazy edges (golden.generators imports golden.llm inside a function,
    golden.review imports golden.review_file): one planted edge back closes a circle the check reports."""
    graph = {m: {t for t in edges if not _is_gathering(t)} for m, edges in _graph().items() if not _is_gathering(m)}
    assert "rag_metrics.llm.clients" in graph["rag_metrics.golden.generators"]  # a function-level import, seen
    assert "rag_metrics.golden.review_file" in graph["rag_metrics.golden.review"]
    assert "rag_metrics.measures.arrays" in graph["rag_metrics.measures.registry"]
    for a, b in (("rag_metrics.llm.clients", "rag_metrics.golden.generators"),
                 ("rag_metrics.golden.review_file", "rag_metrics.golden.review"),
                 ("rag_metrics.measures.arrays", "rag_metrics.measures.registry")):
        planted = {m: set(e) | ({b} if m == a else set()) for m, e in graph.items()}
        assert any({a, b} <= set(c) for c in _circles(planted)), (a, b)


def test_module_level_skips_only_where_the_whole_module_needs_the_piece():
    """A module-level importorskip hides every test of the file when the piece is missing; test_inputs.py holds log,
    preset and CSV tests that need no PDF library, so its PDF writer is a fixture."""
    text = (REPO / "tests" / "test_inputs.py").read_text(encoding="utf-8")
    assert not re.search(r"^\S.*importorskip", text, re.M)


def test_no_module_function_or_class_over_the_size_limits(tmp_path):
    """Modules <= 600 lines, functions <= 60, classes <= 20 methods (tools/sizes.py), everywhere in the package."""
    import importlib.util

    spec = importlib.util.spec_from_file_location("sizes", REPO / "tools" / "sizes.py")
    sizes = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(sizes)
    found = sizes.oversized(ROOT)
    assert not found, "\n".join(found)
    (tmp_path / "pkg").mkdir()  # the tool sees each kind at one past its limit, and nothing at the limit
    body = "\n".join("    x = 1" for _ in range(58))
    methods = "\n".join(f"    def m{i}(self):\n        pass" for i in range(20))
    (tmp_path / "pkg" / "ok.py").write_text(f"def f():\n{body}\n    return x\n\n\nclass C:\n{methods}\n")
    (tmp_path / "pkg" / "big.py").write_text(f"def g():\n{body}\n    x = 2\n    return x\n\n\nclass D:\n{methods}\n"
                                             "    def m20(self):\n        pass\n" + "#\n" * 495)
    assert [re.sub(r":\d+:", ":", line) for line in sizes.oversized(tmp_path)] == [
        "pkg/big.py: module of 601 lines (> 600)", "pkg/big.py: function g of 61 lines (> 60)",
        "pkg/big.py: class D of 21 methods (> 20)"]
