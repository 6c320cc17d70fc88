// The board of a game's default viewer: what the player read at each position, as text.
(function () {
  window.renderBoard = function (element, frame) {
    element.textContent = "";
    const screen = document.createElement("pre");
    screen.className = "screen";
    screen.textContent = frame.screen;
    element.appendChild(screen);
  };
  window.boardStyle = `
    .screen { font: 14px/1.35 monospace; margin: 0; padding: 8px; background: #f6f4ee;
              border-radius: 4px; overflow-x: auto; }
  `;
})();
