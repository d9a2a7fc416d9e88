"""`make bench-report`'s comparison with the previous release's figures: the rule that prints "slower by X%", checked
on given numbers (no time is measured or asserted here), and the committed baseline file it reads."""

import importlib.util
import json
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SCRIPT = ROOT / "benchmarks" / "experiment_report.py"


@pytest.fixture(scope="module")
def bench():
    spec = importlib.util.spec_from_file_location("bench_experiment_report", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


BASE = {"wall": 20.0, "cpu": 18.0, "peak_mb": 1000.0}


def test_a_size_more_than_ten_percent_slower_is_named_with_its_share(bench):
    lines = bench.against_baseline(8000, {"wall": 22.2, "cpu": 19.0, "peak_mb": 1000.0}, BASE)
    assert lines[0] == "8,000 questions: wall 22.2 s (baseline 20.0 s): slower by 11%"
    assert lines[1].endswith("(baseline 18.0 s): within 10%") and lines[2].endswith("within 10%")


def test_ten_percent_exactly_is_not_slower_and_memory_says_larger(bench):
    lines = bench.against_baseline(2000, {"wall": 22.0, "cpu": 14.0, "peak_mb": 1250.0}, BASE)
    assert lines[0].endswith("within 10%") and "slower" not in lines[0]  # 22.0 / 20.0 is 10%, not more
    assert lines[1].endswith("faster")
    assert lines[2] == "2,000 questions: peak memory 1,250.0 MB (baseline 1,000.0 MB): larger by 25%"
    assert bench.against_baseline(2000, {"wall": 1.0, "cpu": 1.0, "peak_mb": 800.0}, BASE)[2].endswith("smaller")


def test_a_size_without_a_baseline_figure_says_so(bench):
    assert bench.against_baseline(50000, {"wall": 1.0, "cpu": 1.0, "peak_mb": 1.0}, None) == [
        "50,000 questions: no baseline figure for this size"]


def test_the_committed_baseline_holds_each_size_make_bench_report_measures(bench):
    baseline = json.loads(bench.BASELINE.read_text(encoding="utf-8"))
    make = (ROOT / "Makefile").read_text(encoding="utf-8").split("bench-report:", 1)[1].split("\n\n", 1)[0]
    sizes = make.split("--sizes", 1)[1].split("--", 1)[0].split()
    assert sizes and all(s in baseline["sizes"] for s in sizes), (sizes, baseline["sizes"])
    for figures in baseline["sizes"].values():
        assert set(figures) == {"wall", "cpu", "peak_mb"} and all(v > 0 for v in figures.values())
    assert baseline["measured"] and "--baseline" in make
