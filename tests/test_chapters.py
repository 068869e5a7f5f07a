"""The chapters as files: md/ipynb pairs agree, the setup cell is current, stored outputs are clean.

nbval (run by `make test` over chapters/*.ipynb) re-executes each notebook and compares its outputs; these
tests check what nbval cannot: that the executed notebook was generated from the current .md source (a
maintainer who edits the .md and forgets `make notebooks` fails here), and that no stored output holds
text that is known to change between library versions.
"""

import json
import re
import sys
from pathlib import Path

import jupytext
import pytest
import yaml

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tools"))
import setup_cell  # noqa: E402

SOURCES = sorted((ROOT / "chapters").glob("*.md"))
NOTEBOOKS = sorted((ROOT / "chapters").glob("*.ipynb"))


def _inputs(nb):
    # source, tags, and the myst-nb metadata that carries figure captions, names and alt text
    return [(c.cell_type, c.source.strip(), sorted(c.metadata.get("tags", [])), c.metadata.get("mystnb"))
            for c in nb.cells]


def _toc_files():
    toc = yaml.safe_load((ROOT / "_toc.yml").read_text())
    files = [toc["root"]]
    for part in toc.get("parts", []):
        files += [c["file"] for c in part.get("chapters", [])]
    return files


def test_there_are_chapters():
    assert SOURCES, "no chapters/*.md"


@pytest.mark.parametrize("md", SOURCES, ids=lambda p: p.stem)
def test_markdown_and_notebook_have_the_same_inputs(md):
    ipynb = md.with_suffix(".ipynb")
    assert ipynb.exists(), f"{ipynb.name} is missing: run `make notebooks NB=chapters/{md.name}`"
    assert _inputs(jupytext.read(md)) == _inputs(jupytext.read(ipynb)), (
        f"{md.name} and {ipynb.name} differ in their cells: run `make notebooks NB=chapters/{md.name}`"
    )


@pytest.mark.parametrize("ipynb", NOTEBOOKS, ids=lambda p: p.stem)
def test_every_notebook_has_a_source(ipynb):
    assert ipynb.with_suffix(".md").exists()


def test_setup_cells_use_the_repository_url_from_config():
    assert setup_cell.main(["--check"]) == 0, "run `.venv/bin/python tools/setup_cell.py` then `make notebooks`"


@pytest.mark.parametrize("md", SOURCES, ids=lambda p: p.stem)
def test_setup_cell_is_first_and_hidden(md):
    first = jupytext.read(md).cells[0]
    assert first.cell_type == "code" and first.source.startswith(setup_cell.MARKER)
    assert "remove-cell" in first.metadata.get("tags", [])
    assert setup_cell.repository_url() in first.source


@pytest.mark.parametrize("ipynb", NOTEBOOKS, ids=lambda p: p.stem)
def test_stored_outputs_are_clean(ipynb):
    nb = json.loads(ipynb.read_text())
    for i, cell in enumerate(nb["cells"]):
        for out in cell.get("outputs", []):
            text = json.dumps(out)
            where = f"{ipynb.name} cell {i}"
            assert out["output_type"] != "error", f"{where} stored an error"
            assert not (out["output_type"] == "stream" and out["name"] == "stderr"), f"{where} wrote to stderr"
            assert "<Figure size" not in text, f"{where} stores a Figure repr (nbval#185): use lib.notebook.show"
            assert not re.search(r"np\.(float|int)\d+\(", text), f"{where} prints a NumPy scalar repr: use float()"
            assert "Text(" not in text and "<matplotlib." not in text, f"{where} stores a matplotlib repr"


GLUE_TEXT = re.compile(r"\{glue:text\}`([^`:]+)(?::([^`]*))?`")
DECIMAL_RECORD = re.compile(r"-?\d+\.\d+")


def _glue_records(ipynb) -> dict:
    """``{name: text/plain}`` of every glue record of an executed notebook."""
    records = {}
    for cell in json.loads(ipynb.read_text())["cells"]:
        for out in cell.get("outputs", []):
            name = out.get("metadata", {}).get("scrapbook", {}).get("name")
            if name is not None:
                data = out.get("data", {})
                text = next((v for k, v in data.items() if k.endswith("text/plain")), None)
                records[name] = "".join(text) if isinstance(text, list) else text
    return records


@pytest.mark.parametrize("md", SOURCES, ids=lambda p: p.stem)
def test_prose_shows_every_glued_float_with_exactly_the_stored_digits(md):
    """lib.notebook.glue stores a float rounded (``1.3480``): the prose must show exactly those digits,
    neither more (digits nbval never compared) nor fewer (a second rounding of a rounded number)."""
    from myst_nb.core.variables import format_plain_text

    records = _glue_records(md.with_suffix(".ipynb"))
    wrong = []
    for name, spec in GLUE_TEXT.findall(md.read_text()):
        text = records.get(name)
        assert text is not None, f"{md.name}: the prose pastes {name!r}, which no cell glues"
        if DECIMAL_RECORD.fullmatch(text.strip()):
            shown = format_plain_text(text, spec or "").replace(",", "")
            if shown != text.strip():
                wrong.append(f"{{glue:text}}`{name}:{spec}` shows {shown!r}, the record is {text!r}")
    assert wrong == [], f"{md.name}: " + "; ".join(wrong)


def test_every_chapter_is_in_the_toc_and_every_toc_entry_exists():
    files = _toc_files()
    for md in SOURCES:
        assert f"chapters/{md.stem}" in files, f"{md.name} is not in _toc.yml"
    for f in files:
        assert (ROOT / f"{f}.md").exists(), f"_toc.yml names {f}, which does not exist"


def test_no_chapter_has_its_own_bibliography():
    for md in SOURCES:
        assert "{bibliography}" not in md.read_text(), f"{md.name}: only bibliography.md may list references"
