"""What a reader would notice, checked on the chapter files and the environment, without a browser.

tests/test_reader_page.py checks the built pages in Chromium; the checks here need only the committed
files and run in a second, so that a chapter's author sees these failures first:

- every output line a reader sees fits in ``OUTPUT_WIDTH`` characters (wider lines scroll on the page);
- no output is a Python dict or list-of-tuples repr where a table is meant;
- no visible code cell does glue bookkeeping, and no prose (the comments of shell commands included) talks
  about the test machinery, nor does a docstring that the API page shows;
- a link to a section, figure or exercise of another chapter names that chapter in its sentence;
- citations are roles, as the page needs them: no textual citation (``:cite:t:``) written in parentheses where
  the parenthetical one is meant, no "Peng et al. (2023)" typed in (chapters, docstrings, references.bib's
  notes), authors named in a sentence are cited there with the textual role, and a work named by its name
  ("nanoGPT") or a piece of software the pages name ("PyTorch") is cited where a page first names it;
- a docstring names a chapter by its file alone (the API page shows its title once, linked), and links a
  source text ("Lesson 2.3") to the introduction where its module first names one;
- every chapter of the table of contents' "Chapters" part has learning objectives and a summary, and ends with
  Summary, Exercises and Further reading, in that order and under those names;
- no page title repeats the part of the sidebar it is listed under ("Appendix: ...");
- every letter of a formula, Greek or Latin, is a symbol of the notation page, and so is a capital letter
  that visible code names a value by (``d``, never ``D``);
- a change of prose reaches a notebook without executing it (``tools/build_notebooks.py --markdown-only``);
- the environment that builds the book is pinned whole: requirements.txt includes constraints.txt, and
  constraints.txt pins every installed package at its installed version.
"""

from __future__ import annotations

import functools
import json
import re
import sys
from importlib import metadata
from pathlib import Path

import jupytext
import pytest
import yaml

import booksite

ROOT = booksite.ROOT
NOTEBOOKS = sorted((ROOT / "chapters").glob("*.ipynb"))
OUTPUT_WIDTH = 88  # characters: what a code block of the page shows at 1280 px without scrolling
CODE_WIDTH = OUTPUT_WIDTH  # the same for a line of code a reader sees or unfolds
HIDDEN_INPUT = {"remove-input", "remove-cell"}  # tags whose code a reader never sees (hide-* only folds it)
HIDDEN_OUTPUT = {"remove-output", "remove-cell"}
# A Python repr where a table is meant: a dict (string or integer keys) printed at the start of a line or
# after a label ("totals: {'a': 1}"), a list of tuples or of dicts.
REPR_PATTERNS = {
    "a dict": re.compile(r"(?:^|[\s:=(\[,])\{(?:'[^'\n]*'|\"[^\"\n]*\"|-?\d+): ", re.M),
    "a list of tuples": re.compile(r"\[\('"),
    "a list of dicts": re.compile(r"\[\{'"),
    "a dict view or OrderedDict": re.compile(r"\b(?:dict_(?:items|keys|values)|OrderedDict)\("),
    # an object's repr, "BPE(vocab_size=13067, ...)": its fields belong in a sentence or a table
    "an object repr": re.compile(r"\b[A-Z]\w*\(\w+="),
    # a pair of byte strings, "(b' ', b'C')": show the text they hold
    "a tuple of bytes": re.compile(r"\(b'|\(b\""),
}
# The bookkeeping helper that records a value for the prose: called, imported or named.
GLUE = re.compile(r"\bglue\b")
# Words that belong to the test machinery, not to the book (outside code).
MACHINERY = re.compile(r"\bnbval\b|\bsanitiz\w*|\btests/|\bpytest\b|nbval_sanitize", re.I)
# What prose says of how the book is checked rather than what a reader needs: continuous integration, the
# chapters re-executed and compared with their stored outputs, the runs under several CPU code paths.
PROSE_MACHINERY = re.compile(
    r"(?i:\bcontinuous integration\b|\bcode paths?\b|\bstored outputs?\b|\bre-?execut\w*"
    r"|\bcompared with what the page shows\b)|\bCI\b"
)
OBJECTIVES = re.compile(r"learning objectives", re.I)
SUMMARY = re.compile(r"^(summary|key takeaways)\b", re.I)
# CUDA builds of torch bring these with exact pins of their own; the CPU build has none
PLATFORM_DISTRIBUTIONS = re.compile(r"^(nvidia-|triton$|cuda-)")
NOT_PINNED = {"pip", "setuptools", "wheel", "embeddings-book"}


def _visible_text_outputs(nb_path: Path):
    """(cell index, text) for every text output a reader sees: stdout and text/plain of shown cells."""
    cells = json.loads(nb_path.read_text())["cells"]
    for i, cell in enumerate(cells):
        if cell["cell_type"] != "code" or set(cell.get("metadata", {}).get("tags", [])) & HIDDEN_OUTPUT:
            continue
        for out in cell.get("outputs", []):
            data = out.get("data", {})
            if any(key.startswith("application/papermill.record") for key in data):
                continue  # a glue record: shown through the prose, not as an output
            if out["output_type"] == "stream":
                text = out.get("text", "")
            elif "text/plain" in data and not {"text/markdown", "text/html", "image/png"} & set(data):
                text = data["text/plain"]
            else:
                continue
            yield i, "".join(text) if isinstance(text, list) else text


def _where(nb_path: Path, i: int, text: str) -> str:
    first = next((line for line in text.splitlines() if line.strip()), "")
    return f"{nb_path.name} cell {i} ({first[:60]!r})"


@pytest.mark.parametrize("nb_path", NOTEBOOKS, ids=lambda p: p.stem)
def test_every_output_line_fits_the_page(nb_path):
    wide = []
    for i, text in _visible_text_outputs(nb_path):
        for line in text.splitlines():
            if len(line) > OUTPUT_WIDTH:
                wide.append(f"{nb_path.name} cell {i}: {len(line)} characters: {line[:100]!r}")
    assert wide == [], (
        f"output lines wider than {OUTPUT_WIDTH} characters (print fewer columns, wrap, or make a table):\n"
        + "\n".join(wide)
    )


@pytest.mark.parametrize("nb_path", NOTEBOOKS, ids=lambda p: p.stem)
def test_every_line_of_code_fits_the_page(nb_path):
    wide = []
    for i, cell in enumerate(jupytext.read(nb_path).cells):
        tags = set(cell.metadata.get("tags", []))
        if cell.cell_type == "code" and not tags & HIDDEN_INPUT:
            wide += [f"{nb_path.name} cell {i}: {len(line)} characters: {line[:100]!r}"
                     for line in cell.source.splitlines() if len(line) > CODE_WIDTH]
    assert wide == [], (
        f"lines of code a reader sees (or unfolds) wider than {CODE_WIDTH} characters (break the line, "
        "shorten the comment or move it above):\n" + "\n".join(wide)
    )


def test_repr_patterns_catch_a_dict_anywhere_on_a_line_and_spare_tables():
    def caught(text):
        return sorted(what for what, pattern in REPR_PATTERNS.items() if pattern.search(text))

    assert caught("{'method': 'dense_adam', 'bytes': 409600000}") == ["a dict"]
    assert caught("totals: {'weights': 51200000, 'adam': 102400000}") == ["a dict"]
    assert caught('config = {"lr": 0.1}') == ["a dict"]
    assert caught("labels {0: 'cat', 5: 'truck'}") == ["a dict"]
    assert caught("409.6 MB [('weights', 51200000)]") == ["a list of tuples"]
    assert caught("rows: [{'a': 1}]") == ["a dict", "a list of dicts"]
    assert caught("dict_items([('a', 1)])") == ["a dict view or OrderedDict", "a list of tuples"]
    assert caught("BPE(vocab_size=13067, merges=12811, pattern='GPT-2')") == ["an object repr"]
    assert caught("step 114: book (b' ', b'C') (361 times)") == ["a tuple of bytes"]
    # a table, a set, a format string and a time of day are not reprs of a dict
    assert caught("method      bytes\ndense_adam  409.6 MB") == []
    assert caught("{'cat', 'dog'}  {x:.2f}  at 12: 30") == []
    # a call in prose, a byte count and a merge shown as text are not reprs either
    assert caught("f(x) = 2, 512 B (bytes), step 114: ␣ + C (b = 3)") == []


@pytest.mark.parametrize("nb_path", NOTEBOOKS, ids=lambda p: p.stem)
def test_no_python_repr_where_a_table_is_meant(nb_path):
    found = [f"{_where(nb_path, i, text)} prints {what}"
             for i, text in _visible_text_outputs(nb_path)
             for what, pattern in REPR_PATTERNS.items() if pattern.search(text)]
    assert found == [], "outputs that print a Python repr; show a table (with units) instead:\n" + "\n".join(found)


@pytest.mark.parametrize("nb_path", NOTEBOOKS, ids=lambda p: p.stem)
def test_no_glue_bookkeeping_in_visible_code(nb_path):
    """No code a reader sees (or unfolds) calls, imports or names ``glue``: the values the prose quotes are
    recorded in cells tagged remove-cell, and a visible import of a helper no visible cell uses is noise."""
    found = []
    for i, cell in enumerate(jupytext.read(nb_path).cells):
        tags = set(cell.metadata.get("tags", []))
        if cell.cell_type == "code" and not tags & HIDDEN_INPUT:
            glue = [line.strip() for line in cell.source.splitlines() if GLUE.search(line)]
            if glue:
                found.append(f"{nb_path.name} cell {i}: {len(glue)} lines name glue, first {glue[0][:70]!r}")
    assert found == [], (
        "code a reader can see (or unfold) does glue bookkeeping; move the glue calls and the import of glue "
        "to a cell tagged remove-cell (or into a lib helper):\n" + "\n".join(found)
    )


def test_glue_pattern_catches_an_import_and_a_call_and_spares_other_words():
    assert GLUE.search("from lib.notebook import fmt, glue, show")
    assert GLUE.search('glue("lesson-V", toylang.V)')
    assert GLUE.search("import lib.notebook.glue")
    assert not GLUE.search("glued = 1  # gluey")
    assert not GLUE.search("from lib.notebook import fmt, show")


def _book_sources():
    return [ROOT / f"{name}.md" for name in booksite.toc_docnames() if (ROOT / f"{name}.md").exists()]


def _prose(md_text: str, inline_code: bool = False) -> str:
    """The Markdown of a page without fenced blocks (code cells too), and without inline code unless asked.
    A block leaves its line breaks behind, so that line ``n`` of the result is line ``n`` of the page."""
    text = re.sub(r"^(`{3,}|~{3,}).*?^\1[ \t]*$", lambda m: "\n" * m.group(0).count("\n"), md_text,
                  flags=re.S | re.M)
    return text if inline_code else re.sub(r"`[^`\n]*`", "", text)


# A fenced block of shell commands for the reader to type; its comments are prose the reader reads.
SHELL_BLOCK = re.compile(r"^(`{3,}|~{3,})[ \t]*(?:bash|sh|shell|console|zsh)[ \t]*\n(.*?)^\1[ \t]*$", re.S | re.M)


def _shell_comments(md_text: str) -> dict[int, str]:
    """``{line: comment}`` for each ``# comment`` in a fenced shell block of a page (its line of the page)."""
    found = {}
    for block in SHELL_BLOCK.finditer(md_text):
        first = md_text.count("\n", 0, block.start(2)) + 1
        for n, line in enumerate(block.group(2).splitlines(), first):
            comment = re.search(r"(?:^|\s)#\s*(.*)$", line)
            if comment:
                found[n] = comment.group(1)
    return found


def _machinery_lines(source: Path) -> list[str]:
    """``name:line: text`` for each phrase of prose of ``source`` that names the test machinery (nbval,
    sanitizing, tests/, continuous integration, stored outputs, CPU code paths). The prose is searched with its
    lines joined, so that a phrase broken over two lines is found, and reported at the line it starts on. The
    comments of a shell block are prose too ("make test  # ..."): the command is what the reader types, the
    comment tells them what it does."""
    md_text = source.read_text()
    prose = _prose(md_text, inline_code=True).splitlines()
    for n, comment in _shell_comments(md_text).items():
        prose[n - 1] += " " + comment
    prose = "\n".join(prose)
    text, line_of = [], []  # the prose with every run of blanks one space; line_of[i]: the line of text[i]
    for n, line in enumerate(prose.splitlines(), 1):
        for word in line.split():
            piece = word + " "
            text.append(piece)
            line_of.extend([n] * len(piece))
    joined = "".join(text)
    found = []
    for pattern in (MACHINERY, PROSE_MACHINERY):
        for m in pattern.finditer(joined):
            found.append((line_of[m.start()], joined[max(0, m.start() - 40): m.end() + 40].strip()))
    return [f"{source.name}:{n}: {context}" for n, context in sorted(found)]


def test_prose_machinery_patterns_catch_how_the_book_is_checked_and_spare_its_subject():
    for line in ("re-executed\nin continuous integration", "(executed under several CPU code\n  paths, the book shows it)",
                 "in CI", "every notebook against its stored outputs", "is compared with what the page shows",
                 "checked by nbval", "see tests/test_x.py"):
        assert _hits(MACHINERY, line) or _hits(PROSE_MACHINERY, line), line
    for line in ("one CPU's arithmetic to another's", "running a chapter again prints the same numbers",
                 "the code beside it", "the CIFAR-10 images", "a civic word", "stored values"):
        assert not (_hits(MACHINERY, line) or _hits(PROSE_MACHINERY, line)), line


@pytest.mark.parametrize("source", _book_sources(), ids=lambda p: p.stem)
def test_prose_never_mentions_the_test_machinery(source):
    """Prose (inline code included, fenced code not: a command the reader runs is fine) never tells how the
    book is checked: nbval, sanitizing, tests/, continuous integration, stored outputs, CPU code paths."""
    lines = _machinery_lines(source)
    assert lines == [], "prose that talks about the test machinery (nbval, CI, stored outputs, code paths):\n" + "\n".join(lines)


def test_machinery_in_prose_is_reported_at_its_line_of_the_page(tmp_path):
    """A chapter with code cells before the sentence: the report names the sentence's own line."""
    source = next(s for s in _book_sources() if s.read_text().count("```{code-cell}") >= 3)
    lines = source.read_text().splitlines()
    last_fence = max(i for i, line in enumerate(lines) if line.startswith("```"))
    lines.insert(last_fence + 1, "Every number here is checked by nbval.")
    mutated = tmp_path / source.name
    mutated.write_text("\n".join(lines) + "\n")
    (found,) = _machinery_lines(mutated)
    assert found.startswith(f"{source.name}:{last_fence + 2}: ") and "checked by nbval" in found, found


def test_machinery_in_a_shell_comment_is_reported_and_the_command_is_not(tmp_path):
    """A comment in a block of commands is prose the reader reads; the command itself is what they type."""
    page = tmp_path / "page.md"
    page.write_text("# Page\n\nRun it:\n\n```bash\nmake book\nmake test   # every notebook against its stored outputs\n"
                    "pytest --nbval chapters/\n```\n\n```python\nx = 1  # stored outputs\n```\n")
    (found,) = _machinery_lines(page)
    assert found.startswith("page.md:7: ") and "stored outputs" in found, found
    page.write_text(page.read_text().replace("every notebook against its stored outputs", "checks the book"))
    assert _machinery_lines(page) == []


def _api_modules() -> list[str]:
    """The modules whose docstrings the API page shows (its ``automodule`` directives)."""
    return re.findall(r"^\.\. automodule:: ([\w.]+)", (ROOT / "api.md").read_text(), re.M)


def _rendered_docstrings(module: str):
    """(where, text) of every docstring autodoc can show for ``module``: the module's, its classes' and
    functions' (methods too), and the ``#:`` comments that document its attributes."""
    import ast

    path = ROOT / (module.replace(".", "/") + ".py")
    if not path.exists():
        path = ROOT / module.replace(".", "/") / "__init__.py"
    source = path.read_text()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
            doc = ast.get_docstring(node, clean=False)
            if doc:
                yield f"{module}.{getattr(node, 'name', '')}".rstrip("."), doc
    for number, line in enumerate(source.splitlines(), 1):
        if line.strip().startswith("#:"):
            yield f"{path.relative_to(ROOT)}:{number}", line


# What a docstring says of the test machinery beyond the words prose never uses (MACHINERY): the commands, CI,
# the tests as the holder of a guarantee. A doctest flag (``# doctest: +ELLIPSIS``) is not shown on the page.
DOCSTRING_MACHINERY = re.compile(
    r"\bCI\b|\bmake test(?:-unit)?\b|\btest-unit\b|\btools/codepaths\.py\b|\bthe tests\b|\btests of\b"
    r"|\ba test checks\b|\bunit tests?\b|\bbaseline (?:test|image|comparison)s?\b|\bdoctests?\b(?!:)"
    r"|\bthe book's tests\b|\btests run it\b|\(plain Python, tests\)|\bMyST-NB#\d+|\bCONTRIBUTING\.md\b"
    r"|\bsee the Makefile\b|\bcompared with its stored outputs\b|\bcompared on\b|\bfigure registry\b"
    # the switch of the record of rounding margins, and the log it writes (a comment in the code names them)
    r"|\bEMBOOK_NUMBER_LOG\b|\bnumber log\b"
    # what the notebooks are compared on: their stored outputs, myst-nb's glue records, what a re-run must
    # reproduce (a docstring says what a reader sees: the same digits when they run a chapter)
    r"|\bstored outputs?\b|\bglue records?\b|\bmust reproduce\b|\bre-?executed notebooks?\b"
)
# Another chapter or a source text named by its kind ("the lesson", "the chapter's source"): the same phrases
# as on the book's pages (tests/test_reader_page.py)
CHAPTER_KIND = re.compile(f"{booksite.CHAPTER_PHRASES}|{booksite.SOURCE_PHRASE}", re.I)


def _hits(pattern: re.Pattern, doc: str) -> list[str]:
    """Each match of ``pattern`` in ``doc`` (its lines joined, so that a phrase broken over two lines is found),
    with the words around it."""
    text = " ".join(doc.split())
    return [text[max(0, m.start() - 40): m.end() + 40] for m in pattern.finditer(text)]


def test_docstring_patterns_catch_machinery_and_chapter_kinds_and_spare_names():
    for line in ("nothing in CI.", "the tests check that the two agree", "(not under ``make test-unit``)",
                 "a worked example that runs as a doctest", "(the figure registry, the baseline test)",
                 "``tools/codepaths.py`` sets it", "checked by nbval", "see tests/test_x.py",
                 "(the book's tests check that)", "(plain Python, tests)", "format specs (MyST-NB#610)",
                 "(CONTRIBUTING.md, \"Numbers\")", "(see the Makefile)", "the book's tests run it on CPU",
                 "a re-executed chapter is compared with its stored outputs", "the figure's baseline comparison",
                 "with no argument (the figure registry)", "what a re-executed chapter is compared on",
                 "logs every number when ``EMBOOK_NUMBER_LOG`` is set", "so that the number log shows it",
                 "so that none reaches the stored outputs\n    of a notebook", "myst-nb stores as the glue record's",
                 "the text a re-run of the chapter must reproduce", "problems of comparing re-executed notebooks"):
        assert _hits(MACHINERY, line) or _hits(DOCSTRING_MACHINERY, line), line
    for line in (">>> f(10**400)  # doctest: +ELLIPSIS", "CIFAR-10", "a test split of 10 %", "the latest run",
                 "the text that myst-nb puts into the prose", "a re-run may print other values",
                 "a reader who runs a chapter sees the numbers of its page", "stored values"):
        assert not (_hits(MACHINERY, line) or _hits(DOCSTRING_MACHINERY, line)), line
    for line in ("the numbers the lesson\n    reports", "Departure from the lesson: its fallback", "the lesson's table",
                 "(the chapter's source)", "the four-level chapter, Level 4", "the trace exercise's angles",
                 "the real-text chapter's corpus", "Used by the appendix page"):
        assert _hits(CHAPTER_KIND, line), line
    for line in ("the numbers Lesson 2.3 reports", "Taught in: chapters/lesson.md", "the textbook chapter *Embeddings*",
                 "lessons of a course", "the chapter's settings"):
        assert not _hits(CHAPTER_KIND, line), line


@pytest.mark.parametrize("module", _api_modules())
def test_docstrings_on_the_api_page_never_mention_the_test_machinery(module):
    """The API page is a page of the book: what its docstrings say follows the rule for prose. A docstring
    states what is guaranteed ("reproduces them to four decimals"); a comment in the code may name the test
    that holds it."""
    found = [f"{where}: ...{hit}..." for where, doc in _rendered_docstrings(module)
             for pattern in (MACHINERY, DOCSTRING_MACHINERY) for hit in _hits(pattern, doc)]
    assert found == [], "docstrings the API page shows talk about the test machinery:\n" + "\n".join(found)


@pytest.mark.parametrize("module", _api_modules())
def test_docstrings_on_the_api_page_name_the_chapters_and_texts_they_mean(module):
    """As prose does (CONTRIBUTING.md, "A chapter, cell by cell", item 3): a chapter of the book by its file,
    ``chapters/lesson.md`` (the API page shows its title, linked), a source text by the name the introduction
    gives it ("Lesson 2.3", the textbook chapter *Embeddings*), never "the lesson" or "the chapter's source"."""
    found = [f"{where}: ...{hit}..." for where, doc in _rendered_docstrings(module) for hit in _hits(CHAPTER_KIND, doc)]
    assert found == [], "docstrings the API page shows name a chapter or a source text by its kind:\n" + "\n".join(found)


# ----------------------------------------------------------------------------------------------------
# citations, chapters and source texts as the sources write them (the built pages: tests/test_reader_page.py)

TEXTUAL_IN_PARENTHESES = re.compile(booksite.TEXTUAL_CITATION_IN_PARENTHESES)
PARENTHETICAL_AS_SUBJECT = re.compile(booksite.PARENTHETICAL_CITATION_AS_SUBJECT)
PLAIN_CITATION = re.compile(booksite.PLAIN_CITATION)
QUOTED_CHAPTER = re.compile(booksite.QUOTED_CHAPTER)
DOCSTRING_SOURCE = re.compile(booksite.DOCSTRING_SOURCE_MENTION)
# a reST role or a MyST one with its target, ":cite:p:`k{§2}`", "{cite}`k`", ":func:`f`": no typed citation
ROLE = re.compile(r"(?::[\w:]+:|\{[\w:-]+\})`[^`]*`")
BIB_PROSE_FIELDS = ("note", "howpublished", "annote", "addendum")


def _lib_sources() -> list[Path]:
    return sorted((ROOT / "lib").rglob("*.py"))


def _docstrings_in_page_order(path: Path) -> list[tuple[str, str]]:
    """``(where, text)`` of what autodoc shows of a module, in the order of the page (``bysource``): the
    module's docstring, its public classes' and functions' (methods too), and each block of ``#:`` comments
    (the lines of one constant's comment joined)."""
    import ast

    source = path.read_text()
    name = str(path.relative_to(ROOT))
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
            if getattr(node, "name", "").startswith("_"):
                continue
            doc = ast.get_docstring(node, clean=False)
            if doc:
                found.append((getattr(node, "lineno", 0), f"{name}:{getattr(node, 'lineno', 1)}", doc))
    block, start = [], 0
    for number, line in enumerate(source.splitlines() + [""], 1):
        if line.strip().startswith("#:"):
            start = start or number
            block.append(line.strip()[2:])
        elif block:
            found.append((start, f"{name}:{start}", "\n".join(block)))
            block, start = [], 0
    return [(where, text) for _, where, text in sorted(found, key=lambda f: f[0])]


def _joined(text: str) -> str:
    return " ".join(text.split())


def _page_texts() -> list[tuple[str, str]]:
    """``(where, text)`` of every source of a page a reader reads: each book page's prose (with its roles,
    without fenced code), and each docstring of ``lib`` that autodoc can show."""
    return [item for path in _book_sources() + _lib_sources() for item in _texts_of(path)]


def _bib_prose() -> list[tuple[str, str]]:
    """``(key.field, text)`` of the fields of references.bib that the bibliography prints as sentences."""
    from pybtex.database import parse_file

    entries = parse_file(str(ROOT / "references.bib")).entries
    return [(f"{key}.{field}", value) for key, entry in entries.items()
            for field, value in entry.fields.items() if field.lower() in BIB_PROSE_FIELDS]


def _typed_citations(text: str) -> list[str]:
    """Author-year citations typed as text in ``text`` (roles and inline code left out)."""
    bare = re.sub(r"``[^`]*``|`[^`\n]*`", " ", ROLE.sub(" ", text))
    return [m.group(0) for m in PLAIN_CITATION.finditer(_joined(bare))]


def _first_mentions(texts: list[tuple[str, str]], name: str):
    """``(where, the text from the first mention of name on)`` in ``texts`` (one page's, in page order)."""
    for where, text in texts:
        # inline code (``nanoGPT``, a name in code) is no mention: masked, keeping every other character in place
        bare = _joined(re.sub(r"``[^`]*``", lambda m: re.sub(r"\S", "#", m.group(0)), text))
        match = re.search(rf"\b{re.escape(name)}\b", bare)
        if match:
            return where, _joined(text)[match.start():]
    return None


def test_citation_patterns_catch_typed_and_misplaced_citations_and_spare_roles():
    for line in ("GPT-2's layout (:cite:t:`radford2019language`)", "(:cite:t:`vaswani2017attention`, §3.5)",
                 "(the rule; :cite:t:`mikolov2013efficient`, §4.1)", "(WordSim-353, :cite:t:`finkelstein2002placing`)",
                 "(the symbol of ZeRO, {cite:t}`rajbhandari2020zero`)", "( {cite:t}`su2021roformer` )"):
        assert TEXTUAL_IN_PARENTHESES.search(_joined(line)), line
    for line in ("GPT-2's layout :cite:p:`radford2019language`", ":cite:p:`vaswani2017attention{§3.5}`",
                 "(:cite:t:`ethayarajh2019contextual` measured high values)", "as :cite:t:`levy2015improving` do",
                 "examined by {cite:t}`bolukbasi2016bias` and {cite:t}`gonen2019debiasing`."):
        assert not TEXTUAL_IN_PARENTHESES.search(_joined(line)), line
    for line in ("- {cite}`su2021roformer` introduces RoPE.", "in a forum post; {cite}`peng2023yarn` analyses it",
                 "the same. {cite}`haviv2022transformer` found", ":cite:p:`vose1991linear` gives the method"):
        assert PARENTHETICAL_AS_SUBJECT.search(_joined(line)), line
    for line in ("- {cite:t}`su2021roformer` introduces RoPE.", "the original transformer {cite}`vaswani2017attention` uses",
                 "the count that ZeRO\n{cite}`rajbhandari2020zero` gives", "fits {cite}`levy2015improving`. All can"):
        assert not PARENTHETICAL_AS_SUBJECT.search(_joined(line)), line
    for line in ("cited by Peng et al. (2023) as the source", "(Mikolov et al. 2013b)", "Press and Wolf (2017)",
                 "Levy, Goldberg & Dagan 2015", "Rabiner 1989"):
        assert _typed_citations(line), line
    for line in (":cite:p:`mikolov2013negative{§2.3}`", "``lee_background.cor`` of 2001", "Lesson 2.3",
                 "{cite}`peng2023yarn`", "the YaRN paper"):
        assert not _typed_citations(line), line
    texts = [("a", "Follows ``nanoGPT`` code."), ("b", "as nanoGPT :cite:p:`karpathy2022nanogpt` does")]
    assert _first_mentions(texts, "nanoGPT") == ("b", "nanoGPT :cite:p:`karpathy2022nanogpt` does")


def _texts_of(path: Path) -> list[tuple[str, str]]:
    """What a reader reads of one source: a book page's prose, or a module's docstrings."""
    if path.suffix == ".md":
        return [(path.name, _prose(path.read_text(), inline_code=True))]
    return _docstrings_in_page_order(path)


@pytest.mark.parametrize("path", _book_sources() + _lib_sources(), ids=lambda p: str(p.relative_to(ROOT)))
def test_each_citation_role_fits_its_place(path):
    """A citation in parentheses is the parenthetical one, ``{cite}``/``:cite:p:`` ("[Radford et al., 2019]",
    with a section as post-text: ``:cite:p:`vaswani2017attention{§3.5}```), never ``{cite:t}``/``:cite:t:``
    written in parentheses, which reads "(Radford et al. [2019])"; and a citation whose authors are the subject
    of a sentence is the textual one ("Su et al. [2021] introduces RoPE", never "[Su et al., 2021] introduces")."""
    found = [f"{where}: {what} {m.group(0).strip()!r}" for where, text in _texts_of(path)
             for what, pattern in (("textual in parentheses:", TEXTUAL_IN_PARENTHESES),
                                   ("parenthetical as a subject:", PARENTHETICAL_AS_SUBJECT))
             for m in pattern.finditer(_joined(text))]
    assert found == [], ("citations in the wrong form (in parentheses :cite:p: / {cite}; as a subject :cite:t: / "
                         "{cite:t}):\n" + "\n".join(found))


# A parenthetical citation, {cite}`k` / {cite:p}`k` / :cite:p:`k`, and the keys it cites ("k1,k2", "k{§2}").
PARENTHETICAL_ROLE = re.compile(r"(?:\{cite(?::p)?\}|:cite:p:)`([^`]+)`")
# Where a sentence ends: ". " before a capital, a role or a formula, but not after "et al." or "e.g.".
SENTENCE_END = re.compile(r"(?<!\bal)(?<!\be\.g)(?<!\bi\.e)(?<!\bcf)(?<!\bvs)[.!?]\s+(?=[A-Z{:$*_(\[`])")


def _sentences(text: str) -> list[str]:
    """The sentences of a page's prose or a docstring, each with its blanks squashed: a paragraph, a heading
    and a list item end one too."""
    sentences = []
    for block in re.split(r"\n\s*\n|^#+\s.*$|\n(?=\s*[-*]\s)", text, flags=re.M):
        block = _joined(block)
        ends = [0] + [m.end() for m in SENTENCE_END.finditer(block)] + [len(block)]
        sentences += [block[start:end] for start, end in zip(ends, ends[1:]) if block[start:end].strip()]
    return sentences


@functools.lru_cache(maxsize=None)
def _cited_authors() -> dict[str, str]:
    """``{key: authors as a citation names them}`` ("Mikolov et al.", "Gonen and Goldberg", "Firth"), for the
    works of people: an organisation that is its work's author ("Hugging Face") also names what it makes
    ("Hugging Face ``tokenizers``"), and that name is not a citation."""
    from pybtex.database import parse_file

    sys.path.insert(0, str(ROOT / "_ext"))
    import bibstyle

    entries = parse_file(str(ROOT / "references.bib")).entries
    return {key: bibstyle._authors(entry) for key, entry in entries.items()
            if entry.persons.get("author") and entry.persons["author"][0].first_names}


def _authors_beside_their_parenthetical_citation(text: str, authors: dict[str, str]) -> list[str]:
    """The sentences of ``text`` that name a work's authors as text ("Mikolov et al. discard ...") and cite that
    work in parentheses, ``{cite}`mikolov2013negative``` ("... [Mikolov et al., 2013b]"): the authors are part of
    the sentence, so the textual citation is meant, ``{cite:t}`` ("Mikolov et al. [2013b] discard ..."). A name
    in the possessive names a thing after its authors ("Zipf's law") and is left alone."""
    found = []
    for sentence in _sentences(text):
        bare = re.sub(r"``[^`]*``|`[^`\n]*`", " ", ROLE.sub(" ", sentence))
        for role in PARENTHETICAL_ROLE.finditer(sentence):
            for key in (re.sub(r"\{.*?\}", "", k).strip() for k in role.group(1).split(",")):
                name = authors.get(key)
                if name and re.search(rf"\b{re.escape(name)}(?!['’]s\b)(?![\w'’])", bare):
                    found.append(f"{name} ... {role.group(0)}: {sentence[:110]!r}")
    return found


def test_author_subject_rule_catches_named_authors_and_spares_textual_citations():
    authors = {"m13": "Mikolov et al.", "g19": "Gonen and Goldberg", "z49": "Zipf", "f57": "Firth"}
    for line in ("Mikolov et al. discard each occurrence with probability p {cite}`m13`, so it is kept.",
                 "the gain in quality that Mikolov et al.\nreport for subsampling {cite}`m13`.",
                 "not a remedy: Gonen and Goldberg found it recoverable {cite}`g19`. An audit has to look.",
                 "as Firth put it :cite:p:`f57{p. 11}`", "Mikolov et al. introduced it {cite:p}`a,m13`."):
        assert _authors_beside_their_parenthetical_citation(line, authors), line
    for line in ("{cite:t}`m13` discard each occurrence with probability p, so it is kept.",
                 "Mikolov et al. discard it. The rule is older {cite}`f57`.",  # another sentence, another work
                 "Zipf's law {cite}`z49` holds", "as :cite:t:`g19` found", "the skip-gram model {cite}`m13`",
                 "## After Mikolov et al.\nThe rule {cite}`m13` is older.",  # a heading ends a sentence
                 "- Mikolov et al. wrote it\n- the subsampling {cite}`m13`"):  # so does a list item
        assert not _authors_beside_their_parenthetical_citation(line, authors), line


@pytest.mark.parametrize("path", _book_sources() + _lib_sources(), ids=lambda p: str(p.relative_to(ROOT)))
def test_authors_named_in_a_sentence_are_cited_textually(path):
    """Where the authors of a work are part of the sentence ("Mikolov et al. discard ..."), the sentence cites
    them with the textual role, ``{cite:t}`` / ``:cite:t:`` ("Mikolov et al. [2013b] discard ..."), not with
    the parenthetical one at its end, which names them twice ("... [Mikolov et al., 2013b]")."""
    authors = _cited_authors()
    found = [f"{where}: {hit}" for where, text in _texts_of(path)
             for hit in _authors_beside_their_parenthetical_citation(text, authors)]
    assert found == [], ("authors named as part of a sentence that cites them in parentheses (use {cite:t} / "
                         ":cite:t: where the authors are named):\n" + "\n".join(found))


def test_no_citation_typed_as_text_in_the_sources():
    """Every source a page is made of cites with a role, never "Peng et al. (2023)" typed in: chapter prose,
    the docstrings the API page shows, and the sentences of references.bib (its notes), which the
    bibliography prints as they are."""
    found = [f"{where}: {hit!r}" for where, text in _page_texts() + _bib_prose() for hit in _typed_citations(text)]
    assert found == [], "citations typed as text (cite with {cite} / :cite:p: / :cite:t:):\n" + "\n".join(found)


def _pages_of_the_book(api_as_one_page: bool = False) -> dict[str, list[tuple[str, str]]]:
    """``{page: [(where, text), ...]}``: each book page's prose, and the API page's docstrings module by module
    (a section of the page each, or all of them as one page), in the page's order."""
    pages = {source.name: [(source.name, _prose(source.read_text(), inline_code=True))] for source in _book_sources()}
    for module in _api_modules():
        path = ROOT / (module.replace(".", "/") + ".py")
        path = path if path.exists() else ROOT / module.replace(".", "/") / "__init__.py"
        pages.setdefault("api.md" if api_as_one_page else f"api.md ({module})", []).extend(_docstrings_in_page_order(path))
    return pages


@pytest.mark.parametrize("work", sorted(booksite.NAMED_WORKS) + sorted(booksite.NAMED_SOFTWARE))
def test_a_work_named_by_its_name_is_cited_where_a_page_first_names_it(work):
    """"nanoGPT" has authors and a year like any work: where a page (or a module of the API page) first names
    it, a citation of it follows within the sentence. So has the software the pages name ("PyTorch", "gensim"),
    cited where a page first names it (the API page read as one page)."""
    software = work in booksite.NAMED_SOFTWARE
    key = booksite.NAMED_SOFTWARE[work] if software else booksite.NAMED_WORKS[work]
    missing = []
    for page, texts in _pages_of_the_book(api_as_one_page=software).items():
        first = _first_mentions(texts, work)
        if first and not re.match(rf"[^.]{{0,80}}?(?::cite:[pt]:|\{{cite(?::[pt])?\}})`[^`]*\b{key}\b",
                                  first[1][len(work):]):
            missing.append(f"{first[0]}: {first[1][:100]!r}")
    assert missing == [], f"pages that first name {work} without citing {key}:\n" + "\n".join(missing)


@pytest.mark.parametrize("module", _api_modules())
def test_docstrings_name_a_chapter_by_its_file_alone(module):
    """A docstring names a chapter by its file, ``chapters/embeddings.md``, which the API page shows as the
    chapter's title, linked: a title typed in quotes beside it reads twice ("The chapter “Embeddings”
    (Embeddings)"), and a title typed alone ('the four-level "Embeddings" chapter') is not linked."""
    found = [f"{where}: ...{hit}..." for where, doc in _rendered_docstrings(module) for hit in _hits(QUOTED_CHAPTER, doc)]
    assert found == [], "docstrings that type a chapter's title in quotes:\n" + "\n".join(found)


@pytest.mark.parametrize("module", _api_modules())
def test_docstrings_link_a_source_text_where_a_module_first_names_it(module):
    """"Lesson 2.3" and "the textbook chapter *Embeddings*" have no author or publication to cite: where a
    module of the API page first names one, it links to the introduction's account of those texts
    (``:ref:`Lesson 2.3 <sources>```), as a chapter does where it first names one."""
    path = ROOT / (module.replace(".", "/") + ".py")
    path = path if path.exists() else ROOT / module.replace(".", "/") / "__init__.py"
    for where, doc in _docstrings_in_page_order(path):
        text = _joined(doc)
        match = DOCSTRING_SOURCE.search(text)
        if match:
            refs = [m.span() for m in re.finditer(rf":ref:`[^`]*<{booksite.SOURCES_ANCHOR}>`", text)]
            assert any(start <= match.start() < end for start, end in refs), (
                f"{where}: {module} first names a source text without linking it to the introduction "
                f"(:ref:`... <{booksite.SOURCES_ANCHOR}>`): ...{text[max(0, match.start() - 40): match.end() + 40]}...")
            return


def test_docstring_chapter_and_source_patterns_catch_the_old_ways():
    assert _hits(QUOTED_CHAPTER, 'The chapter "Embeddings" (chapters/embeddings.md): its corpus')
    assert _hits(QUOTED_CHAPTER, 'Figures of the four-level "Embeddings" chapter (chapters/embeddings.md).')
    assert _hits(QUOTED_CHAPTER, 'the principal component of the chapter "Positions in a trained model")')
    assert not _hits(QUOTED_CHAPTER, "The chapter chapters/embeddings.md: its corpus")
    assert not _hits(QUOTED_CHAPTER, 'the "eigenvalue weighting" of the paper, chapter 3')
    assert DOCSTRING_SOURCE.search("the numbers Lesson 2.3 reports")
    assert DOCSTRING_SOURCE.search("as the textbook chapter *Embeddings* counts")


# ----------------------------------------------------------------------------------------------------
# a link into another page names that page

# The targets a page defines: a label before a heading, an exercise's or an equation's label, a figure's name.
TARGET = re.compile(r"^\((?P<label>[\w-]+)\)=\s*$|^:label:\s*(?P<directive>[\w-]+)\s*$|^\s*name:\s*(?P<figure>[\w-]+)\s*$",
                    re.M)
# A role that links to one of them: {ref}`label`, {ref}`text <label>`, {numref}`label`, {eq}`label`.
SECTION_LINK = re.compile(r"\{(?:ref|numref|eq)\}`(?:(?P<text>[^`<]*?)\s*<)?(?P<label>[\w-]+)>?`")
# The one section the pages link to by what it holds (CONTRIBUTING.md, item 3): the introduction's account of
# the source texts, "{ref}`the texts the book was written from <sources>`", which names no chapter.
NAMED_BY_CONTENT = {booksite.SOURCES_ANCHOR}


def _targets(md_text: str) -> tuple[set[str], str | None]:
    """The link targets a page defines, and its title's label (the label right above its ``#`` heading)."""
    targets = {next(v for v in m.groupdict().values() if v) for m in TARGET.finditer(md_text)}
    title = re.search(r"^\(([\w-]+)\)=\s*\n+#\s", md_text, re.M)
    return targets, title and title.group(1)


def _foreign_section_links(pages: dict[str, str]) -> list[str]:
    """``page: link`` for each link of a page's prose to a section, figure, exercise or equation of another page
    that does not name that page in its sentence: a ``{doc}`` link to it, a ``{ref}`` to its title's label, or
    link text holding its title ("the section {ref}`lesson-one-hot` of {doc}`lesson`"). ``pages`` maps a
    docname (``chapters/lesson``) to its Markdown."""
    owner, titles, names = {}, {}, {}
    for docname, text in pages.items():
        targets, title = _targets(text)
        for target in targets:
            owner[target] = docname
        titles[docname] = title
        names[docname] = re.search(r"^#\s+(.+?)\s*$", _prose(text, inline_code=True), re.M).group(1)
    found = []
    for docname, text in pages.items():
        prose = _joined(_prose(text, inline_code=True))
        for m in SECTION_LINK.finditer(prose):
            label, there = m.group("label"), owner.get(m.group("label"))
            if there is None or there == docname or label == titles[there] or label in NAMED_BY_CONTENT:
                continue
            start = max(prose.rfind(". ", 0, m.start()), prose.rfind("\n", 0, m.start())) + 1
            end = prose.find(". ", m.end())
            sentence = prose[start: len(prose) if end < 0 else end]
            stem = there.rsplit("/", 1)[-1]
            doc = rf"\{{doc\}}`(?:[^`<]*<)?(?:/|\.\./)?(?:chapters/)?{re.escape(stem)}>?`"
            ref = rf"\{{ref\}}`(?:[^`<]*<)?{re.escape(titles[there] or '-')}>?`"
            if not (re.search(doc, sentence) or re.search(ref, sentence)
                    or names[there].lower() in (m.group("text") or "").lower()):
                found.append(f"{docname}: {m.group(0)} (in {there}): ...{sentence[:120]}...")
    return found


def _book_pages() -> dict[str, str]:
    return {name: (ROOT / f"{name}.md").read_text() for name in booksite.toc_docnames() if (ROOT / f"{name}.md").exists()}


def test_every_link_into_another_page_names_that_page():
    """A link to a section (or figure, exercise, equation) of another chapter names that chapter in its
    sentence ("the section {ref}`lesson-one-hot` of {doc}`lesson`"): a section's title alone does not tell the
    reader that the link leaves the page."""
    found = _foreign_section_links(_book_pages())
    assert found == [], ("links into another page that do not name it (add \"of {doc}`chapters/x`\" or name the "
                         "chapter in the sentence):\n" + "\n".join(found))


def test_foreign_link_rule_catches_a_bare_section_link_and_spares_named_ones():
    pages = {"chapters/a": "(a)=\n# Alpha\n\n(a-sec)=\n## Part\n\ntext\n",
             "chapters/b": "(b)=\n# Beta\n\n(b-sec)=\n## Here\n\nSee {ref}`b-sec`.\n"}

    def found(sentence):
        return _foreign_section_links({**pages, "chapters/b": pages["chapters/b"] + sentence + "\n"})

    assert found("As {ref}`a-sec` shows, it is so.")
    assert found("It is so ({numref}`a-sec`). And {doc}`a` is a page.")  # the page named in another sentence
    assert not found("As the section {ref}`a-sec` of {doc}`a` shows, it is so.")
    assert not found("{doc}`chapters/a` carries it out in {ref}`a-sec`.")
    assert not found("As {ref}`a` shows in {ref}`a-sec`, it is so.")
    assert not found("As {ref}`Part of Alpha <a-sec>` shows, it is so.")
    assert not found("As {ref}`a` shows, and {ref}`the texts <sources>`, it is so.")


GREEK = ("alpha|beta|gamma|delta|epsilon|varepsilon|zeta|eta|theta|vartheta|iota|kappa|lambda|mu|nu|xi|pi|rho|"
         "sigma|tau|upsilon|phi|varphi|chi|psi|omega|Gamma|Delta|Theta|Lambda|Xi|Pi|Sigma|Upsilon|Phi|Psi|Omega|ell")


def _maths(md_text: str) -> list[str]:
    """The TeX of every formula of a MyST page, inline (``$...$``) and display (``$$...$$``, ``{math}``)."""
    text = re.sub(r"^(`{3,}|~{3,})(?!\{math\}).*?^\1\s*$", "", md_text, flags=re.S | re.M)
    found = re.findall(r"\$\$(.+?)\$\$", text, re.S)
    text = re.sub(r"\$\$(.+?)\$\$", "", text, flags=re.S)
    return found + re.findall(r"(?<![\\$])\$([^$\n]+?)\$", text)


def _symbols(tex: str) -> set[str]:
    """The Greek letters (``\\alpha``) and the Latin letters standing alone, capital (``E``, ``U``) or not
    (``d``, the ``n`` of ``n_i``), of a formula: the symbols a reader looks up. Words in ``\\mathrm{}``,
    ``\\text{}`` or ``\\operatorname{}`` are not symbols, nor are the names of functions (``\\log``)."""
    tex = re.sub(r"\\(?:mathrm|operatorname|text|textrm|textit|mathit|mathbf|begin|end)\s*\{[^{}]*\}", " ", tex)
    greek = {f"\\{g}" for g in re.findall(rf"\\({GREEK})(?![A-Za-z])", tex)}
    tex = re.sub(r"\\[A-Za-z]+", " ", tex)
    return greek | set(re.findall(r"(?<![A-Za-z])([A-Za-z])(?![A-Za-z])", tex))


@pytest.mark.parametrize("source", [s for s in _book_sources() if s.stem != "notation"], ids=lambda p: p.stem)
def test_every_symbol_is_on_the_notation_page(source):
    """A Greek letter or a Latin letter in a formula is a symbol the notation page lists (with the meaning the
    page gives it): a new symbol is added there first, so that one symbol keeps one meaning."""
    listed = set().union(*map(_symbols, _maths((ROOT / "notation.md").read_text())))
    used = {}
    for formula in _maths(source.read_text()):
        for symbol in _symbols(formula) - listed:
            used.setdefault(symbol, formula.strip()[:60])
    assert used == {}, f"{source.name}: symbols that notation.md does not list: {used}"


def _visible_code_names(nb_path: Path):
    """(cell index, name) of every name a reader sees bound in a chapter's visible code: assignment and loop
    targets, and keyword arguments (``compare_steps(V=..., d=64)``)."""
    import ast

    for i, cell in enumerate(jupytext.read(nb_path).cells):
        if cell.cell_type != "code" or set(cell.metadata.get("tags", [])) & HIDDEN_INPUT:
            continue
        source = "\n".join(line for line in cell.source.splitlines() if not line.lstrip().startswith(("%", "!")))
        for node in ast.walk(ast.parse(source)):
            if isinstance(node, ast.keyword) and node.arg:
                yield i, node.arg
            elif isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
                yield i, node.id


@pytest.mark.parametrize("nb_path", NOTEBOOKS, ids=lambda p: p.stem)
def test_capital_letters_in_code_are_symbols_of_the_notation_page(nb_path):
    """A capital letter the code names a value by (``E = ...``, ``compare_steps(V=..., d=64)``) is a symbol
    of the notation page, as it is in a formula: the width is ``d`` in code as in the text, never ``D``."""
    listed = set().union(*map(_symbols, _maths((ROOT / "notation.md").read_text())))
    found = sorted({f"{nb_path.name} cell {i}: {name}" for i, name in _visible_code_names(nb_path)
                    if re.fullmatch(r"[A-Z]", name) and name not in listed})
    assert found == [], ("capital letters in the code a reader sees that notation.md does not list (use the page's "
                         "symbol, or a word):\n" + "\n".join(found))


def _chapters_part() -> list[str]:
    """Docnames of the table of contents' "Chapters" part (the appendices are not chapters)."""
    toc = yaml.safe_load((ROOT / "_toc.yml").read_text())
    parts = [p for p in toc.get("parts", []) if p.get("caption", "").lower() == "chapters"]
    assert parts, "_toc.yml has no part captioned 'Chapters'"
    return [re.sub(r"\.(md|ipynb)$", "", c["file"]) for c in parts[0]["chapters"]]


def _headings_and_admonitions(md_text: str) -> list[str]:
    """Section headings below the title, and admonition titles, of a MyST page."""
    headings = re.findall(r"^#{2,6}\s+(.+?)\s*$", _prose(md_text), re.M)
    titles = re.findall(r"^[:`]{3,}\{admonition\}\s*(.+?)\s*$", md_text, re.M)
    return headings + titles


@pytest.mark.parametrize("docname", _chapters_part())
def test_every_chapter_has_learning_objectives_and_a_summary(docname):
    titles = _headings_and_admonitions((ROOT / f"{docname}.md").read_text())
    assert any(OBJECTIVES.search(t) for t in titles), (
        f"{docname}: no 'Learning objectives' section (a heading or an admonition of that title); "
        f"headings: {titles}"
    )
    assert any(SUMMARY.search(t) for t in titles), f"{docname}: no 'Summary' (or 'Key takeaways') section"


# The end of a chapter: one order and one name for each part (CONTRIBUTING.md, "A chapter, cell by cell").
CLOSING = ("Summary", "Exercises", "Further reading")
# Other names a chapter might give one of them: a summary, a set of exercises, a reading list.
CLOSING_KINDS = {
    "Summary": re.compile(r"(?i)^(?:summary|key (?:takeaways|points)|recap|in short|conclusions?)\b"),
    "Exercises": re.compile(r"(?i)^(?:exercises?|check yourself|try (?:this|it)|problems|questions|practice)\b"),
    "Further reading": re.compile(r"(?i)^(?:further reading|read(?:ing)? (?:more|next|list)|references|"
                                  r"bibliography|see also)\b"),
}


def _closing_problems(md_text: str) -> list[str]:
    """What is wrong with the end of a chapter: its ``##`` sections must run Summary, Exercises and (if the
    chapter has a reading list) Further reading, one after another, under exactly those names; a note on a
    source text may follow them."""
    heads = re.findall(r"^##\s+(.+?)\s*$", _prose(md_text, inline_code=True), re.M)
    problems = [f"{h!r} should be named {name!r}" for h in heads for name, kind in CLOSING_KINDS.items()
                if kind.match(h) and h != name]
    for name in CLOSING[:2]:
        if heads.count(name) != 1:
            problems.append(f"{heads.count(name)} sections named {name!r} (one expected)")
    if not problems:
        start = heads.index("Summary")
        expected = [name for name in CLOSING if name in heads]
        if heads[start:start + len(expected)] != expected:
            problems.append(f"the sections from Summary on run {heads[start:start + len(expected)]}, not {expected}")
    return problems


def test_closing_rule_catches_another_order_and_another_name():
    def md(*heads):
        return "# T\n\n## Learning objectives\n\n## Idea\n\n" + "".join(f"## {h}\n\ntext\n\n" for h in heads)

    assert _closing_problems(md("Summary", "Exercises", "Further reading", "The book beside Lesson 2.3")) == []
    assert _closing_problems(md("Summary", "Exercises")) == []
    assert _closing_problems(md("Exercises", "Summary"))  # the other order
    assert _closing_problems(md("Summary", "Common mistakes", "Exercises"))  # not one after another
    assert _closing_problems(md("Summary", "Exercises", "Read more"))  # another name
    assert _closing_problems(md("Summary", "Check yourself", "Try this"))  # exercises under other names
    assert _closing_problems(md("Key takeaways", "Exercises"))
    assert _closing_problems(md("Summary", "Further reading", "Exercises"))
    # a fenced block's "## Exercises" is not a heading
    assert _closing_problems(md("Summary") + "```\n## Exercises\n```\n")


@pytest.mark.parametrize("docname", _chapters_part())
def test_every_chapter_ends_with_summary_exercises_further_reading(docname):
    problems = _closing_problems((ROOT / f"{docname}.md").read_text())
    assert problems == [], (f"{docname}: the end of a chapter runs ## Summary, ## Exercises, ## Further reading "
                            "(if any), under those names:\n" + "\n".join(problems))


def _page_title(docname: str) -> str:
    """The first ``#`` heading of a page's source (.md, or the Markdown cells of an .ipynb)."""
    source = ROOT / f"{docname}.md"
    text = source.read_text() if source.exists() else "\n".join(
        "".join(c["source"]) for c in json.loads((ROOT / f"{docname}.ipynb").read_text())["cells"]
        if c["cell_type"] == "markdown")
    return re.search(r"^#\s+(.+?)\s*$", _prose(text, inline_code=True), re.M).group(1)


def test_no_sidebar_entry_repeats_its_part_in_its_title():
    """The sidebar lists each part of _toc.yml under its caption ("Chapters", "Appendices"), so a page's title
    names the page alone: "The toy language", not "Appendix: the toy language" beside "Notation" (one naming
    rule for every entry of a part)."""
    toc = yaml.safe_load((ROOT / "_toc.yml").read_text())
    found = []
    for part in toc.get("parts", []):
        caption = part.get("caption", "")
        kind = re.sub(r"(?:ices|es|s)$", "", caption.lower())  # "appendices" -> "append", "chapters" -> "chapter"
        for entry in part.get("chapters", []):
            docname = re.sub(r"\.(md|ipynb)$", "", entry["file"])
            title = _page_title(docname)
            if re.match(rf"(?i){kind}\w*\b", title):  # "Appendix: ...", "Appendix A. ...", "Chapter 3 ..."
                found.append(f"{docname}: {title!r} (part {caption!r})")
    assert found == [], "page titles that repeat the part the sidebar lists them under:\n" + "\n".join(found)


# ----------------------------------------------------------------------------------------------------
# the environment is pinned whole


def _pins(path: Path) -> dict[str, str]:
    pins = {}
    for line in path.read_text().splitlines():
        match = re.fullmatch(r"([A-Za-z0-9_.\-]+)==([^\s;#]+)", line.split("#", 1)[0].strip())
        if match:
            pins[_canonical(match.group(1))] = match.group(2)
    return pins


def _canonical(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def test_requirements_install_with_the_constraints():
    lines = [line.strip() for line in (ROOT / "requirements.txt").read_text().splitlines()]
    assert "-c constraints.txt" in lines, "requirements.txt must include `-c constraints.txt` (make venv and Binder use it)"
    assert booksite.git_tracked("constraints.txt"), "constraints.txt is not committed"
    constraints = _pins(ROOT / "constraints.txt")
    disagree = {name: (version, constraints.get(name)) for name, version in _pins(ROOT / "requirements.txt").items()
                if constraints.get(name) != version}
    assert disagree == {}, f"requirements.txt and constraints.txt disagree (run `make constraints`): {disagree}"
    for page_shaper in ("sphinx-book-theme", "pydata-sphinx-theme", "sphinx", "docutils", "myst-nb",
                        "myst-parser", "sphinxcontrib-bibtex", "pybtex", "sphinx-togglebutton", "sphinx-design"):
        assert page_shaper in constraints, f"constraints.txt does not pin {page_shaper}, which shapes the page"


def test_every_installed_package_is_pinned_at_its_installed_version():
    constraints = _pins(ROOT / "constraints.txt")
    installed = {_canonical(d.metadata["Name"]): d.version for d in metadata.distributions()}
    drift = sorted(f"{name} {version} (constraints.txt: {constraints.get(name, 'not pinned')})"
                   for name, version in installed.items()
                   if name not in NOT_PINNED and not PLATFORM_DISTRIBUTIONS.match(name)
                   and constraints.get(name) != version.split("+")[0])
    assert drift == [], (
        "this environment differs from constraints.txt (reinstall with `make venv`, or `make constraints` "
        "after changing requirements.txt):\n" + "\n".join(drift)
    )


# ----------------------------------------------------------------------------------------------------
# a change of prose reaches the notebook without executing it


def test_markdown_only_update_keeps_the_outputs_and_refuses_a_code_change(tmp_path):
    import shutil
    import sys

    sys.path.insert(0, str(ROOT / "tools"))
    import build_notebooks

    md, nb = tmp_path / "trace_exercise.md", tmp_path / "trace_exercise.ipynb"
    shutil.copy(ROOT / "chapters/trace_exercise.md", md)
    shutil.copy(ROOT / "chapters/trace_exercise.ipynb", nb)
    before = json.loads(nb.read_text())
    text = md.read_text()
    assert text.count("## Learning objectives\n") == 1
    md.write_text(text.replace("## Learning objectives\n", "## Learning objectives\n\nA new sentence.\n"))
    assert build_notebooks.update_markdown(md) == 1
    after = json.loads(nb.read_text())
    assert [c.get("outputs") for c in after["cells"] if c["cell_type"] == "code"] == \
           [c.get("outputs") for c in before["cells"] if c["cell_type"] == "code"]
    assert after["metadata"] == before["metadata"]
    assert sum("A new sentence." in "".join(c["source"]) for c in after["cells"] if c["cell_type"] == "markdown") == 1

    code = md.read_text()
    assert code.count("```{code-cell} ipython3\n") > 1
    first = code.index("```{code-cell} ipython3\n", code.index("## Learning objectives"))
    md.write_text(code[:first] + "```{code-cell} ipython3\nprint(1)\n```\n\n" + code[first:])
    with pytest.raises(SystemExit, match="code cells changed"):
        build_notebooks.update_markdown(md)
    assert json.loads(nb.read_text()) == after  # left as it was
