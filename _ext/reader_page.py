"""Sphinx extension: what the reader's page needs beyond the theme.

- ``reader_page.css``: code, outputs, tables and display equations that are wider than the text column
  scroll inside their own block instead of running under the margin or being clipped (the themes set this
  for most blocks already; the rules here keep it so under a theme update), and figures fill the column.
- Figures open full size: every image inside a figure gets ``width: 100%``, and Sphinx wraps a scaled
  image in a link to the image file itself (``html_scaled_image_link``), so that a reader on a phone taps
  a figure to see it at full resolution.
- ``reader_search.js``: the search page's result snippets are cut from each page's HTML, where formulas are
  still TeX (``\\(PE[\\mathrm{pos}]\\)``) because MathJax typesets them only in the browser; the script turns
  each formula of a snippet into plain text (``PE[pos]``) before Sphinx cuts the snippet.

tests/test_reader_page.py checks each of these in a browser.
"""

from __future__ import annotations

from pathlib import Path

from docutils import nodes

STATIC = Path(__file__).parent / "static"


def _add_static_path(app, config):
    config.html_static_path.append(str(STATIC))


def _figures_open_full_size(app, doctree, docname):
    for figure in doctree.findall(nodes.figure):
        for image in figure.findall(nodes.image):
            if isinstance(image.parent, nodes.reference) or any(k in image for k in ("width", "height", "scale")):
                continue
            image["width"] = "100%"


def setup(app):
    app.connect("config-inited", _add_static_path)
    app.connect("doctree-resolved", _figures_open_full_size)
    app.add_css_file("reader_page.css")
    app.add_js_file("reader_search.js")
    return {"parallel_read_safe": True, "parallel_write_safe": True}
