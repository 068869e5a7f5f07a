"""Accessibility that does not need a browser: colours, markers, captions, alt text and headings at the source.

tests/test_browser.py checks the built pages (alt text on every image, captions, heading order); this
module checks what makes them so, and fails faster:

- the figure palette is Okabe & Ito's colour-blind-safe palette (Okabe & Ito 2008, "Color Universal
  Design", the eight colours and their RGB values as published), and every figure draws its data in those
  colours (or greys), with image data in the book's two colour-blind-safe colour maps;
- where a legend compares groups, the groups differ by marker, line style or hatch as well as by colour, so
  that a reader who cannot tell the colours apart (or prints in grey) can still tell the groups apart;
- every figure cell of every chapter declares a caption, a name and alt text; Markdown images have alt
  text; headings go down one level at a time.
"""

from __future__ import annotations

import functools
import re

import jupytext
import matplotlib.colors as mcolors
from matplotlib import colormaps
import numpy as np
import pytest
from matplotlib.collections import Collection
from matplotlib.lines import Line2D
from matplotlib.patches import Patch

import booksite
from lib.figures import registry, slow, style

# Okabe & Ito (2008), "Color Universal Design (CUD): how to make figures and presentations that are
# friendly to colorblind people", the eight-colour set as RGB 0-255.
OKABE_ITO_RGB = {
    "black": (0, 0, 0),
    "orange": (230, 159, 0),
    "sky blue": (86, 180, 233),
    "bluish green": (0, 158, 115),
    "yellow": (240, 228, 66),
    "blue": (0, 114, 178),
    "vermillion": (213, 94, 0),
    "reddish purple": (204, 121, 167),
}
# Colour maps whose order is carried by lightness, readable with the common colour-vision deficiencies:
# the viridis family, single-hue ColorBrewer ramps, and the blue-red / purple-orange / brown-teal diverging
# maps. Not rainbow maps (jet, hsv, Spectral) nor red-green ones (RdYlGn, PiYG).
SAFE_COLORMAPS = {"viridis", "cividis", "magma", "inferno", "plasma",
                  "Greys", "Blues", "Greens", "Oranges", "Purples", "Reds",
                  "RdBu", "PuOr", "BrBG"}

FIGURES = registry()
# figures whose data take more than about a second run under `make test`, not `make test-unit`
FIGURE_NAMES = [pytest.param(n, marks=pytest.mark.slow) if n in slow() else n for n in sorted(FIGURES)]


@functools.lru_cache(maxsize=None)
def _drawn(name):
    """The figure ``name`` drawn once for all the checks below (they only read it)."""
    return FIGURES[name]()
CHAPTER_SOURCES = [booksite.ROOT / f"{d}.md" for d in booksite.chapter_docnames()]


def _rgb255(colour) -> tuple:
    return tuple(int(round(255 * c)) for c in mcolors.to_rgb(colour))


def _is_grey(rgb) -> bool:
    return max(rgb) - min(rgb) <= 2  # black, white and the greys between (r = g = b)


# ----------------------------------------------------------------------------------------------------
# the palette and markers


def test_palette_is_the_okabe_ito_palette():
    published = set(OKABE_ITO_RGB.values())
    ours = [_rgb255(c) for c in style.PALETTE]
    assert len(set(ours)) == len(ours), f"PALETTE repeats a colour: {style.PALETTE}"
    foreign = [c for c, rgb in zip(style.PALETTE, ours) if rgb not in published]
    assert foreign == [], f"colours outside Okabe-Ito: {foreign}"
    assert set(ours) == published, "PALETTE should offer all eight Okabe-Ito colours"


def test_the_default_colour_cycle_is_the_palette():
    cycle = [c["color"] for c in style.RC["axes.prop_cycle"]]
    assert [_rgb255(c) for c in cycle] == [_rgb255(c) for c in style.PALETTE]


def test_there_is_a_distinct_marker_for_every_colour():
    from matplotlib.markers import MarkerStyle

    assert len(set(style.MARKERS)) == len(style.MARKERS) >= len(style.PALETTE)
    for marker in style.MARKERS:
        assert MarkerStyle(marker).get_path().vertices.size > 0, f"{marker!r} draws nothing"


def test_colour_maps_are_colour_blind_safe():
    for cmap in (style.DIVERGING, style.SEQUENTIAL):
        assert cmap.removesuffix("_r") in colormaps, f"{cmap} is not a matplotlib colour map"
        assert cmap.removesuffix("_r") in SAFE_COLORMAPS, f"{cmap} is not one of {sorted(SAFE_COLORMAPS)}"


# ----------------------------------------------------------------------------------------------------
# every figure of the book


def _data_colours(fig):
    """(artist description, RGB) for every colour a figure draws data with, colour-mapped data excluded."""
    found = []
    for ax in fig.axes:
        for line in ax.lines:
            for colour in (line.get_color(), line.get_markerfacecolor(), line.get_markeredgecolor()):
                if not (isinstance(colour, str) and colour.lower() == "none"):
                    rgba = mcolors.to_rgba(colour)
                    if rgba[3] > 0:
                        found.append((f"line {line.get_label()!r}", _rgb255(rgba)))
        for coll in ax.collections:
            if coll.get_array() is not None:  # colour-mapped: checked through its colour map
                continue
            for rgba in list(coll.get_facecolor()) + list(coll.get_edgecolor()):
                if rgba[3] > 0:
                    found.append((f"{type(coll).__name__} {coll.get_label()!r}", _rgb255(rgba)))
        for patch in ax.patches:
            for rgba in (patch.get_facecolor(), patch.get_edgecolor()):
                if rgba[3] > 0:
                    found.append((f"{type(patch).__name__} {patch.get_label()!r}", _rgb255(rgba)))
    return found


def _colour_maps(fig):
    maps = []
    for ax in fig.axes:
        for artist in list(ax.images) + [c for c in ax.collections if c.get_array() is not None]:
            maps.append(artist.get_cmap().name)
    return maps


def _legends(fig):
    legends = [ax.get_legend() for ax in fig.axes if ax.get_legend() is not None] + list(fig.legends)
    return legends


def _shape_key(handle):
    """What tells a legend entry apart without colour: marker, line style, hatch, marker path."""
    if isinstance(handle, Line2D):
        marker = handle.get_marker()
        return ("line", None if marker in ("", "None", None, " ") else str(marker), handle.get_linestyle())
    if isinstance(handle, Collection):
        paths = handle.get_paths()
        shape = tuple(np.round(paths[0].vertices, 3).ravel()) if paths else ()
        return ("collection", shape, handle.get_hatch(), tuple(map(str, handle.get_linestyle())))
    if isinstance(handle, Patch):
        return ("patch", handle.get_hatch(), handle.get_linestyle())
    return (type(handle).__name__,)


@pytest.mark.parametrize("name", FIGURE_NAMES)
def test_figure_draws_in_the_palette(name):
    fig = _drawn(name)
    palette = {_rgb255(c) for c in style.PALETTE}
    off = sorted({f"{what}: #{''.join(f'{v:02X}' for v in rgb)}" for what, rgb in _data_colours(fig)
                  if rgb not in palette and not _is_grey(rgb)})
    assert off == [], f"{name} draws outside the Okabe-Ito palette (use lib.figures.style.PALETTE): {off}"
    maps = [m for m in _colour_maps(fig) if m.removesuffix("_r") not in SAFE_COLORMAPS]
    assert maps == [], f"{name} uses colour maps {maps}; use style.DIVERGING or style.SEQUENTIAL"


@pytest.mark.parametrize("name", FIGURE_NAMES)
def test_groups_in_a_legend_differ_by_more_than_colour(name):
    fig = _drawn(name)
    for legend in _legends(fig):
        handles = [h for h in legend.legend_handles if h is not None]
        labels = [t.get_text() for t in legend.get_texts()]
        if len(handles) < 2:
            continue
        keys = [_shape_key(h) for h in handles]
        same = sorted({(labels[i], labels[j]) for i in range(len(keys)) for j in range(i + 1, len(keys))
                       if keys[i] == keys[j]})
        assert same == [], (
            f"{name}: legend entries told apart by colour alone: {same}; give each group a marker "
            f"(style.MARKERS), a line style or a hatch as well"
        )


# ----------------------------------------------------------------------------------------------------
# the chapters' sources


def _markdown_without_code(md_text: str) -> str:
    return re.sub(r"^(```|~~~).*?^\1\s*$", "", md_text, flags=re.S | re.M)


@pytest.mark.parametrize("source", CHAPTER_SOURCES, ids=lambda p: p.stem)
def test_every_figure_cell_has_caption_name_and_alt_text(source):
    nb = jupytext.read(source.with_suffix(".ipynb"))
    for i, cell in enumerate(nb.cells):
        if cell.cell_type != "code":
            continue
        shows_image = any("image/png" in out.get("data", {}) or "image/svg+xml" in out.get("data", {})
                          for out in cell.get("outputs", []))
        if not shows_image:
            continue
        meta = cell.metadata.get("mystnb", {})
        where = f"{source.stem} cell {i} ({cell.source.splitlines()[-1][:60]!r})"
        assert meta.get("figure", {}).get("caption", "").strip(), f"{where} shows an image with no caption"
        assert meta.get("figure", {}).get("name", "").strip(), f"{where} shows an image with no figure name"
        assert meta.get("image", {}).get("alt", "").strip(), f"{where} shows an image with no alt text"


@pytest.mark.parametrize("source", CHAPTER_SOURCES, ids=lambda p: p.stem)
def test_markdown_images_have_alt_text(source):
    text = _markdown_without_code(source.read_text())
    assert re.findall(r"!\[\s*\]\([^)]*\)", text) == [], f"{source.name}: Markdown image without alt text"
    for block in re.findall(r"^:{3,}\{(?:figure|image)\}.*?^:{3,}\s*$", text, flags=re.S | re.M):
        assert re.search(r"^:alt:\s*\S", block, flags=re.M), f"{source.name}: figure/image without :alt:\n{block}"


@pytest.mark.parametrize("source", CHAPTER_SOURCES, ids=lambda p: p.stem)
def test_headings_go_down_one_level_at_a_time(source):
    text = _markdown_without_code(source.read_text().split("\n---\n", 1)[-1])
    levels = [(len(m.group(1)), m.group(2).strip()) for m in re.finditer(r"^(#{1,6})\s+(.+)$", text, flags=re.M)]
    assert levels and levels[0][0] == 1 and [lv for lv, _ in levels].count(1) == 1, (
        f"{source.name}: one `# Title` first, got {levels[:3]}"
    )
    jumps = [(a, b) for a, b in zip(levels, levels[1:]) if b[0] > a[0] + 1]
    assert jumps == [], f"{source.name}: heading levels skip: {jumps}"
