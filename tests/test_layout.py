"""The layout of lib, read from the source with ``ast`` (nothing is imported): concepts in ``lib/``, each
chapter's code in ``lib/chapters/<chapter>.py`` and its figures in ``lib/figures/<chapter>.py``; imports at
the top of every module and no import cycle; concept modules never reach up into chapter or figure code;
docstrings that say where a module is taught or used; real types on dataclass fields; and an API page
that lists every module."""

import ast
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
LIB = ROOT / "lib"
SOURCES = sorted(LIB.rglob("*.py"))


def _name(path: Path) -> str:
    parts = path.relative_to(ROOT).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


MODULES = {_name(p): p for p in SOURCES}
TREES = {name: ast.parse(path.read_text(encoding="utf-8")) for name, path in MODULES.items()}
CHAPTER_NAMES = {p.stem for p in (ROOT / "chapters").glob("*.md")}


def _top_level(tree: ast.Module):
    """The statements of the module body, and of ``if``/``try`` blocks directly in it."""
    todo = list(tree.body)
    while todo:
        node = todo.pop()
        yield node
        if isinstance(node, (ast.If, ast.Try)):
            todo += node.body + node.orelse + getattr(node, "finalbody", [])
            for handler in getattr(node, "handlers", []):
                todo += handler.body


def _lib_targets(node) -> list:
    """The lib modules an import statement brings in (``from lib import x`` names the module lib.x)."""
    if isinstance(node, ast.Import):
        return [a.name for a in node.names if a.name == "lib" or a.name.startswith("lib.")]
    if isinstance(node, ast.ImportFrom) and node.level == 0 and node.module and (node.module == "lib" or node.module.startswith("lib.")):
        out = []
        for alias in node.names:
            sub = f"{node.module}.{alias.name}"
            out.append(sub if sub in MODULES else node.module)
        return out
    return []


def _graph():
    graph = {}
    for name, tree in TREES.items():
        graph[name] = sorted({t for node in _top_level(tree) for t in _lib_targets(node) if t != name})
    return graph


GRAPH = _graph()


def test_every_import_is_at_the_top_of_its_module():
    misplaced = []
    for name, tree in TREES.items():
        top = {id(n) for n in _top_level(tree)}
        for node in ast.walk(tree):
            if isinstance(node, (ast.Import, ast.ImportFrom)) and id(node) not in top:
                misplaced.append(f"{MODULES[name].relative_to(ROOT)}:{node.lineno}: {ast.unparse(node)}")
    assert misplaced == []


def test_the_import_graph_of_lib_has_no_cycle():
    state, stack, cycles = {}, [], []

    def visit(node):
        state[node] = "open"
        stack.append(node)
        for nxt in GRAPH.get(node, []):
            if state.get(nxt) == "open":
                cycles.append(stack[stack.index(nxt):] + [nxt])
            elif nxt not in state:
                visit(nxt)
        stack.pop()
        state[node] = "done"

    for node in sorted(GRAPH):
        if node not in state:
            visit(node)
    assert cycles == [], " ; ".join(" -> ".join(c) for c in cycles)


def test_the_graph_sees_the_imports():
    """The reading above is not vacuous: known edges of the layout are found."""
    assert "lib.validate" in GRAPH["lib.embedding"]
    assert "lib.race" in GRAPH["lib.chapters.real_text"] and "lib.chapters.real_text" in GRAPH["lib.figures.real_text"]


def _kind(name: str) -> str:
    if name.startswith("lib.chapters."):
        return "chapter"
    if name.startswith("lib.figures.") and name != "lib.figures.style":
        return "figures"
    return "concept"


def test_concepts_never_import_chapter_or_figure_code():
    """Concepts and helpers sit at the bottom; lib.notebook may use the figures' style, nothing more."""
    bad = [
        (name, t)
        for name, targets in GRAPH.items()
        if _kind(name) == "concept" and name not in ("lib.chapters", "lib.figures")
        for t in targets
        if _kind(t) != "concept"
    ]
    assert bad == []


def test_chapter_code_never_imports_figures_and_figures_use_their_own_chapter():
    bad = []
    for name, targets in GRAPH.items():
        for t in targets:
            if _kind(name) == "chapter" and t.startswith("lib.figures"):
                bad.append((name, t))
            if _kind(name) == "figures" and _kind(t) == "chapter" and t.rsplit(".", 1)[1] != name.rsplit(".", 1)[1]:
                bad.append((name, t))
    assert bad == []


@pytest.mark.parametrize("folder", ["chapters", "figures"])
def test_chapter_and_figure_modules_are_named_after_a_chapter(folder):
    names = {p.stem for p in (LIB / folder).glob("*.py")} - {"__init__", "style"}
    assert names and names <= CHAPTER_NAMES, names - CHAPTER_NAMES


def test_only_figures_import_matplotlib():
    users = [
        name
        for name, tree in TREES.items()
        for node in _top_level(tree)
        if isinstance(node, (ast.Import, ast.ImportFrom))
        and any(m.startswith("matplotlib") for m in ([a.name for a in node.names] if isinstance(node, ast.Import) else [node.module or ""]))
    ]
    assert users and all(u.startswith("lib.figures") for u in users), users


@pytest.mark.parametrize("name", sorted(MODULES))
def test_module_docstring_says_where_it_is_taught_or_used(name):
    doc = ast.get_docstring(TREES[name]) or ""
    assert doc, f"{name} has no module docstring"
    if name in ("lib", "lib.chapters", "lib.figures", "lib.figures.style"):
        return
    if _kind(name) == "chapter":
        # "The chapter chapters/x.md:": the API page shows the file as the chapter's title, linked (a title typed
        # in before it would read twice)
        assert doc.startswith(f"The chapter chapters/{name.rsplit('.', 1)[1]}.md") and "Concepts used:" in doc, name
    elif _kind(name) == "figures":
        assert f"chapters/{name.rsplit('.', 1)[1]}.md" in doc.split("\n\n")[0], name
    else:
        first = doc.split("\n\n")[1] if "\n\n" in doc else ""
        assert re.match(r"(Taught in|Used by|Used everywhere|Used by the)", first), f"{name}: {first[:80]!r}"


def test_dataclass_fields_have_real_types():
    loose = []
    for name, tree in TREES.items():
        for cls in (n for n in ast.walk(tree) if isinstance(n, ast.ClassDef)):
            for stmt in cls.body:
                if isinstance(stmt, ast.AnnAssign) and ast.unparse(stmt.annotation) in ("object", "Any", "typing.Any"):
                    loose.append(f"{name}.{cls.name}.{ast.unparse(stmt.target)}")
    assert loose == []


def test_the_api_page_documents_every_module():
    documented = set(re.findall(r"automodule:: (\S+)", (ROOT / "api.md").read_text(encoding="utf-8")))
    assert documented == set(MODULES), (set(MODULES) - documented, documented - set(MODULES))


EXAMPLE_WIDTH = 80


def _example_lines(doc: str):
    """The lines of a cleaned docstring that the API page shows in a code box: doctest blocks (from a
    ``>>>`` line to the next blank line) and literal blocks (the lines after a line ending with ``::``
    that are indented deeper than it, blank lines included)."""
    in_doctest, literal_indent = False, None
    for line in doc.splitlines():
        stripped = line.strip()
        indent = len(line) - len(line.lstrip())
        if literal_indent is not None and stripped and indent <= literal_indent:
            literal_indent = None
        if stripped.startswith(">>>"):
            in_doctest = True
        elif not stripped:
            in_doctest = False
        if in_doctest or (literal_indent is not None and stripped):
            yield line.rstrip()
        if literal_indent is None and line.rstrip().endswith("::"):
            literal_indent = indent


def _docstrings(tree: ast.Module):
    for node in ast.walk(tree):
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
            doc = ast.get_docstring(node, clean=True)
            if doc:
                yield getattr(node, "name", "<module>"), doc


def test_example_lines_find_doctests_and_literal_blocks():
    doc = "Text::\n\n    literal\n\n    more\n\nProse.\n\n>>> f(1)\n2\n\nProse again, long enough."
    assert list(_example_lines(doc)) == ["    literal", "    more", ">>> f(1)", "2"]


def test_docstring_examples_fit_the_api_column():
    """Every line of a docstring example (doctest input and output, literal block) is at most
    EXAMPLE_WIDTH characters once the docstring's common indentation is removed, so that the API page
    shows it without a sideways scroll."""
    wide = [
        f"{MODULES[name].relative_to(ROOT)}: {obj}: {len(line)} chars: {line}"
        for name, tree in TREES.items()
        for obj, doc in _docstrings(tree)
        for line in _example_lines(doc)
        if len(line) > EXAMPLE_WIDTH
    ]
    assert not wide, f"{len(wide)} example lines wider than {EXAMPLE_WIDTH}:\n" + "\n".join(wide)


#: a Sphinx cross-reference to a private name (``:func:`_helper```): the API page documents public names only,
#: so the book build (``-n -W``) fails on it
PRIVATE_REFERENCE = re.compile(r":(?:func|meth|class|data|attr|obj):`~?(?:[\w.]*\.)?_\w+`")


def test_private_reference_pattern():
    assert PRIVATE_REFERENCE.search("see :func:`_distances` here")
    assert PRIVATE_REFERENCE.search(":meth:`lib.corpus._split`")
    assert not PRIVATE_REFERENCE.search(":func:`similarity` and ``_distances``")


def test_docstrings_never_cross_reference_a_private_name():
    """A docstring names a private helper as ``code``, never as a cross-reference, which has no target on the
    API page (found here in seconds instead of by the book build)."""
    found = [
        f"{MODULES[name].relative_to(ROOT)}: {obj}: {match}"
        for name, tree in TREES.items()
        for obj, doc in _docstrings(tree)
        for match in PRIVATE_REFERENCE.findall(doc)
    ]
    assert not found, "cross-references to private names:\n" + "\n".join(found)
