"""README is executable: every shell command and Python snippet in it runs as written, on a copy of the repository.

Shell blocks run line by line with bash (``set -eo pipefail``) in a copy of the tracked files, with the repository's
``.venv`` linked in -- what a fresh clone looks like after its first ``make``. ``make`` lines are checked with
``make -n`` (their targets exist and expand; ``make test`` is this very suite, and ``make report`` runs the same
``rag-metrics report`` commands that run here). Python blocks run in order in one namespace, from the copy's root.
"""

import contextlib
import io
import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
BLOCK = re.compile(r"^```(sh|python)\n(.*?)^```", re.S | re.M)


def blocks(kind):
    return [body for lang, body in BLOCK.findall((ROOT / "README.md").read_text(encoding="utf-8")) if lang == kind]


@pytest.fixture(scope="module")
def clone(tmp_path_factory):
    """The tracked files of the repository in a fresh folder, with .venv linked in."""
    dest = tmp_path_factory.mktemp("clone")
    listed = subprocess.run(["git", "ls-files", "-z"], cwd=ROOT, capture_output=True, text=True)
    files = [f for f in listed.stdout.split("\0") if f] if listed.returncode == 0 else None
    if not files:  # not a git checkout: copy the tree without what the build and runs generate
        skip = {".venv", ".git", "reports", "runs", "history", ".pytest_cache", ".hypothesis"}
        files = [str(p.relative_to(ROOT)) for p in ROOT.rglob("*") if p.is_file()
                 and not set(p.relative_to(ROOT).parts) & skip]
    for name in files:
        target = dest / name
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(ROOT / name, target)
    os.symlink(ROOT / ".venv", dest / ".venv")
    return dest


def test_readme_has_both_commands_first():
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    first = blocks("sh")[0]
    assert "make report" in first and "make test" in first
    assert text.index("make report") < text.index("## Evaluate your own system")
    assert not re.search(r"TIMING_|REPORT_SCALE|BENCH_RATIO", text), "a measured figure is missing from README"


def run_shell(line, clone):
    if line.startswith("make "):  # `make test` is this very suite; `make report` runs the commands run here
        line = f"make -n {line.split()[1]}"
    done = subprocess.run(["bash", "-c", f"set -eo pipefail\n{line}"], cwd=clone, capture_output=True, text=True,
                          timeout=600, env={**os.environ, "PYTHONWARNINGS": "ignore"})
    assert done.returncode == 0, f"{line}\n{done.stdout[-1500:]}\n{done.stderr[-3000:]}"
    assert "Traceback" not in done.stderr, f"{line}\n{done.stderr[-3000:]}"


def test_every_command_and_snippet_runs_in_order(clone, monkeypatch):
    """Shell lines and Python blocks in document order: a command may read what a snippet above it wrote."""
    monkeypatch.chdir(clone)
    namespace: dict = {"__name__": "__readme__"}
    out = io.StringIO()
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    found = BLOCK.findall(text)
    assert sum(lang == "python" for lang, _ in found) >= 8
    assert sum(len(body.splitlines()) for lang, body in found if lang == "sh") > 15
    for lang, body in found:
        if lang == "sh":
            for line in body.splitlines():
                if line.strip() and not line.lstrip().startswith("#"):
                    run_shell(line, clone)
        else:
            with contextlib.redirect_stdout(out):
                exec(compile(body, "README.md", "exec"), namespace)  # noqa: S102 - the README's own code
    printed = out.getvalue()
    # the figures the README states next to its prints
    assert "0.5\n1.0\n" in printed
    assert "{'raw': 3, 'documents_normalized': 3, 'both_normalized': 1}" in printed and "('stale',)" in printed
    assert "for 100% of 321 located items" in printed and "Read it with --page-base 1" in printed
    assert "0.585 [0.456, 0.706] (n=65, Clopper-Pearson)" in printed and "p = 0.219: within noise." in printed
    assert "\n311\n" in printed
