"""README.md and docs/*.md are executable: every shell command and Python block in them runs as written, each ALONE.

A block runs in a fresh copy of the repository's tracked files (with the repository's ``.venv`` linked in -- what a
fresh clone looks like after its first ``make``) and, for Python, a fresh namespace: a reader who copies one block
gets what the test got. The one exception is a block that says it continues an earlier one: the sentence before it
says so in words (it contains "continu"), and the line before its fence names the block it continues,
``<!-- continues: NAME -->``, where that block carries ``<!-- block: NAME -->``. Such a chain runs in order in one
folder and one namespace, and nothing else shares them. ``/tmp/`` in a block is rewritten to a folder of its chain,
so a block cannot pass by reading what another block left in ``/tmp``.

Shell lines run one by one: ``make X`` as ``make -n X`` (the target exists and expands; ``make test`` is this very
suite, and ``make report`` runs ``rag-metrics report`` as the report lines here do); ``.venv/bin/rag-metrics``
lines in-process through :func:`rag_metrics.cli.main` (the same parser and exit codes, without a process start per
line), except ``report``, which executes notebooks in kernels and forks: a subprocess; anything else with bash
(``set -eo pipefail``). Python blocks run in-process with ``exec``.
"""

import contextlib
import glob
import io
import os
import re
import shlex
import shutil
import subprocess
from dataclasses import dataclass, field
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
DOCUMENTS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
RUNS = {"sh", "python"}
NOT_RUN = {"yaml", "text", ""}  # CI snippets (tests/test_experiment_report.py parses them), output, the code tree
MARK = re.compile(r"<!--\s*(block|continues):\s*([\w-]+)\s*-->")

# What a block prints, as its comments or the sentence beside it state: (code that identifies the block, output).
STATED = [
    ("recall_at_k(rm.collapse_to_documents(chunks, doc_of, 3), {", "0.5\n1.0\n"),
    ("document_ranking(seen, doc_of, order=order)", "cut_then_dedup 0.0 0.25 0.43\ndedup_then_cut 1.0 0.5 0.63\n"),
    ("threshold_audit([2, 0]", "{'raw': 3, 'documents_normalized': 3, 'both_normalized': 1}\n('stale',)\n"),
    ("audit_pages(shifted", "for 100% of 321 located items"),
    ("audit_pages(shifted", "Read it with --page-base 1"),
    ("mean_interval(a).text()", "0.585 [0.456, 0.706] (n=65, Clopper-Pearson)"),
    ("mean_interval(a).text()", "p = 0.219: within noise."),
    ("mean_interval(a).text()", "\n311\n"),
    ("sufficiency_at_k([", "1.0\n"),
    ("ppi_mean(judged_hit, assessed_hit)", "0.5"),
]


@dataclass
class Block:
    doc: Path
    line: int  # of the opening fence, 1-based
    lang: str
    body: str
    prose: str  # the paragraph right before the fence
    name: str | None = None
    continues: str | None = None

    @property
    def where(self):
        return f"{self.doc.relative_to(ROOT)}:{self.line}"


@dataclass
class Chain:
    blocks: list = field(default_factory=list)

    @property
    def where(self):
        return self.blocks[0].where


def parse(doc: Path) -> list[Block]:
    """The fenced blocks of a Markdown file, with the marks and the paragraph before each."""
    lines = doc.read_text(encoding="utf-8").splitlines()
    found, i = [], 0
    while i < len(lines):
        fence = re.match(r"^```(\w*)\s*$", lines[i])
        if not fence:
            i += 1
            continue
        end = next(j for j in range(i + 1, len(lines)) if lines[j].startswith("```"))
        marks, j = {}, i - 1
        while j >= 0 and (MARK.fullmatch(lines[j].strip()) or not lines[j].strip()):
            if m := MARK.fullmatch(lines[j].strip()):
                marks[m.group(1)] = m.group(2)
            j -= 1
        prose = []
        while j >= 0 and lines[j].strip() and not lines[j].startswith(("```", "#")):
            prose.insert(0, lines[j])
            j -= 1
        found.append(Block(doc, i + 1, fence.group(1), "\n".join(lines[i + 1:end]) + "\n", " ".join(prose),
                           marks.get("block"), marks.get("continues")))
        i = end + 1
    return found


def all_blocks() -> list[Block]:
    return [b for doc in DOCUMENTS for b in parse(doc)]


def chains() -> list[Chain]:
    """Runnable blocks grouped: each block starts its own chain unless it continues a named one."""
    named, out = {}, []
    for block in all_blocks():
        if block.lang not in RUNS:
            continue
        if block.continues:
            chain = named[block.continues]
        else:
            chain = Chain()
            out.append(chain)
        chain.blocks.append(block)
        if block.name:
            named[block.name] = chain
    return out


def test_every_block_is_a_known_kind_and_every_mark_is_explained():
    blocks = all_blocks()
    names = set()
    for block in blocks:
        assert block.lang in RUNS | NOT_RUN, f"{block.where}: a ```{block.lang} block is neither run nor known"
        if block.continues:
            assert block.continues in names, f"{block.where}: continues {block.continues!r}, not named above it"
            assert "continu" in block.prose.lower(), (
                f"{block.where}: continues {block.continues!r}, but the sentence before it does not say so")
        if block.name:
            assert block.name not in names, f"{block.where}: a second block named {block.name!r}"
            names.add(block.name)


def test_readme_first_screen_says_what_and_how():
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    first = [b for b in parse(ROOT / "README.md") if b.lang == "sh"][0]
    assert "make report" in first.body and "make test" in first.body
    top = "\n".join(text.splitlines()[:60])  # the first screen, give or take
    for promise in ("make report", "make test", "reports/index.html", "## Where to go next"):
        assert promise in top, promise
    assert text.index("make report") < text.index("## Evaluate your own system")
    # the timings are measured on a fresh clone and filled in at one place; nothing else stands in for a figure
    assert text.count("TIMINGS-TBD") <= 1
    assert not re.search(r"TIMING_|REPORT_SCALE|BENCH_RATIO", text), "a measured figure is missing from README"


def anchors(doc: Path) -> set:
    """GitHub's anchors of a page's headings: lower case, punctuation dropped, spaces as hyphens."""
    headings = re.findall(r"^#+ (.+)$", re.sub(r"^```.*?^```", "", doc.read_text(encoding="utf-8"), flags=re.S | re.M),
                          re.M)
    return {re.sub(r"[^\w\- ]", "", h.strip().lower()).replace(" ", "-") for h in headings}


def test_every_link_between_the_pages_resolves():
    for doc in DOCUMENTS:
        for target, anchor in re.findall(r"\]\(([\w./-]*\.md)?(?:#([\w-]+))?\)", doc.read_text(encoding="utf-8")):
            path = (doc.parent / target).resolve() if target else doc
            assert path.exists(), f"{doc.relative_to(ROOT)} links to missing {target}"
            if anchor:
                assert anchor in anchors(path), f"{doc.relative_to(ROOT)} links to {target}#{anchor}: no such heading"


def test_the_stated_outputs_belong_to_blocks():
    code = "".join(b.body for b in all_blocks() if b.lang == "python")
    for marker, _ in STATED:
        assert marker in code, f"no block holds {marker!r} any more: update STATED"


@pytest.fixture(scope="module")
def pristine(tmp_path_factory):
    """The tracked files of the repository in a fresh folder (copied once, then once per chain)."""
    dest = tmp_path_factory.mktemp("pristine") / "clone"
    dest.mkdir()
    listed = subprocess.run(["git", "ls-files", "-z"], cwd=ROOT, capture_output=True, text=True)
    files = [f for f in listed.stdout.split("\0") if f] if listed.returncode == 0 else None
    if not files:  # not a git checkout: copy the tree without what the build and runs generate
        skip = {".venv", ".venv-lowest", ".git", "reports", "runs", "history", "golden-work", ".pytest_cache",
                ".hypothesis"}
        files = [str(p.relative_to(ROOT)) for p in ROOT.rglob("*") if p.is_file()
                 and not set(p.relative_to(ROOT).parts) & skip]
    for name in files:
        if (ROOT / name).is_file():
            target = dest / name
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(ROOT / name, target)
    return dest


def fresh_clone(pristine, where: Path) -> Path:
    shutil.copytree(pristine, where / "clone")
    os.symlink(ROOT / ".venv", where / "clone" / ".venv")
    (where / "tmp").mkdir()
    return where / "clone"


def run_shell_line(line: str, clone: Path, out: io.StringIO, where: str):
    if line.startswith("make "):  # `make test` is this very suite; `make report` runs what the report lines run
        line = f"make -n {line.split()[1]}"
    words = shlex.split(line, comments=True) if not re.search(r"[|<>;&$`]", line) else None
    if words and words[0] == ".venv/bin/rag-metrics" and words[1] != "report":
        from rag_metrics.cli import main

        argv = [m for w in words[1:] for m in (sorted(glob.glob(w)) or [w] if glob.has_magic(w) else [w])]
        err = io.StringIO()
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            try:
                code = main(argv)
            except SystemExit as e:  # argparse refusing the line
                code = e.code
        assert code == 0, f"{where}: {line}\nexit {code}\n{err.getvalue()[-3000:]}"
        return
    done = subprocess.run(["bash", "-c", f"set -eo pipefail\n{line}"], cwd=clone, capture_output=True, text=True,
                          timeout=600, env={**os.environ, "PYTHONWARNINGS": "ignore"})
    out.write(done.stdout)
    assert done.returncode == 0, f"{where}: {line}\n{done.stdout[-1500:]}\n{done.stderr[-3000:]}"
    assert "Traceback" not in done.stderr, f"{where}: {line}\n{done.stderr[-3000:]}"


@pytest.mark.parametrize("chain", chains(), ids=lambda c: f"{c.where}+{len(c.blocks) - 1}" if len(c.blocks) > 1
                         else c.where)
def test_every_block_runs_alone(chain, pristine, tmp_path, monkeypatch):
    """Each block in a fresh clone and namespace; a chain's later blocks after the block they continue."""
    clone = fresh_clone(pristine, tmp_path)
    tmp = str(tmp_path / "tmp") + "/"
    monkeypatch.chdir(clone)
    namespace: dict = {"__name__": "__readme__"}
    out = io.StringIO()
    for block in chain.blocks:
        body = block.body.replace("/tmp/", tmp)
        if block.lang == "sh":
            for line in body.splitlines():
                if line.strip() and not line.lstrip().startswith("#"):
                    run_shell_line(line, clone, out, block.where)
        else:
            with contextlib.redirect_stdout(out):
                exec(compile(body, block.where, "exec"), namespace)  # noqa: S102 - the documentation's own code
    printed = out.getvalue()
    code = "".join(b.body for b in chain.blocks)
    for marker, stated in STATED:
        if marker in code:
            assert stated in printed, f"{chain.where}: stated {stated!r}, printed:\n{printed[-3000:]}"


def test_most_blocks_run_alone():
    """Continuing is the exception: at least three blocks in four run alone."""
    runnable = [b for b in all_blocks() if b.lang in RUNS]
    alone = [b for b in runnable if not b.continues]
    assert len(runnable) >= 30 and sum(b.lang == "python" for b in runnable) >= 8
    assert len(alone) >= 0.75 * len(runnable), f"only {len(alone)} of {len(runnable)} blocks run alone"
