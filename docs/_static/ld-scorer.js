// The site's search scorer (conf.py: html_search_scorer; Sphinx inlines it into language_data.js). Sphinx's own
// scoring matches words one by one, and a word found inside another ("rate" in "regenerate") counts; here:
// * a word found only inside another word scores nothing (partialTerm 0);
// * a page or object whose name spells the query's words (effective_learning_rates for "effective learning rate",
//   keep_probability for "keep probability") comes first, then one whose title holds the query as a phrase;
// * one result per page: an object found on its own page is not listed a second time as the page;
// * the snippets read formulas as text (η_k, ‖x‖, a/b), not as their LaTeX source.
var Scorer = {
  objNameMatch: 11,
  objPartialMatch: 6,
  objPrio: { 0: 15, 1: 5, 2: -5 },
  objPrioDefault: 0,
  title: 15,
  partialTitle: 7,
  term: 5,
  partialTerm: 0,

  _query: function () {
    const q = new URLSearchParams(window.location.search).get("q") || "";
    return q.toLowerCase().split(/[^a-z0-9]+/).filter((w) => w.length > 0);
  },

  _stem: (word) => word.replace(/([^s])s$/, "$1"), // rates -> rate, probabilities stays, loss stays

  score: function (result) {
    const [docname, title, anchor, , score] = result;
    const words = Scorer._query();
    if (words.length === 0) return score;
    const spelled = words.map(Scorer._stem).join("_");
    const name = (anchor ? anchor.slice(1) : docname).split(/[./#]/).pop().toLowerCase().replace(/-/g, "_");
    const nameStem = name.split("_").map(Scorer._stem).join("_");
    let bonus = 0;
    if (nameStem === spelled || nameStem.replace(/_/g, "") === spelled.replace(/_/g, "")) bonus = 60;
    else if (nameStem.startsWith(spelled + "_") || nameStem.endsWith("_" + spelled)) bonus = 30;
    // a field of a result class spelling the words is an answer too, but after the function that computes it
    if (/\b(attribute|property|method)\b/.test(String(result[3] || ""))) bonus /= 4;
    const phrase = words.join(" ");
    if (String(title || "").toLowerCase().replace(/[_\-.]/g, " ").includes(phrase)) bonus += 20;
    return score + bonus;
  },
};

const LD_TEX_SYMBOLS = {
  alpha: "α", beta: "β", gamma: "γ", delta: "δ", epsilon: "ε", varepsilon: "ε", zeta: "ζ", eta: "η", theta: "θ",
  kappa: "κ", lambda: "λ", mu: "μ", nu: "ν", xi: "ξ", pi: "π", rho: "ρ", sigma: "σ", tau: "τ", phi: "φ",
  varphi: "φ", chi: "χ", psi: "ψ", omega: "ω", Gamma: "Γ", Delta: "Δ", Theta: "Θ", Lambda: "Λ", Sigma: "Σ",
  Phi: "Φ", Psi: "Ψ", Omega: "Ω", cdot: "·", times: "×", le: "≤", leq: "≤", ge: "≥", geq: "≥", ne: "≠",
  approx: "≈", sim: "∼", infty: "∞", sum: "Σ", prod: "Π", int: "∫", sqrt: "√", partial: "∂", nabla: "∇",
  to: "→", odot: "⊙", lVert: "‖", rVert: "‖", Vert: "‖", lvert: "|", rvert: "|", top: "ᵀ", in: "∈", pm: "±",
};

function ldTexAsText(tex) {
  return tex
    .trim()
    .replace(/\\[()[\]]/g, " ")
    .replace(/\\\|/g, "‖")
    .replace(/\\([{}])/g, "$1")
    .replace(/\\[td]?frac(\d)(\d)/g, "$1/$2")
    .replace(/\\[td]?frac\{([^{}]*)\}\{([^{}]*)\}/g, "($1)/($2)")
    .replace(/\\(left|right|big|Big|bigg|Bigg)\b/g, "")
    .replace(/\\(mathrm|mathbf|mathbb|mathcal|operatorname|text|boldsymbol)\{([^{}]*)\}/g, "$2")
    .replace(/\\([A-Za-z]+)/g, (m, name) => (name in LD_TEX_SYMBOLS ? LD_TEX_SYMBOLS[name] : ""))
    .replace(/\\[,;:! ]/g, " ")
    .replace(/[{}]/g, "")
    .replace(/\s+/g, " ")
    .trim();
}

// searchtools.js is loaded before this file (and runs the query as soon as the page is ready): patch it now.
(function () {
  if (typeof Search === "undefined" || !Search._performSearch) return;
  const toText = Search.htmlToText;
  Search.htmlToText = function (htmlString, anchor) {
    const page = new DOMParser().parseFromString(htmlString, "text/html");
    page.querySelectorAll(".math").forEach((el) => { el.textContent = " " + ldTexAsText(el.textContent) + " "; });
    return toText.call(this, page.documentElement.outerHTML, anchor);
  };
  const perform = Search._performSearch;
  Search._performSearch = function (...args) {
    const results = perform.apply(this, args); // ascending: the best result last
    const seen = new Set();
    const kept = [];
    for (let i = results.length - 1; i >= 0; i--) {
      const page = results[i][0];
      if (!seen.has(page)) {
        seen.add(page);
        kept.push(results[i]);
      }
    }
    return kept.reverse();
  };
})();
