/* For narrow screens. Each cell of a table gets its column's name (data-label), which the card
   layout of dashboard.css shows above the value; the payments' search results, swapped in by
   htmx, get theirs when they arrive. The tab bar, which scrolls sideways, shows the current tab. */
(function () {
  function label(root) {
    root.querySelectorAll(".table-wrap table").forEach(function (table) {
      var names = Array.prototype.map.call(table.querySelectorAll("thead th"), function (th) {
        return th.textContent.trim();
      });
      table.querySelectorAll("tbody tr").forEach(function (row) {
        Array.prototype.forEach.call(row.cells, function (cell, index) {
          var empty = !cell.textContent.trim() && !cell.querySelector("input, select, button, img");
          if (names[index] && !empty && cell.colSpan === 1 && !cell.hasAttribute("data-label")) {
            cell.setAttribute("data-label", names[index]);
          }
        });
      });
    });
  }
  label(document);
  document.body.addEventListener("htmx:afterSettle", function (event) { label(event.target); });
  var bar = document.querySelector(".nav"), current = document.querySelector(".nav [aria-current]");
  if (bar && current && current.getBoundingClientRect().right > bar.getBoundingClientRect().right) {
    current.scrollIntoView({block: "nearest", inline: "center"});
  }
})();
