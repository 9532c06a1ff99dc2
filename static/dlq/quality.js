// Draws the parse-quality charts with the vendored Chart.js from the figures the server put
// into the page (json_script #quality-chart-data), and again whenever htmx swaps them in.
(function () {
  "use strict";

  const DATA_ID = "quality-chart-data";
  // Outcome colours run from the fast path (green) to the dead letter (red); other series
  // take the rest in turn.
  const COLOURS = ["#16803c", "#2457c5", "#d97706", "#7c3aed", "#b91c1c", "#0f766e", "#6b7280"];

  function format(value, unit) {
    if (value === null || value === undefined) return "–";
    if (unit === "%") return value.toFixed(1) + "%";
    if (unit === "ms") return value + " ms";
    return String(value);
  }

  function options(spec) {
    const axis = { stacked: spec.stacked, beginAtZero: true };
    if (spec.unit === "%") {
      axis.max = 100;
      axis.ticks = { callback: (value) => value + "%" };
    } else if (spec.unit === "calls") {
      axis.ticks = { precision: 0 };
    }
    return {
      responsive: true,
      maintainAspectRatio: false,
      animation: { duration: 300 },
      interaction: { mode: "index", intersect: false },
      scales: { x: { stacked: spec.stacked }, y: axis },
      plugins: {
        tooltip: {
          callbacks: {
            label: (item) => item.dataset.label + ": " + format(item.raw, spec.unit),
            footer: (items) =>
              spec.counts && items.length ? spec.counts[items[0].dataIndex] + " calls" : "",
          },
        },
      },
    };
  }

  function draw(spec) {
    const canvas = document.getElementById("chart-" + spec.key);
    // A swap brings new canvases; one that already holds its chart is left as it is.
    if (!canvas || window.Chart.getChart(canvas)) return;
    new window.Chart(canvas, {
      type: spec.kind,
      data: {
        labels: spec.labels,
        datasets: spec.series.map((series, index) => ({
          label: series.label,
          data: series.values,
          backgroundColor: COLOURS[index % COLOURS.length],
          borderColor: COLOURS[index % COLOURS.length],
          spanGaps: true,
        })),
      },
      options: options(spec),
    });
    // The table stays one click away; without JavaScript it is shown open.
    const table = canvas.closest("figure")?.querySelector("details.chart-table");
    if (table) table.open = false;
  }

  function drawAll() {
    const source = document.getElementById(DATA_ID);
    if (!source || !window.Chart) return;
    JSON.parse(source.textContent).forEach(draw);
  }

  document.addEventListener("DOMContentLoaded", drawAll);
  // htmx:load follows every swap (and the history restore); afterSwap as well, in case the
  // swapped element is not the one that gets the load event.
  document.addEventListener("htmx:load", drawAll);
  document.addEventListener("htmx:afterSwap", drawAll);
  document.addEventListener("htmx:historyRestore", drawAll);
  // htmx keeps a copy of the page for the back button. Chart.js sizes each canvas with a style
  // attribute, which the Content-Security-Policy refuses when that copy is put back, so the
  // charts are taken down before it is made; the swap that follows draws them again.
  document.addEventListener("htmx:beforeHistorySave", function () {
    document.querySelectorAll("canvas").forEach(function (canvas) {
      const chart = window.Chart && window.Chart.getChart(canvas);
      if (chart) chart.destroy();
      canvas.removeAttribute("style");
    });
  });
})();
