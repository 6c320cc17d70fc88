// Lighthouse board for the episode viewer.
// renderBoard(element, frame) draws, into element: a legend (each runner's name, colour
// and state, then the tiles), the board after the tick with every runner on it (the
// escaped at the gate, the drowned where the water took them), its columns and rows
// numbered (x above, y to the left, as positions are given), each runner's 3 x 3
// window as it saw it when it decided, and the clock, tide, keys and gate in words.
// Tiles are drawn from frame.terrain (no runners); each cell keeps the keeper's glyph
// of frame.grid in data-glyph. Symbols are chosen so that none reads as another: the
// open gate is an arrow out of the board, not the rules' "O" (a zero, at a glance).
(function () {
  const RUNNER_COLOURS = { 1: "#c0392b", 2: "#7d3c98", 3: "#d35400" };
  const KEEPER_COLOUR = "#b7950b";
  const TILES = {
    "#": ["wall", "", "wall"],
    ".": ["floor", "", "floor"],
    "~": ["water", "\u2248", "water (flooded: no one may step in)"],
    "K": ["key", "K", "key"],
    "E": ["exit-shut", "E", "exit, gate shut (all keys open it)"],
    "O": ["exit-open", "\u2191", "exit, gate open: a runner on it escapes"],
  };
  const STATUS = {
    active: "",
    escaped: "\u2713",  // a check mark
    drowned: "\u2715",  // a cross
  };

  window.seatColour = function (seat) {
    if (seat === "keeper") return KEEPER_COLOUR;
    const n = Number(String(seat).replace("runner", ""));
    return RUNNER_COLOURS[n] || null;
  };

  function el(tag, cls, text) {
    const e = document.createElement(tag);
    if (cls) e.className = cls;
    if (text !== undefined) e.textContent = text;
    return e;
  }

  function describe(r) {
    if (r.status === "escaped") return "escaped at tick " + r.since;
    if (r.status === "drowned") return "drowned at tick " + r.since + " at x=" + r.pos[0] + ", y=" + r.pos[1];
    return "on the board at x=" + r.pos[0] + ", y=" + r.pos[1];
  }

  function token(r, small) {
    const t = el("span", "token r" + r.seat + " " + r.status + (small ? " small" : ""));
    t.style.background = RUNNER_COLOURS[r.seat];
    t.dataset.seat = String(r.seat);
    t.dataset.status = r.status;
    t.title = r.alias + " (runner " + r.seat + "): " + describe(r);
    t.appendChild(el("span", "num", r.seat ? String(r.seat) : ""));
    if (STATUS[r.status]) t.appendChild(el("span", "badge", STATUS[r.status]));
    return t;
  }

  // A tile of the board is a "cell"; the legend's samples and the windows' tiles are
  // "tile"s, so that "#board .cell" is the board and nothing else.
  function tile(glyph, base) {
    const style = TILES[glyph] || ["floor", glyph, glyph];
    return el("div", (base || "tile") + " " + style[0], style[1]);
  }

  function legend(frame) {
    const box = el("div", "lh-legend");
    const runners = el("div", "lh-runners");
    frame.runners.forEach(function (r) {
      const item = el("span", "lh-runner");
      item.dataset.seat = String(r.seat);
      item.dataset.status = r.status;
      item.appendChild(token(r, true));
      item.appendChild(el("span", "name", r.alias));
      const keys = r.keys ? ", carrying " + r.keys + " key" + (r.keys > 1 ? "s" : "") : "";
      const state = r.status === "active" ? "runner " + r.seat + keys : describe(r) + keys;
      item.appendChild(el("span", "state " + r.status, state));
      runners.appendChild(item);
    });
    box.appendChild(runners);
    const tiles = el("div", "lh-tiles");
    Object.keys(TILES).forEach(function (glyph) {
      const item = el("span", "lh-tile");
      const sample = tile(glyph);
      sample.classList.add("sample");
      item.appendChild(sample);
      item.appendChild(el("span", "", TILES[glyph][2]));
      tiles.appendChild(item);
    });
    [["escaped", "escaped"], ["drowned", "drowned"]].forEach(function (pair) {
      const item = el("span", "lh-tile");
      item.appendChild(token({ seat: 0, status: pair[0], alias: "", pos: [0, 0] }, true));
      item.appendChild(el("span", "", pair[1]));
      tiles.appendChild(item);
    });
    box.appendChild(tiles);
    return box;
  }

  // The width of the column of row numbers (y) left of the board; a row of column
  // numbers (x) runs above it. Positions, the water and the keeper's map all speak in
  // these numbers (x=5, y=3; rows y=6-8 flooded).
  const AXIS = 22;

  function cellSize(element, cols, rows) {
    // The board takes the width the windows leave, and no more height than the window has.
    const across = (element.clientWidth - 220 - AXIS - 2 * cols) / cols;
    const down = (window.innerHeight - 250 - AXIS) / rows;
    return Math.max(22, Math.min(64, Math.floor(Math.min(across, down))));
  }

  function axis(kind, n) {
    return el("div", "axis " + kind, n === null ? "" : String(n));
  }

  function board(frame, size) {
    const grid = el("div", "grid lh-board");
    const cols = frame.terrain[0].length;
    grid.style.gridTemplateColumns = AXIS + "px repeat(" + cols + ", " + size + "px)";
    grid.style.setProperty("--cell", size + "px");
    grid.appendChild(axis("corner", null));
    for (let x = 0; x < cols; x++) grid.appendChild(axis("x", x));
    const cells = [];
    frame.terrain.forEach(function (row, y) {
      grid.appendChild(axis("y", y));
      Array.from(row).forEach(function (glyph, x) {
        const cell = tile(glyph, "cell");
        if (y >= frame.waterLine) cell.classList.add("flooded-row");
        cell.dataset.glyph = frame.grid[y][x];
        cell.dataset.x = String(x);
        cell.dataset.y = String(y);
        grid.appendChild(cell);
        cells.push(cell);
      });
    });
    frame.runners.forEach(function (r) {
      const cell = cells[r.pos[1] * cols + r.pos[0]];
      if (!cell) return;
      cell.textContent = "";
      cell.appendChild(token(r, false));
    });
    cells.forEach(function (cell) {
      const n = cell.querySelectorAll(".token").length;
      if (n > 1) cell.classList.add("crowded");
    });
    return grid;
  }

  function windows(frame, size) {
    const box = el("div", "lh-windows");
    const small = Math.max(18, Math.round(size * 0.7));
    frame.windows.forEach(function (w) {
      const runner = frame.runners.find(function (r) { return r.seat === w.seat; });
      const item = el("div", "window");
      item.dataset.seat = String(w.seat);
      item.style.borderColor = RUNNER_COLOURS[w.seat];
      if (w.rows === null) {
        item.classList.add("gone");
        item.appendChild(el("div", "title", w.alias));
        const why = runner && runner.status !== "active" ? describe(runner) : "out";
        item.appendChild(el("div", "gone-text", why + ": not asked any more"));
      } else {
        const when = frame.tick === null ? " sees at tick " : " saw at tick ";
        item.appendChild(el("div", "title", w.alias + when + w.tick));
        const grid = el("div", "grid mini");
        grid.style.gridTemplateColumns = "repeat(3, " + small + "px)";
        grid.style.setProperty("--cell", small + "px");
        w.rows.forEach(function (row) {
          Array.from(row).forEach(function (glyph) {
            const cell = glyph === "@" ? tile(".") : tile(glyph);
            cell.dataset.glyph = glyph;
            if (glyph === "@") cell.appendChild(token({ seat: w.seat, status: "active", alias: w.alias, pos: [0, 0] }, false));
            grid.appendChild(cell);
          });
        });
        item.appendChild(grid);
      }
      box.appendChild(item);
    });
    return box;
  }

  function status(frame) {
    // frame.water says the tide in the rows the board numbers, as every other view does
    const next = frame.nextFlood === null ? "" : "; the next row floods at clock " + frame.nextFlood;
    return "clock " + frame.clock + " of " + frame.floodClock + " (all under water at " +
      frame.floodClock + ") \u00b7 " + frame.water + next + " \u00b7 keys collected " +
      frame.keys + " \u00b7 gate " + (frame.gateOpen ? "open" : "shut");
  }

  window.renderBoard = function (element, frame) {
    element.textContent = "";
    const size = cellSize(element, frame.terrain[0].length, frame.terrain.length);
    element.appendChild(legend(frame));
    const stage = el("div", "lh-stage");
    stage.appendChild(board(frame, size));
    stage.appendChild(windows(frame, size));
    element.appendChild(stage);
    element.appendChild(el("div", "legend lh-status", status(frame)));
  };

  window.boardStyle = `
    .lh-legend { margin-bottom: 10px; font-size: 13px; }
    .lh-runners { display: flex; flex-wrap: wrap; gap: 6px 18px; margin-bottom: 6px; }
    .lh-runner { display: inline-flex; align-items: center; gap: 6px; }
    .lh-runner .name { font-weight: bold; }
    .lh-runner .state { color: #555; }
    .lh-runner .state.escaped { color: #1e7b34; font-weight: bold; }
    .lh-runner .state.drowned { color: #1f4e79; font-weight: bold; }
    .lh-tiles { display: flex; flex-wrap: wrap; gap: 4px 14px; color: #444; }
    .lh-tile { display: inline-flex; align-items: center; gap: 4px; }
    .tile.sample { --cell: 20px; font-size: 13px; }
    .lh-stage { display: flex; gap: 18px; align-items: flex-start; flex-wrap: wrap; }
    .grid { display: grid; gap: 2px; }
    .cell, .tile { width: var(--cell, 28px); height: var(--cell, 28px); display: flex; align-items: center;
            justify-content: center; font: bold calc(var(--cell, 28px) * 0.5) "DejaVu Sans", sans-serif;
            border-radius: 3px; position: relative; flex-wrap: wrap; }
    .wall { background: #3b3f46; }
    .floor { background: #e9e4d8; }
    .water { background: #3d7fc4; color: #dbe9f7; }
    .key { background: #f2c94c; color: #5a4300; }
    .exit-shut { background: #8d6e63; color: white; }
    .exit-open { background: #1e8449; color: white; }
    .token { width: 78%; height: 78%; border-radius: 50%; color: white; display: inline-flex;
             align-items: center; justify-content: center; position: relative;
             box-shadow: 0 0 0 2px rgba(255, 255, 255, 0.85); font-size: inherit; }
    .token.small { width: 18px; height: 18px; font-size: 11px; box-shadow: none; }
    .token.escaped { opacity: 0.75; box-shadow: 0 0 0 2px #1e7b34; }
    .token.drowned { opacity: 0.55; box-shadow: 0 0 0 2px #10324f; }
    .token .badge { position: absolute; right: -4px; top: -6px; font-size: 11px; line-height: 14px;
                    width: 14px; height: 14px; border-radius: 50%; background: white; color: #222;
                    text-align: center; }
    .token.escaped .badge { color: #1e7b34; }
    .token.drowned .badge { color: #10324f; }
    .token[data-seat="0"] { background: #999; }
    .crowded .token { width: 46%; height: 46%; font-size: 60%; }
    .lh-board .axis { display: flex; align-items: center; justify-content: center;
                      font: 11px "DejaVu Sans", sans-serif; color: #777; }
    .lh-board .axis.x { height: 16px; align-items: flex-end; }
    .lh-board .axis.y { justify-content: flex-end; padding-right: 4px; }
    .lh-windows { display: flex; flex-direction: column; gap: 10px; min-width: 170px; }
    .window { border-left: 4px solid; padding: 2px 8px; background: white; border-radius: 4px; }
    .window .title { font-size: 12px; color: #444; margin-bottom: 3px; }
    .window.gone .gone-text { font-size: 12px; color: #666; font-style: italic; max-width: 180px; }
    .legend { margin-top: 10px; color: #444; font-size: 13px; }
  `;
})();
