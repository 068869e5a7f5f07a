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
NBVAL_FLAGS := --nbval --nbval-sanitize-with tests/nbval_sanitize.cfg --nbval-cell-timeout 600

.PHONY: venv book test test-unit test-notebooks notebooks baselines constraints clean

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

## Run every test: unit tests (the slow ones too), doctests of lib, figure baselines, md/ipynb pairing,
## the book in a browser, the Binder and Colab paths, and nbval over every chapter.
test: export EMBOOK_QUIET = 1
## (-n 2 --dist loadfile: two workers; all cells of one notebook stay on one worker, in one kernel)
test: $(STAMP)
	$(BIN)/python -m pytest tests lib chapters $(NBVAL_FLAGS) -n 2 --dist loadfile

## The fast lane: unit tests and doctests, without the tests marked slow (no book build, no notebooks).
test-unit: export EMBOOK_QUIET = 1
test-unit: $(STAMP)
	$(BIN)/python -m pytest tests lib -m "not slow"

test-notebooks: export EMBOOK_QUIET = 1
test-notebooks: $(STAMP)
	$(BIN)/python -m pytest chapters $(NBVAL_FLAGS)

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
