"""Report generation end to end on a temporary reports folder (papermill + nbconvert)."""

import json
import re
from pathlib import Path

import nbformat
import pytest

pytest.importorskip("papermill")

from rag_metrics import InputError  # noqa: E402
from rag_metrics.report.build import ReportError, build_report, parse_parameters  # noqa: E402

NOTEBOOKS = Path(__file__).resolve().parent.parent / "notebooks"


def small_notebook(path: Path, body: str, params: str = "k = 3"):
    nb = nbformat.v4.new_notebook()
    p = nbformat.v4.new_code_cell(params)
    p.metadata["tags"] = ["parameters"]
    nb.cells = [nbformat.v4.new_markdown_cell("# Small"), p, nbformat.v4.new_code_cell(body)]
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    nbformat.write(nb, str(path))
    return path


def test_seed_notebook_with_other_parameters(tmp_path, warm_kernels):
    run_dir = build_report(
        "k5", {"k": 5}, [NOTEBOOKS / "01_duplicate_chunks_recall.ipynb"], reports_dir=tmp_path, progress_bar=False
    )
    executed = nbformat.read(str(run_dir / "01_duplicate_chunks_recall.ipynb"), as_version=4)
    injected = [c for c in executed.cells if "injected-parameters" in c.metadata.get("tags", [])]
    assert injected and "k = 5" in injected[0].source
    text = "".join(o.get("text", "") for c in executed.cells if c.cell_type == "code" for o in c.outputs)
    assert "naive chunk-counting Recall@5 = 4 gold chunks / 2 gold documents = 2.00" in text

    page = (run_dir / "01_duplicate_chunks_recall.html").read_text(encoding="utf-8")
    assert "<title>" in page and "01_duplicate_chunks_recall" in page
    assert page.count("<table") >= 3
    assert "data:image/png;base64," in page
    assert not re.search(r'(src|href)="(https?:)?//', page), "the page must not need the network"
    assert not re.search(r'import\("https?://', page)

    index = (tmp_path / "index.html").read_text(encoding="utf-8")
    assert f'href="k5/{run_dir.name}/01_duplicate_chunks_recall.html"' in index
    assert json.loads((run_dir / "run.json").read_text())["parameters"] == {"k": 5}


def test_undeclared_parameter_is_an_error(tmp_path):
    nb = small_notebook(tmp_path / "a.ipynb", "print(k)")
    with pytest.raises(InputError, match=r"parameter\(s\) \['kk'\] not declared.*declared: \['k'\]"):
        build_report("x", {"kk": 5}, [nb], reports_dir=tmp_path / "r", progress_bar=False)
    assert not (tmp_path / "r").exists()  # nothing ran


def test_failing_notebook_is_named_and_kept_and_others_still_reported(tmp_path, warm_kernels):
    bad = small_notebook(tmp_path / "bad.ipynb", "raise RuntimeError('boom at cell 2')")
    good = small_notebook(tmp_path / "good.ipynb", "print(k * 2)")
    with pytest.raises(ReportError, match=r"bad.ipynb: cell 2 .*RuntimeError: boom at cell 2") as err:
        build_report("x", {}, [bad, good], reports_dir=tmp_path / "r", progress_bar=False)
    run_dir = next((tmp_path / "r" / "x").iterdir())
    assert str(run_dir) in str(err.value)
    assert (run_dir / "bad.ipynb").exists() and (run_dir / "bad.html").exists()
    assert (run_dir / "good.html").exists()
    record = json.loads((run_dir / "run.json").read_text())
    assert [n["status"] for n in record["notebooks"]] == ["failed", "ok"]
    assert "failed" in (tmp_path / "r" / "index.html").read_text()


def test_parse_parameters():
    assert parse_parameters(["k=5", "name=bm25", "ks=[1, 3]", "x=0.5", "flag=true"]) == {
        "k": 5, "name": "bm25", "ks": [1, 3], "x": 0.5, "flag": True,
    }
    with pytest.raises(InputError, match="expected KEY=VALUE"):
        parse_parameters(["k"])


def test_two_runs_of_one_experiment_show_a_delta(tmp_path, warm_kernels):
    body = (
        "import pandas as pd\n"
        "from rag_metrics.report import record\n"
        "values = pd.Series([1.0] * 40 + [0.0] * 20, index=[f'q{i}' for i in range(60)])\n"
        "values.iloc[:shift] = 1.0 - values.iloc[:shift] if shift < 0 else values.iloc[:shift]\n"
        "values.iloc[40:40 + max(shift, 0)] = 1.0\n"
        "record('hit@1', values)\n"
        "record('plain figure', mean=0.5)\n"
    )
    nb = small_notebook(tmp_path / "exp.ipynb", body, params="shift = 0")
    first = build_report("exp", {}, [nb], reports_dir=tmp_path / "r", progress_bar=False)
    summary = json.loads((first / "summary.json").read_text())
    assert summary["exp"]["hit@1"]["mean"] == pytest.approx(40 / 60)
    assert summary["exp"]["hit@1"]["ci_low"] < 40 / 60 < summary["exp"]["hit@1"]["ci_high"]
    assert len(summary["exp"]["hit@1"]["per_question"]) == 60
    index = (tmp_path / "r" / "index.html").read_text()
    assert "first build" in index

    build_report("exp", {"shift": 1}, [nb], reports_dir=tmp_path / "r", progress_bar=False)
    index = (tmp_path / "r" / "index.html").read_text()
    # one question more: the exact sign test (p = 1) and its interval, Tango's score interval reaching 0
    assert "+0.017 [-0.045, +0.089] <span class=\"noise\">within noise</span>" in index
    assert "unpaired: no per-question values" in index  # the plain figure

    build_report("exp", {"shift": 15}, [nb], reports_dir=tmp_path / "r", progress_bar=False)
    index = (tmp_path / "r" / "index.html").read_text()
    assert 'CI excludes 0' in index  # 14 more questions than the previous run
    assert index.count("<tr><td>20") == 3  # three runs listed


def test_a_quiet_headline_is_recorded_but_neither_printed_nor_on_the_page(tmp_path, warm_kernels):
    body = ("from rag_metrics.report import record\n"
            "record('shown', mean=0.25)\n"
            "record('quiet', mean=0.75, echo=False)\n")
    nb = small_notebook(tmp_path / "q.ipynb", body)
    run_dir = build_report("q", {}, [nb], reports_dir=tmp_path / "r", progress_bar=False)
    from rag_metrics.report.kernel import headlines

    assert {k: v["mean"] for k, v in headlines(run_dir / "q.ipynb").items()} == {"shown": 0.25, "quiet": 0.75}
    summary = json.loads((run_dir / "summary.json").read_text())
    assert summary["q"]["quiet"]["mean"] == 0.75
    executed = nbformat.read(str(run_dir / "q.ipynb"), as_version=4)
    texts = [o["data"].get("text/plain") for c in executed.cells if c.cell_type == "code" for o in c.outputs
             if "data" in o]
    assert texts == ["headline shown = 0.250", None]
    page = (run_dir / "q.html").read_text()
    # a page shows no headline line, echoed or quiet: the figures are in the lesson's own tables and the index
    assert "headline shown" not in page and "quiet = 0.750" not in page
    import warnings

    from rag_metrics.report.build import export_html

    with warnings.catch_warnings():  # a record-only output is left out, not handed to nbconvert to warn about
        warnings.simplefilter("error")
        export_html(run_dir / "q.ipynb", tmp_path / "again.html")


def _chromium():
    import shutil

    return shutil.which("chromium") or shutil.which("chromium-browser")


CHROMIUM_FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
                  "--disable-component-update", "--no-first-run", "--disable-sync", "--disable-quic"]


@pytest.mark.skipif(not _chromium(), reason="Debian chromium is not installed (apt-get install -y chromium); "
                                            "the HTML parsing checks still run")
def test_report_renders_in_a_real_browser(tmp_path):
    import subprocess

    import matplotlib.image as mpimg

    run_dir = build_report("browser", {}, [NOTEBOOKS / "01_duplicate_chunks_recall.ipynb"],
                           reports_dir=tmp_path / "r", progress_bar=False)
    page = (run_dir / "01_duplicate_chunks_recall.html").resolve().as_uri()
    profile = tmp_path / "profile"
    dom = subprocess.run([_chromium(), *CHROMIUM_FLAGS, f"--user-data-dir={profile}", "--dump-dom", page],
                         capture_output=True, text=True, timeout=120)
    assert dom.returncode == 0, dom.stderr[-2000:]
    assert "<table" in dom.stdout and "cut_then_dedup" in dom.stdout
    assert 'src="data:image/png;base64,' in dom.stdout
    shot = tmp_path / "shot.png"
    done = subprocess.run([_chromium(), *CHROMIUM_FLAGS, f"--user-data-dir={profile}", f"--screenshot={shot}",
                           "--window-size=1200,2400", page], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0 and shot.exists(), done.stderr[-2000:]
    pixels = mpimg.imread(str(shot))
    assert pixels.shape[0] >= 2000 and pixels.std() > 0.05  # not a blank page


def test_index_escapes_names_and_quotes_links(tmp_path):
    """Markup, '#', '%' and spaces in notebook and figure names: escaped text, percent-encoded links."""
    from rag_metrics.report.reports_index import write_index

    root = tmp_path / "r"
    run = root / "exp" / "20260101T000000Z"
    run.mkdir(parents=True)
    page = "a#b 50% <i>x.html"
    (run / page).write_text("<html></html>")
    (run / "run.json").write_text(json.dumps({
        "experiment": "exp", "timestamp": "20260101T000000Z", "parameters": {"label": "<b>bold</b>"},
        "notebooks": [{"notebook": "a#b 50% <i>x.ipynb", "status": "failed", "executed": "x.ipynb",
                       "html": page, "error": "<script>alert(1)</script>"}]}))
    (run / "summary.json").write_text(json.dumps({"nb <1>": {"<script>fig</script>": {"mean": 0.5, "n": 2}}}))
    index = write_index(root).read_text()
    assert "<script>" not in index and "<i>" not in index and "<b>bold" not in index
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in index and "&lt;script&gt;fig&lt;/script&gt;" in index
    assert 'href="exp/20260101T000000Z/a%23b%2050%25%20%3Ci%3Ex.html"' in index
    from urllib.parse import unquote

    href = re.search(r'href="([^#"][^"]*)"', index).group(1)
    assert (root / unquote(href)).is_file()  # the link opens the page, '#' and all
    for anchor in re.findall(r'href="#([^"]+)"', index):  # the contents' links lead to their sections
        assert f'id="{anchor}"' in index


def test_notebook_with_odd_file_name_end_to_end(tmp_path, warm_kernels):
    nb = small_notebook(tmp_path / "odd #1 name.ipynb", "print(k)")
    run_dir = build_report("x", {}, [nb], reports_dir=tmp_path / "r", progress_bar=False)
    assert (run_dir / "odd #1 name.html").is_file()
    index = (tmp_path / "r" / "index.html").read_text()
    assert f'href="x/{run_dir.name}/odd%20%231%20name.html"' in index and ">odd #1 name</a>" in index


def test_concurrent_reports_all_reach_the_index(tmp_path):
    """Several `rag-metrics report` processes finishing together: every finished run appears in the index."""
    import subprocess
    import sys
    from pathlib import Path

    nb = small_notebook(tmp_path / "n.ipynb", "print(k)")
    cli = str(Path(sys.executable).parent / "rag-metrics")
    procs = [subprocess.Popen([cli, "report", "--experiment", f"exp{i}", "--notebook", str(nb), "--reports-dir",
                               str(tmp_path / "r")], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
             for i in range(3)]
    written = []
    for p in procs:
        out, err = p.communicate(timeout=300)
        assert p.returncode == 0, err[-2000:]
        written.append(Path(out.strip().split("wrote ", 1)[1]))
    index = (tmp_path / "r" / "index.html").read_text()
    for run_dir in written:
        assert f"{run_dir.parent.name}/{run_dir.name}/n.html" in index
    assert not list((tmp_path / "r").glob("*/.*partial"))  # no staging folder left behind


def test_claims_are_shown_only_when_they_hold_and_recorded_either_way(tmp_path, warm_kernels):
    body = (
        "from rag_metrics.report import claim\n"
        "a, b = 0.5, 0.7\n"
        "claim(b > a, f'b ({b}) beats a ({a})', f'b ({b}) does not beat a ({a})', name='b>a')\n"
        "claim(a > b, 'a beats b', headline=True, name='lesson')\n"
        "claim(a > b, 'a beats b by more', 'b beats a', headline=True, name='lesson2')\n"
        "claim(a > b, 'a beats b (silent when false)')\n"
    )
    nb = small_notebook(tmp_path / "c.ipynb", body)
    run_dir = build_report("c", {}, [nb], reports_dir=tmp_path / "r", progress_bar=False)
    from rag_metrics.report.kernel import claims

    found = claims(run_dir / "c.ipynb")
    assert [(c["name"], c["holds"], c["shown"]) for c in found] == [
        ("b>a", True, "b (0.7) beats a (0.5)"), ("lesson", False, None), ("lesson2", False, "b beats a"),
        (None, False, None)]
    assert all(c["cell"] == 2 for c in found)
    executed = nbformat.read(str(run_dir / "c.ipynb"), as_version=4)
    page = "\n".join(o["data"].get("text/markdown", "") for c in executed.cells if c.cell_type == "code"
                     for o in c.outputs if "data" in o)
    # a false sentence is never shown, not even quoted in the banner that says the lesson does not show
    assert "b (0.7) beats a (0.5)" in page and "does not beat" not in page and "a beats b" not in page
    banners = [line for line in page.splitlines() if line.startswith("> **Note.**")]
    assert banners == ["> **Note.** Under these parameters the lesson's main point does not show.",
                       "> **Note.** Under these parameters the lesson's main point does not show. The sentence above "
                       "says what these numbers show instead."]
    assert "b beats a" in page and "silent when false" not in page


def test_a_claim_with_echo_false_is_recorded_and_checked_but_not_displayed(monkeypatch):
    """The experiment report's verdict is stated by its banner; its claim is recorded (and checked) without
    printing the same sentence a second time under it."""
    from rag_metrics.report import kernel

    seen = []
    monkeypatch.setattr(kernel, "_display", lambda bundle, fallback: seen.append((bundle, fallback)))
    kernel.claim(True, "the verdict", "another", name="v1", echo=False)
    kernel.claim(False, "the verdict", "another", name="v2", echo=False)
    kernel.claim(True, "shown", name="v3")
    (b1, f1), (b2, f2), (b3, f3) = seen
    for bundle, fallback, shown in ((b1, f1, "the verdict"), (b2, f2, "another")):
        assert set(bundle) == {kernel.CLAIM_MIME} and fallback == ""
        assert bundle[kernel.CLAIM_MIME]["shown"] == shown and bundle[kernel.CLAIM_MIME]["echo"] is False
    assert b3["text/markdown"] == "shown" == f3 and "echo" not in b3[kernel.CLAIM_MIME]


def test_the_kernels_own_output_is_kept_off_stderr_unless_the_kernel_fails(tmp_path, capfd):
    """What the kernel process writes about itself (ipykernel's shutdown tracebacks on a busy machine) does not
    reach this process's stderr after a notebook that ran; when the kernel dies, it is shown with the notebook's name."""
    from rag_metrics.report.build import execute_notebook

    noisy = small_notebook(tmp_path / "noisy.ipynb", "import atexit, os\n"
                           "atexit.register(lambda: os.write(2, b'Traceback (most recent call last): at exit\\n'))\n"
                           "print(k)")
    execute_notebook(noisy, tmp_path / "noisy.out.ipynb")
    executed = nbformat.read(str(tmp_path / "noisy.out.ipynb"), as_version=4)
    assert executed.cells[-1].outputs[0]["text"] == "3\n"
    out, err = capfd.readouterr()
    assert "Traceback" not in out + err

    dying = small_notebook(tmp_path / "dying.ipynb", "import os, sys\n"
                           "print('last words', file=sys.__stderr__, flush=True)\nos._exit(3)")
    with pytest.raises(RuntimeError, match="Kernel died"):
        execute_notebook(dying, tmp_path / "dying.out.ipynb")
    _, err = capfd.readouterr()
    assert "dying.ipynb: the kernel wrote:\nlast words\n" in err


def test_the_index_trend_chart_names_its_runs_and_is_large_enough_to_read():
    from rag_metrics.report.reports_index import LABEL_CHARS, _chart

    trend = [{"id": "a", "run": "bm25_c300o50", "made_at": "2026-11-30", "mean": 0.954, "low": 0.87, "high": 0.99},
             {"id": "b", "run": "a_run_with_a_very_long_name", "made_at": "2026-12-01", "mean": 0.5, "low": 0.4,
              "high": 0.6}]
    c = _chart(trend, {})
    assert c["width"] >= 300 and c["height"] >= 200
    assert [p["label"] for p in c["points"]] == ["bm25_c300o50", "a_run_with_a_very…"]
    assert len(c["points"][1]["label"]) == LABEL_CHARS and [p["mean"] for p in c["points"]] == ["0.954", "0.500"]
    assert c["label_y"] > c["bottom"] and c["label_y"] < c["height"]


def _index_of(root, experiments):
    """Write run folders by hand -- ``{name: [(timestamp, summary block or None, page)]}`` -- and the index."""
    from rag_metrics.report.reports_index import EXPERIMENT_KEY, write_index

    for name, builds in experiments.items():
        for stamp, block, page in builds:
            run = root / name / stamp
            run.mkdir(parents=True)
            (run / page).write_text("<html></html>")
            (run / "run.json").write_text(json.dumps({"experiment": name, "timestamp": stamp, "parameters": {},
                                                      "notebooks": [{"notebook": page.replace(".html", ".ipynb"),
                                                                     "status": "ok", "html": page}]}))
            summary = {EXPERIMENT_KEY: block} if block else {"01_x": {"fig": {"mean": 0.5, "n": 2}}}
            (run / "summary.json").write_text(json.dumps(summary))
    return write_index(root).read_text()


def test_the_index_links_every_run_of_the_trend_shows_times_to_the_second_and_lists_experiments_first(tmp_path):
    """Three logs in one build: the first run is neither subject nor baseline, and still links to the report that
    shows it; made times read to the second; experiment reports come before the teaching notebooks' builds."""
    trend = [{"id": f"r{i}", "run": f"run{i}", "made_at": f"2026-12-0{i}T06:02:2{i}.123456Z", "mean": 0.9, "low": 0.8,
              "high": 0.95, "n": 65} for i in (1, 2, 3)]
    block = {"subject": "run3", "subject_id": "r3", "baseline_id": "r2", "made_at": trend[-1]["made_at"],
             "measure": "hit@5", "judge": "overlap", "line": "Within noise", "verdict": {"outcome": "within noise"},
             "trend": trend}
    index = _index_of(tmp_path, {"a_teaching": [("20261201T000000Z", None, "01_x.html")],
                                 "z_experiment": [("20261202T000000Z", block, "experiment.html")]})
    page = "z_experiment/20261202T000000Z/experiment.html"
    assert f'<a href="{page}">run3</a>' in index  # the subject: its own report
    for i in (1, 2):  # no build describes them: said so, with the report that shows them
        assert f'<a href="{page}">run{i}</a>' not in index
        assert f'run{i} <small>(no report of its own: shown in <a href="{page}">the report of run3</a>)</small>' in index
    for i in (1, 2, 3):
        assert f"2026-12-0{i} 06:02:2{i} UTC" in index
    assert ".123456" not in index
    assert index.index('id="exp-z_experiment"') < index.index('id="exp-a_teaching"')
    contents = index.split('<ul class="contents">')[1].split("</ul>")[0]  # the experiments at the top, verdict first
    assert '<a href="#exp-z_experiment">z_experiment</a>: <span class="within">Within noise</span> -- run3 against' \
        in contents and '<a href="#exp-a_teaching">a_teaching</a>: 1 build(s)' in contents


def test_each_run_links_to_its_own_report_when_one_describes_it(tmp_path):
    """Two builds, each describing its newest run: each run of the trend opens the report about it, not the newest
    page (issue 47: every run link of an experiment opened the same page)."""
    trend = [{"id": f"r{i}", "run": f"run{i}", "made_at": f"2026-12-0{i}T06:00:00Z", "mean": 0.9, "low": 0.8,
              "high": 0.95, "n": 65} for i in (1, 2)]
    first = {"subject": "run1", "subject_id": "r1", "made_at": trend[0]["made_at"], "measure": "hit@5",
             "judge": "overlap", "line": None, "verdict": None, "trend": trend[:1]}
    second = {"subject": "run2", "subject_id": "r2", "baseline_id": "r1", "baseline": "run1",
              "made_at": trend[1]["made_at"], "measure": "hit@5", "judge": "overlap", "line": "Better",
              "verdict": {"outcome": "better"}, "trend": trend}
    index = _index_of(tmp_path, {"default": [("20261201T000000Z", None, "01_x.html")],
                                 "exp": [("20261201T000000Z", first, "experiment.html"),
                                         ("20261202T000000Z", second, "experiment.html")]})
    assert '<a href="exp/20261201T000000Z/experiment.html">run1</a>' in index
    assert '<a href="exp/20261202T000000Z/experiment.html">run2</a>' in index
    assert "no report of its own" not in index
    assert "<h2 id=\"exp-default\">Teaching notebooks <small>(experiment <code>default</code>)</small></h2>" in index
    assert "Experiment <code>default</code>" not in index


@pytest.mark.parametrize("extra, cut", [(-1, False), (0, False), (1, True)])
def test_a_run_name_of_exactly_label_chars_is_shown_whole_and_one_more_is_cut(extra, cut):
    from rag_metrics.report.reports_index import LABEL_CHARS, _chart

    name = "r" * (LABEL_CHARS + extra)
    label = _chart([{"id": "a", "run": name, "made_at": "t", "mean": 0.5, "low": 0.4, "high": 0.6}], {})["points"][0]["label"]
    assert label == (name[:LABEL_CHARS - 1] + "…" if cut else name)


def test_the_first_figure_of_a_fresh_kernel_is_an_image(tmp_path):
    """``plt.show()`` in the first cell that draws, in a kernel just started, gives a PNG, not the figure's repr
    ("<Figure size 400x300 with 1 Axes>"). Under matplotlib 3.8 with IPython 9 the inline backend was not in place
    for a kernel's first figure, so every report page lost its first chart; pyproject.toml now asks for
    matplotlib>=3.9, and this test runs in both environments `make test` builds."""
    from rag_metrics.report.build import execute_notebook

    path = small_notebook(tmp_path / "fig.ipynb", "import matplotlib.pyplot as plt\nfig, ax = plt.subplots(figsize=(4, 3))\n"
                          "ax.plot([1, 2], [k, k])\nplt.show()\nfig, ax = plt.subplots()\nplt.show()")
    execute_notebook(path, tmp_path / "out.ipynb")
    outputs = nbformat.read(str(tmp_path / "out.ipynb"), as_version=4).cells[-1].outputs
    assert [("image/png" in o.get("data", {})) for o in outputs] == [True, True], [
        o.get("data", {}).get("text/plain") for o in outputs]


def test_a_build_leaves_no_event_loop_or_socket_open(tmp_path):
    """papermill's client makes an event loop in each thread that runs a notebook and never closes it: a long-lived
    process (a JupyterLab kernel building reports) would keep two sockets per notebook run until garbage collection,
    which then warns. The builder closes the loop of each of its threads, with one thread and with several, and
    after a notebook that fails."""
    import gc
    import warnings

    nb = small_notebook(tmp_path / "nb.ipynb", "print(k)")
    other = small_notebook(tmp_path / "other.ipynb", "print(k + 1)")
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always", ResourceWarning)
        for jobs in (1, 2):
            build_report("loops", {}, [nb, other], reports_dir=tmp_path / "r", progress_bar=False, jobs=jobs)
        failing = small_notebook(tmp_path / "failing.ipynb", "raise ValueError(k)")
        with pytest.raises(ReportError):  # a notebook that fails closes its thread's loop too
            build_report("loops", {}, [failing], reports_dir=tmp_path / "r", progress_bar=False, jobs=1)
        gc.collect()
    assert [str(w.message) for w in seen if issubclass(w.category, ResourceWarning)] == []
