# The two commands of the README's quick start are `make book` and `make test`.
# Each one creates .venv and installs requirements.txt into it when needed (requirements.txt includes
# constraints.txt, which pins every package of the environment).

PYTHON ?= python3.11
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed
# -n: nitpicky (every cross-reference must resolve); -W: a warning is an error;
# --keep-going: report every warning before failing.
BOOK_FLAGS := -n -W --keep-going
# nbval's own options (sanitizer, cell timeout, kernel) are in pyproject.toml, so that `pytest --nbval chapters/`
# typed by hand compares exactly as these targets do.
# Code paths for `make codepaths` (tools/codepaths.py list shows them all).
PATHS ?= native,native-again,generic,avx2

.PHONY: venv book test test-unit test-notebooks codepaths notebooks baselines constraints clean

venv: $(STAMP)

$(STAMP): requirements.txt constraints.txt pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet -r requirements.txt
	touch $(STAMP)

## Build the HTML book into _build/html, executing every chapter fresh.
book: export EMBOOK_QUIET = 1
book: $(STAMP)
	rm -rf _build/html _build/.doctrees
	$(BIN)/jupyter-book build . --builder html $(BOOK_FLAGS)

## Run every test. First nbval over every chapter under each CPU code path (the machine's defaults twice,
## generic kernels, AVX2), each notebook executed once per path, several at a time; then unit tests (the
## slow ones too), doctests of lib, figure baselines, md/ipynb pairing, the checks of those executions
## (tests/test_codepaths.py: nbval, figures, determinism, rounding margins), the book in a browser (built
## from the executed notebooks, not executed again), and the Binder and Colab paths.
test: export EMBOOK_QUIET = 1
## (-n 2 --dist loadfile: two workers; the tests of one file stay on one worker)
test: $(STAMP)
	$(BIN)/python tools/codepaths.py run
	$(BIN)/python -m pytest tests lib -n 2 --dist loadfile

## The fast lane: unit tests and doctests on two workers, without the tests marked slow (more than about a
## second each: training, subprocesses, the browser) or those of the chapters' executions.
test-unit: export EMBOOK_QUIET = 1
test-unit: $(STAMP)
	$(BIN)/python -m pytest tests lib -m "not slow and not codepaths" -n 2

## nbval over every chapter, once, on this machine's defaults: what `pytest --nbval chapters/` does.
test-notebooks: export EMBOOK_QUIET = 1
test-notebooks: $(STAMP)
	$(BIN)/python -m pytest --nbval chapters

## Check a change under other CPU code paths: execute every chapter under each of PATHS with nbval and
## compare outputs, figures and rounding margins (report: test-artifacts/codepaths/margins.txt).
codepaths: export EMBOOK_QUIET = 1
codepaths: $(STAMP)
	$(BIN)/python tools/codepaths.py run --check --paths $(PATHS)

## Regenerate chapters/*.ipynb from chapters/*.md and execute them in place (review with git diff).
notebooks: export EMBOOK_QUIET = 1
notebooks: $(STAMP)
	$(BIN)/python tools/build_notebooks.py $(NB)

## Redraw every figure into tests/baseline/ (review the images before committing them).
baselines: $(STAMP)
	$(BIN)/python tools/update_baselines.py

## Pin every package of the environment again into constraints.txt (after changing requirements.txt).
constraints:
	$(PYTHON) tools/freeze_constraints.py

clean:
	rm -rf _build .pytest_cache test-artifacts
