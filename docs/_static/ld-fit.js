// Layout helpers of the site. Display equations wider than their column are scaled down to fit, to 70% of their size at most; what is still
// wider scrolls in its own frame (custom.css). Run once MathJax has typeset the page, and again on resize.
(function () {
  const SMALLEST = 0.7;
  function fit() {
    document.querySelectorAll('mjx-container[display="true"]').forEach(function (eq) {
      if (eq.dataset.ldSize === undefined) eq.dataset.ldSize = eq.style.fontSize || "";
      eq.style.fontSize = eq.dataset.ldSize;
      const wide = eq.scrollWidth, room = eq.clientWidth;
      if (room > 0 && wide > room + 1) {
        const base = parseFloat(eq.dataset.ldSize) || 100;
        eq.style.fontSize = (base * Math.max(SMALLEST, room / wide)).toFixed(1) + "%";
      }
    });
  }
  // Long dotted or underscored names (dynamics.linear_networks.generalization_curve) may break after a dot or an
  // underscore: a <wbr> goes there in headings, the breadcrumbs and both sidebars (no character is added).
  function breakNames() {
    const where = "h1, h2, h3, .bd-breadcrumbs a, .bd-sidebar-primary a, .bd-sidebar-secondary a";
    document.querySelectorAll(where).forEach(function (root) {
      const walker = document.createTreeWalker(root, NodeFilter.SHOW_TEXT);
      const nodes = [];
      while (walker.nextNode()) if (/[\w][._][\w]/.test(walker.currentNode.nodeValue)) nodes.push(walker.currentNode);
      nodes.forEach(function (node) {
        const parts = node.nodeValue.split(/(?<=[._])(?=\w)/);
        if (parts.length < 2) return;
        const fragment = document.createDocumentFragment();
        parts.forEach(function (part, i) {
          if (i > 0) fragment.appendChild(document.createElement("wbr"));
          fragment.appendChild(document.createTextNode(part));
        });
        node.parentNode.replaceChild(fragment, node);
      });
    });
  }
  document.addEventListener("DOMContentLoaded", breakNames);
  function start() {
    if (window.MathJax && MathJax.startup && MathJax.startup.promise) MathJax.startup.promise.then(fit);
    else fit();
  }
  window.addEventListener("load", start);
  let pending;
  window.addEventListener("resize", function () { clearTimeout(pending); pending = setTimeout(fit, 150); });
})();
