/* Hover any chart: a cursor moves to that step on every panel and each legend shows the values
   there (the reference's beside them). Leaving the chart puts back the last step's values.
   The checkboxes hide the reference's faint curves and swap every chart for its zoom on the
   first steps (CSS :has does both too, where supported).
   Comments use this form only: the page must not contain a double slash (see the tests). */
(function () {
  "use strict";
  var data = JSON.parse(document.getElementById("dashboard-data").textContent);
  var stepLabel = document.getElementById("cursor-step");
  var charts = Array.prototype.slice.call(document.querySelectorAll("svg.plot"));

  /* Numbers in the page's language: its decimal sign and percent pattern (CLDR's, from
     scenarios/cldr.py), as the legends the page was written with. */
  var symbols = data.symbols || {decimal: ".", percent_prefix: "", percent_suffix: "%"};

  function localized(text) { return text.replace(".", symbols.decimal); }

  function format(v, series) {
    if (v === null || v === undefined) { return "–"; }
    if (typeof v === "string") { return v; }
    if (series.total) { return localized(String(v)) + "/" + series.total; }
    var size = Math.abs(v);
    var text = localized(size !== 0 && (size >= 1e4 || size < 1e-3)
      ? v.toExponential(2) : String(Number(v.toPrecision(4))));
    if (series.unit === "%") { return symbols.percent_prefix + text + symbols.percent_suffix; }
    return text + series.unit;
  }

  /* The value a series holds at an index: sparse series keep their last measurement. */
  function valueAt(values, index) {
    for (var i = Math.min(index, values.length - 1); i >= 0; i--) {
      if (values[i] !== null) { return values[i]; }
    }
    return null;
  }

  function range(svg) {
    return {first: Number(svg.dataset.first), last: Number(svg.dataset.last)};
  }

  function fillLegend(section, panel, step) {
    panel.series.forEach(function (series, i) {
      var run = panel.run[i];
      section.querySelector('.val[data-i="' + i + '"]').textContent = format(
        valueAt(run, step === null ? run.length - 1 : step - data.first), series);
      var refval = section.querySelector('.refval[data-i="' + i + '"]');
      if (refval && panel.ref) {
        var ref = panel.ref[i];
        refval.textContent = data.reference + " " + format(
          valueAt(ref, step === null ? ref.length - 1 : step - data.refFirst), series);
      }
    });
  }

  function moveCursor(svg, step) {
    var r = range(svg), cursor = svg.querySelector(".cursor");
    if (step === null || step < r.first || step > r.last) {
      cursor.setAttribute("visibility", "hidden");
      return;
    }
    var x = data.left + (step - r.first) / Math.max(r.last - r.first, 1)
      * (data.right - data.left);
    cursor.setAttribute("x1", x);
    cursor.setAttribute("x2", x);
    cursor.setAttribute("visibility", "visible");
  }

  /* step === null: no cursor, the legends show the last step. */
  function show(step) {
    data.panels.forEach(function (panel, index) {
      fillLegend(document.getElementById("panel-" + (index + 1)), panel, step);
    });
    charts.forEach(function (svg) { moveCursor(svg, step); });
    stepLabel.textContent = step === null ? "" : data.step + " " + step;
  }

  charts.forEach(function (svg) {
    svg.addEventListener("mousemove", function (event) {
      var box = svg.getBoundingClientRect(), r = range(svg);
      var x = (event.clientX - box.left) * data.width / box.width;
      var share = (x - data.left) / (data.right - data.left);
      if (share < 0 || share > 1) { show(null); return; }
      show(Math.round(r.first + share * (r.last - r.first)));
    });
    svg.addEventListener("mouseleave", function () { show(null); });
  });

  [["show-reference", "hide-ref", false], ["zoom-first", "zoomed", true]].forEach(
    function (entry) {
      var box = document.getElementById(entry[0]);
      if (!box) { return; }
      var sync = function () {
        document.body.classList.toggle(entry[1], box.checked === entry[2]);
      };
      box.addEventListener("change", sync);
      sync();
    });
})();
