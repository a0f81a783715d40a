"""The survey page's own stylesheet and script (``survey_page.py``), inline in the page: it
opens from a file with no network.  Both are constants, so the page's Content-Security-Policy
allows exactly them by their SHA-256 (and no other script or style, should one ever slip in).

The script sorts the survey table when a column header's button is clicked: numbers (a cell's
``data-sort``) as numbers, everything else as text; ascending first, then descending; empty
cells last either way; ties in the page's order.  ``aria-sort`` is on the sorted header only.
It reads nothing but the page's own cells.
"""

from __future__ import annotations

CSS = """
body { font: 14px/1.45 system-ui, -apple-system, "Segoe UI", Helvetica, Arial, sans-serif;
       margin: 1.5rem; color: #1b1b1b; background: #ffffff; }
h1 { font-size: 1.5rem; margin: 0 0 .5rem; }
h2 { font-size: 1.15rem; margin: 2rem 0 .5rem; }
p.note { color: #555555; max-width: 60rem; }
.wide { overflow-x: auto; }
table { border-collapse: collapse; }
th, td { border: 1px solid #d0d7de; padding: .3rem .5rem; vertical-align: top; text-align: left; }
thead th { background: #f6f8fa; }
th.group { text-align: center; font-weight: 600; }
td.num { text-align: right; font-variant-numeric: tabular-nums; }
td.missing { color: #8c959f; }
th button { font: inherit; font-weight: 600; background: none; border: 0; padding: 0; cursor: pointer;
            color: inherit; text-align: left; }
th button:focus-visible { outline: 2px solid #0969da; outline-offset: 2px; }
th button::after { content: " \\2195"; color: #8c959f; }
th[aria-sort="ascending"] button::after { content: " \\25B2"; color: #1b1b1b; }
th[aria-sort="descending"] button::after { content: " \\25BC"; color: #1b1b1b; }
ul.families { margin: 0; padding-left: 1rem; }
#heatmap td { text-align: center; min-width: 2.2rem; }
#heatmap td.named { background: #d62728; }
#heatmap td.named a, #heatmap td.named span { color: #ffffff; text-decoration: none; font-weight: 700; }
#heatmap td.named a:hover, #heatmap td.named a:focus { text-decoration: underline; }
#heatmap td.clean { background: #e6f4ea; }
#heatmap td.count { background: #fdd49e; }
#heatmap thead th.column { vertical-align: bottom; font-weight: 400; }
#heatmap thead th.column span { display: block; }
.legend span { display: inline-block; width: 1rem; height: 1rem; vertical-align: middle;
               border: 1px solid #999999; margin: 0 .3rem 0 1rem; }
.legend .named { background: #d62728; }
.legend .clean { background: #e6f4ea; }
.legend .count { background: #fdd49e; }
"""

JS = """
(function () {
  "use strict";
  var table = document.getElementById("survey");
  if (!table || !table.tHead || !table.tBodies.length) { return; }
  var heads = table.tHead.rows[table.tHead.rows.length - 1].cells;

  function key(cell, numeric) {
    var raw = cell ? cell.getAttribute("data-sort") : null;
    if (raw === null || raw === "") { return null; }
    if (!numeric) { return raw; }
    var x = Number(raw);
    return isFinite(x) ? x : null;
  }

  function sortBy(col) {
    var th = heads[col];
    var numeric = th.getAttribute("data-type") === "number";
    var dir = th.getAttribute("aria-sort") === "ascending" ? "descending" : "ascending";
    var body = table.tBodies[0];
    var rows = Array.prototype.map.call(body.rows, function (r) {
      return { row: r, key: key(r.cells[col], numeric), order: Number(r.getAttribute("data-order")) };
    });
    rows.sort(function (a, b) {
      if (a.key === null || b.key === null) {
        if (a.key === b.key) { return a.order - b.order; }
        return a.key === null ? 1 : -1;
      }
      var c = a.key < b.key ? -1 : (a.key > b.key ? 1 : 0);
      return (dir === "ascending" ? c : -c) || a.order - b.order;
    });
    rows.forEach(function (r) { body.appendChild(r.row); });
    Array.prototype.forEach.call(heads, function (h) { h.removeAttribute("aria-sort"); });
    th.setAttribute("aria-sort", dir);
  }

  Array.prototype.forEach.call(heads, function (th, col) {
    var button = th.querySelector("button");
    if (button) { button.addEventListener("click", function () { sortBy(col); }); }
  });
}());
"""
