"""The reader's page in Chromium at 1280 px (a laptop) and 390 px (a phone): what a reader would notice.

tests/test_browser.py checks that every page loads offline, typesets its maths and links correctly; this
module reads the same build (one per test run, ``booksite.book_for_this_run``) for the things a careful
reader notices, on every page of the table of contents:

1. tables render: no paragraph shows a Markdown table row ``| a | b |`` or a ``| --- |`` rule;
2. answers stay hidden: with every solution and answer closed (as a page opens), no output of a solution's
   code cell is visible, and a solution is one collapsible (not a dropdown plus a separate cell);
3. navigation: the primary sidebar toggle shows the chapter list at 390 px and toggles it at 1280 px, its
   tooltip covers none of the header's buttons, and a page (the search page too) has one search field;
4. nothing is cut off: a table block wider than the column scrolls inside its own block (at 1280 px and at
   390 px), a code or output block fits at 1280 px and wraps its long lines at 390 px (it never scrolls there), a display equation fits its column at both widths (inside an opened solution
   too), and no page, the generated ones (index, module index, search with its results) included, scrolls
   sideways or clips what sticks out; at 390 px no table hides a column past its right edge (a table too wide is
   stacked row by row), and at 1280 px every table keeps its columns; inline code (an identifier, a file name) breaks only after a ``.``, ``_``, ``/`` or a space,
   never inside a word; a number and its unit ("6.1 GB") are never on two lines;
6. no glue bookkeeping in code a reader can open, no prose about the test machinery, on any page (the API
   page's docstrings included: they say what is guaranteed, not which test holds it);
7. chapters are referred to by title, linked: no "the lesson", "the four-level chapter", "the source", ...
   without a link, no "appendix Appendix" stutter before a link, the introduction links every chapter, and
   the API page's headings link the chapters whose concepts they group; a source text a chapter follows
   ("Lesson 2.3", "adapted from") is linked, where a page first names it, to the introduction's account of
   those texts; a file or folder of the repository named in the text is a link; the API page names each
   chapter once (its title, linked, not "“Embeddings” (Embeddings)") and shows no raw repr of a constant;
8. figures are legible: their smallest text is at least ``MIN_TEXT_PX`` CSS pixels at 1280 px, and on a
   phone a figure whose text is smaller opens full size on a tap, at twice that resolution;
9. one citation style: the bibliography is labelled author-year, one label per work (2013a, 2013b), and links
   each work once; every citation in the text (the API page's docstrings included) gives the authors, year
   and letter of the work it links to, and no "Author et al. 2013b" or "Rabiner 1989" is left as plain text;
10. orientation: the footer names the book and its licence, the notation page is in the table of contents,
    search results are listed once each (one per place, one per title on a page) and their snippets read
    as text: no raw or half-converted TeX, no buttons, tables of contents or "Show code cell source" labels, and a chapter's figures and exercises are numbered within it
    (``Fig. 3.1``, ``Exercise 3.1``).

(5, Python reprs instead of tables, and the 88-character output width are checked on the notebooks, in
tests/test_reader_notebooks.py, with the learning objectives and summaries.) Without Chromium the tests
skip with an install hint, except under ``CI=true``, where they fail. Screenshots of both widths and of the
open navigation go to ``test-artifacts/screenshots/reader/``.
"""

from __future__ import annotations

import functools
import re
import urllib.parse

import sys

import jupytext
import pytest
import yaml

import booksite

sys.path.insert(0, str(booksite.ROOT / "_ext"))
import reader_page  # noqa: E402  (the unit and path patterns the book's pages are written with)

pytestmark = pytest.mark.slow  # builds the book (or reuses this run's build) and opens every page

ROOT = booksite.ROOT
CONFIG = booksite.config()
PAGES = booksite.toc_docnames()
GENERATED = ["genindex", "py-modindex", "search"]  # the pages Sphinx adds to the book
WIDTHS = {"laptop": 1280, "phone": 390}
HEIGHT = 900
SHOTS = booksite.ARTIFACTS / "screenshots" / "reader"
TIMEOUT_MS = 60_000
MIN_TEXT_PX = 9.0  # CSS pixels: the smallest figure text a reader can read at arm's length
SHARPNESS = 2.0  # a figure that opens full size has this many image pixels per CSS pixel of legible text
# A table cell of this many characters or fewer that holds one value (numbers, symbols and inline code, no
# word outside the code: "(101, 115)", "`es` + `t`") is read as one piece: a table that keeps its columns
# shows it on one line (_ext/static/reader_tables.js stacks a table that cannot).
SHORT_CELL = int(re.search(r"const SHORT = (\d+);", (ROOT / "_ext/static/reader_tables.js").read_text()).group(1))


def _chapters_part() -> list[str]:
    toc = yaml.safe_load((ROOT / "_toc.yml").read_text())
    part = next(p for p in toc["parts"] if p.get("caption", "").lower() == "chapters")
    return [re.sub(r"\.(md|ipynb)$", "", c["file"]) for c in part["chapters"]]


CHAPTERS = _chapters_part()
# The API reference is the api page's prose and lib's docstrings. The docstrings are read in Python's help()
# too, so they name chapters by their source file ("Taught in: chapters/lesson.md", which the page turns
# into a link to the chapter) and source texts by name ("Lesson 2.3"), as prose does (kind 7, checked on every
# page, and on the docstrings themselves in tests/test_reader_notebooks.py), and cite with the rST roles of
# sphinxcontrib-bibtex (:cite:t:`press2017using`), so that the API page cites as the chapters do (kind 9).
# Test machinery is named on no page, the api page included (kind 6).

CHAPTER_PHRASES = booksite.CHAPTER_PHRASES
SOURCE_PHRASE = booksite.SOURCE_PHRASE
MACHINERY = r"\bnbval\b|\bsanitiz|\btests/|\bpytest\b"
# A source text named: "Lesson 2.3", "the chapter this one is adapted from", "the texts the book was written from";
# the section of the introduction that names those texts
SOURCE_MENTION = booksite.SOURCE_MENTION
SOURCES_ANCHOR = booksite.SOURCES_ANCHOR
# "Mikolov et al. 2013b", "Rabiner 1989", ...: a citation typed as text (the sources are checked too, in
# tests/test_reader_notebooks.py)
PLAIN_CITATION = booksite.PLAIN_CITATION

# Everything the checks need from one page at one width, collected in one pass after MathJax finished.
AUDIT_JS = r"""
([chapterPhrases, sourcePhrase, machinery, numberAndUnit, pathPattern, sourceMention, plainCitation, namedWorks, shortCell]) => {
  const article = document.querySelector('article.bd-article') || document.querySelector('main');
  const visible = (el) => {
    if (!el || !el.isConnected) return false;
    if (el.checkVisibility && !el.checkVisibility({checkOpacity: true, checkVisibilityCSS: true})) return false;
    const r = el.getBoundingClientRect();
    return r.width > 0.5 && r.height > 0.5;
  };
  const squash = (s) => s.replace(/\s+/g, ' ').trim();
  const short = (el) => squash(el.textContent).slice(0, 90);
  const sectionOf = (el) => {
    const s = el.closest('section');
    const h = s && s.querySelector('h1, h2, h3, h4');
    return h ? squash(h.textContent).replace(/#$/, '') : '';
  };
  const out = {};

  // 1. Markdown tables left as text
  // the element's own text: a code block or a rendered table inside it (an API entry's doctest showing a
  // table's source) is not prose
  const ownText = (el) => {
    const copy = el.cloneNode(true);
    copy.querySelectorAll('pre, code, .highlight, .doctest, table').forEach((c) => c.remove());
    return copy.textContent;
  };
  out.tableText = [...article.querySelectorAll('p, li, dd')]
    .filter((p) => !p.closest('pre, code, .highlight'))
    .filter((p) => /(^|\n)\s*\|[^\n|]*\|[^\n]*\|/.test(ownText(p)) || /\|\s*:?-{3,}:?\s*\|/.test(ownText(p)))
    .map((p) => `${sectionOf(p)}: ${short(p)}`);

  // 2. solutions and answers
  const SOLUTION = /^\s*(solution|answer)\b/i;
  const titleOf = (box) => {
    const t = box.querySelector(':scope > .admonition-title, :scope > summary, :scope > p.admonition-title');
    return t ? squash(t.textContent) : '';
  };
  const boxes = [...article.querySelectorAll('div.admonition, details')].filter((b) => SOLUTION.test(titleOf(b)));
  const isCell = (el) => el && el.matches && el.matches('div.cell');
  const collapsibleCell = (cell) => !!cell.querySelector('details') || cell.classList.contains('tag_hide-cell')
    || cell.classList.contains('tag_hide-input') || cell.classList.contains('tag_hide-output');
  out.solutions = boxes.map((box) => {
    const cells = [...box.querySelectorAll('div.cell')];
    const neighbours = [box.previousElementSibling, box.nextElementSibling].filter(isCell);
    const all = cells.concat(neighbours);
    const body = [...box.children].filter((c) => !c.matches('.admonition-title, summary, button, .toggle-button'));
    return {
      title: titleOf(box), section: sectionOf(box),
      collapsible: box.tagName === 'DETAILS' || box.classList.contains('dropdown') || box.classList.contains('toggle'),
      bodyVisible: body.some(visible),
      outputsVisible: all.flatMap((c) => [...c.querySelectorAll('.cell_output')]).filter(visible).map(short),
      separateCells: neighbours.map((c) => ({collapsible: collapsibleCell(c), code: short(c.querySelector('.cell_input') || c)})),
    };
  });

  // 4. blocks cut off at the right edge
  const limit = Math.min(article.getBoundingClientRect().right, window.innerWidth);
  const cut = [];
  for (const el of article.querySelectorAll('.cell_input pre, .cell_output pre, div.highlight pre, div.math, mjx-container[display="true"], table')) {
    if (!visible(el)) continue;
    const r = el.getBoundingClientRect();
    const contentRight = r.left + Math.max(el.scrollWidth, r.width);
    let verdict = null;
    for (let n = el; n && n !== article.parentElement; n = n.parentElement) {
      const ox = getComputedStyle(n).overflowX;
      const nr = n.getBoundingClientRect();
      if (ox === 'auto' || ox === 'scroll') { verdict = nr.right <= limit + 1 ? 'ok' : 'scroller sticks out'; break; }
      if ((ox === 'hidden' || ox === 'clip') && contentRight > nr.right + 1) { verdict = 'clipped'; break; }
    }
    if (verdict === null) verdict = contentRight <= limit + 1 ? 'ok' : 'runs past the column';
    if (verdict !== 'ok') cut.push(`${el.tagName.toLowerCase()} in "${sectionOf(el)}" (${verdict}, ${Math.round(contentRight - limit)} px): ${short(el)}`);
  }
  out.cutOff = cut;
  // blocks a reader has to scroll sideways to read (at a laptop's width none should need it)
  out.scrolls = [...article.querySelectorAll('.cell_input pre, .cell_output pre, div.highlight pre, div.math, mjx-container[display="true"]')]
    .filter((el) => visible(el) && el.scrollWidth > el.clientWidth + 1)
    .map((el) => `${el.tagName.toLowerCase()} in "${sectionOf(el)}" (${el.scrollWidth - el.clientWidth} px hidden): ${short(el)}`);
  // a table wider than the container that scrolls it
  for (const table of article.querySelectorAll('table')) {
    if (!visible(table)) continue;
    let box = table.parentElement;
    while (box && box !== article && !['auto', 'scroll'].includes(getComputedStyle(box).overflowX)) box = box.parentElement;
    if (box && box !== article && box.scrollWidth > box.clientWidth + 1) {
      out.scrolls.push(`table in "${sectionOf(table)}" (${box.scrollWidth - box.clientWidth} px hidden): ${short(table)}`);
    }
  }
  // tables stacked row by row because their columns did not fit (_ext/static/reader_tables.js)
  out.stackedTables = [...article.querySelectorAll('table.reader-stacked')].filter(visible)
    .map((t) => `table in "${sectionOf(t)}": ${short(t)}`);
  // body cells that hold one value (numbers, symbols and inline code, no word outside the code: "(101, 115)",
  // "`es` + `t`"; a range, "1.055–1.058", may break after its dash) of a table that keeps its columns, drawn
  // on two lines or more
  const linesOf = (el) => {
    // the text's own boxes (not an inline code's padded box), one line per top half a font size apart
    const tops = [];
    const walker = document.createTreeWalker(el, NodeFilter.SHOW_TEXT);
    for (let n = walker.nextNode(); n; n = walker.nextNode()) {
      if (!n.textContent.trim()) continue;
      const range = document.createRange();
      range.selectNodeContents(n);
      for (const b of range.getClientRects()) if (b.width > 0.5) tops.push(b.top);
    }
    const gap = parseFloat(getComputedStyle(el).fontSize) / 2;
    let lines = 0, last = -Infinity;
    for (const top of tops.sort((a, b) => a - b)) if (top > last + gap) { lines += 1; last = top; }
    return lines;
  };
  out.wrappedCells = [];
  for (const table of article.querySelectorAll('table')) {
    if (!visible(table) || table.matches('.reader-stacked') || table.closest('.notation-table, pre, .highlight')) continue;
    if (!table.querySelector(':scope > thead > tr > th')) continue;
    for (const cell of table.querySelectorAll(':scope > tbody > tr > td, :scope > tbody > tr > th')) {
      const text = squash(cell.textContent);
      const outside = cell.cloneNode(true);
      outside.querySelectorAll('code').forEach((c) => c.remove());
      if (text && text.length <= shortCell && !/\p{L}/u.test(outside.textContent) && !text.includes('\u2013')
          && linesOf(cell) > 1)
        out.wrappedCells.push(`table in "${sectionOf(table)}" (${table.querySelectorAll(':scope > thead > tr:last-child > th').length} columns): "${text}"`);
    }
  }
  out.pageWidth = document.documentElement.scrollWidth;
  // the page and every box that holds the article, from the article up: none wider inside than it is
  // (a box that clips what sticks out, overflow hidden, is caught as well as one that scrolls)
  out.sideways = [];
  for (let n = article; n; n = n.parentElement) {
    if (n.scrollWidth > n.clientWidth + 1)
      out.sideways.push(`${n.tagName.toLowerCase()}${n.id ? '#' + n.id : ''}${n.className ? '.' + String(n.className).trim().split(/\s+/).join('.') : ''} (${n.scrollWidth} px of content in ${n.clientWidth} px)`);
  }
  // display equations wider than their column: at any width, each must be written to fit (split over lines,
  // aligned), not left to scroll in its box or to run past the column
  const texOf = (el) => {
    try {
      const item = MathJax.startup.document.getMathItemsWithin(el)[0];
      if (item) return squash(item.math).slice(0, 90);
    } catch (e) { /* not typeset by MathJax */ }
    return short(el);
  };
  out.wideEquations = [];
  for (const el of article.querySelectorAll('mjx-container[display="true"]')) {
    if (!visible(el)) continue;
    const column = (el.closest('div.math') || el.parentElement).getBoundingClientRect().right;
    const maths = el.querySelector('mjx-math');
    const right = maths ? maths.getBoundingClientRect().right : el.getBoundingClientRect().right;
    const hidden = el.scrollWidth - el.clientWidth, past = right - Math.min(column, limit);
    if (hidden > 1 || past > 1)
      out.wideEquations.push(`in "${sectionOf(el)}" (${Math.round(Math.max(hidden, past))} px too wide): ${texOf(el)}`);
  }

  // inline code broken inside a word, a number on one line and its unit on the next
  const textNodes = (root, skip) => {
    const list = [];
    const walker = document.createTreeWalker(root, NodeFilter.SHOW_TEXT);
    for (let n = walker.nextNode(); n; n = walker.nextNode())
      if (!(skip && n.parentElement.closest(skip))) list.push(n);
    return list;
  };
  const boxOf = (node, i) => {
    const range = document.createRange();
    range.setStart(node, i);
    range.setEnd(node, i + 1);
    return [...range.getClientRects()].find((b) => b.width > 0 || b.height > 0) || null;
  };
  const below = (a, b) => !!(a && b && b.top >= a.top + a.height / 2);  // b is drawn on a later line than a
  out.codeBreaks = [];
  for (const code of article.querySelectorAll('code')) {
    if (code.closest('pre') || !visible(code) || code.getClientRects().length < 2) continue;
    const chars = [];
    for (const n of textNodes(code)) for (let i = 0; i < n.textContent.length; i++) chars.push({c: n.textContent[i], n, i});
    let previous = null;
    chars.forEach((ch, k) => {
      if (/\s/.test(ch.c)) return;
      ch.box = boxOf(ch.n, ch.i);
      if (!ch.box) return;
      if (previous && below(previous.box, ch.box)) {
        const between = chars.slice(previous.k + 1, k).map((x) => x.c).join('');
        // inside a word: a letter or digit on both sides of the break, and no space between them
        if (!/\s/.test(between) && /[\p{L}\p{N}]/u.test(previous.c) && /[\p{L}\p{N}]/u.test(ch.c)) {
          const text = chars.map((x) => x.c).join('');
          out.codeBreaks.push({inTable: !!code.closest('td, th'),
                               text: `${sectionOf(code)}: ${text.slice(0, k)}|${text.slice(k)}`.slice(0, 160)});
        }
      }
      previous = Object.assign(ch, {k});
    });
  }
  const unitRe = new RegExp(numberAndUnit, 'g');
  const splits = new Set();
  for (const block of article.querySelectorAll('p, li, td, th, dd, dt, figcaption, caption, h1, h2, h3, h4')) {
    if (block.closest('pre, .highlight') || !visible(block)) continue;
    const nodes = textNodes(block, 'pre, code, mjx-container, .math, script, style');
    const starts = [];
    let text = '';
    for (const n of nodes) { starts.push(text.length); text += n.textContent; }
    const at = (pos) => { let j = starts.length - 1; while (starts[j] > pos) j--; return [nodes[j], pos - starts[j]]; };
    for (const m of text.matchAll(unitRe)) {
      const digit = at(m.index), unit = at(m.index + m[1].length + m[2].length);
      if (below(boxOf(...digit), boxOf(...unit)))
        splits.add(`${sectionOf(block)}: ...${squash(text.slice(Math.max(0, m.index - 30), m.index + m[0].length + 10))}...`);
    }
  }
  out.unitSplits = [...splits];

  // 6. bookkeeping a reader can open, prose about the test machinery
  out.glueCode = [...article.querySelectorAll('.cell_input')].filter((c) => /\bglue\(/.test(c.textContent))
    .map((c) => `${sectionOf(c)}: ${short(c)}`);
  const proseWalk = (test) => {
    const found = [];
    const walker = document.createTreeWalker(article, NodeFilter.SHOW_TEXT);
    for (let n = walker.nextNode(); n; n = walker.nextNode()) {
      const p = n.parentElement;
      if (p.closest('pre, .highlight, .cell_input, .cell_output, script, style, mjx-container, .math, .headerlink')) continue;
      const hit = test(n, p);
      if (hit) found.push(hit);
    }
    return found;
  };
  const machineryRe = new RegExp(machinery, 'i');
  out.machinery = proseWalk((n, p) => machineryRe.test(n.textContent) ? `${sectionOf(p)}: ${squash(p.textContent).slice(0, 120)}` : null);

  // 7. chapters named by their kind without a link; "appendix Appendix"
  const phraseRe = new RegExp(`(${chapterPhrases})|(${sourcePhrase})`, 'gi');
  const linkAfter = (n) => {
    let s = n.nextSibling;
    while (s && s.nodeType === Node.TEXT_NODE && /^[\s(]*$/.test(s.textContent)) s = s.nextSibling;
    return s && s.nodeType === Node.ELEMENT_NODE && (s.matches('a.reference.internal') || !!s.querySelector('a.reference.internal')) ? s : null;
  };
  out.unlinkedChapters = proseWalk((n, p) => {
    if (p.closest('a')) return null;
    const text = n.textContent;
    const hits = [];
    for (const m of text.matchAll(phraseRe)) {
      const isSource = !!m[2];
      const after = text.slice(m.index + m[0].length);
      if (!isSource && /^[\s(]*$/.test(after) && linkAfter(n)) continue;  // "the lesson (Embeddings, ...)" linked
      hits.push(m[0]);
    }
    return hits.length ? `${hits.join(', ')} in "${sectionOf(p)}": ${squash(p.textContent).slice(0, 140)}` : null;
  });
  out.stutters = [...article.querySelectorAll('a.reference.internal')].map((a) => {
    const before = a.previousSibling;
    if (!before || before.nodeType !== Node.TEXT_NODE) return null;
    const last = (before.textContent.match(/(\w+)\s*$/) || [])[1];
    const first = (squash(a.textContent).match(/^(\w+)/) || [])[1];
    return last && first && last.toLowerCase() === first.toLowerCase()
      ? `"${squash(before.textContent).slice(-40)} ${squash(a.textContent)}"` : null;
  }).filter(Boolean);
  out.pageLinks = [...article.querySelectorAll('a.reference.internal[href]')].map((a) => a.href.split('#')[0]);
  out.headings = [...article.querySelectorAll('h2, h3')].map((h) => ({
    text: squash(h.textContent).replace(/#$/, ''),
    links: [...h.querySelectorAll('a.reference.internal[href]')].map((a) => a.href.split('#')[0]),
  }));
  // the source texts a chapter follows, named: is the first paragraph that names one linked to their account?
  const sourceRe = new RegExp(sourceMention, 'i');
  out.sourceMentions = [...article.querySelectorAll('p, li, dd, td, figcaption')]
    .filter((p) => !p.querySelector('p, li, dd, td') && sourceRe.test(ownText(p)))
    .map((p) => ({text: `${sectionOf(p)}: ${short(p)}`,
                  links: [...p.querySelectorAll('a[href]')].map((a) => a.href)}));
  // repository paths named in text or inline code outside a link (the test keeps those that exist)
  const pathRe = new RegExp(pathPattern, 'g');
  const skipCode = 'pre, .highlight, .cell_input, .cell_output, script, style, mjx-container, .math, a';
  out.pathCandidates = [];
  for (const n of textNodes(article, skipCode + ', code'))
    for (const m of n.textContent.matchAll(pathRe)) out.pathCandidates.push({path: m[1], where: `${sectionOf(n.parentElement)}: ${short(n.parentElement)}`});
  for (const code of article.querySelectorAll('code')) {
    if (code.closest(skipCode)) continue;
    for (const m of code.textContent.matchAll(pathRe)) out.pathCandidates.push({path: m[1], where: `${sectionOf(code)}: ${short(code.parentElement)}`});
  }

  // 8. figures
  out.figures = [...article.querySelectorAll('figure')].map((f) => {
    const img = f.querySelector('img');
    if (!img) return {id: f.id, img: null};
    const link = img.closest('a[href]');
    // the hint under the caption that a tap opens the figure full size (reader_page.css, phones only)
    const caption = f.querySelector('figcaption');
    const after = caption ? getComputedStyle(caption, '::after') : null;
    const hint = after && after.display !== 'none' && after.content !== 'none' ? after.content.replace(/^"|"$/g, '') : '';
    return {id: f.id, src: img.currentSrc || img.src, rendered: img.getBoundingClientRect().width,
            natural: img.naturalWidth, link: link ? link.href : null, hint};
  });

  // figure and exercise numbers, in the order of the page
  out.numbering = {
    figures: [...article.querySelectorAll('figure .caption-number')].map((e) => squash(e.textContent)),
    exercises: [...article.querySelectorAll('div.exercise > .admonition-title .caption-number')].map((e) => squash(e.textContent)),
  };

  // 9. citations in the text, and the bibliography's labels
  // with the whole citation the link is part of: "Levy et al. [2015]" (textual: the year is the link)
  out.citations = [...article.querySelectorAll('a[href*="bibliography.html#"]')]
    .map((a) => ({target: a.href.split('#')[1], text: squash(a.textContent),
                  whole: squash((a.closest('.bibtex-citation') || a).textContent)}));
  const citeRe = new RegExp(plainCitation, 'g');
  out.plainCitations = proseWalk((n, p) => {
    if (p.closest('a, .citation, [role="doc-biblioentry"]')) return null;
    const hits = [...n.textContent.matchAll(citeRe)].map((m) => m[0]);
    return hits.length ? `${sectionOf(p)}: ${hits.join('; ')} in "${squash(p.textContent).slice(0, 100)}"` : null;
  });
  // a work known by its name ("nanoGPT"): where the page first names it, the citations of that paragraph
  out.namedWorks = namedWorks.map((name) => {
    const nameRe = new RegExp(`\\b${name}\\b`);
    const first = proseWalk((n, p) => (!p.closest('a, code') && nameRe.test(n.textContent) ? p : null))[0];
    if (!first) return null;
    const block = first.closest('p, li, dd, td, figcaption') || first;
    return {name, where: `${sectionOf(block)}: ${short(block)}`,
            cites: [...block.querySelectorAll('a[href*="bibliography.html#"]')].map((a) => squash(a.textContent))};
  }).filter(Boolean);
  out.bibLabels = [...article.querySelectorAll('div.citation, [role="doc-biblioentry"]')].map((c) => {
    const label = c.querySelector('.label');
    return {id: c.id, label: label ? squash(label.textContent).replace(/^\[|\]$/g, '') : '',
            text: squash(c.textContent), links: [...c.querySelectorAll('a[href]')].map((a) => a.href)};
  });

  // 10. footer
  const footer = document.querySelector('footer.bd-footer-content, .bd-footer-content, footer.bd-footer');
  out.footer = footer ? squash(footer.innerText || footer.textContent) : '';
  return out;
}
"""


# ----------------------------------------------------------------------------------------------------
# the browser and the book


@pytest.fixture(scope="module")
def chromium() -> str:
    return booksite.require_chromium()


class Site:
    """The served book in one Chromium browser, a context per width; each page audited once per width."""

    def __init__(self, browser, base: str):
        self.base = base
        self.blocked: list[str] = []
        self.contexts = {}
        for name, width in WIDTHS.items():
            context = browser.new_context(viewport={"width": width, "height": HEIGHT}, service_workers="block",
                                          is_mobile=(name == "phone"), has_touch=(name == "phone"))
            context.set_default_timeout(TIMEOUT_MS)
            context.route("**/*", self._route)
            self.contexts[width] = context
        self._audits: dict[tuple[str, int], dict] = {}

    def _route(self, route):
        url = urllib.parse.urlsplit(route.request.url)
        if url.scheme in ("http", "https") and url.hostname == "127.0.0.1":
            route.continue_()
        else:
            self.blocked.append(route.request.url)
            route.abort("internetdisconnected")

    def url(self, docname: str) -> str:
        return self.base + docname + ".html"

    def open(self, docname: str, width: int):
        """A new page at ``width`` showing ``docname``, its maths typeset and its fonts loaded."""
        page = self.contexts[width].new_page()
        booksite.load(page, self.url(docname), docname)
        page.wait_for_timeout(300)  # the theme's and togglebutton's scripts run after load
        return page

    def audit(self, docname: str, width: int, opened: bool = False) -> dict:
        """What :data:`AUDIT_JS` finds on ``docname`` at ``width``: as the page opens (every solution and
        folded cell closed) or, with ``opened``, after a reader has opened every one of them."""
        key = (docname, width, opened)
        if key not in self._audits:
            page = self.open(docname, width)
            if opened:
                page.evaluate(OPEN_ALL_JS)
                page.wait_for_timeout(500)  # the dropdowns' opening transition
            self._audits[key] = page.evaluate(AUDIT_JS, [CHAPTER_PHRASES, SOURCE_PHRASE, MACHINERY,
                                                         reader_page.NUMBER_AND_UNIT, reader_page.PATH.pattern,
                                                         SOURCE_MENTION, PLAIN_CITATION,
                                                         sorted({**booksite.NAMED_WORKS, **booksite.NAMED_SOFTWARE}), SHORT_CELL])
            SHOTS.mkdir(parents=True, exist_ok=True)
            state = "-opened" if opened else ""
            page.screenshot(path=SHOTS / f"{docname.replace('/', '-')}-{width}{state}.png", full_page=True)
            page.close()
        return self._audits[key]

    def close(self):
        for context in self.contexts.values():
            context.close()


# A reader opens every solution (sphinx-togglebutton's dropdowns) and every folded cell (<details>).
OPEN_ALL_JS = """
() => {
  document.querySelectorAll('details').forEach((d) => { d.open = true; });
  // as sphinx-togglebutton itself opens them before printing
  document.querySelectorAll('.admonition.toggle.toggle-hidden')
    .forEach((el) => el.querySelector('button.toggle-button').click());
  return document.querySelectorAll('.toggle-hidden').length;
}
"""


@pytest.fixture(scope="module")
def site(chromium):
    from playwright.sync_api import sync_playwright

    html_dir = booksite.book_for_this_run()
    with booksite.serve(html_dir) as base, sync_playwright() as p:
        browser = p.chromium.launch(executable_path=chromium, headless=True, args=booksite.CHROMIUM_FLAGS)
        site = Site(browser, base)
        site.html_dir = html_dir
        yield site
        site.close()
        browser.close()


def _both(docnames):
    return [pytest.param(d, w, id=f"{d}-{w}") for d in docnames for w in WIDTHS.values()]


# ----------------------------------------------------------------------------------------------------
# 1. tables render


@pytest.mark.parametrize("docname", PAGES)
def test_no_markdown_table_left_as_text(site, docname):
    found = site.audit(docname, WIDTHS["laptop"])["tableText"]
    assert found == [], f"{docname}: paragraphs that show a Markdown table as text:\n" + "\n".join(found)


# ----------------------------------------------------------------------------------------------------
# 2. answers stay hidden until opened


@pytest.mark.parametrize("docname", PAGES)
def test_solutions_are_one_closed_collapsible(site, docname):
    problems = []
    for s in site.audit(docname, WIDTHS["laptop"])["solutions"]:
        where = f"{s['title']!r} in {s['section']!r}"
        if not s["collapsible"]:
            problems.append(f"{where} is not collapsible (use :class: dropdown)")
        elif s["bodyVisible"]:
            problems.append(f"{where} is open when the page opens")
        for output in s["outputsVisible"]:
            problems.append(f"{where}: the output of its code is visible while it is closed: {output!r}")
        for cell in s["separateCells"]:
            kind = "a second collapsible" if cell["collapsible"] else "a visible cell"
            problems.append(f"{where} is split: its code is {kind} beside the dropdown "
                            f"(put it inside, with solution-start/solution-end): {cell['code']!r}")
    assert problems == [], f"{docname}:\n" + "\n".join(problems)


# ----------------------------------------------------------------------------------------------------
# 3. navigation on a phone and a laptop; one search field


_SIDEBAR_LINKS_JS = """
(docnames) => {
  const hits = [];
  for (const a of document.querySelectorAll('nav a.reference.internal, .bd-sidebar-primary a[href], dialog a[href]')) {
    const href = a.href.split('#')[0];
    if (!docnames.some((d) => href.endsWith('/' + d + '.html'))) continue;
    const r = a.getBoundingClientRect();
    if (r.width < 1 || r.height < 1 || r.right <= 0 || r.left >= window.innerWidth) continue;
    const hit = document.elementFromPoint(r.left + Math.min(r.width / 2, 20), r.top + r.height / 2);
    if (hit && (hit === a || a.contains(hit))) hits.push(href);
  }
  return [...new Set(hits)];
}
"""

_HEADER_OVERLAPS_JS = """
() => {
  const tips = [...document.querySelectorAll('.tooltip')].filter((t) => t.getBoundingClientRect().width > 0
    && getComputedStyle(t).visibility !== 'hidden' && Number(getComputedStyle(t).opacity) > 0.1);
  // the header's buttons: launch, repository, download, full screen, colour mode, search, contents
  const buttons = [...document.querySelectorAll('.bd-header-article a, .bd-header-article button, .bd-header a, .bd-header button')]
    .filter((b) => !b.matches('.primary-toggle') && !b.closest('.dropdown-menu'))
    .filter((b) => { const r = b.getBoundingClientRect(); return r.width > 0 && r.height > 0; });
  const overlaps = [];
  for (const t of tips) {
    const a = t.getBoundingClientRect();
    for (const b of buttons) {
      const r = b.getBoundingClientRect();
      if (a.left < r.right - 1 && r.left < a.right - 1 && a.top < r.bottom - 1 && r.top < a.bottom - 1)
        overlaps.push(`tooltip "${t.textContent.trim()}" covers ${b.getAttribute('aria-label') || b.getAttribute('title') || b.className}`);
    }
  }
  return overlaps;
}
"""


def _links_once_settled(page, done, seconds: float = 10.0) -> list[str]:
    """The reachable chapter links once the sidebar stopped moving: two readings 250 ms apart agree and
    ``done(links)`` holds, or ``seconds`` passed (then the last reading)."""
    links = page.evaluate(_SIDEBAR_LINKS_JS, CHAPTERS)
    for _ in range(int(seconds / 0.25)):
        page.wait_for_timeout(250)
        again = page.evaluate(_SIDEBAR_LINKS_JS, CHAPTERS)
        if again == links and done(again):
            break
        links = again
    return links


def _visible_toggle(page):
    toggles = [t for t in page.query_selector_all(".primary-toggle, button.sidebar-toggle.primary-toggle") if t.is_visible()]
    assert len(toggles) == 1, f"expected one visible primary sidebar toggle, found {len(toggles)}"
    return toggles[0]


@pytest.mark.parametrize("docname", PAGES)
def test_phone_reader_reaches_the_chapter_list(site, docname):
    width = WIDTHS["phone"]
    page = site.open(docname, width)
    try:
        before = page.evaluate(_SIDEBAR_LINKS_JS, CHAPTERS)
        assert before == [], f"{docname} at {width} px: the chapter list is open before the toggle is touched"
        toggle = _visible_toggle(page)
        toggle.hover()
        page.wait_for_timeout(400)
        covered = page.evaluate(_HEADER_OVERLAPS_JS)
        toggle.click()
        shown = _links_once_settled(page, lambda links: len(links) == len(CHAPTERS))
        covered += page.evaluate(_HEADER_OVERLAPS_JS)  # a tap focuses the button, which shows its tooltip
        SHOTS.mkdir(parents=True, exist_ok=True)
        page.screenshot(path=SHOTS / f"{docname.replace('/', '-')}-{width}-navigation.png")
        # the theme blurs the toggle on a synthetic click, so the tap above leaves no focus tooltip to see:
        # close the sidebar and focus the toggle, as a real tap leaves it
        page.keyboard.press("Escape")
        page.wait_for_timeout(400)
        toggle.focus()
        page.wait_for_timeout(400)
        covered += page.evaluate(_HEADER_OVERLAPS_JS)
    finally:
        page.close()
    assert covered == [], f"{docname} at {width} px: {covered}"
    missing = [d for d in CHAPTERS if not any(h.endswith(f"/{d}.html") for h in shown)]
    assert missing == [], f"{docname} at {width} px: after a tap on the toggle these chapters cannot be reached: {missing}"


@pytest.mark.parametrize("docname", PAGES)
def test_laptop_toggle_hides_and_shows_the_chapter_list(site, docname):
    width = WIDTHS["laptop"]
    page = site.open(docname, width)
    try:
        states = [page.evaluate(_SIDEBAR_LINKS_JS, CHAPTERS)]
        toggle = _visible_toggle(page)
        toggle.hover()
        page.wait_for_timeout(400)
        covered = page.evaluate(_HEADER_OVERLAPS_JS)
        for _ in range(2):
            _visible_toggle(page).click()
            states.append(_links_once_settled(page, lambda links, before=states[-1]: links != before))
    finally:
        page.close()
    assert covered == [], f"{docname} at {width} px: {covered}"
    assert len(states[0]) == len(CHAPTERS), f"{docname} at {width} px: the chapter list is not shown on opening: {states[0]}"
    assert states[1] != states[0], f"{docname} at {width} px: the sidebar toggle does nothing"
    assert states[2] == states[0], f"{docname} at {width} px: a second click on the toggle does not bring the chapter list back"


# A search field or the button that opens one: an input, the theme's search buttons (the sidebar's "Search
# Ctrl+K" field at a laptop's width, the header's magnifier on a phone), a search form without an input.
_SEARCH_FIELDS_JS = """
() => [...document.querySelectorAll('input[type="search"], input[name="q"], .search-button__button, .search-button-field, form.bd-search')]
  .filter((el) => !el.closest('dialog:not([open])') && !(el.matches('form') && el.querySelector('input')))
  .filter((el) => { const r = el.getBoundingClientRect(); const s = getComputedStyle(el);
                    return r.width > 20 && r.height > 5 && r.right > 0 && s.visibility !== 'hidden'; })
  .map((el) => `${el.tagName.toLowerCase()}.${el.className} at ${Math.round(el.getBoundingClientRect().top)} px`)
"""


@pytest.mark.parametrize("docname, width", _both(PAGES + GENERATED))
def test_one_search_field_per_page(site, docname, width):
    """Every page, the search page with its own field included, shows one search field (or one button that
    opens one), at a laptop's width and on a phone."""
    page = site.open(docname, width)
    try:
        fields = page.evaluate(_SEARCH_FIELDS_JS)
    finally:
        page.close()
    assert len(fields) == 1, f"{docname} at {width} px: expected one search field, found {fields}"


# ----------------------------------------------------------------------------------------------------
# 4. nothing cut off at the right edge


@pytest.mark.parametrize("opened", [False, True], ids=["closed", "opened"])
@pytest.mark.parametrize("docname, width", _both(PAGES + GENERATED))
def test_nothing_is_cut_off(site, docname, width, opened):
    """As the page opens, and again with every solution and folded cell opened (a table or an equation inside
    a solution is narrower than the column by the solution's margins). Every page, the ones Sphinx generates
    (the index, the module index, the search page) included."""
    seen = site.audit(docname, width, opened)
    state = f"{docname} at {width} px" + (", every solution and folded cell opened" if opened else "")
    assert seen["cutOff"] == [], f"{state}: blocks cut off at the right edge:\n" + "\n".join(seen["cutOff"])
    assert seen["pageWidth"] <= width, f"{state}: the page scrolls sideways ({seen['pageWidth']} px wide)"
    assert seen["sideways"] == [], f"{state}: the page is wider than the screen in:\n" + "\n".join(seen["sideways"])
    assert seen["wideEquations"] == [], (
        f"{state}: display equations wider than their column (split them over lines with aligned, or shorten "
        "them; an equation number takes its own room):\n" + "\n".join(seen["wideEquations"])
    )
    if width == WIDTHS["laptop"]:
        assert seen["scrolls"] == [], (
            f"{state}: code, output or equation blocks that must be scrolled sideways to be "
            "read (keep lines within 88 characters; split long equations):\n" + "\n".join(seen["scrolls"])
        )
    else:
        # on a phone an 88-character line does not fit: code and outputs wrap within their box
        # (_ext/static/reader_page.css) instead of hiding the end of each long line
        code = [s for s in seen["scrolls"] if s.startswith("pre ")]
        assert code == [], (
            f"{state}: code or output blocks whose long lines must be scrolled sideways to be read (they "
            "should wrap on a narrow screen):\n" + "\n".join(code)
        )


def test_notation_tables_fit_a_phone(site):
    """The notation page is the one a reader keeps open beside a chapter, on a phone too: at 390 px every
    table of it fits the column (narrow screens stack each row, _ext/static/notation.css), so that no column,
    the shape or the name in code, is off-screen."""
    wide = [s for s in site.audit("notation", WIDTHS["phone"])["scrolls"] if s.startswith("table ")]
    assert wide == [], f"notation at {WIDTHS['phone']} px: tables wider than the column:\n" + "\n".join(wide)


@pytest.mark.parametrize("opened", [False, True], ids=["closed", "opened"])
@pytest.mark.parametrize("docname", PAGES)
def test_tables_fit_a_phone(site, docname, opened):
    """At 390 px no table of any page hides a column past its right edge, as the page opens and with every
    solution opened: a table whose columns do not fit is stacked, one block per row and one line per cell
    with its column's header (_ext/static/reader_tables.js), as the notation page's tables are
    (_ext/static/notation.css). At 1280 px every table keeps its columns."""
    phone = site.audit(docname, WIDTHS["phone"], opened)
    wide = [s for s in phone["scrolls"] if s.startswith("table ")]
    assert wide == [], (f"{docname} at {WIDTHS['phone']} px: tables whose right edge is hidden (they scroll "
                        "sideways):\n" + "\n".join(wide))
    stacked = site.audit(docname, WIDTHS["laptop"], opened)["stackedTables"]
    assert stacked == [], f"{docname} at {WIDTHS['laptop']} px: tables stacked although the page is wide: {stacked}"


@pytest.mark.parametrize("opened", [False, True], ids=["closed", "opened"])
@pytest.mark.parametrize("docname, width", _both(PAGES))
def test_tables_that_keep_their_columns_keep_short_cells_whole(site, docname, width, opened):
    """A table squeezed into the column by breaking its values over lines ("(101, | 115)" in a six-column
    table at 390 px) is stacked instead: in a table that keeps its columns no body cell that holds one value
    (numbers, symbols and inline code, at most ``SHORT_CELL`` characters) is drawn on more than one line, at
    1280 px and at 390 px, as the page opens and with every solution opened."""
    wrapped = site.audit(docname, width, opened)["wrappedCells"]
    assert wrapped == [], (f"{docname} at {width} px: table cells that hold one value broken over lines (the "
                           "table should be stacked):\n" + "\n".join(wrapped))


@pytest.mark.parametrize("docname, width", _both(PAGES))
def test_inline_code_breaks_only_between_words(site, docname, width):
    """An identifier or a file name in inline code wraps after a ``.``, ``_``, ``/`` or a space, never inside
    a word, between two letters or digits (``positional.r|ope_angles``): at a laptop's width anywhere on the page, on a phone in tables
    (where a piece wider than the phone's column may have to break, the table scrolls instead)."""
    seen = site.audit(docname, width)
    broken = [b["text"] for b in seen["codeBreaks"] if width == WIDTHS["laptop"] or b["inTable"]]
    assert broken == [], (
        f"{docname} at {width} px: inline code broken inside a word (| marks the break):\n" + "\n".join(broken)
    )


@pytest.mark.parametrize("docname, width", _both(PAGES))
def test_numbers_stay_on_the_line_of_their_unit(site, docname, width):
    seen = site.audit(docname, width)
    assert seen["unitSplits"] == [], (
        f"{docname} at {width} px: a number on one line and its unit on the next (join them with a no-break "
        "space; _ext/reader_page.py does so for the units it knows):\n" + "\n".join(seen["unitSplits"])
    )


# ----------------------------------------------------------------------------------------------------
# 6. bookkeeping and test machinery stay out of the reader's view


@pytest.mark.parametrize("docname", PAGES)
def test_no_glue_code_and_no_test_machinery_in_view(site, docname):
    seen = site.audit(docname, WIDTHS["laptop"])
    assert seen["glueCode"] == [], (
        f"{docname}: code cells a reader can see or unfold do glue bookkeeping (tag them remove-cell):\n"
        + "\n".join(seen["glueCode"])
    )
    assert seen["machinery"] == [], f"{docname}: prose about the test machinery:\n" + "\n".join(seen["machinery"])


# ----------------------------------------------------------------------------------------------------
# 7. chapters referred to by title, linked


@pytest.mark.parametrize("docname", PAGES)
def test_chapters_are_named_and_linked(site, docname):
    seen = site.audit(docname, WIDTHS["laptop"])
    assert seen["unlinkedChapters"] == [], (
        f"{docname}: chapters referred to by their kind, without a link (name the chapter with "
        "{doc}`chapters/x` or a {ref} to its label):\n" + "\n".join(seen["unlinkedChapters"])
    )
    assert seen["stutters"] == [], f"{docname}: a word repeated before the link that names it: {seen['stutters']}"


def test_api_headings_link_the_chapters_they_group(site):
    headings = [h for h in site.audit("api", WIDTHS["laptop"])["headings"] if h["text"].startswith("Concepts of")]
    assert headings, "the api page has no 'Concepts of ...' headings to group its modules by chapter"
    chapter_urls = {site.url(d) for d in CHAPTERS}
    unlinked = [h["text"] for h in headings if not chapter_urls & set(h["links"])]
    assert unlinked == [], f"api headings that name a chapter without linking it: {unlinked}"


@pytest.fixture(scope="module")
def api_html() -> str:
    """The API page as built (no browser needed)."""
    return (booksite.book_for_this_run() / "api.html").read_text(encoding="utf-8")


def _text(html: str) -> str:
    """The text of an HTML fragment, tags dropped, entities decoded, white space squashed."""
    import html as html_module

    return " ".join(html_module.unescape(re.sub(r"<[^>]+>", " ", html)).split())


def _chapter_link_texts(html: str) -> set[str]:
    """The texts of the page's links to chapters (a chapter's file named in a docstring becomes one)."""
    links = re.findall(r'<a class="reference internal[^"]*" href="chapters/[\w]+\.html(?:#[^"]*)?">(.*?)</a>', html, re.S)
    return {_text(link) for link in links if _text(link)}


def test_api_page_names_each_chapter_once(api_html):
    """A chapter named in a docstring is its title, linked, once: not "The chapter “Embeddings” (Embeddings)"
    nor "the four-level “Embeddings” chapter" (tests/test_reader_notebooks.py checks the docstrings too)."""
    text = _text(re.sub(r'<a class="headerlink"[^>]*>.*?</a>', " ", api_html, flags=re.S))
    titles = _chapter_link_texts(api_html)
    assert titles, "the API page links no chapter"
    twice = [m.group(0) for title in titles
             for m in re.finditer(rf"{re.escape(title)}[\W]{{0,6}}{re.escape(title)}", text)]
    quoted_title = "|".join(re.escape(title) for title in sorted(titles))
    quoted = [m.group(0) for m in re.finditer(rf"“(?:{quoted_title})”|“[^”]{{2,80}}”\s+chapter\b", text)]
    assert twice + quoted == [], f"the API page names a chapter twice in a row, or by a quoted title: {twice + quoted}"


# A value autodoc prints after a constant's name: "SOURCE_NEIGHBOURS = {...}" (the text after " = ")
MAX_SHOWN_VALUE = 100  # characters
LONG_FLOAT = re.compile(r"\d\.\d{7,}")
# Python reprs a reader should not have to decode, in a constant's value or a signature's default: a NumPy
# array, a dict or a set (of strings, numbers or objects), a frozenset, a compiled regular expression, a
# function, a class or an object shown by its address. A constant's entry says what it holds in words
# (``:meta hide-value:`` in its doc comment), a default is shown as the source writes it
# (``autodoc_preserve_defaults``: ``functions=REFERENCE``).
RAW_REPR = re.compile(r"\barray\(|\{['\"\d(-]|\{\}|\bfrozenset\(|\bset\(|\bre\.compile\(|<function |<class |<built-in "
                      r"| object at 0x|\bOrderedDict\(|\bdefaultdict\(")
# What autodoc writes for a NamedTuple's field that has no description of its own
FIELD_PLACEHOLDER = "Alias for field number"


def _signatures(api_html: str, kinds: str) -> list[str]:
    """The text of each signature (``<dt>``) of the API page's entries of the given kinds (``data|attribute``)."""
    found = re.findall(rf'<dl class="py (?:{kinds})">\s*<dt[^>]*>(.*?)</dt>', api_html, re.S)
    return [_text(re.sub(r'<a class="headerlink"[^>]*>.*?</a>', " ", sig, flags=re.S)) for sig in found]


def test_api_page_shows_no_raw_repr_of_a_constant(api_html):
    """A module constant's entry says what it is; it does not print a repr of more than
    ``MAX_SHOWN_VALUE`` characters (a dict of dataclasses), floats of 17 digits, or a repr of
    :data:`RAW_REPR`'s kinds (``array(...)``, ``{'wordsim': ...}``, ``frozenset({...})``,
    ``re.compile(...)``), however short (its doc comment says ``:meta hide-value:`` and gives the value in
    words)."""
    entries = _signatures(api_html, "data|attribute")
    assert entries, "the API page documents no constant"
    shown = []
    for text in entries:
        name, _, value = text.partition(" = ")
        if len(value) > MAX_SHOWN_VALUE or LONG_FLOAT.search(value) or RAW_REPR.search(value):
            shown.append(f"{name}: {len(value)} characters: {value[:80]}...")
    assert shown == [], "constants shown as raw reprs on the API page:\n" + "\n".join(shown)


def test_api_signatures_show_defaults_as_written(api_html):
    """A function's or a class's signature shows a default as the source writes it (``functions=REFERENCE``),
    never as its repr (``functions=Functions(lookup=<function lookup>, ...)``)."""
    signatures = _signatures(api_html, "function|method|class|exception|property")
    assert signatures, "the API page documents no function"
    raw = [text[:160] for text in signatures if RAW_REPR.search(text)]
    assert raw == [], "signatures that show a default as a raw repr on the API page:\n" + "\n".join(raw)


def test_api_page_describes_every_namedtuple_field(api_html):
    """Every field of a NamedTuple has a description of its own (a ``#:`` comment above it), not the
    placeholder autodoc writes for one without (``Alias for field number 0``)."""
    entries = re.findall(r'<dl class="py attribute">\s*<dt[^>]*id="([^"]+)"[^>]*>.*?</dt>\s*<dd>(.*?)</dd>',
                         api_html, re.S)
    bare = [name for name, body in entries if FIELD_PLACEHOLDER in _text(body)]
    assert bare == [], f"NamedTuple fields described only as '{FIELD_PLACEHOLDER} N' on the API page: {bare}"
    assert FIELD_PLACEHOLDER not in _text(api_html), f"the API page shows '{FIELD_PLACEHOLDER}'"


@pytest.mark.parametrize("docname", [d for d in PAGES if d != PAGES[0]])
def test_source_texts_are_linked_where_a_page_first_names_them(site, docname):
    """"Lesson 2.3", "the chapter this one is adapted from": the texts the book was written from have no
    author or publication to cite, so the introduction names them, and a page that names one links there."""
    mentions = site.audit(docname, WIDTHS["laptop"])["sourceMentions"]
    account = f"{site.url(PAGES[0])}#{SOURCES_ANCHOR}"
    if mentions:
        first = mentions[0]
        assert account in first["links"], (
            f"{docname}: the first paragraph that names a source text does not link to {account}: {first['text']}"
        )


@pytest.mark.parametrize("docname", PAGES)
def test_repository_paths_named_in_the_text_are_links(site, docname):
    """A reader of the web book cannot open ``benchmarks/README.md`` unless it is a link (to the repository,
    or, for a chapter's source, to the chapter)."""
    named = []
    for candidate in site.audit(docname, WIDTHS["laptop"])["pathCandidates"]:
        path = candidate["path"].rstrip(".")
        if (ROOT / path).exists() and booksite.git_tracked(path.rstrip("/")):
            named.append(f"{path} in {candidate['where']}")
    assert named == [], f"{docname}: files of the repository named without a link:\n" + "\n".join(named)


def test_introduction_links_every_chapter(site):
    root = PAGES[0]
    links = set(site.audit(root, WIDTHS["laptop"])["pageLinks"])
    missing = [d for d in CHAPTERS if site.url(d) not in links]
    assert missing == [], f"the introduction ({root}) does not link these chapters: {missing}"


# ----------------------------------------------------------------------------------------------------
# 8. figures legible at 1280 px and on a phone


@functools.lru_cache(maxsize=None)
def _figure_functions() -> dict[str, object]:
    """``{figure name: zero-argument function that draws it}``, from the chapters' sources.

    A figure cell calls ``show(alias.function(...))``; the function drawn is the entry of the
    ``lib.figures`` registry that is that function (the registry's functions take no arguments).
    """
    import importlib

    from lib.figures import registry

    def key(fn):
        fn = getattr(fn, "__wrapped__", fn)
        return fn.__module__, fn.__name__

    registered = {key(fn): fn for fn in registry().values()}
    found = {}
    for docname in booksite.chapter_docnames():
        nb = jupytext.read(ROOT / f"{docname}.md")
        aliases = {}
        for cell in nb.cells:
            for module, alias in re.findall(r"from lib\.figures import (\w+)(?: as (\w+))?", cell.source):
                aliases[alias or module] = f"lib.figures.{module}"
        for cell in nb.cells:
            name = cell.metadata.get("mystnb", {}).get("figure", {}).get("name")
            call = re.search(r"show\(\s*(\w+)\.(\w+)\(", cell.source)
            if name and call and call.group(1) in aliases:
                fn = getattr(importlib.import_module(aliases[call.group(1)]), call.group(2), None)
                if fn is not None and key(fn) in registered:
                    found[name] = registered[key(fn)]
    return found


@functools.lru_cache(maxsize=None)
def _smallest_text(name: str) -> tuple[float, float, str]:
    """(smallest font size in points, figure width in inches, that text) of figure ``name``, as drawn."""
    from matplotlib.text import Text

    from lib.figures.style import book_style
    from lib.notebook import figure_png

    from matplotlib.backends.backend_agg import FigureCanvasAgg

    fig = _figure_functions()[name]()
    figure_png(fig)  # draw it as the book does, so that tick labels and the layout exist
    renderer = FigureCanvasAgg(fig).get_renderer()
    box = fig.bbox
    sizes = []
    with book_style():
        fig.draw(renderer)
        for text in fig.findobj(Text):
            if not (text.get_visible() and text.get_text().strip()):
                continue
            extent = text.get_window_extent(renderer)
            if extent.width > 0 and box.overlaps(extent):
                sizes.append((text.get_fontsize(), text.get_text().strip()[:30]))
    assert sizes, f"figure {name} has no text"
    size, sample = min(sizes)
    return size, fig.get_figwidth(), sample


@pytest.mark.parametrize("docname, width", _both(PAGES))
def test_figure_text_is_legible(site, docname, width):
    problems = []
    for fig in site.audit(docname, width)["figures"]:
        if not fig.get("src"):
            problems.append(f"figure {fig['id']!r} has no image")
            continue
        name = fig["id"]
        if name not in _figure_functions():
            problems.append(f"figure {name!r} is not drawn by a function of the lib.figures registry "
                            "(show(module.function(...))), so its text cannot be measured")
            continue
        points, inches, sample = _smallest_text(name)
        rendered_px = points / 72 * fig["rendered"] / inches  # CSS px of the smallest text on the page
        if rendered_px >= MIN_TEXT_PX:
            continue
        natural_px = points / 72 * fig["natural"] / inches  # image px of that text at full size
        if width == WIDTHS["laptop"]:
            problems.append(f"figure {name!r}: its smallest text ({sample!r}, {points:g} pt) is "
                            f"{rendered_px:.1f} px at this width; enlarge it or make the figure narrower")
        elif fig["link"] is None or fig["link"].split("?")[0] != fig["src"].split("?")[0]:
            problems.append(f"figure {name!r}: its text is {rendered_px:.1f} px on a phone and a tap does not "
                            f"open the image full size (link: {fig['link']})")
        elif natural_px < SHARPNESS * MIN_TEXT_PX:
            problems.append(f"figure {name!r}: opened full size, its smallest text ({sample!r}) is "
                            f"{natural_px:.1f} image px, below {SHARPNESS * MIN_TEXT_PX:g}: draw it at a higher "
                            "resolution (lib.notebook.BOOK_DPI) or with larger text")
    assert problems == [], f"{docname} at {width} px:\n" + "\n".join(problems)


TAP_HINT = "Tap the figure to open it full size."


@pytest.mark.parametrize("docname, width", _both(PAGES))
def test_a_phone_reader_is_told_that_a_figure_opens_full_size(site, docname, width):
    """At 390 px every figure's text is too small to read inline; its caption ends with a hint that a tap
    opens it full size. At 1280 px, where the figure is read in place, no caption carries the hint."""
    figures = [f for f in site.audit(docname, width)["figures"] if f.get("src")]
    expected = TAP_HINT if width == WIDTHS["phone"] else ""
    wrong = [f"figure {f['id']!r}: hint {f['hint']!r}" for f in figures
             if f["hint"] != (expected if f["link"] else "")]
    assert wrong == [], f"{docname} at {width} px: captions should end with {expected!r}:\n" + "\n".join(wrong)


@pytest.mark.parametrize("docname", CHAPTERS)
def test_figures_and_exercises_are_numbered_within_their_chapter(site, docname):
    """A reader who opens one chapter finds its first figure and its first exercise numbered 1 within it
    (``Fig. 3.1``, ``Exercise 3.1`` in the third chapter), not counted on from the chapters before it."""
    chapter = CHAPTERS.index(docname) + 1
    for kind, labels in site.audit(docname, WIDTHS["laptop"])["numbering"].items():
        numbers = [re.search(r"\d+(?:\.\d+)*", label).group(0) for label in labels]
        expected = [f"{chapter}.{i}" for i in range(1, len(numbers) + 1)]
        assert numbers == expected, f"{docname}: {kind} numbered {numbers}, not {expected}"


# ----------------------------------------------------------------------------------------------------
# 9. one citation style


AUTHOR_YEAR = re.compile(r"^(?P<authors>\S.*\S), (?P<year>(?:1[5-9]|20)\d\d[a-z]?)$")


def _bibliography(site) -> dict[str, str]:
    labels = {c["id"]: c["label"] for c in site.audit("bibliography", WIDTHS["laptop"])["bibLabels"]}
    assert labels, "the bibliography page lists no references"
    return labels


def test_bibliography_is_labelled_author_year_one_label_per_work(site):
    labels = _bibliography(site)
    wrong = [label for label in labels.values() if not AUTHOR_YEAR.match(label)]
    assert wrong == [], f"bibliography labels that are not 'Authors, year' (numbered or raw TeX?): {wrong}"
    assert not [label for label in labels.values() if re.search(r"[\\{}]", label)], f"TeX in labels: {labels}"
    repeated = sorted(label for label in set(labels.values()) if list(labels.values()).count(label) > 1)
    assert repeated == [], f"works that share a label (add a, b to the year): {repeated}"


def test_bibliography_links_each_work_once(site):
    """An entry shows its work once: one link (its DOI, else its arXiv id, else its URL), and an arXiv id once,
    not as a URL, an "arXiv:" link and an "arXiv preprint arXiv:..." journal at the same time."""
    entries = site.audit("bibliography", WIDTHS["laptop"])["bibLabels"]
    assert entries, "the bibliography page lists no references"
    twice = []
    for entry in entries:
        ids = re.findall(r"\b\d{4}\.\d{4,5}\b", entry["text"])  # arXiv ids as the reader sees them
        if len(entry["links"]) > 1 or len(ids) > len(set(ids)):
            twice.append(f"[{entry['label']}] links {entry['links']}: {entry['text'][-160:]}")
    assert twice == [], "bibliography entries that show their work more than once:\n" + "\n".join(twice)


@pytest.mark.parametrize("docname", [d for d in PAGES if d != "bibliography"])
def test_citations_give_the_year_and_letter_of_the_work(site, docname):
    labels = _bibliography(site)
    problems = []
    texts_by_target: dict[str, set] = {}
    for cite in site.audit(docname, WIDTHS["laptop"])["citations"]:
        label = labels.get(cite["target"])
        if label is None:
            problems.append(f"{cite['text']!r} links to #{cite['target']}, which is not a bibliography entry")
            continue
        year = AUTHOR_YEAR.match(label)["year"] if AUTHOR_YEAR.match(label) else label
        if re.fullmatch(r"\[?\d{1,3}\]?", cite["text"]) or not cite["text"].endswith(year):
            problems.append(f"{cite['text']!r} cites {label!r}: the text should end with {year!r}")
        if AUTHOR_YEAR.match(cite["text"]):  # "Mikolov et al., 2013a"; a textual cite links the year alone
            texts_by_target.setdefault(cite["text"], set()).add(label)
        elif AUTHOR_YEAR.match(label) and not cite["whole"].startswith(AUTHOR_YEAR.match(label)["authors"] + " ["):
            problems.append(f"{cite['whole']!r} cites {label!r}: a textual citation names its authors as the "
                            f"label does ({AUTHOR_YEAR.match(label)['authors']!r} [year])")
    shared = {text: sorted(ls) for text, ls in texts_by_target.items() if len(ls) > 1}
    assert not shared, f"{docname}: one citation text for several works: {shared}"
    assert problems == [], f"{docname}:\n" + "\n".join(problems)


@functools.lru_cache(maxsize=None)
def _named_work_authors() -> dict[str, str]:
    """``{name: first author's last name}`` of each of ``booksite.NAMED_WORKS`` and ``NAMED_SOFTWARE``, as a
    citation of it starts (``Řehůřek``, ``Hugging Face``: LaTeX accents and braces decoded, as the page shows
    them)."""
    from pybtex.database import parse_file

    import bibstyle

    entries = parse_file(str(ROOT / "references.bib")).entries
    works = {**booksite.NAMED_WORKS, **booksite.NAMED_SOFTWARE}
    return {name: bibstyle._last_names(entries[key].persons["author"][0]) for name, key in works.items()}


@pytest.mark.parametrize("docname", [d for d in PAGES if d != "bibliography"])
def test_no_citation_left_as_plain_text(site, docname):
    """Every author-year citation on a page, the API page's docstrings included, is a link to its entry in the
    bibliography (so every work cited is in it), labelled as the bibliography labels it."""
    seen = site.audit(docname, WIDTHS["laptop"])
    found = seen["plainCitations"]
    assert found == [], (f"{docname}: citations typed as text instead of {{cite}} (a page) or :cite:t: (a "
                         "docstring of lib):\n" + "\n".join(found))
    # a work known by its name ("nanoGPT (Karpathy)" was typed) is cited where the page first names it
    authors = _named_work_authors()
    uncited = [f"{w['name']} in {w['where']!r} (citations there: {w['cites']})" for w in seen["namedWorks"]
               if not any(cite.startswith(authors[w["name"]]) for cite in w["cites"])]
    assert uncited == [], f"{docname}: works named without a citation where the page first names them:\n" + "\n".join(uncited)


# ----------------------------------------------------------------------------------------------------
# 10. orientation: footer, notation page, search snippets


@pytest.mark.parametrize("docname", PAGES)
def test_footer_names_the_book_and_its_licence(site, docname):
    footer = site.audit(docname, WIDTHS["laptop"])["footer"]
    assert CONFIG["title"] in footer, f"{docname}: the footer does not name the book: {footer!r}"
    assert re.search(r"licen[cs]e|CC BY", footer, re.I), f"{docname}: the footer gives no licence: {footer!r}"
    assert not re.search(r"\bBy The\b|\bauthors\b$", footer), f"{docname}: the footer reads {footer!r}"


def test_notation_page_is_in_the_table_of_contents():
    assert "notation" in PAGES, "_toc.yml does not list the notation page (notation.md)"
    text = (ROOT / "notation.md").read_text()
    for symbol in ("$V$", "$d$", "$E$", "$P$", r"$\mathrm{pos}$", "$x_t$", "$L$"):
        assert symbol in text, f"notation.md does not define {symbol}"


_SEARCH_JS = """
() => ({
  results: [...document.querySelectorAll('#search-results ul.search li')].map((li) => ({
    href: (li.querySelector('a') || {}).href || '',
    title: ((li.querySelector('a') || {}).textContent || '').trim(),
    snippet: ((li.querySelector('p.context') || {}).textContent || '').trim(),
  })),
  pageWidth: document.documentElement.scrollWidth,
})
"""
# TeX as TeX (a backslash command, \( \), $) or as the remains of a half-converted one ("fracpos", "^{2i}")
RAW_TEX = re.compile(r"\\[A-Za-z]+|\\[()\[\]]|\$|\b(?:d?frac|mathrm|mathbf|operatorname|lVert|rVert)|[\^_]\{")
# a script of more than one character without parentheses: "10000^2p/d", "e^-z", "x_T-1"
HALF_TEX = re.compile(r"\^(?!\()[\w\-−+/]{2}|(?<![\w])[A-Za-zα-ωΑ-Ω]_\w+[-−+]\w")
# the page's buttons, its printed table of contents, the labels of folded cells
UI_TEXT = re.compile(r"\b(?:Show|Hide) code cell\b|\bContents\b|Binder\s+Colab|\.ipynb\s+\.md\s+\.pdf")
SEARCHES = ["sinusoidal", "embedding table", "cosine similarity", "cosine", "positional encoding", "PPMI", "skip-gram"]


@pytest.mark.parametrize("query, width", [pytest.param(q, w, id=f"{q}-{w}") for q in SEARCHES for w in WIDTHS.values()])
def test_search_results_read_as_text_and_fit_the_screen(site, query, width):
    page = site.contexts[width].new_page()
    try:
        page.goto(site.base + "search.html?" + urllib.parse.urlencode({"q": query}), wait_until="load")
        page.wait_for_function(
            "() => { const s = document.querySelector('#search-results .search-summary');"
            " return s && /Search finished|did not match/.test(s.textContent); }"
        )
        page.wait_for_timeout(1500)  # snippets arrive page by page after the summary
        seen = page.evaluate(_SEARCH_JS)
        SHOTS.mkdir(parents=True, exist_ok=True)
        page.screenshot(path=SHOTS / f"search-{query.replace(' ', '-')}-{width}.png", full_page=True)
    finally:
        page.close()
    results = seen["results"]
    assert results, f"searching {query!r} found nothing"
    assert seen["pageWidth"] <= width, (
        f"the search page for {query!r} is {seen['pageWidth']} px wide at {width} px: it scrolls sideways"
    )

    def where(r):
        return f"{r['href'].split('/')[-1]}: {r['snippet'][:160]!r}"

    raw = [where(r) for r in results if RAW_TEX.search(r["snippet"]) or HALF_TEX.search(r["snippet"])]
    assert raw == [], f"search snippets for {query!r} show raw or half-converted TeX:\n" + "\n".join(raw)
    ui = [where(r) for r in results if UI_TEXT.search(r["snippet"])]
    assert ui == [], f"search snippets for {query!r} show the page's buttons or labels:\n" + "\n".join(ui)
    # one result per place, and no two results of one page under one title (a reader cannot tell them apart)
    places = [urllib.parse.urlsplit(r["href"])._replace(query="").geturl() for r in results]
    titled = [(urllib.parse.urlsplit(r["href"]).path, r["title"]) for r in results]
    twice = sorted({p for p in places if places.count(p) > 1} | {f"{t} on {p}" for p, t in titled if titled.count((p, t)) > 1})
    assert twice == [], f"searching {query!r} lists a place or a title twice:\n" + "\n".join(twice)


@pytest.mark.parametrize("query", ["RoPE", "cosine"])
def test_search_lists_the_pages_a_reader_reads_before_the_api(site, query):
    """A query for a concept finds the chapters that teach it first; the API page's functions whose names
    contain the word (``rope_angles``) come after every other page's results (_ext/static/search_scorer.js)."""
    page = site.contexts[WIDTHS["laptop"]].new_page()
    try:
        page.goto(site.base + "search.html?" + urllib.parse.urlencode({"q": query}), wait_until="load")
        page.wait_for_function(
            "() => { const s = document.querySelector('#search-results .search-summary');"
            " return s && /Search finished|did not match/.test(s.textContent); }"
        )
        pages = page.evaluate("() => [...document.querySelectorAll('#search-results ul.search li > a')]"
                              ".map((a) => a.href.split('#')[0].split('/').pop())")
    finally:
        page.close()
    assert "api.html" in pages and len(set(pages)) > 1, f"searching {query!r}: results {pages}"
    first_api = pages.index("api.html")
    assert all(p == "api.html" for p in pages[first_api:]), (
        f"searching {query!r}: an API result comes before a page a reader reads: {pages}")


# (TeX source, the plain text a search snippet shows for it)
TEX_READINGS = [
    (r"\(PE[\mathrm{pos}, 2p] = \sin\left(\frac{\mathrm{pos}}{10000^{2p/d}}\right)\)", "PE[pos, 2p] = sin(pos/10000^(2p/d))"),
    (r"\((x_0, \ldots, x_{T-1})\)", "(x₀, …, x_(T-1))"),
    (r"\(\sigma(z) = 1/(1 + e^{-z})\)", "σ(z) = 1/(1 + e⁻ᶻ)"),
    (r"\(2\pi/\omega_p\)", "2π/ωₚ"),
    (r"\((T_{\max}, d)\)", "(Tₘₐₓ, d)"),
    (r"\(\frac{a+b}{2}\)", "(a+b)/2"),
    (r"\(\theta_i = b^{-2i/d_h}\)", "θᵢ = b^(-2i/dₕ)"),
    (r"\(\{a, b\}\)", "{a, b}"),
    (r"\(10^6\)", "10⁶"),
]


def test_search_reads_formulas_as_plain_text(site):
    page = site.contexts[WIDTHS["laptop"]].new_page()
    try:
        page.goto(site.base + "search.html", wait_until="load")
        read = page.evaluate("(texs) => texs.map((t) => window.embookSearchText.texToText(t))",
                             [tex for tex, _ in TEX_READINGS])
    finally:
        page.close()
    assert read == [text for _, text in TEX_READINGS]
