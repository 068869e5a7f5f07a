"""Sphinx extension: write each inline <script> of a page once.

Sphinx 7.4 registers a script added with ``app.add_js_file(None, body=...)`` after the builder started
twice: once as ``_JavaScript(None, ...)`` and again, when it prepares writing, as ``_JavaScript('', ...)``;
the two compare unequal, so both reach every page. sphinx-thebe adds ``const THEBE_JS_URL = ...`` that
way, and the second copy is a JavaScript error on every page ("Identifier 'THEBE_JS_URL' has already been
declared"), which tests/test_browser.py reports. This extension drops the repeats, treating a missing
filename and an empty one as the same, just before each page is written.
"""

from __future__ import annotations


def _key(script):
    return (script.filename or "", script.priority, tuple(sorted(script.attributes.items())))


def drop_repeated_scripts(app, pagename, templatename, context, doctree):
    scripts = context.get("script_files")
    if not scripts:
        return
    seen, unique = set(), []
    for script in scripts:
        key = _key(script)
        if key not in seen:
            seen.add(key)
            unique.append(script)
    scripts[:] = unique


def setup(app):
    # late (priority 900): after every extension has added its page-specific scripts (MathJax at 500)
    app.connect("html-page-context", drop_repeated_scripts, priority=900)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
