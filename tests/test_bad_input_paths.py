"""The bad-input catalog, part two: what a command writes never changes what it reads, nor another of its outputs,
nor a sheet a person filled; and a command's exit status is its own decision whatever happens to standard output.

Every command that writes is listed in ``WRITERS`` with a valid invocation built from the sample data. For each, every
output option is pointed at each of its inputs (a copy, so that a change shows), at a symbolic and a hard link of one,
and at another of its outputs: the command exits 2 with one line naming both options, and no file changes. Each
command then runs with a standard output the reader has closed (`cmd | head -1`): its files are written and its exit
status is unchanged. A property test draws random input/output path pairs (same file, link, folder, missing parent).
"""

import csv
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from rag_metrics.cli import main
from rag_metrics.io.corpus import data_dir

DATA = data_dir()
LOG_A, LOG_B = (DATA / "examples" / name for name in ("bm25_c300o50.jsonl", "bm25_c400o100.jsonl"))


def snapshot(root: Path) -> dict:
    """Every file under ``root`` with its bytes (links as the file they name)."""
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


@pytest.fixture(scope="module")
def inputs(tmp_path_factory):
    """Copies of every input the writers read, plus the files some of them read that other commands write."""
    root = tmp_path_factory.mktemp("inputs")
    shutil.copytree(DATA / "corpus", root / "corpus")
    for name in ("golden.jsonl", "answers.jsonl"):
        shutil.copy(DATA / name, root / name)
    shutil.copy(DATA / "support" / "sheet_gen_a.csv", root / "sheet.csv")
    for log in (LOG_A, LOG_B):
        shutil.copy(log, root / log.name)
    worse = [json.loads(line) for line in LOG_B.read_text(encoding="utf-8").splitlines()]
    for rec in worse:  # every item moved to a document that answers nothing: a clearly worse run
        rec["retrieved"] = [dict(item, doc_id="it_security", pages=[1]) for item in rec["retrieved"]]
    (root / "worse.jsonl").write_text("".join(json.dumps(r) + "\n" for r in worse), encoding="utf-8")
    assert main(["golden", "sample", "--pages", str(root / "corpus"), "-o", str(root / "sample.jsonl"),
                 "--per-document", "1"]) == 0
    assert main(["golden", "generate", "--sample", str(root / "sample.jsonl"), "-o", str(root / "draft.jsonl"),
                 "--no-progress", "--cache", str(root / "cache")]) == 0
    assert main(["golden", "review", str(root / "draft.jsonl"), "--sample", str(root / "sample.jsonl"), "-o",
                 str(root / "review.csv"), "--html", str(root / "review.html")]) == 0
    assert main(["labels", "audit", "--golden", str(root / "golden.jsonl"), "--pages", str(root / "corpus"),
                 "--run", str(root / LOG_A.name), "-o", str(root / "audit")]) == 0
    review = root / "audit" / "review.csv"
    with open(review, encoding="utf-8-sig", newline="") as f:
        rows = list(csv.reader(f))
    rows[1][rows[0].index("decision")] = "accept"  # a person accepts the first candidate
    with open(review, "w", encoding="utf-8-sig", newline="") as f:
        csv.writer(f, lineterminator="\n").writerows(rows)
    return root


def writers(i: Path, out: Path) -> dict:
    """``{name: (argv, {output option: path}, [input options])}``: a valid run of every command that writes, its
    outputs under ``out``."""
    g, c, a = str(i / "golden.jsonl"), str(i / "corpus"), str(i / "answers.jsonl")
    la, lb = str(i / LOG_A.name), str(i / LOG_B.name)
    answers = ["--golden", g, "--pages", c, "--answers", a, "--generator", "gen_a"]
    o = {name: str(out / name) for name in ("out.jsonl", "out.json", "out.csv", "out.html", "dir", "summary.md",
                                            "junit.xml", "reports")}
    return {
        "pages": (["pages", str(i / "corpus" / "travel_policy.md"), "-o", o["out.jsonl"]], {"-o": o["out.jsonl"]},
                  {"docs": str(i / "corpus" / "travel_policy.md")}),
        "golden sample": (["golden", "sample", "--pages", c, "-o", o["out.jsonl"]], {"-o": o["out.jsonl"]},
                          {"--pages": c}),
        "golden generate": (["golden", "generate", "--sample", str(i / "sample.jsonl"), "-o", o["out.jsonl"],
                             "--no-progress", "--cache", str(out / "cache")], {"-o": o["out.jsonl"]},
                            {"--sample": str(i / "sample.jsonl")}),
        "golden review": (["golden", "review", str(i / "draft.jsonl"), "--sample", str(i / "sample.jsonl"), "-o",
                           o["out.csv"], "--html", o["out.html"]], {"-o": o["out.csv"], "--html": o["out.html"]},
                          {"draft": str(i / "draft.jsonl"), "--sample": str(i / "sample.jsonl")}),
        "golden accept": (["golden", "accept", str(i / "draft.jsonl"), "--decisions", str(i / "review.csv"), "-o",
                           o["out.jsonl"]], {"-o": o["out.jsonl"]},
                          {"draft": str(i / "draft.jsonl"), "--decisions": str(i / "review.csv")}),
        "labels audit": (["labels", "audit", "--golden", g, "--pages", c, "--run", la, "-o", o["dir"]],
                         {"-o": o["dir"]}, {"--golden": g, "--run": la}),
        "labels assess": (["labels", "assess", "--golden", g, "--pages", c, "--run", la, "-o", o["dir"]],
                          {"-o": o["dir"]}, {"--golden": g, "--run": la}),
        "labels sample": (["labels", "sample", "--golden", g, "--pages", c, "--run", la, "-n", "5", "-o", o["out.csv"]],
                          {"-o": o["out.csv"]}, {"--golden": g, "--run": la}),
        "labels accept": (["labels", "accept", "--golden", g, "--decisions", str(i / "audit" / "review.csv"), "-o",
                           o["out.jsonl"], "--by", "A"], {"-o": o["out.jsonl"]},
                          {"--golden": g, "--decisions": str(i / "audit" / "review.csv")}),
        "answers judge": (["answers", "judge", *answers, "-o", o["out.json"]], {"-o": o["out.json"]},
                          {"--golden": g, "--answers": a}),
        "answers sample": (["answers", "sample", *answers, "-n", "5", "-o", o["out.csv"]], {"-o": o["out.csv"]},
                           {"--golden": g, "--answers": a}),
        "answers assess": (["answers", "assess", *answers, "--sheet", str(i / "sheet.csv"), "-o", o["out.json"]],
                           {"-o": o["out.json"]}, {"--golden": g, "--answers": a, "--sheet": str(i / "sheet.csv")}),
        "run": (["run", "--retriever", "bm25", "--golden", g, "--pages", c, "-k", "3", "--no-progress", "--out",
                 o["out.jsonl"]], {"--out": o["out.jsonl"]}, {"--golden": g}),
        "gate": (["gate", "--golden", g, "--baseline", la, "--run", str(i / "worse.jsonl"), "--pages", c,
                  "--markdown", o["summary.md"], "--junit", o["junit.xml"]],
                 {"--markdown": o["summary.md"], "--junit": o["junit.xml"]},
                 {"--golden": g, "--baseline": la, "--run": str(i / "worse.jsonl")}),
        "report": (["report", "--experiment", "x", "--golden", g, "--pages", c, "--run", la, "--run", lb,
                    "--reports-dir", o["reports"]], {"--reports-dir": o["reports"]}, {"--golden": g, "--run": la}),
    }


def _replace(argv: list, option: str, value: str) -> list:
    """``argv`` with ``option``'s value (or the positional argument whose value was ``option``'s) set to ``value``."""
    argv = list(argv)
    at = argv.index(option) + 1
    argv[at] = value
    return argv


def refused(capsys, argv, *names) -> str:
    code = main(argv)
    err = capsys.readouterr().err
    lines = err.strip().splitlines()
    assert code == 2, err
    assert len(lines) == 1 and lines[0].startswith("rag-metrics "), err
    for name in names:
        assert name in lines[0], (name, lines[0])
    return lines[0]


CASES = [(name, out, inp) for name, (_, outs, ins) in writers(Path("i"), Path("o")).items()
         for out in outs for inp in ins]


@pytest.mark.parametrize("name,output,input_option", CASES, ids=[f"{n}:{o}={i}" for n, o, i in CASES])
def test_an_output_that_is_one_of_the_inputs_is_refused_and_nothing_changes(inputs, tmp_path, capsys, name, output,
                                                                            input_option):
    argv, outs, ins = writers(inputs, tmp_path)[name]
    before = snapshot(inputs)
    refused(capsys, _replace(argv, output, ins[input_option]), output, input_option)
    assert snapshot(inputs) == before and not list(tmp_path.iterdir())


@pytest.mark.parametrize("link", ["symbolic", "hard"])
@pytest.mark.parametrize("name", ["answers sample", "labels sample", "labels accept", "gate"])
def test_an_output_linked_to_an_input_is_refused(inputs, tmp_path, capsys, name, link):
    argv, outs, ins = writers(inputs, tmp_path)[name]
    option, (input_option, source) = next(iter(outs)), next((k, v) for k, v in ins.items() if Path(v).is_file())
    alias = tmp_path / "alias"
    (os.symlink if link == "symbolic" else os.link)(source, alias)
    before = snapshot(inputs)
    refused(capsys, _replace(argv, option, str(alias)), option, input_option)
    assert snapshot(inputs) == before


def test_an_output_inside_an_input_folder_is_refused(inputs, tmp_path, capsys):
    argv, _, _ = writers(inputs, tmp_path)["golden sample"]
    before = snapshot(inputs)
    refused(capsys, _replace(argv, "-o", str(inputs / "corpus" / "sample.jsonl")), "-o", "--pages", "folder")
    assert snapshot(inputs) == before


@pytest.mark.parametrize("name,first,second", [("gate", "--markdown", "--junit"), ("golden review", "-o", "--html")])
def test_two_outputs_on_one_file_are_refused(inputs, tmp_path, capsys, name, first, second):
    argv, outs, _ = writers(inputs, tmp_path)[name]
    (tmp_path / "shared").write_text("a person's notes\n", encoding="utf-8")
    argv = _replace(_replace(argv, first, str(tmp_path / "shared")), second, str(tmp_path / "shared"))
    refused(capsys, argv, first, second)
    assert (tmp_path / "shared").read_text(encoding="utf-8") == "a person's notes\n"


@pytest.mark.parametrize("name,sheet", [("answers sample", "out.csv"), ("labels sample", "out.csv"),
                                        ("golden review", "out.csv"), ("labels audit", "dir/review.csv")])
def test_a_sheet_a_person_may_have_filled_is_replaced_only_with_force(inputs, tmp_path, capsys, name, sheet):
    argv, _, _ = writers(inputs, tmp_path)[name]
    assert main(argv) == 0, capsys.readouterr().err
    filled = tmp_path / sheet
    work = filled.read_bytes() + b"\n"  # a person's edit
    filled.write_bytes(work)
    capsys.readouterr()
    refused(capsys, argv, "--force", sheet.split("/")[-1])
    assert filled.read_bytes() == work
    assert main([*argv, "--force"]) == 0
    assert filled.read_bytes() != work


class ClosedPipe:
    """Standard output whose reader has gone (`| head -1`, `| true`): every write and flush raises."""

    encoding = "utf-8"

    def write(self, text):
        raise BrokenPipeError(32, "Broken pipe")

    def flush(self):
        raise BrokenPipeError(32, "Broken pipe")

    def fileno(self):
        raise OSError("no descriptor in this test")


WRITING = [n for n in writers(Path("i"), Path("o")) if n != "report"]


@pytest.mark.parametrize("name", WRITING)
def test_a_closed_stdout_changes_neither_the_files_nor_the_exit_status(inputs, tmp_path, capsys, monkeypatch, name):
    argv, outs, _ = writers(inputs, tmp_path)[name]
    expected = 1 if name == "gate" else 0  # the gate fails: the worse run lost most hits
    monkeypatch.setattr(sys, "stdout", ClosedPipe())
    code = main(argv)
    monkeypatch.undo()
    assert code == expected, capsys.readouterr().err
    for path in outs.values():
        assert Path(path).exists() and (Path(path).is_dir() or Path(path).stat().st_size > 0), path


def test_a_report_whose_stdout_is_closed_is_still_published_with_exit_0(tmp_path, capsys, monkeypatch, warm_kernels):
    """`rag-metrics report` writes its pages and index, then prints; a closed pipe changes neither."""
    import nbformat

    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_markdown_cell("# A page"), nbformat.v4.new_code_cell("print(1 + 1)")]
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    nbformat.write(nb, str(tmp_path / "one.ipynb"))
    monkeypatch.setattr(sys, "stdout", ClosedPipe())
    code = main(["report", "--experiment", "pipe", "--notebook", str(tmp_path / "one.ipynb"), "--reports-dir",
                 str(tmp_path / "reports")])
    monkeypatch.undo()
    assert code == 0, capsys.readouterr().err
    assert (tmp_path / "reports" / "index.html").stat().st_size > 0
    assert list((tmp_path / "reports" / "pipe").glob("*/one.html"))


def test_a_failing_gate_piped_into_head_exits_1_with_both_summaries_written(inputs, tmp_path):
    argv, outs, _ = writers(inputs, tmp_path)["gate"]
    cli = [sys.executable, "-m", "rag_metrics.cli", *argv]
    script = "set -o pipefail; \"$@\" | head -c 1 >/dev/null"
    done = subprocess.run(["bash", "-c", script, "gate", *cli], capture_output=True, text=True, timeout=120)
    assert done.returncode == 1, done.stderr
    assert "Traceback" not in done.stderr
    assert "<testsuite" in Path(outs["--junit"]).read_text(encoding="utf-8")
    assert Path(outs["--markdown"]).read_text(encoding="utf-8").strip()


def test_a_junit_write_that_fails_leaves_the_markdown_summary_unchanged(inputs, tmp_path, capsys, monkeypatch):
    from rag_metrics.core import files

    argv, outs, _ = writers(inputs, tmp_path)["gate"]
    Path(outs["--markdown"]).write_text("an earlier step\n", encoding="utf-8")

    def full_disk(*args, **kwargs):
        raise OSError(28, "No space left on device", outs["--junit"])
    monkeypatch.setattr(files, "_create", full_disk)
    code = main(argv)
    err = capsys.readouterr().err
    assert code == 1 and len(err.strip().splitlines()) == 1 and "No space left" in err, err
    assert Path(outs["--markdown"]).read_text(encoding="utf-8") == "an earlier step\n"
    assert not Path(outs["--junit"]).exists()


@pytest.mark.parametrize("name", ["answers judge", "labels sample", "run", "report", "pages"])
def test_an_unwritable_output_folder_is_one_line_before_any_work(inputs, tmp_path, capsys, name):
    if os.geteuid() == 0:
        place = Path("/sys/rag_metrics_test")  # sysfs refuses new files, to root too
        if os.access("/sys", os.W_OK) and not Path("/sys/kernel").is_dir():
            pytest.skip("no read-only place on this machine")
    else:
        place = tmp_path / "locked"
        place.mkdir()
        place.chmod(0o555)
    argv, outs, _ = writers(inputs, place)[name]
    option = next(iter(outs))
    refused(capsys, argv, option, "cannot write")


def test_ctrl_c_is_one_line_and_exit_130(inputs, tmp_path, capsys, monkeypatch):
    from rag_metrics.cli import pages

    def interrupted(args):
        raise KeyboardInterrupt
    monkeypatch.setattr(pages, "run", interrupted)
    argv, _, _ = writers(inputs, tmp_path)["pages"]
    assert main(argv) == 130
    assert capsys.readouterr().err == "rag-metrics pages: interrupted.\n"


# ---- a property: whatever paths are drawn, no input changes ------------------------------------------------------

RELATIONS = ("same", "symlink", "hardlink", "inside_folder", "folder_itself", "missing_parent", "fresh",
             "under_a_file", "symlinked_folder")


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(relation=st.sampled_from(RELATIONS), name=st.text(alphabet="abcxyz_.-", min_size=1, max_size=8),
       folder_input=st.booleans())
def test_no_drawn_pair_of_input_and_output_paths_changes_an_input(tmp_path_factory, relation, name, folder_input):
    root = tmp_path_factory.mktemp("prop")
    docs = root / "docs"
    docs.mkdir()
    doc = docs / "policy.md"
    doc.write_text("---\ndoc_id: policy\n---\n[p.1]\nA receipt is required for every expense.\n", encoding="utf-8")
    source = docs if folder_input else doc
    name = name.strip(".") or "x"
    out = {"same": doc, "symlink": root / name, "hardlink": root / name, "inside_folder": docs / f"{name}.jsonl",
           "folder_itself": docs, "missing_parent": root / "new" / "deeper" / f"{name}.jsonl",
           "fresh": root / f"{name}.jsonl", "under_a_file": doc / f"{name}.jsonl",
           "symlinked_folder": root / "alias" / "policy.md"}[relation]
    if relation == "symlink":
        os.symlink(doc, out)
    elif relation == "hardlink":
        os.link(doc, out)
    elif relation == "symlinked_folder":
        os.symlink(docs, root / "alias")
    before = snapshot(docs) if folder_input else doc.read_bytes()
    code = main(["pages", str(source), "-o", str(out)])
    if folder_input and code == 0:
        assert not _inside_folder(out, docs)
    assert (snapshot(docs) if folder_input else doc.read_bytes()) == before
    touches_input = relation in ("same", "symlink", "hardlink", "symlinked_folder", "under_a_file", "folder_itself") \
        or (folder_input and relation == "inside_folder")
    assert code == (2 if touches_input else 0)
    if code == 0:
        assert out.read_text(encoding="utf-8").count("\n") == 1  # one page written


def _inside_folder(path: Path, folder: Path) -> bool:
    return os.path.realpath(path).startswith(os.path.realpath(folder) + os.sep)


def test_run_out_naming_a_folder_says_so(inputs, tmp_path, capsys):
    """Issue 45: `run --out DIR` was refused as 'written by another run'; the folder is named as a folder."""
    argv, _, _ = writers(inputs, tmp_path)["run"]
    (tmp_path / "folder").mkdir()
    line = refused(capsys, _replace(argv, "--out", str(tmp_path / "folder")), "--out")
    assert line.endswith("--out: is a folder; expected a file to write.") and "another run" not in line
    assert not list((tmp_path / "folder").iterdir())


@pytest.mark.parametrize("beside", ["docs.jsonl", "docs2/pages.jsonl", "docsx"])
def test_an_output_beside_an_input_folder_whose_name_it_extends_is_written(tmp_path, capsys, beside):
    """Audit K03: 'docs.jsonl' is not inside 'docs' although its name starts with it."""
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "policy.md").write_text("---\ndoc_id: policy\n---\n[p.1]\nA receipt is required.\n", encoding="utf-8")
    assert main(["pages", str(docs), "-o", str(tmp_path / beside)]) == 0, capsys.readouterr().err
    assert (tmp_path / beside).is_file()


def test_a_failing_gate_into_a_reader_that_reads_nothing_exits_1(inputs, tmp_path):
    """A real closed pipe (`| true`), not a stand-in: the status is the gate's, and no BrokenPipeError is printed
    (audit K10: the descriptor pointed at the null device the wrong way round exited 120)."""
    argv, outs, _ = writers(inputs, tmp_path)["gate"]
    script = 'set -o pipefail; "$@" | (exec 0<&-; true); echo "status ${PIPESTATUS[0]}" >&2'
    done = subprocess.run(["bash", "-c", script, "gate", sys.executable, "-m", "rag_metrics.cli", *argv],
                          capture_output=True, text=True, timeout=120)
    assert "status 1" in done.stderr and "BrokenPipeError" not in done.stderr and "Traceback" not in done.stderr, \
        done.stderr
    assert Path(outs["--junit"]).stat().st_size > 0
