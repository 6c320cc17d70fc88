// Hourloom board for the episode viewer: the chamber as H30's glyphs, plain for now.
(function () {
  function line(cls, text) {
    const e = document.createElement("div");
    e.className = cls;
    e.textContent = text;
    return e;
  }
  window.renderBoard = function (element, frame) {
    element.textContent = "";
    const grid = document.createElement("pre");
    grid.className = "hl-grid";
    grid.textContent = frame.grid.join("\n");
    element.appendChild(grid);
    element.appendChild(line("legend",
      "chamber " + frame.chamber + " (" + frame.multiplierPct + "%) · lap " + frame.lap + "/" +
      frame.laps + " · turn " + frame.turn + " · sand " + frame.sand + "/" + frame.lapBudget +
      " · score " + frame.score + " · " + frame.phase));
    const echoes = frame.echoes.map(function (e) {
      return e.echo + ": " + (e.tile === null ? "gone" : e.tile + " next " + e.next);
    });
    if (echoes.length) element.appendChild(line("legend", "echoes: " + echoes.join("; ")));
    const gates = frame.gates.map(function (g) { return g.gate + " " + (g.open ? "open" : "shut"); });
    if (gates.length) element.appendChild(line("legend", "gates: " + gates.join(", ")));
    if (frame.events.length) element.appendChild(line("legend", "events: " + frame.events.join(", ")));
  };
  window.boardStyle = `
    .hl-grid { font: bold 18px/1.2 monospace; letter-spacing: 0.4em; background: #f4efe3;
               padding: 8px; display: inline-block; margin: 0; }
    .legend { margin-top: 6px; color: #444; font-size: 13px; }
  `;
})();
