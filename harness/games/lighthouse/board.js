// Lighthouse board for the episode viewer: one cell per tile, coloured by glyph.
// renderBoard(element, frame) draws frame.grid (the keeper's view) into element.
(function () {
  const STYLE = {
    "#": ["wall", ""],
    ".": ["floor", ""],
    "~": ["water", ""],
    "K": ["key", "K"],
    "E": ["exit-shut", "E"],
    "O": ["exit-open", "O"],
    "1": ["runner r1", "1"],
    "2": ["runner r2", "2"],
    "3": ["runner r3", "3"],
  };
  window.renderBoard = function (element, frame) {
    element.textContent = "";
    const grid = document.createElement("div");
    grid.className = "grid";
    grid.style.gridTemplateColumns = "repeat(" + frame.grid[0].length + ", 28px)";
    frame.grid.forEach(function (row, y) {
      Array.from(row).forEach(function (glyph, x) {
        const cell = document.createElement("div");
        const style = STYLE[glyph] || ["floor", glyph];
        cell.className = "cell " + style[0] + (y >= frame.waterLine ? " flooded-row" : "");
        cell.dataset.glyph = glyph;
        cell.dataset.x = String(x);
        cell.dataset.y = String(y);
        cell.textContent = style[1];
        grid.appendChild(cell);
      });
    });
    element.appendChild(grid);
    const legend = document.createElement("div");
    legend.className = "legend";
    legend.textContent =
      "clock " + frame.clock + "/" + frame.floodClock + " · " + frame.water +
      " · keys " + frame.keys + " · gate " + (frame.gateOpen ? "open" : "shut");
    element.appendChild(legend);
  };
  window.boardStyle = `
    .grid { display: grid; gap: 2px; }
    .cell { width: 28px; height: 28px; display: flex; align-items: center;
            justify-content: center; font: bold 14px monospace; border-radius: 3px; }
    .wall { background: #3b3f46; }
    .floor { background: #e9e4d8; }
    .water { background: #3d7fc4; }
    .key { background: #f2c94c; color: #5a4300; }
    .exit-shut { background: #8d6e63; color: white; }
    .exit-open { background: #27ae60; color: white; }
    .runner { color: white; border-radius: 50%; }
    .r1 { background: #c0392b; } .r2 { background: #8e44ad; } .r3 { background: #d35400; }
    .legend { margin-top: 8px; color: #444; font-size: 13px; }
  `;
})();
