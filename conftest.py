"""pytest configuration shared by every run at the repository root, `pytest --nbval chapters/` included.

pyproject.toml gives nbval its options (the sanitizer, the cell timeout), so that the command the README
tells readers to type compares exactly as `make test` does. Two things cannot live there:

- Progress bars: `lib.progress` draws none when ``EMBOOK_QUIET=1``. The Makefile sets it; here it is set
  for any run with ``--nbval``, before nbval starts a kernel (the kernel inherits the environment), so that
  no bar reaches a compared output when a reader runs nbval by hand.
- The rounding-margin report: when tests/test_codepaths.py wrote ``test-artifacts/codepaths/margins.txt``
  in this session, it is printed at the end of the run.
- Recording: with ``EMBOOK_NBVAL_RECORD=<folder>`` every notebook nbval runs is written to
  ``<folder>/<name>.json``: per code cell, nbval's verdict, its report when it failed, the outputs the fresh
  execution produced (images included) and the lines of the number log (``EMBOOK_NUMBER_LOG``, see
  lib/notebook.py) that the cell wrote. ``tools/codepaths.py`` runs nbval under several CPU code paths
  this way and compares the records; nothing is recorded otherwise.
- Shared chapter studies: a chapter's study (:func:`lib.chapters.position_schemes.study`,
  :func:`lib.chapters.real_text.chapter_study`) trains dozens of models and is kept once per process. Under
  pytest-xdist (``make test`` runs two workers) the first worker that needs one computes it and pickles it to
  the run's shared temporary folder, under a file lock; the other workers load it. The study is the same
  object either way (it is deterministic), so no test sees a different number; it is trained once per run
  instead of once per worker.
"""

from __future__ import annotations

import functools
import importlib
import json
import os
import pickle
import sys
import time
from pathlib import Path

import pytest
from filelock import FileLock

MARGINS = Path(__file__).resolve().parent / "test-artifacts" / "codepaths" / "margins.txt"
RECORD = "EMBOOK_NBVAL_RECORD"
NUMBER_LOG = "EMBOOK_NUMBER_LOG"  # the same variable as lib.notebook.NUMBER_LOG

_records: dict = {}


def pytest_configure(config):
    config._embook_started = time.time()
    if getattr(config.option, "nbval", False) or getattr(config.option, "nbval_lax", False):
        os.environ.setdefault("EMBOOK_QUIET", "1")
    sanitizer = getattr(config.option, "nbval_sanitize_with", None)
    if sanitizer and not os.path.isabs(sanitizer) and not os.path.exists(sanitizer):
        # pyproject.toml names it relative to the repository root; pytest may run from elsewhere
        config.option.nbval_sanitize_with = str(Path(str(config.rootpath)) / sanitizer)


SHARED_STUDIES = (("lib.chapters.position_schemes", "study"), ("lib.chapters.real_text", "chapter_study"))


def _shared(original, path: Path):
    """``original()`` computed by one xdist worker and pickled to ``path``; the others load it."""
    value = []

    @functools.wraps(original)
    def shared():
        if not value:
            with FileLock(str(path) + ".lock"):
                if path.exists():
                    value.append(pickle.loads(path.read_bytes()))
                else:
                    value.append(original())
                    path.write_bytes(pickle.dumps(value[0]))
        return value[0]

    return shared


@pytest.fixture(scope="session", autouse=True)
def _share_studies_across_workers(request, tmp_path_factory):
    """Under xdist, replace each study function (and every binding of it made by ``from ... import``) by
    :func:`_shared`. Nothing is computed here: a study is computed when a test first asks for it."""
    if not hasattr(request.config, "workerinput"):
        yield
        return

    folder = tmp_path_factory.getbasetemp().parent  # the same folder for every worker of this run
    replaced = []
    for module_name, name in SHARED_STUDIES:
        original = getattr(importlib.import_module(module_name), name)
        shared = _shared(original, folder / f"{module_name}.{name}.pickle")
        for module in list(sys.modules.values()):
            if getattr(module, name, None) is original:
                setattr(module, name, shared)
                replaced.append((module, name, original))
    yield
    for module, name, original in replaced:
        setattr(module, name, original)


def _log_lines() -> int:
    path = os.environ.get(NUMBER_LOG)
    if not path or not os.path.exists(path):
        return 0
    with open(path, "rb") as f:
        return sum(1 for _ in f)


def _machine() -> dict:
    """What the process (and so the kernel it starts, which inherits its environment) runs on."""
    info = {"env": {k: v for k, v in os.environ.items()
                    if k.startswith(("ATEN_", "OPENBLAS_", "MKL_", "OMP_", "NPY_"))}}
    try:
        import torch

        info["torch_cpu_capability"] = torch.backends.cpu.get_cpu_capability()
        info["torch_threads"] = torch.get_num_threads()
    except ImportError:
        pass
    try:
        from threadpoolctl import threadpool_info

        info["blas"] = [{k: p.get(k) for k in ("internal_api", "version", "architecture", "num_threads")}
                        for p in threadpool_info() if p.get("user_api") == "blas"]
    except ImportError:
        pass
    return info


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    outcome = yield
    folder = os.environ.get(RECORD)
    if not folder or call.when != "call" or type(item).__name__ != "IPyNbCell":
        return
    report = outcome.get_result()
    notebook = Path(str(item.parent.fspath))
    record = _records.setdefault(notebook, {"notebook": notebook.name, "cells": [], "machine": None})
    if record["machine"] is None:
        record["machine"] = _machine()
    start = record["cells"][-1]["numbers"][1] if record["cells"] else 0
    record["cells"].append({
        "cell": item.cell_num,
        "outcome": report.outcome,
        "report": report.longreprtext if report.failed else "",
        "outputs": [dict(o) for o in (item.test_outputs or [])],
        "numbers": [start, _log_lines()],
    })


def pytest_sessionfinish(session):
    folder = os.environ.get(RECORD)
    if not folder:
        return
    Path(folder).mkdir(parents=True, exist_ok=True)
    for notebook, record in _records.items():
        path = Path(folder) / f"{notebook.stem}.json"
        path.write_text(json.dumps(record, default=lambda o: dict(o)))


def pytest_terminal_summary(terminalreporter, config):
    """Print the rounding-margin report when this session wrote it (tests/test_codepaths.py)."""
    if MARGINS.exists() and MARGINS.stat().st_mtime >= getattr(config, "_embook_started", float("inf")):
        terminalreporter.section(f"rounding margins ({MARGINS.relative_to(MARGINS.parents[2])})")
        terminalreporter.write(MARGINS.read_text())
