"""Helpers for the reader-facing tests (test_browser, test_colab_path, test_binder).

What a reader meets is the built HTML book and the notebooks on Binder or Colab; these helpers give the
tests the book's table of contents, a freshly built copy of the book, a local web server for it, the
Chromium executable, and fresh virtual environments. Nothing here is a test.
"""

from __future__ import annotations

import contextlib
import fcntl
import functools
import http.server
import os
import re
import shutil
import subprocess
import sys
import tempfile
import threading
from pathlib import Path
from typing import Dict, Iterator, List, Optional

import pytest
import yaml
from jupyter_cache import get_cache

ROOT = Path(__file__).resolve().parents[1]
ARTIFACTS = ROOT / "test-artifacts"

# Debian's packages; Playwright drives this browser and never downloads one of its own.
CHROMIUM_CANDIDATES = ("chromium", "chromium-browser")
CHROMIUM_FLAGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    # there is no network where the tests run, and the book must not need one
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]
INSTALL_HINT = (
    "install Debian's Chromium: `sudo apt-get update && sudo apt-get install chromium chromium-driver` "
    "(or set EMBOOK_CHROMIUM to a Chromium executable), and `pip install -r requirements.txt` for "
    "Playwright; the test never downloads a browser"
)


# ----------------------------------------------------------------------------------------------------
# the book's own configuration


def config() -> dict:
    """``_config.yml`` as a dict."""
    return yaml.safe_load((ROOT / "_config.yml").read_text())


def toc_docnames() -> List[str]:
    """Every document the table of contents lists, in reading order (root first), e.g. ``chapters/x``."""
    toc = yaml.safe_load((ROOT / "_toc.yml").read_text())
    names = [toc["root"]]

    def walk(entries):
        for entry in entries or []:
            if "file" in entry:
                names.append(entry["file"])
            walk(entry.get("sections"))
            walk(entry.get("chapters"))

    for part in toc.get("parts", []):
        walk(part.get("chapters"))
    walk(toc.get("chapters"))
    return [re.sub(r"\.(md|ipynb)$", "", n) for n in names]


def chapter_docnames() -> List[str]:
    """The notebook chapters the table of contents lists (``chapters/<name>``)."""
    return [n for n in toc_docnames() if n.startswith("chapters/")]


def requirement_pins() -> Dict[str, str]:
    """``{distribution name (lower case): version}`` for every ``name==version`` line of requirements.txt."""
    pins = {}
    for line in (ROOT / "requirements.txt").read_text().splitlines():
        line = line.split("#", 1)[0].strip()
        match = re.fullmatch(r"([A-Za-z0-9_.\-]+)==([^\s;]+)", line)
        if match:
            pins[match.group(1).lower()] = match.group(2)
    return pins


def git_tracked(path: str) -> bool:
    """Whether ``path`` (relative to the repository root) is committed or staged in git."""
    result = subprocess.run(["git", "ls-files", "--error-unmatch", path], cwd=ROOT,
                            capture_output=True, text=True)
    return result.returncode == 0


# ----------------------------------------------------------------------------------------------------
# words a reader must not meet (the pages in tests/test_reader_page.py, the docstrings of lib in
# tests/test_reader_notebooks.py)

# Phrases that name another chapter by its kind instead of its title. Each must be (or be followed by) a
# link to the page it means; "the source" (the material a chapter follows) is never a name a reader knows.
CHAPTER_PHRASES = (
    r"\bthe (?:source )?lesson\b(?!s)|\bthe four-level chapter\b|\bthe trace exercise\b|\bthe exercise chapter\b"
    r"|\bthe (?:real[- ]text|scale|systems|embeddings) chapter\b|\bthe appendix\b|\bthe previous chapter\b"
    r"|\bthe next chapter\b|\bthe earlier chapter\b|\bthe chapter in four levels\b"
    r"|\bthe chapter's source\b|\bthe source chapter's\b"
)
SOURCE_PHRASE = r"\bthe source(?:'s\b|\s+(?:lesson|exercise|chapter|text|notebook)s?\b|\s+of\s+this\b|(?=\s*[,.;:)]))"

# A source text named ("Lesson 2.3", "the chapter this one is adapted from"; in a docstring "the textbook chapter
# *Embeddings*"): where a page (or an API module) first names one, it links to the introduction's account of them
SOURCE_MENTION = r"\bLesson \d+(?:\.\d+)+\b|\b(?:adapted|written) from\b"
DOCSTRING_SOURCE_MENTION = r"\bLesson \d+(?:\.\d+)+|\btextbook chapter\b"
SOURCES_ANCHOR = "sources"  # that account: the section (sources)= of intro.md

# A chapter named by a title typed in quotes ('The chapter "Embeddings" (chapters/embeddings.md)', 'the four-level
# "Embeddings" chapter'): its file alone is named, which the page shows as its title, linked; typed in as well,
# the title reads twice ("The chapter “Embeddings” (Embeddings)").
QUOTED_CHAPTER = r"[\"“][^\"“”\n]{2,80}[\"”]\s*(?:chapter\b|\(\s*chapters/\w+\.md)|\bchapter\s+[\"“]"

# ----------------------------------------------------------------------------------------------------
# citations (tests/test_reader_notebooks.py on the sources, tests/test_reader_page.py on the built pages)

# "Mikolov et al. 2013b", "Press and Wolf (2017)", "Levy, Goldberg & Dagan 2015", "Okabe & Ito's (2008)",
# "Rabiner 1989", "Firth (1957)": a citation typed as text instead of {cite} (a page) or :cite: (a docstring)
PLAIN_CITATION = (r"\b[A-Z][\w'’-]+(?:(?:,? [A-Z][\w'’-]+)*,? (?:&|and) [A-Z][\w'’-]+| et al\.?)?(?:['’]s)?,?"
                  r" \(?(?:1[5-9]|20)\d\d[a-z]?\b")
# A textual citation (:cite:t:, {cite:t}: "Radford et al. [2019]") standing in parentheses as a parenthetical one:
# "(:cite:t:`k`)", "(:cite:t:`k`, §3)", "(...; :cite:t:`k`)", "(WordSim-353, :cite:t:`k`)". There the
# parenthetical role is meant (:cite:p:, {cite}: "[Radford et al., 2019]", "[Vaswani et al., 2017, §3.5]" with
# :cite:p:`vaswani2017attention{§3.5}`). A textual citation that is the subject of a remark in parentheses
# ("(:cite:t:`k` measured ...)") is not one.
_TEXTUAL_ROLE = r"(?::cite:t:|\{cite:t\})`[^`]+`"
TEXTUAL_CITATION_IN_PARENTHESES = rf"(?:\(|;)\s*{_TEXTUAL_ROLE}\s*[,;)]|,\s*{_TEXTUAL_ROLE}\s*\)"
# The other way round: a parenthetical citation as the subject of a sentence or of a list item ("- {cite}`k`
# introduces RoPE" reads "[Su et al., 2021] introduces RoPE"), where the textual one is meant ("Su et al. [2021]
# introduces RoPE"). Searched in text whose blanks are squashed and whose list items start with "- ".
PARENTHETICAL_CITATION_AS_SUBJECT = r"(?:(?:^|\s)-\s+|^|(?<=[.!?;])\s)\s*(?:\{cite(?::p)?\}|:cite:p:)`[^`]+`\s+[a-z]\w*"
# Works named by their name rather than by their authors, and their keys in references.bib: where a page (or an
# API module) first names one, a citation of it follows ("nanoGPT {cite}`karpathy2022nanogpt`").
NAMED_WORKS = {"nanoGPT": "karpathy2022nanogpt", "GPT-2": "radford2019language", "ELMo": "peters2018deep",
               "BERT": "devlin2019bert", "fastText": "bojanowski2017enriching"}
# The software the pages name, cited as its authors ask (PyTorch, NumPy, SciPy, matplotlib and scikit-learn by
# their papers, gensim by its workshop paper): where a page first names one, a citation of it follows. The API
# page names NumPy or PyTorch in most of its modules, and is read as one page: its first mention is cited.
NAMED_SOFTWARE = {"PyTorch": "paszke2019pytorch", "NumPy": "harris2020array", "SciPy": "virtanen2020scipy",
                  "gensim": "rehurek2010software", "matplotlib": "hunter2007matplotlib",
                  "scikit-learn": "pedregosa2011scikit", "Hugging Face": "huggingface2019tokenizers"}

# ----------------------------------------------------------------------------------------------------
# missing tools: a skip with a hint on a reader's machine, a failure in CI


def missing(what: str) -> None:
    """Skip the calling test because ``what`` is missing, or fail it when ``CI=true``."""
    message = f"{what}: {INSTALL_HINT}"
    if os.environ.get("CI", "").lower() == "true":
        pytest.fail(f"CI=true and {message}", pytrace=False)
    pytest.skip(message)


def find_chromium() -> Optional[str]:
    """Path of the Chromium executable (``EMBOOK_CHROMIUM``, else Debian's ``chromium`` on PATH), or None."""
    override = os.environ.get("EMBOOK_CHROMIUM")
    if override:
        return override if os.access(override, os.X_OK) else None
    for name in CHROMIUM_CANDIDATES:
        found = shutil.which(name)
        if found:
            return found
    return None



def require_chromium() -> str:
    """The Chromium executable and Playwright, or skip the calling test (fail it under ``CI=true``)
    naming what is missing."""
    path = find_chromium()
    if path is None:
        missing("no Chromium executable (`chromium`) found")
    try:
        import playwright.sync_api  # noqa: F401
    except ImportError:
        missing("the Python package `playwright` is not installed")
    return path


def load(page, url: str, docname: str) -> None:
    """Open ``url`` in the Playwright ``page`` and wait until its maths is typeset and its fonts are
    loaded; assert that the server answered 200."""
    response = page.goto(url, wait_until="load")
    assert response is not None and response.status == 200, f"{docname}: HTTP {response and response.status}"
    if page.evaluate("() => document.querySelector('.math') !== null"):
        page.wait_for_function("() => window.MathJax && MathJax.startup && MathJax.startup.promise")
        page.evaluate("() => MathJax.startup.promise.then(() => true)")
    page.evaluate("() => document.fonts.ready.then(() => true)")

# ----------------------------------------------------------------------------------------------------
# building and serving the book


# What a copy of the repository for building the book leaves out.
NOT_THE_BOOK = shutil.ignore_patterns(".git", ".venv", "_build", "test-artifacts", ".pytest_cache", ".hypothesis",
                                      "__pycache__", "*.egg-info", ".jupyter_cache")


def build_book(dest: Path, *, execute: bool = True) -> Path:
    """Build the whole book into ``dest``, ``-n -W`` as ``make book``; return the HTML folder.

    With ``execute=True`` this is ``make book``: every chapter is executed fresh. With ``execute=False`` the
    pages take their outputs from the executed notebooks of the repository (``chapters/*.ipynb``, which nbval
    holds equal to a fresh execution), so no chapter runs again: the book is built from a copy of the
    repository in ``dest/source`` whose ``_config.yml`` says ``execute_notebooks: cache``, with the notebooks
    put into that cache first; a chapter whose ``.md`` no longer matches its ``.ipynb`` fails the build
    instead of being executed. Runs with ``EMBOOK_QUIET=1`` (as the Makefile). Raises ``AssertionError``
    with the end of the build log when the build fails.
    """
    exe = Path(sys.executable).with_name("jupyter-book")
    source = ROOT
    if not execute:
        source = dest / "source"
        shutil.copytree(ROOT, source, ignore=NOT_THE_BOOK)
        cache_dir = dest / "jupyter_cache"
        cache = get_cache(str(cache_dir))
        for docname in chapter_docnames():
            cache.cache_notebook_file(str(ROOT / f"{docname}.ipynb"), check_validity=False, overwrite=True)
        cfg = config()
        cfg.setdefault("execute", {}).update(execute_notebooks="cache", cache=str(cache_dir))
        # the downloadable .ipynb with its outputs, as make book writes it (see tests/cached_notebook_outputs.py)
        cfg.setdefault("sphinx", {}).setdefault("local_extensions", {})["cached_notebook_outputs"] = "tests/"
        (source / "_config.yml").write_text(yaml.safe_dump(cfg, sort_keys=False, allow_unicode=True))
    command = [str(exe) if exe.exists() else "jupyter-book", "build", str(source), "--builder", "html",
               "-n", "-W", "--keep-going", "--path-output", str(dest)]
    env = dict(os.environ, EMBOOK_QUIET="1")
    result = subprocess.run(command, cwd=source, env=env, capture_output=True, text=True)
    log = result.stdout + result.stderr
    (dest / "build.log").write_text(log)
    assert result.returncode == 0, f"the book does not build (exit {result.returncode}):\n{log[-6000:]}"
    if not execute:
        executed = re.findall(r"^.*Executing notebook.*$", log, re.M)
        assert executed == [], (
            "the book was to be built from the executed notebooks, but Sphinx executed some (is a .ipynb out of "
            f"date? run `make notebooks`):\n" + "\n".join(executed)
        )
    html = dest / "_build" / "html"
    assert (html / "index.html").exists(), f"no index.html in {html}"
    return html


def book_for_this_run() -> Path:
    """The HTML folder of the book, built once per test run and shared by every module that reads it.

    ``EMBOOK_BOOK_HTML`` names an already built book (relative to the repository root) to use instead.
    Otherwise the first caller builds the book with :func:`build_book` (from the executed notebooks: ``make
    test`` has already executed every chapter, under several code paths) into a folder of the system's temp
    directory named after the run (pytest-xdist's ``PYTEST_XDIST_TESTRUNUID``, the same in every worker,
    else this process), while a lock makes every other caller, in this process or another worker, wait for
    it and reuse it. A failed build is raised again to every caller, without building twice.
    """
    given = os.environ.get("EMBOOK_BOOK_HTML")
    if given:
        html_dir = (ROOT / given).resolve()
        assert (html_dir / "index.html").exists(), f"EMBOOK_BOOK_HTML={given} holds no built book"
        return html_dir
    run = os.environ.get("PYTEST_XDIST_TESTRUNUID") or f"pid{os.getpid()}"
    dest = Path(tempfile.gettempdir()) / f"embook-book-{run}"
    dest.mkdir(exist_ok=True)
    with open(dest / "lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        failed = dest / "failed.txt"
        if failed.exists():
            raise AssertionError(failed.read_text())
        html = dest / "_build" / "html"
        if (dest / "built").exists():
            return html
        try:
            html = build_book(dest, execute=False)
        except AssertionError as error:
            failed.write_text(str(error))
            raise
        (dest / "built").touch()
        return html


class _QuietHandler(http.server.SimpleHTTPRequestHandler):
    extensions_map = {**http.server.SimpleHTTPRequestHandler.extensions_map,
                      ".js": "text/javascript", ".woff": "font/woff", ".ipynb": "application/json",
                      ".md": "text/markdown; charset=utf-8"}

    def log_message(self, format, *args):  # noqa: A002 - the base class's signature
        pass


@contextlib.contextmanager
def serve(directory: Path) -> Iterator[str]:
    """Serve ``directory`` over HTTP on 127.0.0.1 (a free port) for the ``with`` block; yield its base URL."""
    handler = functools.partial(_QuietHandler, directory=str(directory))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/"
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=10)


# ----------------------------------------------------------------------------------------------------
# fresh virtual environments (Binder, Colab)


def python_for_runtime() -> str:
    """A Python executable of the version ``runtime.txt`` names (``python-3.11``): this one, or ``python3.11``.

    Raises ``AssertionError`` when runtime.txt is malformed or no such Python is installed.
    """
    text = (ROOT / "runtime.txt").read_text().strip()
    match = re.fullmatch(r"python-(\d+)\.(\d+)", text)
    assert match, f"runtime.txt must read python-X.Y (repo2docker's format), not {text!r}"
    wanted = (int(match.group(1)), int(match.group(2)))
    if sys.version_info[:2] == wanted:
        return sys.executable
    found = shutil.which(f"python{wanted[0]}.{wanted[1]}")
    assert found, f"runtime.txt asks for Python {wanted[0]}.{wanted[1]}, which is not installed here"
    return found


def fresh_venv(where: Path) -> Path:
    """Create an empty virtual environment (no system site-packages) at ``where``; return its python.

    Uses the Python that ``runtime.txt`` names. pip uses its usual cache and configuration.
    """
    python = python_for_runtime()
    # `python -m venv` run from inside a venv builds on the base interpreter: the new venv sees nothing
    # that was installed into .venv.
    subprocess.run([python, "-m", "venv", str(where)], check=True)
    return where / "bin" / "python"


def clean_env(**extra: str) -> Dict[str, str]:
    """An environment for a fresh venv's processes: this machine's pip settings, none of the project's.

    Keeps PATH's system part, HOME, locale, temp dir, pip's and proxy/certificate settings; drops
    VIRTUAL_ENV, PYTHONPATH, EMBOOK_* and everything else. ``extra`` is added on top.
    """
    keep = {"HOME", "LANG", "LC_ALL", "TMPDIR", "TERM", "SSL_CERT_FILE", "SSL_CERT_DIR",
            "REQUESTS_CA_BUNDLE", "HTTP_PROXY", "HTTPS_PROXY", "NO_PROXY", "http_proxy", "https_proxy",
            "no_proxy", "CI"}
    env = {k: v for k, v in os.environ.items() if k in keep or k.startswith("PIP_")}
    env["PATH"] = "/usr/local/bin:/usr/bin:/bin"
    env.update(extra)
    return env


def run(command: List[str], *, cwd: Path, env: Dict[str, str], what: str) -> subprocess.CompletedProcess:
    """Run ``command``; on a non-zero exit raise ``AssertionError`` naming ``what`` with the output's end."""
    result = subprocess.run(command, cwd=cwd, env=env, capture_output=True, text=True)
    assert result.returncode == 0, (
        f"{what} failed (exit {result.returncode}): {' '.join(command)}\n"
        f"{(result.stdout + result.stderr)[-6000:]}"
    )
    return result
