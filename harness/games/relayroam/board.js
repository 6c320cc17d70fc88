// Relayroam board for the episode viewer: the 7 x 5 grid of the observation.
(function () {
  const STYLE = {
    "#": ["wall", ""], ".": ["floor", ""], "@": ["player", "@"],
    "R": ["relay", "R"], "r": ["relay used", "r"], "H": ["helper", "H"], "h": ["helper used", "h"],
    "B": ["battery", "B"], "b": ["battery used", "b"], "E": ["exit-open", "E"], "X": ["exit-shut", "X"],
    "1": ["vent", "1"], "2": ["vent", "2"], "3": ["vent", "3"],
  };
  window.renderBoard = function (element, frame) {
    element.textContent = "";
    const grid = document.createElement("div");
    grid.className = "grid";
    const cols = frame.grid[0].length;
    // as large as the page's board column and the window's height allow
    const size = Math.max(24, Math.min(72, Math.floor(Math.min(
      (element.clientWidth - 2 * (cols - 1)) / cols, (window.innerHeight - 220) / frame.grid.length))));
    grid.style.gridTemplateColumns = "repeat(" + cols + ", " + size + "px)";
    grid.style.setProperty("--cell", size + "px");
    frame.grid.forEach(function (row, y) {
      Array.from(row).forEach(function (glyph, x) {
        const cell = document.createElement("div");
        const style = STYLE[glyph] || ["floor", glyph];
        cell.className = "cell " + style[0];
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
    legend.textContent = "chamber " + frame.chamber + " · charge " + frame.charge + " · turn " +
      frame.turn + " · score " + frame.score + " · " + frame.phase +
      (frame.events.length ? " · " + frame.events.join(", ") : "");
    element.appendChild(legend);
  };
  window.boardStyle = `
    .grid { display: grid; gap: 2px; }
    .cell { width: var(--cell, 34px); height: var(--cell, 34px); display: flex; align-items: center;
            justify-content: center; font: bold calc(var(--cell, 34px) * 0.45) monospace;
            border-radius: 3px; }
    .wall { background: #3b3f46; } .floor { background: #e9e4d8; }
    .player { background: #2d6cdf; color: white; border-radius: 50%; }
    .relay { background: #f2994a; } .helper { background: #9b51e0; color: white; }
    .battery { background: #27ae60; color: white; } .used { opacity: 0.45; }
    .exit-open { background: #219653; color: white; } .exit-shut { background: #8d6e63; color: white; }
    .vent { background: #eb5757; color: white; }
    .legend { margin-top: 8px; color: #444; font-size: 13px; }
  `;
})();
