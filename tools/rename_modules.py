"""Rename the modules whose names repeat across folders or do not say what they hold, and move the answer judges to
``rag_metrics/answers/`` (issue 50); rename the LLM clients, named ``*Generator`` because question generation came
first.

    python tools/rename_modules.py      # from a checkout's root

``git mv`` each module of :data:`MOVES` that is still there, then rewrite, in every tracked text file, the dotted
names (``rag_metrics.<folder>.<module>``), the paths (``<folder>/<module>.py``), ``from rag_metrics.<folder> import
<module>`` (the old name kept as a local alias, so the code that uses it still reads), the relative
``:mod:`.<module>``` of the folder's own docstrings, and the class names of :data:`CLASSES`. Files that record what
they were made from (``tests/dependency_map.json``) are left for their own tool to remake. Running it again moves and
rewrites nothing.
"""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

MOVES = {  # old module -> new module (dotted, under rag_metrics)
    "judging.index": "judging.page_index",  # report/index.py is the reports index
    "judging.audit": "judging.page_audit",  # labels/audit.py audits labels
    "report.index": "report.reports_index",
    "report.inputs": "report.report_inputs",  # measures/inputs.py validates a ranking and a gold set
    "report.runner": "report.build",  # retrieval/runner.py runs a retriever
    "labels.audit": "labels.label_audit",
    "labels.agreement": "labels.assessor_agreement",  # stats/agreement.py is kappa and prediction-powered means
    "measures.inputs": "measures.validate",
    "measures.pages": "measures.page_level",  # io/pages.py reads documents into pages
    "measures.result": "measures.evaluation",  # experiment/result.py is the experiment's result
    "retrieval.runner": "retrieval.run_retriever",
    "experiment.content": "experiment.experiment_report",
    "experiment.support": "experiment.answer_support",  # answers/support.py is the offline support judge
    "judging.answers": "answers.matching",
    "judging.correctness": "answers.correctness",
    "judging.claims": "answers.claims",
    "judging.support": "answers.support",
    "judging.support_llm": "answers.support_llm",
    "judging.concepts": "answers.concepts",
}
CLASSES = {"ChatGenerator": "ChatClient", "OpenAIGenerator": "OpenAIClient", "BedrockGenerator": "BedrockClient"}
LEFT_ALONE = {"tests/dependency_map.json",  # made by tools/dependency_map.py from the files' hashes: remade, not edited
              "tools/rename_modules.py"}  # names the old modules on purpose
TEXT = (".py", ".ipynb", ".md", ".toml", ".cfg", ".j2", ".json", ".txt", ".yml", ".yaml", ".ini")

ANSWERS_INIT = '''"""Answers: generated answers judged -> whether each is right and supported.

Takes the generated answers with the question, the expected answer and the retrieved passages (the context the
generator read); hands on, per answer, whether it matches the expected answer (lexical matching,
:mod:`.matching`; by meaning: numbers, units and paraphrase, :mod:`.correctness`) and, per claim
(:mod:`.claims`), whether a passage supports it (the offline judge, :mod:`.support`; LLM judges,
:mod:`.support_llm`). The step after :mod:`rag_metrics.judging`, which judges retrieved items.
"""

from rag_metrics.core.lazy import submodules  # noqa: E402 - after the docstring and the public names

__getattr__, __dir__ = submodules(__name__, __path__)
'''

FIXUPS = [  # (file, old, new): what the general rules cannot see, applied before them
    ("tests/test_architecture.py", 'STEPS = ["core", "io", "llm", "retrieval", "judging", "measures"',
     'STEPS = ["core", "io", "llm", "retrieval", "judging", "answers", "measures"'),
    ("rag_metrics/__init__.py", 'SUBPACKAGES = ("core", "io", "llm", "retrieval", "judging", "measures"',
     'SUBPACKAGES = ("core", "io", "llm", "retrieval", "judging", "answers", "measures"'),
    ("tests/test_typed_inputs.py", "from rag_metrics.measures import evaluator, pages",
     "from rag_metrics.measures import evaluator, page_level"),
    ("tests/test_typed_inputs.py", "pages.evaluate_pages, pages.evaluate_judged",
     "page_level.evaluate_pages, page_level.evaluate_judged"),
    ("rag_metrics/judging/__init__.py",
     "the set of gold pages it satisfies under a judge (document, page marker, content overlap); and generated "
     "answers\n"
     "judged against the expected answer (:mod:`.answers`).",
     "the set of gold pages it satisfies under a judge (document, page marker, content overlap). Generated answers "
     "are\n"
     "judged in the next step, :mod:`rag_metrics.answers`."),
]


def rules(moves: dict) -> list:
    """``(pattern, replacement, folder or None)``: a folder limits the rule to the files in that package folder."""
    out = []
    for old, new in moves.items():
        o_pkg, o_mod = old.split(".")
        n_pkg, n_mod = new.split(".")
        out.append((re.compile(rf"\brag_metrics\.{o_pkg}\.{o_mod}\b(?![/\w])"), f"rag_metrics.{n_pkg}.{n_mod}", None))
        out.append((re.compile(rf"(?<![\w.])(rag_metrics/)?{o_pkg}/{o_mod}\.py\b"),
                    lambda m, n=f"{n_pkg}/{n_mod}.py": (m.group(1) or "") + n, None))
        out.append((re.compile(rf"\bfrom rag_metrics\.{o_pkg} import {o_mod}\b( as \w+)?"),
                    lambda m, n=f"from rag_metrics.{n_pkg} import {n_mod}", o=o_mod: n + (m.group(1) or f" as {o}"),
                    None))
        relative = f"`.{n_mod}`" if n_pkg == o_pkg else f"`rag_metrics.{n_pkg}.{n_mod}`"
        out.append((re.compile(rf"`~?\.{o_mod}`"), relative, f"rag_metrics/{o_pkg}/"))
    for old, new in CLASSES.items():
        out.append((re.compile(rf"\b{old}\b"), new, None))
    return out


def main() -> int:
    """Move, rewrite and fix up; print what was done."""
    root = Path(".")
    present = {o: n for o, n in MOVES.items() if (root / "rag_metrics" / (o.replace(".", "/") + ".py")).exists()}
    done = sorted(o for o in set(MOVES) - set(present)
                  if (root / "rag_metrics" / (MOVES[o].replace(".", "/") + ".py")).exists())
    if done:
        print("already moved:", ", ".join(done), file=sys.stderr)
    init = root / "rag_metrics/answers/__init__.py"
    if not init.exists():
        init.parent.mkdir(exist_ok=True)
        init.write_text(ANSWERS_INIT, encoding="utf-8")
        subprocess.run(["git", "add", str(init)], check=True)
    for old, new in present.items():
        subprocess.run(["git", "mv", f"rag_metrics/{old.replace('.', '/')}.py",
                        f"rag_metrics/{new.replace('.', '/')}.py"], check=True)
    for f, old, new in FIXUPS:
        p = root / f
        text = p.read_text(encoding="utf-8")
        if old in text:
            p.write_text(text.replace(old, new), encoding="utf-8")
        elif new not in text:
            print("fixup not applied:", f, old[:60], file=sys.stderr)
    files = subprocess.run(["git", "ls-files"], capture_output=True, text=True, check=True).stdout.split("\n")
    changed = 0
    for f in files:
        p = root / f
        if not f or f in LEFT_ALONE or not (f.endswith(TEXT) or p.name == "Makefile") or not p.is_file():
            continue
        try:
            text = p.read_text(encoding="utf-8")
        except UnicodeDecodeError:
            continue
        new_text = text
        for pattern, repl, folder in rules(MOVES):
            if folder is None or f.startswith(folder):
                new_text = pattern.sub(repl, new_text)
        if new_text != text:
            p.write_text(new_text, encoding="utf-8")
            changed += 1
    print(f"moved {len(present)} modules, rewrote {changed} files")
    return 0


if __name__ == "__main__":
    sys.exit(main())
