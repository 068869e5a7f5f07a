"""The built book as a reader has it: every page opened in headless Chromium, with the network blocked.

The module builds the whole book (as ``make book`` does, ``-n -W``, but with each chapter's outputs taken from
its executed notebook, ``chapters/*.ipynb``, instead of executing it again: ``make test`` already executes
every chapter under several code paths and compares the outputs with those notebooks) into a temporary
folder, serves it on 127.0.0.1, and opens every page of the table of contents in Debian's Chromium driven
by Playwright. Every request that does not go to 127.0.0.1 is aborted and reported, so a page that needs a
CDN (MathJax, fonts, widget scripts) fails here: the book must read offline. Per page it checks

- no JavaScript errors on the console, no failed or blocked requests, every stylesheet loaded;
- the title and the heading order (one ``h1``, no level skipped);
- the maths is typeset by MathJax from the build (no raw ``$...$`` or ``\\(...\\)`` left, no TeX errors,
  the MathJax fonts loaded);
- every image loaded, is not blank, has alt text and sits in a numbered figure with a caption; a chapter
  shows as many figures as its source declares, and ``{numref}`` links name the right number;
- every internal link resolves (page and anchor);
- on chapter pages: the Colab button opens the chapter's ``.ipynb`` and the Binder button a path that
  exist in the repository, the page offers its ``.ipynb`` and ``.md`` for download, no progress bar or
  stderr output leaked into the page;
- the search page finds each chapter by its title, and the page(s) that discuss "negative sampling".

Each chapter is also opened from disk (``file://``, as the README's "open _build/html/index.html"), where
its maths must typeset from the build too.

A screenshot of each page (the first screen, the whole page, and the first figure) is written to
``test-artifacts/screenshots/`` for a person to look at; that folder is not committed.

Without Chromium or Playwright the tests are skipped with an install hint, except under ``CI=true``, where
they fail. ``EMBOOK_BOOK_HTML=_build/html`` tests an already built book instead of building one (for
quick iterations after ``make book``; CI always builds).
"""

from __future__ import annotations

import html
import json
import re
import urllib.error
import urllib.parse
import urllib.request
from pathlib import Path

import jupytext
import nbformat
import pytest

import booksite

pytestmark = pytest.mark.slow  # builds the book and opens every page

# One xdist worker runs this whole module (`make test` passes --dist loadfile): the book is built once.

ROOT = booksite.ROOT
CONFIG = booksite.config()
PAGES = booksite.toc_docnames()
CHAPTERS = booksite.chapter_docnames()
GENERATED = ["genindex", "search"]  # pages Sphinx adds to every HTML book
SCREENSHOTS = booksite.ARTIFACTS / "screenshots"
VIEWPORT = {"width": 1280, "height": 900}
TIMEOUT_MS = 60_000  # per navigation or wait; MathJax on a long page takes a few seconds on a busy CPU

# Everything the tests need from a page, collected in one pass after MathJax has finished.
AUDIT_JS = r"""
() => {
  const article = document.querySelector('article.bd-article') || document.querySelector('main') || document.body;
  const text = (el) => {
    const copy = el.cloneNode(true);
    copy.querySelectorAll('.headerlink').forEach((x) => x.remove());
    return copy.textContent.replace(/\s+/g, ' ').trim();
  };
  const headings = [...article.querySelectorAll('h1, h2, h3, h4, h5, h6')]
    .map((h) => ({level: Number(h.tagName[1]), text: text(h)}));

  const distinctColours = (img) => {
    // draw the image small and count its colours (a blank image has one)
    try {
      const canvas = document.createElement('canvas');
      canvas.width = 64; canvas.height = 64;
      const ctx = canvas.getContext('2d');
      ctx.drawImage(img, 0, 0, 64, 64);
      const data = ctx.getImageData(0, 0, 64, 64).data;
      const seen = new Set();
      for (let i = 0; i < data.length && seen.size < 16; i += 4)
        seen.add(data[i] + ',' + data[i + 1] + ',' + data[i + 2] + ',' + data[i + 3]);
      return seen.size;
    } catch (e) { return -1; }
  };
  const images = [...article.querySelectorAll('img')].map((img) => {
    const figure = img.closest('figure');
    const caption = figure ? figure.querySelector('figcaption') : null;
    return {
      src: img.getAttribute('src'), alt: img.getAttribute('alt'), complete: img.complete,
      width: img.naturalWidth, height: img.naturalHeight, colours: distinctColours(img),
      figure: figure ? figure.id : null, captioned: !!(caption && text(caption)),
    };
  });
  const figures = [...article.querySelectorAll('figure')].map((f) => {
    const caption = f.querySelector('figcaption');
    const number = caption && caption.querySelector('.caption-number');
    const body = caption && caption.querySelector('.caption-text');
    return {
      id: f.id, images: f.querySelectorAll('img').length,
      number: number ? number.textContent.trim() : null,
      caption: body ? text(body) : (caption ? text(caption) : ''),
    };
  });
  const numrefs = [...article.querySelectorAll('a.reference.internal')]
    .filter((a) => a.querySelector('.std-numref'))
    .map((a) => ({href: a.getAttribute('href'), text: text(a)}));

  const maths = [...document.querySelectorAll('.math')];
  const math = {
    count: maths.length,
    untypeset: maths.filter((m) => !m.querySelector('mjx-container')).map((m) => m.textContent.slice(0, 80)),
    errors: [...document.querySelectorAll('mjx-merror')].map((e) => e.textContent.slice(0, 80)),
  };
  // TeX that reached the reader as text: outside code and outside typeset maths
  const skip = 'pre, code, script, style, textarea, mjx-container, .highlight, .math';
  const walker = document.createTreeWalker(article, NodeFilter.SHOW_TEXT);
  const rawTex = [];
  const pattern = /\$\$|\$[^\s$][^$]*\$|\\\(|\\\)|\\\[|\\\]|\\begin\{|\\frac\{/;
  for (let n = walker.nextNode(); n; n = walker.nextNode())
    if (!n.parentElement.closest(skip) && pattern.test(n.textContent))
      rawTex.push(n.textContent.trim().slice(0, 100));
  const fonts = [];
  document.fonts.forEach((f) => { if (/MJX/.test(f.family)) fonts.push({family: f.family, status: f.status}); });

  const outputs = [...article.querySelectorAll('.cell_output')];
  return {
    url: location.href,
    title: document.title,
    headings, images, figures, numrefs, math, rawTex, fonts,
    text: article.textContent.replace(/\s+/g, ' ').toLowerCase(),
    links: [...document.querySelectorAll('a[href]')].map((a) => a.href),
    colab: [...new Set([...document.querySelectorAll('a[href*="colab.research.google.com"]')].map((a) => a.href))],
    binder: [...new Set([...document.querySelectorAll('a[href*="mybinder.org"]')].map((a) => a.href))],
    downloads: {
      ipynb: [...new Set([...document.querySelectorAll('a.btn-download-notebook-button')].map((a) => a.href))],
      md: [...new Set([...document.querySelectorAll('a.btn-download-source-button')].map((a) => a.href))],
    },
    stylesheets: [...document.querySelectorAll('link[rel="stylesheet"]')].map((l) => ({href: l.href, loaded: !!l.sheet})),
    mathjaxScripts: [...document.scripts].map((s) => s.src).filter((src) => /mathjax/i.test(src)),
    stderr: outputs.flatMap((o) => [...o.querySelectorAll('.stderr')]).map((e) => e.textContent.slice(0, 200)),
    widgets: document.querySelectorAll('script[type="application/vnd.jupyter.widget-view+json"]').length,
    progressText: outputs.map((o) => o.textContent).filter((t) => /\d+it\/s|\d+%\|/.test(t)).map((t) => t.slice(0, 120)),
  };
}
"""


def _shot_name(docname: str) -> str:
    return docname.replace("/", "-")


class Reader:
    """A Chromium context on the served book; visits pages once each and remembers what it saw."""

    def __init__(self, browser, base: str, html_dir: Path):
        self.base = base
        self.html_dir = html_dir
        self.blocked: list[str] = []
        self.context = browser.new_context(viewport=VIEWPORT, service_workers="block")
        self.context.set_default_timeout(TIMEOUT_MS)
        self.context.route("**/*", self._route)
        self.visits: dict[str, dict] = {}
        self._fetched: dict[str, tuple[int, bytes]] = {}

    def _route(self, route):
        url = urllib.parse.urlsplit(route.request.url)
        if (url.scheme in ("http", "https") and url.hostname == "127.0.0.1") or url.scheme == "file":
            route.continue_()  # the local server, or the disk
        else:  # the book must not need the network: block it, and report it
            self.blocked.append(route.request.url)
            route.abort("internetdisconnected")

    def url(self, docname: str) -> str:
        return self.base + docname + ".html"

    def docname(self, url: str) -> str | None:
        """``chapters/x`` for a URL of a page of this book, else None."""
        if not url.startswith(self.base):
            return None
        path = urllib.parse.urlsplit(url).path[1:]
        return path[: -len(".html")] if path.endswith(".html") else None

    def visit(self, docname: str) -> dict:
        """Open ``docname``, wait for MathJax and fonts, screenshot it, return the audit (cached)."""
        if docname in self.visits:
            return self.visits[docname]
        seen = {"console": [], "pageerror": [], "failed": [], "status": []}
        page = self.context.new_page()
        page.on("console", lambda m: m.type == "error" and seen["console"].append(f"{m.text} ({m.location})"))
        page.on("pageerror", lambda e: seen["pageerror"].append(str(e)))
        page.on("requestfailed", lambda r: seen["failed"].append(f"{r.url}: {r.failure}"))
        page.on("response", lambda r: r.status >= 400 and seen["status"].append(f"{r.status} {r.url}"))
        blocked_before = len(self.blocked)
        booksite.load(page, self.url(docname), docname)
        audit = page.evaluate(AUDIT_JS)
        audit.update(seen, blocked=self.blocked[blocked_before:])
        SCREENSHOTS.mkdir(parents=True, exist_ok=True)
        name = _shot_name(docname)
        page.screenshot(path=SCREENSHOTS / f"{name}.png")
        page.screenshot(path=SCREENSHOTS / f"{name}-full.png", full_page=True)
        figure = page.locator("article figure")
        if figure.count():
            figure.first.scroll_into_view_if_needed()
            page.screenshot(path=SCREENSHOTS / f"{name}-figure.png")
        page.close()
        self.visits[docname] = audit
        return audit

    def search(self, query: str) -> list[str]:
        """Run the book's own search page for ``query``; return the docnames of the results, in order."""
        page = self.context.new_page()
        errors = []
        page.on("pageerror", lambda e: errors.append(str(e)))
        page.goto(self.base + "search.html?" + urllib.parse.urlencode({"q": query}), wait_until="load")
        page.wait_for_function(
            "() => { const s = document.querySelector('#search-results .search-summary');"
            " return s && /Search finished|did not match/.test(s.textContent); }"
        )
        hrefs = page.evaluate("() => [...document.querySelectorAll('#search-results ul.search li > a')].map(a => a.href)")
        page.screenshot(path=SCREENSHOTS / f"search-{re.sub(r'[^a-z0-9]+', '-', query.lower())}.png")
        page.close()
        assert errors == [], f"the search page raised: {errors}"
        found = [self.docname(h.split("?")[0].split("#")[0]) for h in hrefs]
        return list(dict.fromkeys(d for d in found if d))

    def fetch(self, url: str) -> tuple[int, bytes]:
        """HTTP status and body of ``url`` (a page of the served book), cached."""
        url = url.split("#")[0]
        if url not in self._fetched:
            try:
                with urllib.request.urlopen(url, timeout=30) as response:
                    self._fetched[url] = (response.status, response.read())
            except urllib.error.HTTPError as error:
                self._fetched[url] = (error.code, b"")
        return self._fetched[url]

    def close(self):
        self.context.close()


# ----------------------------------------------------------------------------------------------------
# fixtures: the browser first (a reader without Chromium is told so before any build), then the book


@pytest.fixture(scope="module")
def chromium() -> str:
    return booksite.require_chromium()


@pytest.fixture(scope="module")
def browser(chromium):
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=chromium, headless=True, args=booksite.CHROMIUM_FLAGS)
        yield browser
        browser.close()


@pytest.fixture(scope="module")
def book_html() -> Path:
    return booksite.book_for_this_run()  # one build per test run, shared with tests/test_reader_page.py


@pytest.fixture(scope="module")
def reader(browser, book_html):
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    for old in SCREENSHOTS.glob("*.png"):
        old.unlink()
    with booksite.serve(book_html) as base:
        reader = Reader(browser, base, book_html)
        yield reader
        reader.close()
    # what each page showed, next to the screenshots, for a person reading them
    summary = {
        docname: {
            "title": seen["title"],
            "headings": [f"h{h['level']} {h['text']}" for h in seen["headings"]],
            "figures": [f"{f['number']}: {f['caption']}" for f in seen["figures"]],
            "formulas": seen["math"]["count"],
            "colab": seen["colab"], "binder": seen["binder"], "downloads": seen["downloads"],
        }
        for docname, seen in reader.visits.items()
    }
    (SCREENSHOTS / "pages.json").write_text(json.dumps(summary, indent=2, ensure_ascii=False))


# ----------------------------------------------------------------------------------------------------
# every page


@pytest.mark.parametrize("docname", PAGES + GENERATED)
def test_page_reads_offline_without_errors(reader, docname):
    seen = reader.visit(docname)
    assert seen["blocked"] == [], f"{docname} asked the network for {seen['blocked']} (the book must read offline)"
    assert seen["console"] == [], f"{docname}: console errors {seen['console']}"
    assert seen["pageerror"] == [], f"{docname}: uncaught JavaScript errors {seen['pageerror']}"
    assert seen["failed"] == [] and seen["status"] == [], f"{docname}: failed requests {seen['failed'] + seen['status']}"
    unloaded = [s["href"] for s in seen["stylesheets"] if not s["loaded"]]
    assert seen["stylesheets"] and unloaded == [], f"{docname}: stylesheets not loaded {unloaded}"
    local = [s for s in seen["mathjaxScripts"] if s.startswith(reader.base + "_static/")]
    assert local == seen["mathjaxScripts"] and len(local) <= 1, (
        f"{docname}: MathJax must be loaded once, from the build's _static/: {seen['mathjaxScripts']}"
    )
    for suffix in ("", "-full"):
        shot = SCREENSHOTS / f"{_shot_name(docname)}{suffix}.png"
        assert shot.stat().st_size > 10_000, f"screenshot {shot} is missing or blank"


@pytest.mark.parametrize("docname", PAGES)
def test_title_and_headings_in_order(reader, docname):
    seen = reader.visit(docname)
    levels = [h["level"] for h in seen["headings"]]
    assert levels and levels[0] == 1 and levels.count(1) == 1, f"{docname}: one h1 first, got {seen['headings']}"
    h1 = seen["headings"][0]["text"]
    assert seen["title"].startswith(h1) and CONFIG["title"] in seen["title"], (
        f"{docname}: <title> {seen['title']!r} should name the page ({h1!r}) and the book"
    )
    jumps = [(a, b) for a, b in zip(seen["headings"], seen["headings"][1:]) if b["level"] > a["level"] + 1]
    assert jumps == [], f"{docname}: heading levels skip: " + "; ".join(
        f"h{a['level']} {a['text']!r} -> h{b['level']} {b['text']!r}" for a, b in jumps)


@pytest.mark.parametrize("docname", PAGES)
def test_math_is_typeset_from_the_build(reader, docname):
    seen = reader.visit(docname)
    assert seen["rawTex"] == [], f"{docname}: TeX left as text: {seen['rawTex']}"
    served = reader.fetch(reader.url(docname))[1].decode()
    in_html = len(re.findall(r'class="math notranslate nohighlight"', served))
    assert seen["math"]["count"] == in_html, f"{docname}: {in_html} formulas in the HTML, {seen['math']['count']} on the page"
    assert seen["math"]["untypeset"] == [], f"{docname}: formulas MathJax did not typeset: {seen['math']['untypeset']}"
    assert seen["math"]["errors"] == [], f"{docname}: TeX errors {seen['math']['errors']}"
    if in_html:
        loaded = [f["family"] for f in seen["fonts"] if f["status"] == "loaded"]
        broken = [f["family"] for f in seen["fonts"] if f["status"] == "error"]
        assert loaded and broken == [], f"{docname}: MathJax fonts loaded {loaded}, failed {broken}"


def _source_figures(docname: str) -> list[str]:
    """Names of the figures a chapter's source declares (cells with ``mystnb.figure`` metadata)."""
    nb = jupytext.read(ROOT / f"{docname}.md")
    return [c.metadata["mystnb"]["figure"].get("name", "") for c in nb.cells
            if c.cell_type == "code" and "figure" in c.metadata.get("mystnb", {})]


@pytest.mark.parametrize("docname", PAGES)
def test_figures_are_present_described_and_numbered(reader, docname):
    seen = reader.visit(docname)
    for img in seen["images"]:
        where = f"{docname}: image {img['src']}"
        assert img["alt"] and img["alt"].strip(), f"{where} has no alt text"
        assert img["complete"] and img["width"] > 0 and img["height"] > 0, f"{where} did not load"
        assert img["colours"] > 1, f"{where} is blank (colours sampled: {img['colours']})"
        assert img["figure"] and img["captioned"], f"{where} is not in a figure with a caption"
    numbers = []
    for fig in seen["figures"]:
        where = f"{docname}: figure {fig['id']!r}"
        assert fig["id"] and fig["images"] >= 1, f"{where} has no name or no image"
        assert fig["number"] and re.fullmatch(r"Fig\. \d+(\.\d+)*", fig["number"]), f"{where} is not numbered"
        assert len(fig["caption"]) >= 10, f"{where} has no real caption: {fig['caption']!r}"
        numbers.append(fig["number"])
    assert len(set(numbers)) == len(numbers), f"{docname}: figure numbers repeat {numbers}"
    by_id = {f["id"]: f["number"] for f in seen["figures"]}
    for ref in seen["numrefs"]:
        target = ref["href"].lstrip("#")
        if ref["href"].startswith("#") and target in by_id:
            assert ref["text"] == by_id[target], f"{docname}: link {ref} names {ref['text']!r}, the figure is {by_id[target]!r}"
    if docname in CHAPTERS:
        declared = _source_figures(docname)
        assert sorted(by_id) == sorted(declared), f"{docname}: the source declares {declared}, the page shows {sorted(by_id)}"


@pytest.mark.parametrize("docname", PAGES)
def test_internal_links_resolve(reader, docname):
    seen = reader.visit(docname)
    local = sorted({u for u in seen["links"] if u.startswith(reader.base)})
    assert local, f"{docname} has no internal links at all"
    broken = []
    for url in local:
        status, body = reader.fetch(url)
        if status != 200:
            broken.append(f"{url} (HTTP {status})")
            continue
        fragment = urllib.parse.unquote(urllib.parse.urlsplit(url).fragment)
        if fragment and url.split("#")[0].endswith(".html"):
            if f'id="{html.escape(fragment)}"' not in body.decode(errors="replace"):
                broken.append(f"{url} (no element with id {fragment!r})")
    assert broken == [], f"{docname}: broken links:\n" + "\n".join(broken)


# ----------------------------------------------------------------------------------------------------
# chapter pages: launch buttons, downloads, clean outputs


def _repository():
    repo = CONFIG["repository"]
    owner_name = urllib.parse.urlsplit(repo["url"]).path.strip("/")
    prefix = (repo.get("path_to_book") or "").strip("/")
    return owner_name, repo.get("branch", "main"), prefix + "/" if prefix else ""


def _assert_in_repository(path: str, what: str):
    assert (ROOT / path).exists(), f"{what} points at {path}, which is not in the repository"
    assert booksite.git_tracked(path), f"{what} points at {path}, which is not committed to git"


@pytest.mark.parametrize("docname", CHAPTERS)
def test_colab_and_binder_buttons_open_files_of_the_repository(reader, docname):
    seen = reader.visit(docname)
    owner_name, branch, prefix = _repository()
    launch = CONFIG["launch_buttons"]
    colab = re.compile(re.escape(launch["colab_url"].rstrip("/")) + rf"/github/{re.escape(owner_name)}/blob/{re.escape(branch)}/(.+)")
    binder = re.compile(re.escape(launch["binderhub_url"].rstrip("/")) + rf"/v2/gh/{re.escape(owner_name)}/{re.escape(branch)}\?urlpath=(?:lab/)?tree/(.+)")
    assert len(seen["colab"]) == 1, f"{docname}: expected one Colab button, found {seen['colab']}"
    assert len(seen["binder"]) == 1, f"{docname}: expected one Binder button, found {seen['binder']}"
    colab_match, binder_match = colab.fullmatch(seen["colab"][0]), binder.fullmatch(seen["binder"][0])
    assert colab_match, f"{docname}: Colab link {seen['colab'][0]} is not {colab.pattern}"
    assert binder_match, f"{docname}: Binder link {seen['binder'][0]} is not {binder.pattern}"
    colab_path = urllib.parse.unquote(colab_match.group(1))
    binder_path = urllib.parse.unquote(binder_match.group(1))
    assert colab_path == f"{prefix}{docname}.ipynb", f"{docname}: Colab must open the notebook, not {colab_path}"
    _assert_in_repository(colab_path, f"{docname}'s Colab button")
    _assert_in_repository(binder_path, f"{docname}'s Binder button")


@pytest.mark.parametrize("docname", CHAPTERS)
def test_page_offers_its_notebook_and_source_for_download(reader, docname):
    seen = reader.visit(docname)
    assert len(seen["downloads"]["ipynb"]) == 1 and len(seen["downloads"]["md"]) == 1, (
        f"{docname}: expected one .ipynb and one .md download, found {seen['downloads']}"
    )
    status, md = reader.fetch(seen["downloads"]["md"][0])
    assert status == 200 and md == (ROOT / f"{docname}.md").read_bytes(), f"{docname}: the .md download is not the source"
    status, raw = reader.fetch(seen["downloads"]["ipynb"][0])
    assert status == 200, f"{docname}: the .ipynb download answers HTTP {status}"
    nb = nbformat.reads(raw.decode(), as_version=4)
    nbformat.validate(nb)
    source = jupytext.read(ROOT / f"{docname}.md")
    code = lambda book: [c.source.strip() for c in book.cells if c.cell_type == "code"]  # noqa: E731
    assert code(nb) == code(source), f"{docname}: the downloaded notebook's code differs from the source"
    executed = [c for c in nb.cells if c.cell_type == "code" and c.get("outputs")]
    assert len(executed) > 0, f"{docname}: the downloaded notebook has no outputs"


@pytest.mark.parametrize("docname", CHAPTERS)
def test_chapter_reads_from_disk_without_a_server(reader, docname):
    """The README's "open _build/html/index.html": a file:// page typesets its maths from the build."""
    page = reader.context.new_page()
    errors = []
    page.on("console", lambda m: m.type == "error" and errors.append(m.text))
    page.on("pageerror", lambda e: errors.append(str(e)))
    blocked_before = len(reader.blocked)
    page.goto((reader.html_dir / f"{docname}.html").as_uri(), wait_until="load")
    counts = [0, 0]
    if page.evaluate("() => document.querySelector('.math') !== null"):
        page.wait_for_function("() => window.MathJax && MathJax.startup && MathJax.startup.promise")
        page.evaluate("() => MathJax.startup.promise.then(() => true)")
        page.evaluate("() => document.fonts.ready.then(() => true)")
        counts = page.evaluate(
            "() => [document.querySelectorAll('.math').length, document.querySelectorAll('.math mjx-container').length]"
        )
    fonts = page.evaluate(
        "() => { const out = []; document.fonts.forEach((f) => { if (/MJX/.test(f.family)) out.push(f.status); }); return out; }"
    )
    page.close()
    assert reader.blocked[blocked_before:] == [], f"{docname} from disk asked the network for {reader.blocked[blocked_before:]}"
    assert errors == [], f"{docname} from disk: console errors {errors}"
    assert counts[0] == counts[1], f"{docname} from disk: {counts[1]} of {counts[0]} formulas typeset"
    assert "error" not in fonts and (counts[0] == 0 or "loaded" in fonts), f"{docname} from disk: MathJax fonts {fonts}"


@pytest.mark.parametrize("docname", CHAPTERS)
def test_no_progress_bar_or_stderr_reaches_the_page(reader, docname):
    seen = reader.visit(docname)
    assert seen["stderr"] == [], f"{docname}: stderr output on the page: {seen['stderr']}"
    assert seen["widgets"] == 0, f"{docname}: {seen['widgets']} widget outputs (a progress bar?) on the page"
    assert seen["progressText"] == [], f"{docname}: progress-bar text on the page: {seen['progressText']}"


# ----------------------------------------------------------------------------------------------------
# search


@pytest.mark.parametrize("docname", CHAPTERS)
def test_search_finds_each_chapter_by_its_title(reader, docname):
    title = reader.visit(docname)["headings"][0]["text"]
    found = reader.search(title)
    assert docname in found, f"searching for {title!r} returned {found}, not {docname}"


def test_search_finds_the_pages_about_negative_sampling(reader):
    phrase = "negative sampling"
    about = [d for d in PAGES if phrase in reader.visit(d)["text"]]
    if "chapters/embeddings" in CHAPTERS:
        assert "chapters/embeddings" in about, f"chapters/embeddings is in the toc but never says {phrase!r}"
    found = reader.search(phrase)
    assert set(found) <= set(PAGES) | set(GENERATED), f"search returned pages outside the book: {found}"
    missed = [d for d in about if d not in found]
    assert missed == [], f"searching {phrase!r} returned {found}; it misses {missed}, which discuss it"
