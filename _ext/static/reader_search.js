/* Search result snippets without raw TeX (see _ext/reader_page.py).
 *
 * Sphinx cuts each snippet from the text of the result's HTML page, where a formula is still its TeX
 * source. Before that, every formula of the page is replaced by a plain-text reading of it:
 * "\(PE[\mathrm{pos}] = \sin\theta\)" becomes "PE[pos] = sinθ".
 */
(() => {
  const SYMBOLS = {
    alpha: "α", beta: "β", gamma: "γ", delta: "δ", epsilon: "ε", theta: "θ", lambda: "λ", mu: "μ",
    pi: "π", sigma: "σ", tau: "τ", phi: "φ", omega: "ω", Omega: "Ω", Sigma: "Σ", Delta: "Δ",
    times: "×", cdot: "·", cdots: "…", ldots: "…", dots: "…", le: "≤", leq: "≤", ge: "≥", geq: "≥",
    ne: "≠", neq: "≠", approx: "≈", to: "→", rightarrow: "→", in: "∈", sum: "Σ", prod: "Π",
    infty: "∞", pm: "±", lVert: "‖", rVert: "‖", Vert: "‖", lvert: "|", rvert: "|", mid: "|",
    lfloor: "⌊", rfloor: "⌋", lceil: "⌈", rceil: "⌉", top: "ᵀ", partial: "∂", sqrt: "√",
    quad: " ", qquad: " ", log: "log", exp: "exp", sin: "sin", cos: "cos", max: "max", min: "min",
  };
  const texToText = (tex) => tex
    .replace(/^\s*(\\\(|\\\[|\$\$?)/, "").replace(/(\\\)|\\\]|\$\$?)\s*$/, "")
    .replace(/\\begin\{[^}]*\}|\\end\{[^}]*\}/g, " ")
    .replace(/\\(?:operatorname|mathrm|mathbf|mathit|mathbb|mathcal|text|textrm|boldsymbol)\s*\{([^{}]*)\}/g, "$1")
    .replace(/\\[dt]?frac\s*\{((?:[^{}]|\{[^{}]*\})*)\}\s*\{((?:[^{}]|\{[^{}]*\})*)\}/g, "($1)/($2)")
    .replace(/\\(?:left|right|big|Big|bigg|Bigg)\b/g, "")
    .replace(/\\([A-Za-z]+)/g, (m, name) => (name in SYMBOLS ? SYMBOLS[name] : name))
    .replace(/\\[,;:! ]/g, " ")
    .replace(/\\([{}\[\]_%&#$|])/g, "$1")
    .replace(/&/g, " ").replace(/\\\\/g, " ")
    .replace(/[{}]/g, "")
    .replace(/\s+/g, " ")
    .trim();

  const patch = () => {
    if (typeof Search === "undefined" || !Search.htmlToText || Search.htmlToText.embookPatched) return;
    const original = Search.htmlToText;
    const patched = (htmlString, anchor) => {
      const doc = new DOMParser().parseFromString(htmlString, "text/html");
      doc.querySelectorAll(".math").forEach((el) => { el.textContent = texToText(el.textContent); });
      return original(doc.documentElement.outerHTML, anchor);
    };
    patched.embookPatched = true;
    Search.htmlToText = patched;
  };
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", patch);
  else patch();
})();
