// Display equations wider than their column are scaled down to fit, to 70% of their size at most; what is still
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
  function start() {
    if (window.MathJax && MathJax.startup && MathJax.startup.promise) MathJax.startup.promise.then(fit);
    else fit();
  }
  window.addEventListener("load", start);
  let pending;
  window.addEventListener("resize", function () { clearTimeout(pending); pending = setTimeout(fit, 150); });
})();
