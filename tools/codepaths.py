"""Execute every chapter under several CPU code paths with nbval, and check that a reader sees the same book.

A float computed with float32 arithmetic, BLAS, an iterative solver or training differs in its last digits
from one CPU to another: PyTorch picks its kernels by the CPU's vector instructions (``ATEN_CPU_CAPABILITY``),
OpenBLAS by the CPU model (``OPENBLAS_CORETYPE``), MKL by its own dispatch (``MKL_CBWR``), and each sums in
its own order. The book prints every such number rounded to the digits a reader sees (lib/notebook.py), so
the printed text must be the same on all of them. This tool checks that on one machine by forcing each
code path in turn:

1. ``run``: for every code path and every chapter, ``pytest --nbval chapters/<name>.ipynb`` (nbval's own
   comparison with the committed notebook, with the options of pyproject.toml, exactly the command a reader
   types) in a process whose environment selects the code path, several at a time. Each run is recorded
   (conftest.py): nbval's verdict per cell, the outputs of the fresh execution and the unrounded value of
   every number the chapter printed or glued (``EMBOOK_NUMBER_LOG``). Each notebook is executed once per
   code path; everything below reuses these executions.
2. The checks (``tests/test_codepaths.py`` asserts them; ``report`` prints them):
   - nbval passes under every code path;
   - the figures of every run match the committed ones (RMS tolerance of tests/test_figures.py);
   - the code path took effect (PyTorch's capability and OpenBLAS's kernel as requested);
   - determinism: the two executions on the machine's own defaults (``native`` and ``native-again``) give
     byte-identical compared outputs (and identical images);
   - every number a chapter prints or glues went through lib.notebook (a decimal in a compared output that
     the number log does not account for is a float printed some other way, whose margin is unknown);
   - the rounding margin: for every logged number, the spread of its unrounded values over the code paths
     and its distance to the nearest rounding boundary of the digits shown, in units of the last digit.
     It fails when the spread reaches the boundary (distance <= spread). For every logged discrete choice
     (a ranking, an argmax: ``lib.notebook.record_gap``) the gap between winner and runner-up must exceed
     its spread. The smallest margins are written to ``test-artifacts/codepaths/margins.txt`` and printed.

Usage (``make codepaths`` runs the default code paths and the checks)::

    python tools/codepaths.py run [--paths native,generic,...] [--jobs N] [chapters/x.ipynb ...]
    python tools/codepaths.py report [--paths ...]
    python tools/codepaths.py list
"""

from __future__ import annotations

import argparse
import base64
import hashlib
import json
import math
import os
import re
import subprocess
import sys
import time
from collections import Counter, defaultdict
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from decimal import Decimal
from pathlib import Path
from typing import Dict, List, Optional

ROOT = Path(__file__).resolve().parents[1]
OUT = ROOT / "test-artifacts" / "codepaths"
CHAPTERS = ROOT / "chapters"
SANITIZER = ROOT / "tests" / "nbval_sanitize.cfg"
FIGURE_TOLERANCE = 0.5  # RMS over 0-255, as tests/test_figures.py (which imports it from here)
RECORD = "EMBOOK_NBVAL_RECORD"  # conftest.py
NUMBER_LOG = "EMBOOK_NUMBER_LOG"  # lib/notebook.py
REPORT_ROWS = 15  # smallest margins shown in the report
# A value that every code path computed bit for bit alike may still differ elsewhere by accumulated rounding:
# its spread is taken to be at least this fraction of its size (float64 after many operations: ~1e-14).
NOISE_FLOOR = 1e-12


@dataclass(frozen=True)
class CodePath:
    """A set of environment variables that selects the kernels of PyTorch, OpenBLAS, MKL or NumPy."""

    name: str
    env: Dict[str, str]
    about: str
    expect: Dict[str, str] = field(default_factory=dict)  # what the run must report (conftest.py's machine)


def _numpy_baseline_env() -> Dict[str, str]:
    """NumPy's dispatched SIMD extensions found on this CPU, all disabled (NumPy on its baseline kernels)."""
    try:
        from numpy._core._multiarray_umath import __cpu_dispatch__, __cpu_features__
    except ImportError:  # NumPy < 2
        return {}
    found = [f for f in __cpu_dispatch__ if __cpu_features__.get(f)]
    return {"NPY_DISABLE_CPU_FEATURES": " ".join(found)} if found else {}


CODE_PATHS: Dict[str, CodePath] = {p.name: p for p in (
    CodePath("native", {}, "the machine's own defaults; the command a reader types, `pytest --nbval chapters/`"),
    CodePath("native-again", {}, "the machine's defaults once more: two executions must give identical outputs"),
    CodePath("generic", {"ATEN_CPU_CAPABILITY": "default", "OPENBLAS_CORETYPE": "Prescott", "MKL_CBWR": "COMPATIBLE"},
             "PyTorch, OpenBLAS and MKL on their generic kernels",
             {"torch": "DEFAULT", "openblas": "Katmai"}),
    CodePath("avx2", {"ATEN_CPU_CAPABILITY": "avx2", "OPENBLAS_CORETYPE": "Haswell"},
             "AVX2 kernels, as on most laptops and cloud machines", {"torch": "AVX2", "openblas": "Haswell"}),
    # further code paths, for `make codepaths PATHS=...`; they need a CPU that has the instructions
    CodePath("avx512", {"ATEN_CPU_CAPABILITY": "avx512", "OPENBLAS_CORETYPE": "SkylakeX", "MKL_CBWR": "AVX512"},
             "AVX-512 kernels everywhere", {"torch": "AVX512", "openblas": "SkylakeX"}),
    CodePath("sandybridge", {"ATEN_CPU_CAPABILITY": "default", "OPENBLAS_CORETYPE": "Sandybridge", "MKL_CBWR": "AVX"},
             "AVX (2011) kernels in OpenBLAS and MKL", {"torch": "DEFAULT", "openblas": "Sandybridge"}),
    CodePath("nehalem", {"ATEN_CPU_CAPABILITY": "default", "OPENBLAS_CORETYPE": "Nehalem", "MKL_CBWR": "SSE4_2"},
             "SSE4.2 (2008) kernels in OpenBLAS and MKL, PyTorch's generic ones",
             {"torch": "DEFAULT", "openblas": "Nehalem"}),
    CodePath("zen", {"OPENBLAS_CORETYPE": "Zen", "MKL_CBWR": "AVX2"},
             "OpenBLAS's AMD Zen choice (its Haswell kernels), MKL's AVX2 ones"),
    CodePath("one-thread", {"OMP_NUM_THREADS": "1", "OPENBLAS_NUM_THREADS": "1", "MKL_NUM_THREADS": "1"},
             "every library on one thread (a one-core machine)"),
    CodePath("numpy-baseline", _numpy_baseline_env(), "NumPy's own SIMD loops off (its baseline kernels)"),
)}
DEFAULT_PATHS = ("native", "native-again", "generic", "avx2")
DETERMINISM = ("native", "native-again")


# --- running --------------------------------------------------------------------------------------------


def chapters(args: Optional[List[str]] = None) -> List[Path]:
    """The notebooks to run: ``args`` (paths) or every ``chapters/*.ipynb``."""
    if args:
        found = [(ROOT / a).resolve() if not Path(a).is_absolute() else Path(a) for a in args]
        for nb in found:
            if nb.suffix != ".ipynb" or not nb.exists():
                raise SystemExit(f"not a chapter notebook: {nb}")
        return found
    return sorted(CHAPTERS.glob("*.ipynb"))


def fingerprint() -> str:
    """A hash of everything the executions depend on in the repository (notebooks, lib, configuration)."""
    h = hashlib.sha256()
    files = sorted(list(CHAPTERS.glob("*.ipynb")) + list((ROOT / "lib").rglob("*.py")) + list((ROOT / "lib" / "data").rglob("*"))
                   + [SANITIZER, ROOT / "pyproject.toml", ROOT / "conftest.py", ROOT / "requirements.txt"])
    for f in files:
        if f.is_file() and "__pycache__" not in f.parts:
            h.update(str(f.relative_to(ROOT)).encode())
            h.update(f.read_bytes())
    return h.hexdigest()


def _run_one(path: CodePath, notebook: Path, out: Path) -> dict:
    folder = out / path.name
    folder.mkdir(parents=True, exist_ok=True)
    stem = notebook.stem
    for old in (folder / f"{stem}.json", folder / f"{stem}.numbers.jsonl", folder / f"{stem}.log"):
        old.unlink(missing_ok=True)
    env = dict(os.environ)  # the machine's own environment, with the code path's variables on top
    env.update(path.env)
    env.update({RECORD: str(folder), NUMBER_LOG: str(folder / f"{stem}.numbers.jsonl"), "EMBOOK_QUIET": "1"})
    env.pop("PYTEST_ADDOPTS", None)
    command = [sys.executable, "-m", "pytest", "--nbval", str(notebook.relative_to(ROOT)), "-q",
               "-p", "no:cacheprovider", "--color=no"]
    start = time.perf_counter()
    with open(folder / f"{stem}.log", "w") as log:
        rc = subprocess.run(command, cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT).returncode
    return {"path": path.name, "chapter": stem, "seconds": round(time.perf_counter() - start, 1), "rc": rc}


def run(paths=DEFAULT_PATHS, notebooks: Optional[List[Path]] = None, jobs: Optional[int] = None,
        out: Path = OUT) -> dict:
    """Execute every notebook under every code path (``jobs`` at a time, default: the CPU count) and record them.

    Longest notebooks first (by the durations of the previous run). Writes ``out/manifest.json``; returns it.
    """
    unknown = [p for p in paths if p not in CODE_PATHS]
    if unknown:
        raise SystemExit(f"unknown code paths {unknown}; known: {list(CODE_PATHS)}")
    notebooks = notebooks or chapters()
    out.mkdir(parents=True, exist_ok=True)
    manifest_file = out / "manifest.json"
    previous = json.loads(manifest_file.read_text()) if manifest_file.exists() else {}
    took = {(r["path"], r["chapter"]): r["seconds"] for r in previous.get("runs", [])}
    by_chapter = defaultdict(float)
    for (_, chapter), seconds in took.items():
        by_chapter[chapter] = max(by_chapter[chapter], seconds)
    todo = [(CODE_PATHS[p], nb) for p in paths for nb in notebooks]
    todo.sort(key=lambda t: -took.get((t[0].name, t[1].stem), by_chapter.get(t[1].stem, t[1].stat().st_size / 1e4)))
    jobs = jobs or os.cpu_count() or 1
    start = time.perf_counter()
    with ThreadPoolExecutor(max_workers=jobs) as pool:
        runs = list(pool.map(lambda t: _run_one(t[0], t[1], out), todo))
    manifest = {
        "fingerprint": fingerprint(),
        "paths": {p: CODE_PATHS[p].env for p in paths},
        "chapters": [nb.stem for nb in notebooks],
        "jobs": jobs,
        "seconds": round(time.perf_counter() - start, 1),
        "runs": sorted(runs, key=lambda r: (r["path"], r["chapter"])),
    }
    manifest_file.write_text(json.dumps(manifest, indent=1))
    return manifest


# --- reading a run ----------------------------------------------------------------------------------------


def record(path: str, chapter: str, out: Path = OUT) -> Optional[dict]:
    """The record of ``chapter`` under ``path`` (conftest.py), with its number log as ``numbers``; None if absent."""
    f = out / path / f"{chapter}.json"
    if not f.exists():
        return None
    rec = json.loads(f.read_text())
    log = out / path / f"{chapter}.numbers.jsonl"
    rec["numbers"] = [json.loads(line) for line in log.read_text().splitlines()] if log.exists() else []
    for cell in rec["cells"]:
        a, b = cell["numbers"]
        for entry in rec["numbers"][a:b]:
            entry["cell"] = cell["cell"]
    return rec


def log_tail(path: str, chapter: str, out: Path = OUT, chars: int = 3000) -> str:
    f = out / path / f"{chapter}.log"
    return f.read_text()[-chars:] if f.exists() else "(no log)"


def committed_cells(chapter: str) -> list:
    """The code cells of the committed ``chapters/<chapter>.ipynb``, in order (nbval's cell numbers)."""
    nb = json.loads((CHAPTERS / f"{chapter}.ipynb").read_text())
    return [c for c in nb["cells"] if c["cell_type"] == "code"]


def sanitize_patterns() -> list:
    from nbval.plugin import get_sanitize_patterns

    return get_sanitize_patterns(SANITIZER.read_text())


def sanitize(text, patterns) -> str:
    if not isinstance(text, str):
        text = "".join(text) if isinstance(text, list) else text
    if isinstance(text, str):
        for regex, replace in patterns:
            text = re.sub(regex, replace, text)
    return text


# nbval's IPyNbFile.skip_compare: what it never compares
NBVAL_SKIP = ("metadata", "traceback", "prompt_number", "output_type", "name", "execution_count",
              "application/vnd.jupyter.widget-view+json", "image/png", "image/jpeg")


def compared(outputs: list, patterns) -> Dict[str, list]:
    """What nbval compares of a cell's outputs: streams merged (nbval's ``coalesce_streams``), then every
    key and MIME type it does not skip, sanitized, in order (as ``IPyNbCell.compare_outputs``)."""
    import nbformat
    from nbval.plugin import coalesce_streams, transform_streams_for_comparison

    outs = transform_streams_for_comparison(coalesce_streams([nbformat.from_dict(json.loads(json.dumps(o)))
                                                             for o in outputs]))
    view: Dict[str, list] = defaultdict(list)
    for out in outs:
        for key, value in out.items():
            if key in NBVAL_SKIP:
                continue
            if key == "data":
                for mime, data in value.items():
                    if mime not in NBVAL_SKIP:
                        view[mime].append(sanitize(data, patterns))
            else:
                view[key].append(sanitize(value, patterns))
    return dict(view)


def images(outputs: list) -> List[bytes]:
    return [base64.b64decode("".join(o["data"]["image/png"]) if isinstance(o["data"]["image/png"], list)
                             else o["data"]["image/png"])
            for o in outputs if "image/png" in o.get("data", {})]


# --- the checks -------------------------------------------------------------------------------------------


def nbval_failures(rec: dict) -> List[str]:
    return [f"cell {c['cell']}:\n{c['report'][-2500:]}" for c in rec["cells"] if c["outcome"] != "passed"]


def figure_mismatches(path: str, chapter: str, rec: dict, out: Path = OUT) -> List[str]:
    """Images of the run against those of the committed notebook, cell by cell, with matplotlib's RMS test."""
    from matplotlib.testing.compare import compare_images

    reference = committed_cells(chapter)
    folder = out / path / "figures"
    folder.mkdir(parents=True, exist_ok=True)
    problems = []
    for cell in rec["cells"]:
        fresh = images(cell["outputs"])
        stored = images(reference[cell["cell"]].get("outputs", []))
        if len(fresh) != len(stored):
            problems.append(f"cell {cell['cell']}: {len(fresh)} images, the committed notebook has {len(stored)}")
            continue
        for j, (a, b) in enumerate(zip(fresh, stored)):
            if a == b:
                continue
            actual, expected = folder / f"{chapter}-{cell['cell']}-{j}.png", folder / f"{chapter}-{cell['cell']}-{j}-expected.png"
            actual.write_bytes(a)
            expected.write_bytes(b)
            result = compare_images(str(expected), str(actual), tol=FIGURE_TOLERANCE)
            if result is not None:
                problems.append(f"cell {cell['cell']} image {j}: {result}")
    return problems


def path_effect(path: str, rec: dict) -> List[str]:
    """Whether the run reports the PyTorch capability and OpenBLAS kernel its code path asks for."""
    expect = CODE_PATHS[path].expect
    machine = rec.get("machine") or {}
    problems = []
    if "torch" in expect and machine.get("torch_cpu_capability") != expect["torch"]:
        problems.append(f"PyTorch ran {machine.get('torch_cpu_capability')}, not {expect['torch']}")
    if "openblas" in expect:
        archs = [b.get("architecture") for b in machine.get("blas", []) if b.get("internal_api") == "openblas"]
        if expect["openblas"] not in archs:
            problems.append(f"OpenBLAS ran {archs}, not {expect['openblas']}")
    return problems


def determinism_differences(chapter: str, out: Path = OUT) -> List[str]:
    """Cells whose compared outputs (or images) differ between the two native executions."""
    a, b = (record(p, chapter, out) for p in DETERMINISM)
    if a is None or b is None:
        return [f"missing run: {[p for p, r in zip(DETERMINISM, (a, b)) if r is None]}"]
    patterns = sanitize_patterns()
    diffs = []
    for ca, cb in zip(a["cells"], b["cells"]):
        va, vb = (json.dumps(compared(c["outputs"], patterns), sort_keys=True) for c in (ca, cb))
        if va != vb:
            diffs.append(f"cell {ca['cell']}: compared outputs differ:\n  {va[:600]}\n  {vb[:600]}")
        elif images(ca["outputs"]) != images(cb["outputs"]):
            diffs.append(f"cell {ca['cell']}: images differ")
    if len(a["cells"]) != len(b["cells"]):
        diffs.append(f"{len(a['cells'])} and {len(b['cells'])} cells ran")
    return diffs


# A decimal number as it appears in text: 0.1234, -1,234.5, 12.5%, 1.20e-05 (not part of a version 1.2.3)
DECIMAL = re.compile(r"(?<![\w.])-?\d{1,3}(?:,\d{3})+\.\d+(?:[eE][-+]?\d+)?%?(?![\w.]*\d)"
                     r"|(?<![\w.])-?\d+\.\d+(?:[eE][-+]?\d+)?%?(?!\.?\d)")


def typed_decimals() -> set:
    """Decimals typed by a person in ``lib`` (its Python source and its data files): exact, not computed."""
    found = set()
    for f in (ROOT / "lib").rglob("*"):
        if f.is_file() and "__pycache__" not in f.parts and f.suffix in ("", ".py", ".txt", ".md", ".trace", ".csv", ".tsv"):
            found.update(DECIMAL.findall(f.read_text(errors="replace")))
    return found


def unaccounted_decimals(rec: dict) -> List[str]:
    """Decimals in a cell's compared text that no lib.notebook call of that cell logged as shown, that no
    ``exact()`` call so far showed, and that were not typed by a person (in the cell's source, or in
    ``lib``'s source and data: settings, examples)."""
    patterns = sanitize_patterns()
    typed = typed_decimals()
    sources = [c["source"] for c in committed_cells(rec["notebook"].removesuffix(".ipynb"))]
    shown = defaultdict(Counter)
    for entry in rec["numbers"]:
        if entry["kind"] in ("fmt", "glue", "exact") and "cell" in entry:
            shown[entry["cell"]][entry["shown"]] += 1
    exact_so_far = set()  # settings shown with exact() in this cell or an earlier one: exact wherever shown
    problems = []
    for cell in rec["cells"]:
        exact_so_far |= {e["shown"] for e in rec["numbers"] if e["kind"] == "exact" and e.get("cell") == cell["cell"]}
        left = Counter(shown[cell["cell"]])
        view = compared(cell["outputs"], patterns)
        text = "\n".join(v for values in view.values() for v in values if isinstance(v, str))
        in_source = set(DECIMAL.findall("".join(sources[cell["cell"]]) if cell["cell"] < len(sources) else ""))
        for token in DECIMAL.findall(text):
            if left[token] > 0:
                left[token] -= 1
            elif token not in typed and token not in in_source and token not in exact_so_far:
                problems.append(f"cell {cell['cell']}: {token!r} was not printed through lib.notebook.fmt / glue")
    return problems


@dataclass
class Margin:
    chapter: str
    cell: Optional[int]
    kind: str  # fmt, glue or gap
    name: str  # glue name, the choice recorded, or the spec
    shown: str  # the text shown (fmt, glue), or the smallest gap
    spread: float  # max - min of the unrounded values over the code paths, in units of the last digit (gap: absolute)
    margin: float  # distance to the nearest rounding boundary, in units of the last digit (gap: smallest |gap|)
    values: List[float]
    floor: float = 0.0  # the smallest spread assumed (NOISE_FLOOR of the value), in the same units

    @property
    def fragile(self) -> bool:
        if self.kind == "gap":
            signs = {math.copysign(1, v) if v else 0 for v in self.values}
            return len(signs) > 1 or (self.margin > 0 and self.margin <= max(self.spread, self.floor))
        return self.margin <= max(self.spread, self.floor)

    @property
    def ratio(self) -> float:
        """margin / spread (the spread at least the noise floor): how many spreads from a flip."""
        noise = max(self.spread, self.floor)
        return math.inf if noise == 0 else self.margin / noise


def _unit(spec: str, shown: str) -> Optional[Decimal]:
    """The value of one unit in the last digit shown, in the units of the (unscaled) number."""
    m = re.search(r"\.(\d+)([fFeE%])$", spec)
    if not m:
        return None
    precision, kind = int(m.group(1)), m.group(2)
    if kind in "fF":
        return Decimal(1).scaleb(-precision)
    if kind == "%":
        return Decimal(1).scaleb(-precision - 2)
    exponent = re.search(r"[eE]([-+]?\d+)", shown)
    return Decimal(1).scaleb(int(exponent.group(1)) - precision) if exponent else None


def _shown_value(shown: str, spec: str) -> Optional[Decimal]:
    text = shown.strip().replace(",", "").replace("_", "")
    try:
        if text.endswith("%"):
            return Decimal(text[:-1]).scaleb(-2)
        return Decimal(text)
    except ArithmeticError:
        return None


def margins(chapter: str, paths, out: Path = OUT) -> tuple:
    """``(margins, problems)`` of one chapter over ``paths``: a :class:`Margin` per logged number, and the
    reasons the logs cannot be compared (a missing run, a different sequence of numbers)."""
    logs = {}
    for p in paths:
        rec = record(p, chapter, out)
        if rec is None:
            return [], [f"no run under {p}"]
        logs[p] = rec["numbers"]
    problems = []
    lengths = {p: len(v) for p, v in logs.items()}
    if len(set(lengths.values())) > 1:
        problems.append(f"the code paths logged different numbers of values: {lengths}")
    result = []
    reference = logs[paths[0]]
    for i, entry in enumerate(reference):
        row = [logs[p][i] if i < len(logs[p]) else None for p in paths]
        if any(r is None or (r["kind"], r.get("name"), r.get("spec")) != (entry["kind"], entry.get("name"), entry.get("spec"))
               for r in row):
            problems.append(f"number {i} (cell {entry.get('cell')}, {entry['kind']} {entry.get('name') or entry.get('spec')}) "
                            "is not the same number under every code path: the chapter took another branch")
            break
        values = [r["raw"] for r in row]
        if not all(isinstance(v, (int, float)) and math.isfinite(v) for v in values):
            continue
        if entry["kind"] == "gap":
            gaps = [abs(v) for v in values]
            floor = NOISE_FLOOR * max(r.get("scale", abs(r["raw"])) for r in row)
            result.append(Margin(chapter, entry.get("cell"), "gap", entry["name"], f"{min(gaps):.3g}",
                                 max(values) - min(values), min(gaps), values, floor))
            continue
        shown = {r["shown"] for r in row}
        if entry["kind"] == "exact":  # a setting typed in the source: the same bits everywhere, or it is not exact
            spread = max(values) - min(values)
            result.append(Margin(chapter, entry.get("cell"), "exact", entry["shown"], " / ".join(sorted(shown)),
                                 spread, 0.5 if spread == 0 else 0.0, values))
            continue
        unit = _unit(entry["spec"], entry["shown"])
        centre = _shown_value(entry["shown"], entry["spec"])
        if unit is None or centre is None:
            continue
        exact = [Decimal(v) for v in values]
        spread = float((max(exact) - min(exact)) / unit)
        if len(shown) > 1:
            margin = 0.0
        else:
            low, high = centre - unit / 2, centre + unit / 2
            margin = float(min(min(x - low, high - x) for x in exact) / unit)
        floor = NOISE_FLOOR * max(abs(v) for v in values) / float(unit)
        result.append(Margin(chapter, entry.get("cell"), entry["kind"], entry.get("name") or entry["spec"],
                             " / ".join(sorted(shown)), spread, max(margin, 0.0), values, floor))
    return result, problems


def margin_report(paths=DEFAULT_PATHS, notebooks=None, out: Path = OUT, rows: int = REPORT_ROWS) -> tuple:
    """``(text, fragile, problems)``: the report of the smallest margins over every chapter, the fragile
    numbers, and the reasons some logs could not be compared. Writes the text to ``out/margins.txt`` and
    every margin to ``out/margins.json``."""
    paths = [p for p in dict.fromkeys(paths)]
    all_margins, problems = [], []
    for nb in notebooks or chapters():
        m, p = margins(nb.stem, paths, out)
        all_margins += m
        problems += [f"{nb.stem}: {x}" for x in p]
    numbers = sorted((m for m in all_margins if m.kind in ("fmt", "glue")), key=lambda m: (m.ratio, m.margin))
    gaps = sorted((m for m in all_margins if m.kind == "gap"), key=lambda m: (m.ratio, m.margin))
    fragile = [m for m in all_margins if m.fragile]
    n_exact = sum(m.kind == "exact" for m in all_margins)
    lines = [
        f"Rounding margins over the code paths {', '.join(paths)}",
        f"{len(numbers)} printed or glued numbers, {n_exact} exact settings, {len(gaps)} recorded choices; "
        f"{len(fragile)} fragile.",
        "margin: distance of the unrounded values to the nearest rounding boundary of the digits shown, in units",
        "of the last digit shown (at most 0.5); spread: max - min of the unrounded values over the code paths,",
        f"in the same units, taken to be at least {NOISE_FLOOR:g} of the value; ratio: margin / spread. A number is",
        "fragile when its margin is not larger than its spread (ratio <= 1). Smallest ratios first:",
        "",
        f"{'chapter':<15} {'cell':>4}  {'shown':<14} {'margin':>9} {'spread':>9} {'ratio':>9}  what",
    ]
    for m in numbers[:rows]:
        lines.append(f"{m.chapter:<15} {m.cell if m.cell is not None else '':>4}  {m.shown:<14} {m.margin:>9.3g} "
                     f"{m.spread:>9.2g} {m.ratio:>9.3g}  {m.kind} {m.name}")
    lines += ["", "Choices (rankings, argmax): the smallest gap between winner and runner-up, and its spread "
              "over the code paths (absolute, in the units of the scores)", "",
              f"{'chapter':<15} {'cell':>4}  {'gap':>10} {'spread':>9} {'ratio':>9}  what"]
    for m in gaps[:rows]:
        lines.append(f"{m.chapter:<15} {m.cell if m.cell is not None else '':>4}  {m.margin:>10.3g} {m.spread:>9.2g} "
                     f"{m.ratio:>9.3g}  {m.name}")
    if fragile:
        lines += ["", "FRAGILE (the spread reaches the boundary, or a choice flips):"]
        lines += [f"  {m.chapter} cell {m.cell}: {m.kind} {m.name} shown {m.shown}, margin {m.margin:.4g}, "
                  f"spread {m.spread:.3g}, values {m.values}" for m in fragile]
    if problems:
        lines += ["", "Not comparable:"] + [f"  {p}" for p in problems]
    text = "\n".join(lines) + "\n"
    out.mkdir(parents=True, exist_ok=True)
    (out / "margins.txt").write_text(text)
    (out / "margins.json").write_text(json.dumps([m.__dict__ for m in sorted(all_margins, key=lambda m: m.margin)],
                                                 indent=0))
    return text, fragile, problems


def summary(paths=DEFAULT_PATHS, notebooks=None, out: Path = OUT) -> List[str]:
    """Every failed check of a recorded run, one line each (empty when all pass)."""
    problems = []
    notebooks = notebooks or chapters()
    for p in paths:
        for nb in notebooks:
            rec = record(p, nb.stem, out)
            if rec is None:
                problems.append(f"{p} {nb.stem}: no record (see {out / p / (nb.stem + '.log')})")
                continue
            problems += [f"{p} {nb.stem}: nbval {x.splitlines()[0]}" for x in nbval_failures(rec)]
            problems += [f"{p} {nb.stem}: figure {x}" for x in figure_mismatches(p, nb.stem, rec, out)]
            problems += [f"{p} {nb.stem}: {x}" for x in path_effect(p, rec)]
            if p == paths[0]:
                problems += [f"{nb.stem}: {x}" for x in unaccounted_decimals(rec)]
    if all(d in paths for d in DETERMINISM):
        for nb in notebooks:
            problems += [f"determinism {nb.stem}: {x.splitlines()[0]}" for x in determinism_differences(nb.stem, out)]
    _, fragile, not_comparable = margin_report(paths, notebooks, out)
    problems += [f"fragile: {m.chapter} cell {m.cell} {m.kind} {m.name} {m.shown}" for m in fragile]
    problems += not_comparable
    return problems


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)
    for name in ("run", "report"):
        p = sub.add_parser(name)
        p.add_argument("--paths", default=",".join(DEFAULT_PATHS), help="comma-separated code paths (see `list`)")
        p.add_argument("notebooks", nargs="*", help="chapters/x.ipynb (default: every chapter)")
        if name == "run":
            p.add_argument("--jobs", type=int, default=None, help="executions at a time (default: the CPU count)")
            p.add_argument("--check", action="store_true", help="exit 1 when a check fails (make test leaves the "
                           "verdict to tests/test_codepaths.py)")
    sub.add_parser("list")
    args = parser.parse_args(argv)
    if args.command == "list":
        for p in CODE_PATHS.values():
            default = " (default)" if p.name in DEFAULT_PATHS else ""
            print(f"{p.name:15s}{default:10s} {' '.join(f'{k}={v}' for k, v in p.env.items()) or '(inherited)'}\n"
                  f"{'':25s} {p.about}")
        return 0
    paths = [p.strip() for p in args.paths.split(",") if p.strip()]
    notebooks = chapters(args.notebooks)
    if args.command == "run":
        manifest = run(paths, notebooks, args.jobs)
        for r in manifest["runs"]:
            print(f"{r['path']:15s} {r['chapter']:15s} {r['seconds']:7.1f} s  {'ok' if r['rc'] == 0 else 'FAILED'}")
        print(f"{len(manifest['runs'])} executions, {manifest['jobs']} at a time: {manifest['seconds']:.0f} s")
    problems = summary(paths, notebooks)
    print((OUT / "margins.txt").read_text())
    if problems:
        print("Problems:\n" + "\n".join(f"  {p}" for p in problems))
        return 1 if args.command == "report" or args.check else 0
    print("Every code path gives the same book.")
    return 0


if __name__ == "__main__":
    sys.exit(main())
