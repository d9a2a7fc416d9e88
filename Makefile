# Two commands do everything on a fresh clone with only python3:
#   make report   build the HTML reports on the sample data (the main job)
#   make test     unit tests + nbval over the committed notebooks
# Both create .venv/ and install the project from pyproject.toml first.

PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed-stamp
EXPERIMENT ?= default
NBVAL  := --nbval --nbval-current-env --nbval-sanitize-with tests/nbval_sanitize.cfg

.PHONY: install report test notebooks lab bench clean

install: $(STAMP)

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[dev]'
	touch $(STAMP)

report: $(STAMP)
	$(BIN)/rag-metrics report --experiment $(EXPERIMENT)

test: $(STAMP)
	$(BIN)/python -m pytest tests notebooks $(NBVAL)

# Re-execute the committed notebooks in place (deterministic: no timings, fixed seeds).
notebooks: $(STAMP)
	cd notebooks && ../$(BIN)/jupyter nbconvert --to notebook --execute --inplace \
	  --ExecutePreprocessor.kernel_name=python3 \
	  --ExecutePreprocessor.record_timing=False --CoalesceStreamsPreprocessor.enabled=True *.ipynb

# Speed benchmark against pytrec_eval and ranx (installs the bench extra; ~10 minutes with 100k questions).
bench: $(STAMP)
	$(BIN)/python -m pip install --quiet -e '.[bench]'
	$(BIN)/python benchmarks/run.py --sizes 1000 10000 100000 --repeat 3

lab: $(STAMP)
	$(BIN)/jupyter lab --notebook-dir=notebooks $(if $(filter 0,$(shell id -u)),--allow-root,)

clean:
	rm -rf $(VENV) reports/*/ reports/index.html
