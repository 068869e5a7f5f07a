"""The Colab path: a chapter's .ipynb opened alone, with no repository beside it, runs to the end.

A reader who presses a chapter's Colab button gets the notebook file and nothing else: no ``lib/``, no
requirements. The notebook's first cell (written by tools/setup_cell.py, hidden in the book) then
installs the project with pip, by default from the repository on GitHub. Here that is done for real,
offline: a wheel of the project, built from this working tree (``pip wheel --no-deps``), stands in for
the repository through ``EMBOOK_INSTALL_SOURCE``; a fresh virtual environment with what a Colab runtime
already has (Jupyter's kernel and widgets, NumPy, SciPy, Matplotlib, scikit-learn, PyTorch, tqdm, at
the versions requirements.txt pins) runs the kernel; the notebook is copied alone into an empty folder
and executed there with nbclient, cell by cell, as Colab would.

The test then checks that ``lib`` came from the installed wheel (not from a checkout), and that
``lib.progress`` shows tqdm's notebook bar (a widget) in a Jupyter kernel, with nothing on stderr. The
executed notebook is left in ``test-artifacts/colab-path/``.

Slow (a virtual environment and a chapter's execution, about two minutes; see the report in the pull
request) but part of ``make test``. ``EMBOOK_COLAB_CHAPTER=chapters/x`` picks the chapter; the default is
the first chapter of the table of contents.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

import nbformat
import pytest
from jupyter_client.kernelspec import KernelSpecManager
from jupyter_client.manager import KernelManager
from nbclient import NotebookClient
from nbclient.exceptions import CellExecutionError

import booksite

pytestmark = pytest.mark.slow

ROOT = booksite.ROOT
# What a Colab runtime has installed before the first cell runs, among the book's dependencies (gensim is
# not there, so the setup cell has to bring a dependency too).
COLAB_PREINSTALLED = ["ipykernel", "ipywidgets", "numpy", "scipy", "matplotlib", "scikit-learn", "torch", "tqdm"]
# The setup cell's default source, with the wheel in place of the repository (same extras).
SOURCE_FORMAT = "embeddings-book[torch,realtext] @ {uri}"
ARTIFACTS = booksite.ARTIFACTS / "colab-path"
WIDGET_MIME = "application/vnd.jupyter.widget-view+json"
# Copying the working tree to build the wheel from: skip what is not the project.
NOT_THE_PROJECT = shutil.ignore_patterns(
    ".git",
    ".venv",
    "_build",
    "test-artifacts",
    ".pytest_cache",
    ".hypothesis",
    "__pycache__",
    "*.egg-info",
    "build",
    "dist",
)


def _chapter() -> str:
    chapter = os.environ.get("EMBOOK_COLAB_CHAPTER") or booksite.chapter_docnames()[0]
    assert (ROOT / f"{chapter}.ipynb").exists(), f"{chapter}.ipynb does not exist"
    return chapter


def _build_wheel(tmp: Path) -> Path:
    """A wheel of the project built from a copy of the working tree (the repository stays untouched)."""
    source = tmp / "source"
    shutil.copytree(ROOT, source, ignore=NOT_THE_PROJECT)
    out = tmp / "wheel"
    booksite.run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "--quiet", "--wheel-dir", str(out), str(source)],
        cwd=tmp,
        env=booksite.clean_env(),
        what="building the project's wheel",
    )
    wheels = list(out.glob("embeddings_book-*.whl"))
    assert len(wheels) == 1, f"expected one wheel, got {wheels}"
    return wheels[0]


def _colab_like_venv(tmp: Path) -> Path:
    python = booksite.fresh_venv(tmp / "venv")
    pins = booksite.requirement_pins()
    missing = [name for name in COLAB_PREINSTALLED if name not in pins]
    assert missing == [], f"requirements.txt does not pin {missing}"
    booksite.run(
        [str(python), "-m", "pip", "install", "--quiet"] + [f"{n}=={pins[n]}" for n in COLAB_PREINSTALLED],
        cwd=tmp,
        env=booksite.clean_env(),
        what="installing what Colab has",
    )
    return python


def _kernel_manager(tmp: Path, python: Path) -> KernelManager:
    kernels = tmp / "kernels"
    (kernels / "colab").mkdir(parents=True)
    spec = {
        "argv": [str(python), "-m", "ipykernel_launcher", "-f", "{connection_file}"],
        "display_name": "Python 3 (a fresh, Colab-like environment)",
        "language": "python",
    }
    (kernels / "colab" / "kernel.json").write_text(json.dumps(spec))
    return KernelManager(kernel_name="colab", kernel_spec_manager=KernelSpecManager(kernel_dirs=[str(kernels)]))


def _outputs(cell, mime=None):
    return [o for o in cell.get("outputs", []) if mime is None or mime in o.get("data", {})]


def test_a_chapter_notebook_alone_installs_the_project_and_runs_to_the_end(tmp_path):
    chapter = _chapter()
    wheel = _build_wheel(tmp_path)
    python = _colab_like_venv(tmp_path)

    # the reader's folder: the notebook and nothing else
    folder = tmp_path / "content"
    folder.mkdir()
    notebook = folder / Path(chapter).with_suffix(".ipynb").name
    shutil.copy(ROOT / f"{chapter}.ipynb", notebook)
    env = booksite.clean_env(EMBOOK_INSTALL_SOURCE=SOURCE_FORMAT.format(uri=wheel.as_uri()))
    before = subprocess.run([str(python), "-c", "import lib"], cwd=folder, env=env, capture_output=True, text=True)
    assert (
        before.returncode != 0 and "No module named 'lib'" in before.stderr
    ), "lib is importable before the setup cell ran: the test would not show that the notebook installs it"

    nb = nbformat.read(notebook, as_version=4)
    n_chapter_cells = len(nb.cells)
    nb.cells.append(
        nbformat.v4.new_code_cell(
            "import importlib.metadata, json, sys\nimport lib\n"
            "dist = importlib.metadata.distribution('embeddings-book')\n"
            "print(json.dumps({'lib': lib.__file__, 'prefix': sys.prefix, 'version': dist.version,\n"
            "                  'direct_url': json.loads(dist.read_text('direct_url.json') or 'null')}))"
        )
    )
    nb.cells.append(
        nbformat.v4.new_code_cell(
            "from lib.progress import progress\nfor _ in progress(range(3), desc='probe'):\n    pass"
        )
    )
    client = NotebookClient(
        nb, km=_kernel_manager(tmp_path, python), timeout=900, resources={"metadata": {"path": str(folder)}}
    )
    try:
        client.execute(env=env)
    except CellExecutionError as error:
        pytest.fail(f"{chapter}.ipynb stopped on Colab's path:\n{str(error)[-4000:]}", pytrace=False)
    finally:  # the executed notebook, for a person to look at
        ARTIFACTS.mkdir(parents=True, exist_ok=True)
        nbformat.write(nb, ARTIFACTS / notebook.name)

    errors = [
        i
        for i, c in enumerate(nb.cells)
        if c.cell_type == "code" and _outputs(c) and any(o["output_type"] == "error" for o in c["outputs"])
    ]
    assert errors == [], f"cells {errors} stored errors"
    executed = [c for c in nb.cells[:n_chapter_cells] if c.cell_type == "code"]
    assert all(c.get("execution_count") for c in executed), "not every cell of the chapter ran"

    # lib came from the wheel, installed into the fresh environment by the notebook's first cell
    probe = json.loads("".join(o["text"] for o in nb.cells[-2]["outputs"] if o.get("name") == "stdout"))
    version = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["version"]
    assert Path(probe["prefix"]) == python.parent.parent
    assert Path(probe["lib"]).is_relative_to(python.parent.parent), f"lib was imported from {probe['lib']}"
    assert probe["version"] == version and probe["direct_url"]["url"] == wheel.as_uri(), probe
    assert not (folder / "lib").exists(), "the notebook left a copy of lib/ in the reader's folder"

    # a long loop shows tqdm's notebook bar in Jupyter (EMBOOK_QUIET is not set here), and nothing on stderr
    bar = nb.cells[-1]
    assert _outputs(bar, WIDGET_MIME), f"lib.progress showed no notebook bar: {bar.get('outputs')}"
    stderr = [o for o in bar.get("outputs", []) if o.get("name") == "stderr"]
    assert stderr == [], f"lib.progress wrote to stderr: {stderr}"
