// The shared script of the games' playable pages (page_kit.py puts it into each page).
// Requests run one at a time, in order, and <body data-pending> counts those in flight,
// so that a test can wait for the page to settle. Every text from a server or a player
// is set as text, never read as HTML.
"use strict";
const pageKit = (function () {
  const $ = (id) => document.getElementById(id);
  let pending = 0;
  let queue = Promise.resolve();

  function setPending(delta) {
    pending += delta;
    document.body.dataset.pending = String(pending);
  }

  function setText(id, value) {
    $(id).textContent = String(value);
  }

  async function call(url, options) {
    const response = await fetch(url, options);
    let body;
    try {
      body = await response.json();
    } catch (err) {
      body = { error: "bad_response", message: "the server answered " + response.status + " without JSON" };
    }
    return { status: response.status, body: body };
  }

  function post(url, body) {
    return call(url, {
      method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify(body),
    });
  }

  // job runs after every job queued before it; failed(err) hears of a request that failed
  function enqueue(job, failed) {
    setPending(1);
    queue = queue
      .then(job)
      .catch(failed)
      .finally(() => setPending(-1));
  }

  // keys[event.key] is act on, outside a text field and only while ready() holds
  function onKeys(keys, act, ready) {
    document.addEventListener("keydown", (event) => {
      if (event.ctrlKey || event.altKey || event.metaKey || event.repeat) return;
      if (ready && !ready()) return;
      const target = event.target;
      if (target && ["INPUT", "TEXTAREA", "SELECT"].indexOf(target.tagName) >= 0) return;
      const action = keys[event.key];
      if (!action) return;
      event.preventDefault();
      act(action);
    });
  }

  // the refusal box: a title, the sentence, and what can be done instead (or nothing)
  function showRefusal(reason, title, sentence, can) {
    const box = $("refusal");
    box.textContent = "";
    const strong = document.createElement("span");
    strong.className = "reason";
    strong.textContent = title;
    box.appendChild(strong);
    box.appendChild(document.createTextNode(" " + sentence));
    if (can) {
      const line = document.createElement("span");
      line.className = "can";
      line.textContent = can;
      box.appendChild(line);
    }
    box.dataset.reason = reason;
    box.classList.remove("empty");
  }

  function clearRefusal() {
    const box = $("refusal");
    box.textContent = "";
    delete box.dataset.reason;
    box.classList.add("empty");
  }

  // the newest event first
  function logEvents(events, describe) {
    const list = $("events");
    for (const event of events) {
      const item = document.createElement("li");
      item.dataset.type = event.type;
      item.textContent = describe(event);
      list.insertBefore(item, list.firstChild);
    }
  }

  // an action's identity whatever the order of its keys: {type, dir} = {dir, type}
  function actionKey(action) {
    return JSON.stringify(Object.keys(action).sort().map((k) => [k, action[k]]));
  }

  // A one-seat game's page over its stateless API (Relayroam's, Hourloom's): it starts
  // from ?seed= (7 by default), sends each action with the state the last answer gave
  // (body[game.stateKey]), and draws every answer: game.render(body), each button
  // marked "legal" when its action is, game.banner(body) and <body data-phase>. It
  // says each refusal: game.title(reason), game.refusal(body, action) and
  // game.can(legal) word it (by default: the reason, the server's message, nothing).
  function playSolo(game) {
    const params = new URLSearchParams(window.location.search);
    const seedText = params.has("seed") ? params.get("seed") : "7";
    const title = game.title || ((reason) => reason);
    const refusal = game.refusal || ((body) => body.message);
    const can = game.can || (() => null);
    let state = null;

    function draw(body) {
      game.render(body);
      const legal = new Set(body.legalActions.map(actionKey));
      for (const [id, action] of Object.entries(game.buttons)) {
        $(id).classList.toggle("legal", legal.has(actionKey(action)));
      }
      setText("banner", game.banner(body));
      document.body.dataset.phase = body.observation.phase;
    }

    function refuse(reason, sentence, legal) {
      showRefusal(reason, title(reason), sentence, legal ? can(legal) : null);
    }

    const failed = (err) => refuse("network_error", "The request failed: " + err + ".", null);

    function start() {
      setText("seed", seedText);
      $("seed-input").value = seedText;
      enqueue(async () => {
        const { status, body } = await call(game.api + "init?seed=" + encodeURIComponent(seedText), { method: "GET" });
        if (status !== 200) {
          setText("phase", "not started");
          refuse(body.error, body.message, null);
          return;
        }
        state = body[game.stateKey];
        draw(body);
        setText("message", game.started(body, seedText));
      }, failed);
    }

    function act(action) {
      enqueue(async () => {
        if (state === null) return;
        const sent = {};
        sent[game.stateKey] = state;
        sent.action = action;
        const { status, body } = await post(game.api + "action", sent);
        if (status !== 200) {
          refuse(body.error, body.message, null);
          return;
        }
        state = body[game.stateKey];
        draw(body);
        if (body.ok) {
          clearRefusal();
          setText("message", body.message);
          logEvents(body.events, game.describe);
        } else {
          refuse(body.reason, refusal(body, action), body.legalActions);
        }
      }, failed);
    }

    onKeys(game.keys, act);
    for (const [id, action] of Object.entries(game.buttons)) {
      $(id).addEventListener("click", () => act(action));
    }
    start();
  }

  return Object.freeze({ $, setText, call, post, enqueue, onKeys, playSolo });
})();
