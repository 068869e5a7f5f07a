/* Tables too wide for the screen are stacked: each row becomes a block, each cell a line that starts with
   its column's header (reader_page.css, table.reader-stacked). A table that fits keeps its columns, so on a
   laptop nothing changes; on a phone a table of five columns is read row by row instead of sideways, with
   no column off-screen.

   A body cell that holds one value, numbers and code with nothing but punctuation between them ("(101,
   115)", "0.27 [0.1, 0.4]", "`es` + `t`", at most SHORT characters), stays on one line in a table that keeps
   its columns (td.reader-whole, reader_page.css): otherwise the browser squeezes a table of six columns
   into a phone's column by breaking such values over lines, "(101, | 115)", which is no easier to read than
   a column off-screen. Measured so, the table is too wide and is stacked. A cell with words in it may wrap,
   and so may a range after its dash ("1.055–1.058", as typeset text breaks it).

   Each body cell gets its column's header as data-label (the CSS shows it before the cell's text) and its
   content wrapped in one box, div.reader-cell-value. A table
   without a header row, and the notation page's tables (notation.css stacks those itself), are left alone.
   Whether a table fits is measured again whenever its box changes width, after the fonts are loaded and
   after MathJax has typeset the formulas inside it. */
(() => {
  const STACKED = 'reader-stacked';
  const WHOLE = 'reader-whole';
  const SHORT = 24;  // characters

  // one value: numbers, symbols and inline code, no word outside the code, no range (an en dash)
  const oneValue = (cell) => {
    const text = cell.textContent.replace(/\s+/g, ' ').trim();
    if (!text || text.length > SHORT) return false;
    const outside = cell.cloneNode(true);
    outside.querySelectorAll('code').forEach((c) => c.remove());
    return !/\p{L}/u.test(outside.textContent) && !text.includes('\u2013');
  };

  const labelled = (table) => {
    const heads = [...table.querySelectorAll(':scope > thead > tr:last-child > th')];
    if (!heads.length) return false;
    const labels = heads.map((th) => th.textContent.replace(/\s+/g, ' ').trim());
    for (const row of table.querySelectorAll(':scope > tbody > tr')) {
      [...row.children].forEach((cell, i) => {
        if (labels[i]) cell.setAttribute('data-label', labels[i]);
        // the cell's content in one box, beside its label when stacked (text and inline code together)
        const value = document.createElement('div');
        value.className = 'reader-cell-value';
        value.append(...cell.childNodes);
        cell.append(value);
        if (oneValue(value)) cell.classList.add(WHOLE);
      });
    }
    return true;
  };

  const boxOf = (table) => {
    for (let n = table.parentElement; n && !n.matches('article'); n = n.parentElement) {
      const overflow = getComputedStyle(n).overflowX;
      if (overflow === 'auto' || overflow === 'scroll' || n.matches('section, .cell_output, .output')) return n;
    }
    return table.parentElement;
  };

  const fit = (table) => {
    const box = boxOf(table);
    table.classList.remove(STACKED);
    if (table.getBoundingClientRect().width > box.clientWidth + 1) table.classList.add(STACKED);
  };

  const start = () => {
    const article = document.querySelector('article.bd-article') || document.querySelector('main');
    if (!article) return;
    const tables = [...article.querySelectorAll('table')]
      .filter((t) => !t.closest('.notation-table, pre, .highlight') && labelled(t));
    if (!tables.length) return;
    const refit = () => tables.forEach(fit);
    refit();
    if ('ResizeObserver' in window) {
      // only a change of width matters (stacking a table changes its box's height)
      const widths = new Map();
      const observer = new ResizeObserver((entries) => {
        const wider = entries.filter((e) => widths.get(e.target) !== e.contentRect.width);
        entries.forEach((e) => widths.set(e.target, e.contentRect.width));
        if (wider.length) refit();
      });
      tables.forEach((t) => observer.observe(boxOf(t)));
    } else {
      window.addEventListener('resize', refit);
    }
    if (document.fonts && document.fonts.ready) document.fonts.ready.then(refit);
    const afterMaths = () => {
      if (window.MathJax && MathJax.startup && MathJax.startup.promise) MathJax.startup.promise.then(refit);
    };
    afterMaths();
    window.addEventListener('load', () => { afterMaths(); refit(); });
  };

  if (document.readyState === 'loading') document.addEventListener('DOMContentLoaded', start);
  else start();
})();
