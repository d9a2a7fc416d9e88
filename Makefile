# Two commands do everything on a fresh clone with only python3:
#   make report   build the HTML reports on the sample data (the main job)
#   make test     unit tests + nbval over the committed notebooks (what a contributor runs before a commit)
# and CI (.ci/run) runs both, then `make test-lowest`.
# Each target creates .venv/ and installs the project from pyproject.toml with the extras it needs
# (report: notebooks and retrievers; test: everything), once per change of pyproject.toml. pip resolves the
# newest versions allowed, as a new user's install does. `make test-lowest` makes .venv-lowest: every runtime
# dependency at the lowest version pyproject.toml allows (tools/lowest_constraints.py), plus LlamaIndex's PDF
# reader (it requires pandas<3, so it never enters .venv); the report runs there, and the unit tests that reach a
# pinned package (tests/dependency_map.json, made by `make dependency-map`). `make lowest-env` builds it alone:
# .ci/run builds it while `make test` runs (make -j2).

PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
LOWEST := .venv-lowest
EXPERIMENT ?= default
EXAMPLE := --golden data/golden.jsonl --pages data/corpus --run data/examples/bm25_c300o50.jsonl \
  --run data/examples/bm25_c400o100.jsonl --answers data/answers.jsonl --generator gen_a
# Tests bound to .venv's exact versions, deselected in .venv-lowest only (they run in .venv): byte-identical
# re-execution of notebooks committed from .venv, the sample logs written by the newest retrievers, and two checks
# of what the lowest ipykernel / nbconvert write around the output (a debugger warning on the kernel's stderr; the
# browser check of the figure's markup -- the pages built in .venv-lowest do embed their figures).
# Also left to .venv: the notebook parameter sweep, whose subject is the parameters, not the versions: under the
# lowest versions every notebook runs at its defaults in the report built just before the tests.
# In .venv-lowest only the tests that reach a pinned package run (conftest.py's --only-reaching-pinned): a test whose
# code never runs one gives the same result under any of their versions, and already ran in .venv.
LOWEST_SKIP := --deselect "tests/test_notebooks.py::test_regenerating_gives_byte_identical_notebooks" \
  --deselect tests/test_notebooks.py::test_every_notebook_runs_and_says_nothing_false \
  --deselect tests/test_experiment.py::test_sample_examples_are_what_the_runner_writes \
  --deselect tests/test_report.py::test_report_renders_in_a_real_browser \
  --deselect tests/test_report.py::test_the_kernels_own_output_is_kept_off_stderr_unless_the_kernel_fails
# Each hypothesis property runs at most this many examples in .venv-lowest: the search for a counterexample runs with
# the property's full budget in .venv (`make test`); what the lowest versions add is the pinned code path each example
# runs, which a smaller sample exercises as well.
LOWEST_EXAMPLES := 25
# Python's default: compiled modules are cached (an environment that sets PYTHONDONTWRITEBYTECODE makes every test
# process, kernel and report recompile the package and re-rewrite the tests' assertions). pip installs with
# --no-compile: compiling every module of every dependency took 33 of the 61 s of installing .venv-lowest, while the
# modules a report or a test imports -- a small part of them -- are compiled and cached at their first import.
unexport PYTHONDONTWRITEBYTECODE
NBVAL  := --nbval --nbval-current-env --nbval-sanitize-with tests/nbval_sanitize.cfg

.PHONY: report test test-notebook-runs test-lowest lowest-env dependency-map notebooks lab bench bench-report clean \
  clean-reports

$(BIN)/python:
	@echo "--- creating $(VENV)"
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip

# .venv/.stamp-EXTRA: the project installed with that extra (see pyproject.toml).
# pip's own progress (each package collected, downloaded, installed) is shown: the first install is the longest step.
$(VENV)/.stamp-%: pyproject.toml | $(BIN)/python
	@echo "--- installing rag_metrics with its '$*' extra into $(VENV) (once per change of pyproject.toml)"
	$(BIN)/python -m pip install --progress-bar on --no-compile -e '.[$*]'
	touch $@

report: $(VENV)/.stamp-report
	$(BIN)/rag-metrics report --experiment $(EXPERIMENT)
	$(BIN)/rag-metrics report --experiment example $(EXAMPLE)

$(LOWEST)/.stamp: pyproject.toml tools/lowest_constraints.py
	$(PYTHON) -m venv $(LOWEST)
	$(LOWEST)/bin/python -m pip install --quiet --upgrade pip
	$(PYTHON) tools/lowest_constraints.py > $(LOWEST)/constraints.txt
	$(LOWEST)/bin/python -m pip install --quiet --no-compile -c $(LOWEST)/constraints.txt -e '.[report,test,dask,llamaindex-files]'
	touch $@

# `make test` runs one run per notebook of tests/test_notebooks.py's parameter sweep (its first random draw);
# `make test-notebook-runs` runs the sweep's other runs (the fixed table and the other draws): .ci/run runs both.
test: $(VENV)/.stamp-dev
	$(BIN)/python -m pytest -n auto --dist worksteal --notebook-runs=one tests
	$(BIN)/python -m pytest -n auto --dist loadfile notebooks rag_metrics/report/experiment.ipynb $(NBVAL)

lowest-env: $(LOWEST)/.stamp

test-lowest: $(LOWEST)/.stamp
	@echo "--- the lowest versions pyproject.toml allows ($(LOWEST)): the report, then the unit tests reaching them"
	rm -rf $(LOWEST)/reports
	$(LOWEST)/bin/rag-metrics report --experiment default --reports-dir $(LOWEST)/reports
	$(LOWEST)/bin/rag-metrics report --experiment example --reports-dir $(LOWEST)/reports $(EXAMPLE)
	RAG_METRICS_REQUIRE_LLAMAINDEX=1 $(LOWEST)/bin/python -m pytest -n auto --dist worksteal -p no:cacheprovider \
	  --only-reaching-pinned --max-examples-cap=$(LOWEST_EXAMPLES) tests $(LOWEST_SKIP)

test-notebook-runs: $(VENV)/.stamp-dev
	$(BIN)/python -m pytest -n auto --dist worksteal -p no:cacheprovider --notebook-runs=rest \
	  tests/test_notebooks.py::test_every_notebook_runs_and_says_nothing_false

# Remake tests/dependency_map.json in .venv-lowest: the suite once, in one process, each test profiled until it first
# reaches a pinned package (about as long as the suite on one core).
dependency-map: $(LOWEST)/.stamp
	RAG_METRICS_REQUIRE_LLAMAINDEX=1 $(LOWEST)/bin/python tools/dependency_map.py tests $(LOWEST_SKIP)

# Re-execute the committed notebooks in place, byte-for-byte reproducibly (tools/run_notebooks.py says how).
notebooks: $(VENV)/.stamp-report
	$(BIN)/python tools/run_notebooks.py notebooks/*.ipynb rag_metrics/report/experiment.ipynb

# Speed benchmark against pytrec_eval and ranx (~10 minutes with 100k questions).
bench: $(VENV)/.stamp-bench
	$(BIN)/python benchmarks/run.py --sizes 1000 10000 100000 --repeat 3

# The experiment report at 2,000 and 8,000 questions -- seconds and peak memory per size beside the previous
# release's (benchmarks/experiment_report_baseline.json), "slower by X%" past 10% -- and the overlap judge against
# ragas (~5 minutes; 50,000 questions on request: benchmarks/experiment_report.py --sizes 50000).
bench-report: $(VENV)/.stamp-dev
	$(BIN)/python benchmarks/experiment_report.py --sizes 2000 8000 --baseline benchmarks/experiment_report_baseline.json
	$(BIN)/python benchmarks/judging_vs_ragas.py --repeat 3

lab: $(VENV)/.stamp-lab
	$(BIN)/jupyter lab --notebook-dir=notebooks $(if $(filter 0,$(shell id -u)),--allow-root,)

# Remove what the build and the tests leave behind: the virtual environment, caches, egg-info, notebook
# checkpoints. Reports, run logs (runs/) and run history (history/) are kept: `make clean-reports` removes those.
clean:
	rm -rf $(VENV) $(LOWEST) rag_metrics.egg-info .pytest_cache .hypothesis build
	find . -name __pycache__ -type d -prune -exec rm -rf {} + -o -name .ipynb_checkpoints -type d -prune -exec rm -rf {} +

clean-reports:
	rm -rf reports/*/ reports/index.html reports/.index.lock runs/ history/
