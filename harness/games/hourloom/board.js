// Hourloom board for the episode viewer. It only draws: every figure, word and state
// comes made from the frame (harness/games/hourloom/frames.py).
// renderBoard(element, frame) draws, into element: a legend; where the run stands
// (chamber, multiplier, lap k of n, turn, score) with the sandglass as a bar; the
// chamber after the tick, ruled in rows and columns (tiles from frame.terrain, the
// ground without bodies; each cell keeps the player's glyph of frame.grid in
// data-glyph), you and every echo as tokens, an echo's next input as an arrow on its
// token; beside it the echoes, the gates (open or shut for you, who holds each plate)
// and the chamber's laps; under it the tick's events in words.
// Symbols are chosen so that none reads as another: no tile shows a digit (digits
// are the echoes'), the keystone is a diamond rather than a letter, the exit a flag.
// The chambers' fixed parts (where gates and plates lie, each lap's alcove, keystone
// and budget) come once, in the first frame, which the page draws first.
(function () {
  const YOU_COLOUR = "#1f5fa8";
  const ECHO_COLOURS = ["#7d3c98", "#b9770e", "#17806d", "#a93226", "#566573"];
  const ARROWS = { N: "\u2191", E: "\u2192", S: "\u2193", W: "\u2190", WAIT: "\u2016" };
  const TILES = {
    "#": ["wall", "", "wall"],
    ".": ["floor", "", "floor"],
    "o": ["alcove", "\u2302", "alcove (where a lap starts)"],
    "K": ["keystone", "\u25c6", "this lap's keystone"],
    "*": ["spark", "\u2726", "spark"],
    "X": ["exit", "\u2691", "exit (with the keystone: the lap is done)"],
    "~": ["flux lit", "\u2248", "flux lit on the coming turn (ends there: 3 grains more)"],
    "-": ["flux calm", "\u223c", "flux calm on the coming turn"],
  };
  const GATES = "ABCDE";
  let chambers = {};

  window.seatColour = function () { return YOU_COLOUR; };

  function el(tag, cls, text) {
    const e = document.createElement(tag);
    if (cls) e.className = cls;
    if (text !== undefined) e.textContent = text;
    return e;
  }

  function gateOf(frame, glyph) {
    return frame.gates[GATES.indexOf(glyph.toUpperCase())];
  }

  // A tile of the chamber: its class, its symbol and its words, from its ground glyph.
  function ground(glyph, frame) {
    if (GATES.indexOf(glyph) >= 0) {
      const gate = gateOf(frame, glyph);
      const open = gate ? gate.open : false;
      return ["gate " + (open ? "open" : "shut"), glyph,
        "gate " + glyph + ", " + (open ? "open" : "shut") + " for you"];
    }
    if (GATES.toLowerCase().indexOf(glyph) >= 0) {
      return ["plate", glyph, "plate of gate " + glyph.toUpperCase()];
    }
    return TILES[glyph] || ["floor", glyph, glyph];
  }

  function tile(glyph, frame, base) {
    const style = ground(glyph, frame);
    const t = el("div", "hl-tile " + base + " " + style[0]);
    t.appendChild(el("span", "sym", style[1]));
    t.title = style[2];
    return t;
  }

  function token(kind, label, colour, next) {
    const t = el("span", "hl-token " + kind);
    t.style.background = colour;
    t.appendChild(el("span", "num", label));
    if (next) {
      const badge = el("span", "hl-next d" + next, ARROWS[next] || "?");
      badge.dataset.next = next;
      t.appendChild(badge);
    }
    return t;
  }

  function echoToken(e) {
    const t = token("echo", String(e.echo), ECHO_COLOURS[(e.echo - 1) % 5], e.next);
    t.dataset.echo = String(e.echo);
    t.title = "echo " + e.echo + " on " + e.at + ", next " + nextWords(e.next);
    return t;
  }

  function youToken(frame) {
    const t = token("you", "you", YOU_COLOUR, null);
    t.title = "you, on " + frame.youAt;
    return t;
  }

  function nextWords(next) {
    return next === "WAIT" ? "WAIT" : "MOVE " + next;
  }

  function legend(frame) {
    const box = el("div", "hl-legend");
    const sample = { gates: [{ open: true }, { open: false }] };
    [["A", sample], ["B", sample], ["a", sample]].concat(
      Object.keys(TILES).map(function (g) { return [g, sample]; })
    ).forEach(function (pair) {
      const item = el("span", "hl-key");
      const t = tile(pair[0], pair[1], "sample");
      item.appendChild(t);
      const words = pair[0] === "A" ? "gate open for you" : pair[0] === "B" ?
        "gate shut for you (every plate needs another body on it)" :
        pair[0] === "a" ? "plate of the gate of that letter" : t.title;
      item.appendChild(el("span", "", words));
      box.appendChild(item);
    });
    const you = el("span", "hl-key");
    you.appendChild(token("you small", "you", YOU_COLOUR, null));
    you.appendChild(el("span", "", "you"));
    box.appendChild(you);
    const echo = el("span", "hl-key");
    echo.appendChild(token("echo small", "1", ECHO_COLOURS[0], "E"));
    echo.appendChild(el("span", "", "echo of lap 1, its next input an arrow (\u2016 WAIT)"));
    box.appendChild(echo);
    return box;
  }

  function sandglass(frame) {
    const box = el("div", "hl-sandglass");
    const budget = Math.max(1, frame.lapBudget);
    const share = Math.max(0, Math.min(1, frame.sand / budget));
    const bar = el("div", "hl-bar");
    bar.setAttribute("role", "meter");
    bar.setAttribute("aria-valuenow", String(frame.sand));
    bar.setAttribute("aria-valuemax", String(frame.lapBudget));
    const fill = el("div", "hl-fill" + (share < 0.25 ? " low" : ""));
    fill.style.width = (100 * share).toFixed(1) + "%";
    bar.appendChild(fill);
    box.appendChild(el("span", "hl-label", "sandglass"));
    box.appendChild(bar);
    box.appendChild(el("span", "hl-sand", "sand " + frame.sand + " / " + frame.lapBudget));
    return box;
  }

  function header(frame) {
    const box = el("div", "hl-head");
    box.appendChild(el("div", "hl-where",
      "chamber " + frame.chamber + " \u00b7 multiplier " + frame.multiplierPct + "% \u00b7 lap " +
      frame.lap + " of " + frame.laps + " \u00b7 turn " + frame.turn + " \u00b7 score " + frame.score));
    box.appendChild(sandglass(frame));
    box.appendChild(el("div", "hl-status phase-" + frame.phase, frame.status));
    return box;
  }

  function cellSize(element, cols, rows) {
    // The chamber takes the width the side panel leaves, and no more height than the window has.
    const across = (element.clientWidth - 300 - 2 * cols) / (cols + 0.6);
    const down = (window.innerHeight - 300) / (rows + 0.6);
    return Math.max(24, Math.min(72, Math.floor(Math.min(across, down))));
  }

  function board(frame, size) {
    const rows = frame.terrain.length;
    const cols = rows ? frame.terrain[0].length : 0;
    const grid = el("div", "hl-board");
    grid.style.gridTemplateColumns = "auto repeat(" + cols + ", " + size + "px)";
    grid.style.setProperty("--cell", size + "px");
    grid.appendChild(el("span", "hl-ruler corner", ""));
    for (let c = 0; c < cols; c++) grid.appendChild(el("span", "hl-ruler col", "c" + c));
    const cells = [];
    frame.terrain.forEach(function (row, r) {
      grid.appendChild(el("span", "hl-ruler row", "r" + r));
      Array.from(row).forEach(function (glyph, c) {
        const cell = tile(glyph, frame, "cell");
        cell.dataset.ground = glyph;
        cell.dataset.glyph = (frame.grid[r] || "")[c] || "";
        cell.dataset.at = "r" + r + " c" + c;
        cell.title = cell.title + " (r" + r + " c" + c + ")";
        grid.appendChild(cell);
        cells.push(cell);
      });
    });
    function put(tileIndex, t) {
      const cell = cells[tileIndex];
      if (!cell) return;
      cell.appendChild(t);
      cell.classList.add("occupied");
    }
    frame.echoes.forEach(function (e) { if (e.tile !== null) put(e.tile, echoToken(e)); });
    put(frame.you, youToken(frame));
    return grid;
  }

  function section(title) {
    const box = el("div", "hl-part");
    box.appendChild(el("div", "hl-title", title));
    return box;
  }

  function echoList(frame) {
    const box = section("echoes (each replays its lap's inputs, one a turn, after you)");
    box.classList.add("hl-echoes");
    if (!frame.echoes.length) box.appendChild(el("div", "hl-none", "none yet: each finished lap adds one"));
    frame.echoes.forEach(function (e) {
      const item = el("div", "hl-echo");
      item.dataset.echo = String(e.echo);
      item.appendChild(token("echo small", String(e.echo), ECHO_COLOURS[(e.echo - 1) % 5], null));
      if (e.tile === null) {
        item.classList.add("gone");
        item.appendChild(el("span", "", "echo " + e.echo + ": gone (its inputs all played)"));
      } else {
        const left = e.left === null ? "" : ", " + e.left + " input" + (e.left === 1 ? "" : "s") + " left";
        const words = el("span", "", "echo " + e.echo + " on " + e.at + ", next ");
        const next = el("b", "hl-next-words", nextWords(e.next) + " " + (ARROWS[e.next] || ""));
        next.dataset.next = String(e.next);
        words.appendChild(next);
        words.appendChild(document.createTextNode(left));
        item.appendChild(words);
      }
      box.appendChild(item);
    });
    return box;
  }

  function gateList(frame, fixed) {
    const box = section("gates (open for a mover when every plate holds another body)");
    box.classList.add("hl-gates");
    if (!frame.gates.length) box.appendChild(el("div", "hl-none", "none"));
    frame.gates.forEach(function (g, i) {
      const where = fixed && fixed.gates[i] ? fixed.gates[i] : null;
      const item = el("div", "hl-gate " + (g.open ? "open" : "shut"));
      item.dataset.gate = g.gate;
      item.dataset.open = String(g.open);
      const head = (where ? "gate " + g.gate + " on " + where.at : "gate " + g.gate) + ": ";
      item.appendChild(el("span", "", head));
      item.appendChild(el("span", "hl-state", g.open ? "open for you" : "shut for you"));
      const plates = g.by.map(function (who, k) {
        const at = where && where.plates[k] ? " on " + where.plates[k] : "";
        return "plate " + g.gate.toLowerCase() + at + ": " + (who === "nobody" ? "nobody on it" : "held by " + who);
      });
      if (plates.length) item.appendChild(el("div", "hl-plates", plates.join("; ")));
      box.appendChild(item);
    });
    return box;
  }

  function lapTable(frame, fixed) {
    const box = section("laps of chamber " + frame.chamber);
    box.classList.add("hl-laps");
    if (!fixed || !frame.lapStatus.length) {
      box.appendChild(el("div", "hl-none", "not known for this frame"));
      return box;
    }
    const table = el("table");
    const head = el("tr");
    ["lap", "alcove", "keystone", "budget", ""].forEach(function (h) { head.appendChild(el("th", "", h)); });
    table.appendChild(head);
    fixed.laps.forEach(function (lap, i) {
      const status = frame.lapStatus[i] || "";
      const row = el("tr", "lap-" + status);
      [String(lap.lap), lap.alcove, lap.keystone, String(lap.budget), status].forEach(function (v) {
        row.appendChild(el("td", "", v));
      });
      table.appendChild(row);
    });
    box.appendChild(table);
    return box;
  }

  function events(frame) {
    const box = section(frame.tick === null ? "the run starts" : "what tick " + frame.tick + " did");
    box.classList.add("hl-events");
    const list = el("ol");
    frame.events.forEach(function (words) { list.appendChild(el("li", "", words)); });
    if (frame.events.length) box.appendChild(list);
    return box;
  }

  window.renderBoard = function (element, frame) {
    if (frame.chambers) chambers = frame.chambers;
    const fixed = chambers[String(frame.chamber)] || null;
    element.textContent = "";
    element.appendChild(legend(frame));
    element.appendChild(header(frame));
    if (frame.note) element.appendChild(el("div", "hl-note", frame.note));
    const rows = frame.terrain.length;
    const size = cellSize(element, rows ? frame.terrain[0].length : 1, Math.max(rows, 1));
    const stage = el("div", "hl-stage");
    const left = el("div", "hl-left");
    left.appendChild(board(frame, size));
    left.appendChild(events(frame));
    stage.appendChild(left);
    const side = el("div", "hl-side");
    side.appendChild(echoList(frame));
    side.appendChild(gateList(frame, fixed));
    side.appendChild(lapTable(frame, fixed));
    stage.appendChild(side);
    element.appendChild(stage);
  };

  window.boardStyle = `
    .hl-legend { display: flex; flex-wrap: wrap; gap: 4px 14px; font-size: 12px; color: #444;
                 margin-bottom: 8px; }
    .hl-key { display: inline-flex; align-items: center; gap: 5px; }
    .hl-key .hl-token.echo { margin-right: 8px; }
    .hl-head { display: flex; flex-wrap: wrap; align-items: center; gap: 6px 18px; margin-bottom: 8px; }
    .hl-where { font-weight: bold; font-size: 15px; }
    .hl-sandglass { display: inline-flex; align-items: center; gap: 8px; }
    .hl-sandglass .hl-label { font-size: 12px; color: #666; }
    .hl-bar { width: 180px; height: 14px; border: 1px solid #a68a4a; border-radius: 7px; background: #f6efdc;
              overflow: hidden; }
    .hl-fill { height: 100%; background: #d4a92a; }
    .hl-fill.low { background: #c0392b; }
    .hl-sand { font-variant-numeric: tabular-nums; font-size: 13px; }
    .hl-status { font-size: 13px; color: #444; }
    .hl-status.phase-sealed { color: #1e7b34; font-weight: bold; }
    .hl-status.phase-over { color: #a93226; font-weight: bold; }
    .hl-note { background: #fdecea; border-left: 4px solid #c0392b; padding: 4px 8px; font-size: 13px;
               margin-bottom: 8px; }
    .hl-stage { display: flex; gap: 18px; align-items: flex-start; flex-wrap: wrap; }
    .hl-left { min-width: 0; }
    .hl-board { display: grid; gap: 2px; align-items: center; justify-items: center; }
    .hl-ruler { font-size: 10px; color: #888; font-variant-numeric: tabular-nums; }
    .hl-ruler.row { padding-right: 3px; }
    .hl-tile { width: var(--cell, 28px); height: var(--cell, 28px); display: flex; align-items: center;
               justify-content: center; position: relative; border-radius: 3px;
               font: bold calc(var(--cell, 28px) * 0.45) "DejaVu Sans", sans-serif; }
    .hl-tile.sample { --cell: 20px; font-size: 12px; }
    .hl-tile .sym { pointer-events: none; }
    .hl-tile.occupied .sym { position: absolute; left: 2px; top: 0; font-size: 45%; opacity: 0.8; }
    .hl-tile.wall { background: #3b3f46; }
    .hl-tile.floor { background: #ece6d8; }
    .hl-tile.alcove { background: #e2d3b5; color: #7a5c2e; }
    .hl-tile.keystone { background: #f7e3a1; color: #9a7400; }
    .hl-tile.spark { background: #ece6d8; color: #d68910; }
    .hl-tile.exit { background: #1b4f72; color: #f5b041; }
    .hl-tile.flux.lit { background: #e67e22; color: white; }
    .hl-tile.flux.calm { background: #d6e4ea; color: #5d7b89; }
    .hl-tile.gate { color: white; border: 2px solid rgba(0, 0, 0, 0.35); }
    .hl-tile.gate.open { background: #27ae60; }
    .hl-tile.gate.shut { background: repeating-linear-gradient(90deg, #922b21 0 5px, #641e16 5px 8px); }
    .hl-tile.plate { background: #ece6d8; color: #6e2c00; box-shadow: inset 0 0 0 3px #ca6f1e; }
    .hl-token { width: 74%; height: 74%; border-radius: 50%; color: white; display: inline-flex;
                align-items: center; justify-content: center; position: relative; z-index: 1;
                box-shadow: 0 0 0 2px rgba(255, 255, 255, 0.85); font: bold calc(var(--cell, 28px) * 0.36) "DejaVu Sans", sans-serif; }
    .hl-token.you { border-radius: 30%; }
    .hl-token.you .num { font-size: 85%; }
    .hl-token.small { width: 20px; height: 20px; font-size: 11px; box-shadow: none; flex: none; }
    .hl-token.you.small .num { font-size: 9px; }
    .hl-next { position: absolute; width: 46%; height: 46%; min-width: 11px; min-height: 11px;
               border-radius: 50%; background: white; color: #111; border: 1px solid #333;
               display: flex; align-items: center; justify-content: center; font-size: 75%; }
    .hl-next.dN { top: -28%; left: 27%; }
    .hl-next.dS { bottom: -28%; left: 27%; }
    .hl-next.dE { right: -28%; top: 27%; }
    .hl-next.dW { left: -28%; top: 27%; }
    .hl-next.dWAIT { right: -22%; top: -22%; }
    .hl-side { flex: 1 1 260px; min-width: 250px; max-width: 420px; font-size: 13px; }
    .hl-part { background: white; border: 1px solid #e0dccf; border-radius: 5px; padding: 5px 8px;
               margin-bottom: 8px; }
    .hl-title { font-size: 11px; text-transform: uppercase; letter-spacing: 0.04em; color: #777;
                margin-bottom: 3px; }
    .hl-none { color: #777; font-style: italic; }
    .hl-echo { display: flex; align-items: center; gap: 8px; margin: 3px 0; }
    .hl-echo.gone { color: #888; }
    .hl-next-words { font-weight: bold; }
    .hl-gate { margin: 3px 0; }
    .hl-gate .hl-state { font-weight: bold; }
    .hl-gate.open .hl-state { color: #1e7b34; }
    .hl-gate.shut .hl-state { color: #922b21; }
    .hl-plates { color: #555; font-size: 12px; padding-left: 10px; }
    .hl-laps table { border-collapse: collapse; font-variant-numeric: tabular-nums; }
    .hl-laps th, .hl-laps td { padding: 1px 8px 1px 0; text-align: left; }
    .hl-laps th { font-weight: normal; color: #777; font-size: 12px; }
    .hl-laps tr.lap-now { font-weight: bold; }
    .hl-laps tr.lap-done { color: #777; }
    .hl-events { margin-top: 10px; max-width: 640px; font-size: 13px; }
    .hl-events ol { margin: 0; padding-left: 22px; }
  `;
})();
