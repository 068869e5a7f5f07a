"""Write the Colab setup cell at the top of every chapter from the repository URL in _config.yml.

The repository URL is set in one place, ``_config.yml`` (``repository.url``). Every chapter's first code
cell installs the project from there when ``lib`` cannot be imported (Colab opens a lone .ipynb with no
repository beside it); where ``lib`` is importable (a clone, Binder, the book build) it does nothing.
``EMBOOK_INSTALL_SOURCE`` overrides the source (a wheel or a local path), which the tests use.

Usage: ``python tools/setup_cell.py`` rewrites the cell in every ``chapters/*.md``; ``--check`` only
reports chapters whose cell differs (exit 1). Then run ``make notebooks`` to refresh the .ipynb files.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[1]
MARKER = "# Colab setup"


def repository_url() -> str:
    config = yaml.safe_load((ROOT / "_config.yml").read_text())
    return config["repository"]["url"].rstrip("/")


def cell_source(url: str | None = None) -> str:
    url = url or repository_url()
    return f"""{MARKER}: install the book's library where it is missing (Colab). Does nothing elsewhere.
try:
    import lib.embedding  # noqa: F401  (a clone, Binder, or the book build: nothing to do)
except ImportError:
    import importlib
    import os
    import subprocess
    import sys

    source = os.environ.get("EMBOOK_INSTALL_SOURCE", "embeddings-book[torch,realtext] @ git+{url}.git")
    subprocess.run([sys.executable, "-m", "pip", "install", "--quiet", source], check=True)
    importlib.invalidate_caches()"""


def cell_block(url: str | None = None) -> str:
    return "```{code-cell} ipython3\n:tags: [remove-cell]\n\n" + cell_source(url) + "\n```"


CELL_RE = re.compile(r"```\{code-cell\} ipython3\n:tags: \[remove-cell\]\n\n" + re.escape(MARKER) + r".*?\n```", re.S)


def main(argv):
    check = "--check" in argv
    block, stale = cell_block(), []
    for md in sorted((ROOT / "chapters").glob("*.md")):
        text = md.read_text()
        if not CELL_RE.search(text):
            stale.append(f"{md.name}: no setup cell")
            continue
        new = CELL_RE.sub(lambda _: block, text, count=1)
        if new != text:
            stale.append(md.name)
            if not check:
                md.write_text(new)
    for name in stale:
        print(("differs: " if check else "rewrote: ") + name)
    return 1 if (check and stale) else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
