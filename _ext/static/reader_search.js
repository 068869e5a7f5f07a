/* Search result snippets a reader can read (see _ext/reader_page.py).
 *
 * Sphinx cuts each snippet from the text of the result's HTML page: the whole main block, with the page's
 * buttons ("Binder Colab .ipynb .md .pdf"), its printed table of contents, the "Show code cell source"
 * labels of folded cells, and every formula as its TeX source. Before Sphinx cuts the snippet, the page is
 * reduced to its article without those labels, and every formula is replaced by a plain-text reading of
 * it: "\(PE[\mathrm{pos}] = \sin\theta\)" becomes "PE[pos] = sinθ", "x_{T-1}" becomes "x_(T−1)" and
 * "10000^{2p/d}" becomes "10000^(2p/d)".
 *
 * The list itself has one result per place (onePerPlace, below): Sphinx lists a page a second time for an
 * index entry that points into it, under the page's title.
 *
 * window.embookSearchText.texToText is that reading, for tests/test_reader_page.py.
 */
(() => {
  const SYMBOLS = {
    alpha: "α", beta: "β", gamma: "γ", delta: "δ", epsilon: "ε", varepsilon: "ε", eta: "η", theta: "θ",
    lambda: "λ", mu: "μ", pi: "π", rho: "ρ", sigma: "σ", tau: "τ", phi: "φ", psi: "ψ", omega: "ω",
    Omega: "Ω", Sigma: "Σ", Delta: "Δ", Psi: "Ψ", Theta: "Θ", Phi: "Φ", ell: "ℓ",
    times: "×", cdot: "·", cdots: "…", ldots: "…", dots: "…", le: "≤", leq: "≤", ge: "≥", geq: "≥",
    ne: "≠", neq: "≠", approx: "≈", to: "→", rightarrow: "→", mapsto: "↦", in: "∈", sum: "Σ", prod: "Π",
    infty: "∞", pm: "±", lVert: "‖", rVert: "‖", Vert: "‖", lvert: "|", rvert: "|", mid: "|",
    lfloor: "⌊", rfloor: "⌋", lceil: "⌈", rceil: "⌉", top: "ᵀ", partial: "∂", nabla: "∇", sqrt: "√",
    langle: "⟨", rangle: "⟩", quad: " ", qquad: " ", log: "log", exp: "exp", sin: "sin", cos: "cos",
    max: "max", min: "min", arg: "arg", argmax: "argmax", argmin: "argmin",
  };
  // Unicode super- and subscripts; a script with a character that has none is written ^(...) or _(...)
  const SUP = {
    "0": "⁰", "1": "¹", "2": "²", "3": "³", "4": "⁴", "5": "⁵", "6": "⁶", "7": "⁷", "8": "⁸", "9": "⁹",
    "+": "⁺", "-": "⁻", "−": "⁻", "=": "⁼", "(": "⁽", ")": "⁾", a: "ᵃ", b: "ᵇ", c: "ᶜ", d: "ᵈ", e: "ᵉ",
    f: "ᶠ", g: "ᵍ", h: "ʰ", i: "ⁱ", j: "ʲ", k: "ᵏ", l: "ˡ", m: "ᵐ", n: "ⁿ", o: "ᵒ", p: "ᵖ", r: "ʳ", s: "ˢ",
    t: "ᵗ", u: "ᵘ", v: "ᵛ", w: "ʷ", x: "ˣ", y: "ʸ", z: "ᶻ", T: "ᵀ", "ᵀ": "ᵀ",
  };
  const SUB = {
    "0": "₀", "1": "₁", "2": "₂", "3": "₃", "4": "₄", "5": "₅", "6": "₆", "7": "₇", "8": "₈", "9": "₉",
    "+": "₊", "-": "₋", "−": "₋", "=": "₌", "(": "₍", ")": "₎", a: "ₐ", e: "ₑ", h: "ₕ", i: "ᵢ", j: "ⱼ",
    k: "ₖ", l: "ₗ", m: "ₘ", n: "ₙ", o: "ₒ", p: "ₚ", r: "ᵣ", s: "ₛ", t: "ₜ", u: "ᵤ", v: "ᵥ", x: "ₓ",
  };
  const script = (mark, body) => {
    const chars = [...body.replace(/\s+/g, "")];
    const table = mark === "^" ? SUP : SUB;
    if (chars.length && chars.every((c) => c in table)) return chars.map((c) => table[c]).join("");
    return chars.length === 1 ? mark + chars[0] : `${mark}(${chars.join("")})`;
  };
  // a part of a fraction is put in parentheses when it has an operator outside the parentheses it has
  const operand = (part) => {
    const bare = part.trim();
    const outside = bare.replace(/\([^()]*\)/g, "");
    return /[\s+\-−/·×=]/.test(outside) ? `(${bare})` : bare;
  };
  const repeat = (text, pattern, replace) => {
    for (let before = null; before !== text;) { before = text; text = text.replace(pattern, replace); }
    return text;
  };
  // escaped characters that would be read as TeX's own, kept aside until the end
  const ESCAPED = { "{": "\uE000", "}": "\uE001", _: "\uE002", "&": "\uE003" };
  const texToText = (tex) => {
    let t = tex.replace(/^\s*(\\\(|\\\[|\$\$?)/, "").replace(/(\\\)|\\\]|\$\$?)\s*$/, "")
      .replace(/\\begin\{[^}]*\}|\\end\{[^}]*\}/g, " ")
      .replace(/\\(?:left|right|big|Big|bigg|Bigg)\b/g, "")
      .replace(/\\([{}_&])/g, (m, c) => ESCAPED[c]);  // put back at the end
    t = repeat(t, /\\(?:operatorname|mathrm|mathbf|mathit|mathbb|mathcal|text|textrm|boldsymbol)\s*\{([^{}]*)\}/g, "$1");
    t = repeat(t, /\\hat\s*\{([^{}]*)\}|\\hat\s*(\w)/g, (m, a, b) => `${a || b}\u0302`);
    t = t.replace(/\\(?!(?:[dt]?frac)\b)([A-Za-z]+)/g, (m, name) => (name in SYMBOLS ? SYMBOLS[name] : name));
    t = t.replace(/([\^_])([^\s{}\\])/g, (m, mark, c) => script(mark, c));
    t = repeat(t, /([\^_])\{([^{}]*)\}/g, (m, mark, body) => script(mark, body));
    t = repeat(t, /\\[dt]?frac\s*\{([^{}]*)\}\s*\{([^{}]*)\}/g, (m, a, b) => `${operand(a)}/${operand(b)}`);
    return t.replace(/\\[,;:! ]/g, " ")
      .replace(/&/g, " ").replace(/\\\\/g, " ")
      .replace(/[{}]/g, "")
      .replace(/\\([\[\]%#$|])/g, "$1")
      .replace(/[\uE000-\uE003]/g, (c) => Object.keys(ESCAPED).find((k) => ESCAPED[k] === c))
      .replace(/\s+/g, " ")
      .trim();
  };

  // what is not the page's text: the article's folding labels, and everything around the article
  const NOT_TEXT = "details > summary, .toggle-button, .copybtn, .headerlink";

  const patch = () => {
    if (typeof Search === "undefined" || !Search.htmlToText || Search.htmlToText.embookPatched) return;
    const original = Search.htmlToText;
    const patched = (htmlString, anchor) => {
      const doc = new DOMParser().parseFromString(htmlString, "text/html");
      const main = doc.querySelector('[role="main"]');
      const article = main && main.querySelector("article");
      if (article) main.replaceChildren(article);
      doc.querySelectorAll(NOT_TEXT).forEach((el) => el.remove());
      doc.querySelectorAll(".math").forEach((el) => { el.textContent = texToText(el.textContent); });
      return original(doc.documentElement.outerHTML, anchor);
    };
    patched.embookPatched = true;
    Search.htmlToText = patched;
  };
  // One result per place. Sphinx lists a match in an index entry with the title of the page it is on, at the
  // entry's anchor, beside the object or section found at that same anchor, and beside the page's own result
  // for its text: "PPMI" listed "The lib package" twice, with one snippet, and lib.ppmi at the first one's
  // anchor. Of the results that go to the same place (page and anchor), one is kept, at the rank of the best
  // of them, under the most specific title among them (an object's or a section's before the page's); of
  // results that show the same title on the same page, the best-ranked one.
  const onePerPlace = (results) => {
    const index = Search._index || {};
    const pageTitle = {};
    (index.docnames || []).forEach((docname, i) => { pageTitle[docname] = (index.titles || [])[i]; });
    const named = {};  // place -> the best-ranked result there with a title other than its page's
    for (let i = results.length - 1; i >= 0; i--) {  // Sphinx shows the last result first
      const [docname, title, anchor] = results[i];
      if (title !== pageTitle[docname] && !(docname + anchor in named)) named[docname + anchor] = results[i];
    }
    const seen = new Set();
    const kept = [];
    for (let i = results.length - 1; i >= 0; i--) {
      const place = results[i][0] + results[i][2];
      if (seen.has(`place ${place}`)) continue;
      const shown = named[place] ? [...named[place]] : [...results[i]];
      shown[4] = results[i][4];
      const titleKey = `title ${shown[0]}\u0000${shown[1]}`;
      seen.add(`place ${place}`);
      if (seen.has(titleKey)) continue;
      seen.add(titleKey);
      kept.push(shown);
    }
    return kept.reverse();
  };
  const patchResults = () => {
    if (typeof Search === "undefined" || !Search._performSearch || Search._performSearch.embookPatched) return;
    const original = Search._performSearch;
    const patched = (...args) => onePerPlace(original(...args));
    patched.embookPatched = true;
    Search._performSearch = patched;
  };

  window.embookSearchText = { texToText, onePerPlace };
  const patchAll = () => { patch(); patchResults(); };
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", patchAll);
  else patchAll();
})();
