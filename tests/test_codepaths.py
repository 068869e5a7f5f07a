"""Every chapter under several CPU code paths: the same compared outputs, the same figures, deterministic
executions, and no printed number near a rounding boundary of the digits shown.

``tools/codepaths.py`` executes each chapter once per code path with nbval and records the runs (``make
test`` runs it before pytest; ``make codepaths`` runs it with its checks). This module asserts the checks
on those recorded runs, one test per code path and chapter, so that a failure names both:

- nbval (its own comparison with the committed notebook, options from pyproject.toml) passes;
- the figures match the committed ones within the RMS tolerance of tests/test_figures.py;
- the code path took effect (PyTorch's CPU capability and OpenBLAS's kernel are the ones asked for);
- two executions on the machine's defaults give byte-identical compared outputs and images;
- every float in a compared output went through ``lib.notebook`` (``fmt``, ``exact``, ``glue``);
- no logged number has a spread over the code paths that reaches a rounding boundary of its shown digits,
  and no logged choice (ranking, argmax) has a gap to its runner-up within its spread. The report of the
  smallest margins is written to ``test-artifacts/codepaths/margins.txt`` (and printed after the tests).

When no recorded run matches the current notebooks, ``lib`` and configuration (the fingerprint in
``test-artifacts/codepaths/manifest.json``), the module runs the tool first, which takes minutes.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tools"))
import codepaths  # noqa: E402

pytestmark = pytest.mark.codepaths

PATHS = codepaths.DEFAULT_PATHS
CHAPTERS = [nb.stem for nb in codepaths.chapters()]


@pytest.fixture(scope="module")
def runs() -> dict:
    """The manifest of a recorded run of every chapter under every default code path, for the current inputs."""
    manifest_file = codepaths.OUT / "manifest.json"
    manifest = json.loads(manifest_file.read_text()) if manifest_file.exists() else {}
    fresh = (
        manifest.get("fingerprint") == codepaths.fingerprint()
        and set(PATHS) <= set(manifest.get("paths", {}))
        and set(CHAPTERS) <= set(manifest.get("chapters", []))
    )
    if not fresh:
        manifest = codepaths.run(PATHS)
    return manifest


def _record(path: str, chapter: str) -> dict:
    rec = codepaths.record(path, chapter)
    assert rec is not None, f"no record of {chapter} under {path}; its log ends:\n{codepaths.log_tail(path, chapter)}"
    return rec


@pytest.mark.parametrize("path", PATHS)
@pytest.mark.parametrize("chapter", CHAPTERS)
def test_nbval_passes_under_the_code_path(runs, path, chapter):
    rec = _record(path, chapter)
    failures = codepaths.nbval_failures(rec)
    env = " ".join(f"{k}={v}" for k, v in codepaths.CODE_PATHS[path].env.items()) or "(the machine's defaults)"
    assert failures == [], f"nbval fails for {chapter} under {env}:\n" + "\n".join(failures)


@pytest.mark.parametrize("path", PATHS)
@pytest.mark.parametrize("chapter", CHAPTERS)
def test_figures_match_the_committed_ones_under_the_code_path(runs, path, chapter):
    problems = codepaths.figure_mismatches(path, chapter, _record(path, chapter))
    assert problems == [], f"{chapter} under {path}:\n" + "\n".join(problems)


@pytest.mark.parametrize("path", PATHS)
def test_the_code_path_took_effect(runs, path):
    problems = [f"{c}: {p}" for c in CHAPTERS for p in codepaths.path_effect(path, _record(path, c))]
    assert problems == [], f"{path} asked for {codepaths.CODE_PATHS[path].env}, but " + "; ".join(problems)


@pytest.mark.parametrize("chapter", CHAPTERS)
def test_two_executions_on_one_machine_are_identical(runs, chapter):
    differences = codepaths.determinism_differences(chapter)
    assert differences == [], f"{chapter} executed twice with the same settings gives different outputs:\n" + "\n".join(
        differences)


@pytest.mark.parametrize("chapter", CHAPTERS)
def test_every_printed_float_goes_through_lib_notebook(runs, chapter):
    problems = codepaths.unaccounted_decimals(_record(PATHS[0], chapter))
    assert problems == [], (
        f"{chapter} prints decimals that lib.notebook did not format, so their rounding margin is unknown "
        "(print them with fmt(x, '.4f'), exact(setting) or glue(name, x, decimals)):\n" + "\n".join(problems))


def test_no_number_is_near_a_rounding_boundary(runs):
    text, fragile, problems = codepaths.margin_report(PATHS)
    assert problems == [], "the code paths logged different numbers:\n" + "\n".join(problems)
    assert fragile == [], f"numbers whose spread over the code paths reaches a rounding boundary:\n{text}"
    assert "printed or glued numbers" in (codepaths.OUT / "margins.txt").read_text()


def test_the_margin_check_catches_a_number_on_a_rounding_boundary(tmp_path):
    """The check itself: a value shown as 0.1235 on one path and 0.1234 on another fails, one that stays
    away from the boundary passes, and a ranking whose gap flips sign fails."""
    log = [
        {"kind": "fmt", "spec": ".4f", "raw": 0.12345001, "shown": "0.1235"},
        {"kind": "fmt", "spec": ".4f", "raw": 0.5, "shown": "0.5000"},
        {"kind": "gap", "name": "ranking", "raw": 1e-9},
    ]
    other = [
        {"kind": "fmt", "spec": ".4f", "raw": 0.12344999, "shown": "0.1234"},
        {"kind": "fmt", "spec": ".4f", "raw": 0.50000001, "shown": "0.5000"},
        {"kind": "gap", "name": "ranking", "raw": -1e-9},
    ]
    for path, entries in (("a", log), ("b", other)):
        folder = tmp_path / path
        folder.mkdir()
        (folder / "x.json").write_text(json.dumps({"notebook": "x.ipynb", "machine": {}, "cells": [
            {"cell": 0, "outcome": "passed", "report": "", "outputs": [], "numbers": [0, 3]}]}))
        (folder / "x.numbers.jsonl").write_text("".join(json.dumps(e) + "\n" for e in entries))
    margins, problems = codepaths.margins("x", ["a", "b"], out=tmp_path)
    assert problems == []
    assert [m.fragile for m in margins] == [True, False, True]
    assert margins[1].margin == pytest.approx(0.4999, abs=1e-3) and margins[1].spread == pytest.approx(1e-4)


def test_decimals_are_found_in_text_but_not_in_versions_or_words():
    text = "loss 1.2345, rho -0.21 and 12.5% of 1,234.5 words; torch 2.13.0, numpy 2.4.6; x1.5y; 3 cats; 1e-05"
    assert codepaths.DECIMAL.findall(text) == ["1.2345", "-0.21", "12.5%", "1,234.5"]
