"""Sphinx extension: what the reader's page needs beyond the theme.

- ``reader_page.css``: tables and display equations that are wider than the text column scroll inside their
  own block instead of running under the margin or being clipped (the themes set this for most blocks
  already; the rules here keep it so under a theme update), and figures fill the column. Code and outputs
  fit the column at a laptop's width (88 characters); on a narrow screen a longer line wraps within its
  block instead of scrolling.
- Figures open full size: every image inside a figure gets ``width: 100%``, and Sphinx wraps a scaled
  image in a link to the image file itself (``html_scaled_image_link``), so that a reader on a phone taps
  a figure to see it at full resolution.
- Inline code breaks where a reader expects it to: after a ``.``, ``_`` or ``/`` of an identifier or a
  path (a ``<wbr>`` there), never inside a word (``lib.positional.r|ope_angles``). In a table cell a name
  stays whole (``reader_page.css`` hides its ``<wbr>``): the column is as wide as the longest name, and a
  table wider than the text column scrolls in its own box.
- A number stays on the line of its unit: the space between them becomes a no-break space (``6.1 GB``,
  ``95 %``, ``2.3 nats``), in prose, tables and glued values alike (:data:`NUMBER_AND_UNIT`).
- Files and folders of the repository named in the text are links: a chapter's source
  (``chapters/lesson.md``) becomes its title, linked to its page; any other path (``benchmarks/README.md``,
  ``lib/positional.py``) links to that file in the repository that ``_config.yml`` names
  (:func:`repository_paths`).
- ``reader_search.js``: the search page's result snippets are cut from each page's HTML, where formulas are
  still TeX (``\\(PE[\\mathrm{pos}]\\)``) because MathJax typesets them only in the browser, and where the
  page's buttons, table of contents and "Show code cell source" labels are text too. The script cuts the
  snippet from the article alone, without those labels, and turns each formula into plain text
  (``PE[pos]``, ``10000^(2p/d)``, ``x₀``) before Sphinx cuts the snippet; and it lists each result once:
  one result per place (page and anchor), and no page twice under one title (Sphinx lists a page again, under
  its title, for an index entry that points into it).
- ``search_scorer.js`` (Sphinx's ``html_search_scorer``): search results on the API page come after the
  results on every other page, so that a query for a concept ("RoPE", "cosine") lists the chapters that
  teach it before the functions whose names contain it.
- The search page shows one search field, its own: the header's search button is hidden there
  (``reader_page.css``).
- On a phone, a figure's caption ends with a hint that a tap opens the figure full size
  (``reader_page.css``, narrow screens only).
- ``reader_tables.js``: a table wider than its column (a chapter's table of five columns on a phone) is
  stacked, one block per row and one line per cell, the cell's column header before it
  (``reader_page.css``, ``table.reader-stacked``); a table that fits, with each of its short cells (a
  number, a name) on one line, keeps its columns.

tests/test_reader_page.py checks each of these in a browser.
"""

from __future__ import annotations

import re
from pathlib import Path

from docutils import nodes

STATIC = Path(__file__).parent / "static"

# Units a number is written with in the book's text; each must stay on the line of its number.
UNITS = ("%", "B", "kB", "KB", "MB", "GB", "TB", "KiB", "MiB", "GiB", "TiB", "byte", "bytes", "bit", "bits",
         "nat", "nats", "millinats", "ns", "µs", "ms", "s", "min", "px", "pt")
# A digit, the white space after it, and a unit (not the start of a longer word: "5 sentences" is no unit).
# The same pattern works in Python and in JavaScript (tests/test_reader_page.py uses it in the browser).
_UNIT = r"(%|(?:" + "|".join(sorted((u for u in UNITS if u != "%"), key=len, reverse=True)) + r")(?![\w/]))"
NUMBER_AND_UNIT = r"(\d)(\s+)" + _UNIT
_NUMBER_SPACE_UNIT = re.compile(NUMBER_AND_UNIT)
_SPACE_UNIT = re.compile(r"^\s+(?=" + _UNIT + ")")
NO_BREAK_SPACE = "\u00a0"

# Text and inline code a path is looked for in; a path of the repository has at least one "/".
# A template such as ``lib/<concept>.py`` is not a path, nor any piece of it.
PATH = re.compile(r"(?<![\w./:-])((?:[\w.-]+/)+(?:[\w.-]*\w)?)(?![\w/<>{}*-])")
# Nodes whose text is never rewritten: code blocks, maths, raw HTML, and text already inside a link.
_LEAVE_ALONE = (nodes.literal_block, nodes.doctest_block, nodes.math, nodes.math_block, nodes.raw,
                nodes.reference, nodes.comment, nodes.target)


def _add_static_path(app, config):
    config.html_static_path.append(str(STATIC))
    # an absolute path: Sphinx opens html_search_scorer relative to the directory it was started from
    if not config.html_search_scorer:
        config.html_search_scorer = str(STATIC / "search_scorer.js")


def _figures_open_full_size(app, doctree, docname):
    for figure in doctree.findall(nodes.figure):
        for image in figure.findall(nodes.image):
            if isinstance(image.parent, nodes.reference) or any(k in image for k in ("width", "height", "scale")):
                continue
            image["width"] = "100%"


def _attached(text) -> bool:
    """Whether ``text`` is still a child of its parent (not a detached copy or a replaced node)."""
    return text.parent is not None and any(child is text for child in text.parent.children)


def _left_alone(node) -> bool:
    parent = node.parent
    while parent is not None:
        if isinstance(parent, _LEAVE_ALONE):
            return True
        parent = parent.parent
    return False


def _keep_numbers_with_units(app, doctree, docname):
    """Every space between a number and its unit (:data:`UNITS`) becomes a no-break space, also where the
    number ends one text node and the unit starts the next (a glued value, then " MB")."""
    for text in list(doctree.findall(nodes.Text)):
        if not _attached(text) or _left_alone(text) or isinstance(text.parent, nodes.literal):
            continue
        value = _NUMBER_SPACE_UNIT.sub(lambda m: m.group(1) + NO_BREAK_SPACE + m.group(3), str(text))
        index = next(i for i, child in enumerate(text.parent.children) if child is text)
        if index > 0 and _SPACE_UNIT.match(value) and re.search(r"\d$", text.parent[index - 1].astext()):
            value = _SPACE_UNIT.sub(NO_BREAK_SPACE, value, count=1)
        if value != str(text):
            text.parent.replace(text, nodes.Text(value))


def _repository(app) -> tuple[Path, str]:
    """(the repository's root folder on disk, the URL prefix of its files: ``<url>/blob/<branch>/``)."""
    options = app.config.html_theme_options
    url = str(options.get("repository_url", "")).rstrip("/")
    branch = options.get("repository_branch", "main") or "main"
    below = Path(str(options.get("path_to_docs", "") or "").strip("/"))
    root = Path(app.srcdir)
    for _ in below.parts:
        root = root.parent
    return root, f"{url}/blob/{branch}/" if url else ""


def repository_paths(app, text: str) -> list[tuple[int, int, str, str]]:
    """The paths of files and folders of the repository named in ``text``: ``(start, end, label, uri)``
    for each, where a book page's source (``chapters/lesson.md``) is labelled with the page's title and
    ``uri`` is the page's docname prefixed by ``doc:``, and any other file or folder keeps its path as
    the label and links into the repository (``.../blob/main/benchmarks/README.md``; a folder
    ``.../tree/main/benchmarks``). A string that is not an existing path (``lib/<concept>.py``,
    ``text/plain``, ``1/2``) is not one."""
    root, blob = _repository(app)
    found = []
    for match in PATH.finditer(text):
        path = match.group(1)
        target = root / path
        if ".." in Path(path).parts or not target.exists():
            continue
        docname = re.sub(r"\.(md|ipynb)$", "", path)
        if target.is_file() and path.endswith(".md") and docname in app.env.found_docs:
            label, uri = app.env.titles[docname].astext(), f"doc:{docname}"
        elif blob:
            kind = "tree" if target.is_dir() else "blob"
            label, uri = path, blob.replace("/blob/", f"/{kind}/", 1) + path.rstrip("/")
        else:
            continue
        found.append((match.start(1), match.end(1), label, uri))
    return found


def _link(app, docname: str, label_node, uri: str):
    if uri.startswith("doc:"):
        target = uri[len("doc:"):]
        refuri = app.builder.get_relative_uri(docname, target)
        return nodes.reference("", "", label_node, refuri=refuri, internal=True, classes=["repository-doc"])
    return nodes.reference("", "", label_node, refuri=uri, internal=False, classes=["repository-path"])


def _link_repository_paths(app, doctree, docname):
    """Files and folders of the repository named in the text, as plain text or as inline code, become links
    (see :func:`repository_paths`)."""
    if app.builder.format != "html":
        return
    for literal in list(doctree.findall(nodes.literal)):
        if literal.parent is None or _left_alone(literal):
            continue
        text = literal.astext()
        hits = repository_paths(app, text)
        if len(hits) == 1 and hits[0][:2] == (0, len(text)):
            _, _, label, uri = hits[0]
            # a page is named by its title; a file keeps its path, as code
            inner = nodes.inline("", label) if uri.startswith("doc:") else literal.deepcopy()
            literal.parent.replace(literal, _link(app, docname, inner, uri))
    for text in list(doctree.findall(nodes.Text)):
        if not _attached(text) or _left_alone(text) or isinstance(text.parent, nodes.literal):
            continue
        value = str(text)
        hits = repository_paths(app, value)
        if not hits:
            continue
        pieces, at = [], 0
        for start, end, label, uri in hits:
            pieces += [nodes.Text(value[at:start]), _link(app, docname, nodes.Text(label), uri)]
            at = end
        pieces.append(nodes.Text(value[at:]))
        text.parent.replace(text, [p for p in pieces if not (isinstance(p, nodes.Text) and not str(p))])


# Inline code as the HTML writer renders it; a word break may follow a ".", "_" or "/" inside it.
_INLINE_CODE = re.compile(r'(<code class="[^"]*\b(?:literal|xref)\b[^"]*">)(.*?)(</code>)', re.S)
_BREAK_AFTER = re.compile(r"([._/])(?=\w)")


def _break_points(html: str) -> str:
    """``html`` with a ``<wbr>`` after each ``.``, ``_`` and ``/`` inside inline code (not inside tags or
    character references)."""
    def code(match):
        parts = re.split(r"(<[^>]*>|&[#\w]+;)", match.group(2))
        inner = "".join(p if p.startswith(("<", "&")) else _BREAK_AFTER.sub(r"\1<wbr>", p) for p in parts)
        return match.group(1) + inner + match.group(3)

    return _INLINE_CODE.sub(code, html)


def _page_context(app, pagename, templatename, context, doctree):
    if "body" in context:
        context["body"] = _break_points(context["body"])


def setup(app):
    app.connect("config-inited", _add_static_path)
    app.connect("doctree-resolved", _figures_open_full_size)
    app.connect("doctree-resolved", _keep_numbers_with_units)
    app.connect("doctree-resolved", _link_repository_paths)
    app.connect("html-page-context", _page_context)
    app.add_css_file("reader_page.css")
    app.add_css_file("notation.css")  # the notation page's tables on a phone (owned with notation.md)
    app.add_js_file("reader_search.js")
    app.add_js_file("reader_tables.js")
    return {"parallel_read_safe": True, "parallel_write_safe": True}
