"use strict";
// The play page of agents/apps/serve.py: a setup form, then the table as the person's seat
// sees it.  Every request carries the move counter last seen; the server refuses stale ones.
// Pause before each agent move, so the moves can be followed (?delay=MS in the address).
const AGENT_DELAY_MS = Number(new URLSearchParams(location.search).get("delay") ?? 450);
const $ = (id) => document.getElementById(id);
let catalog = null;
let current = null;   // the last view the server sent
let busy = false;

async function api(method, path, body) {
  const response = await fetch(path, {
    method, headers: {"Content-Type": "application/json"},
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const data = await response.json();
  if (!response.ok) throw new Error(data.error || ("HTTP " + response.status));
  return data;
}

function showError(message) { $("error").textContent = message || ""; }

function fillSelect(select, items, selected) {
  select.textContent = "";
  for (const [value, text] of items) select.add(new Option(text, value, false, value === selected));
}

function gameInfo() { return catalog.games.find((g) => g.id === $("game").value); }

function optionField(option) {
  const label = document.createElement("label");
  label.title = option.doc;
  label.append((option.label || option.name) + " ");
  let input;
  if (option.kind === "int") {
    input = document.createElement("input");
    input.type = "number";
    if (option.low !== null) input.min = option.low;
    if (option.high !== null) input.max = option.high;
    input.placeholder = option.default === null ? "default" : String(option.default);
  } else {
    input = document.createElement("select");
    const values = option.kind === "bool" ? [true, false] : option.choices;
    const items = [["", "default (" + (option.default === null ? "auto" : String(option.default)) + ")"]];
    for (const v of values) items.push([JSON.stringify(v), String(v)]);
    fillSelect(input, items, "");
  }
  input.dataset.option = option.name;
  input.dataset.kind = option.kind;
  label.append(input);
  return label;
}

function refreshSeats() {
  const n = Number($("num-players").value);
  const seat = Math.min(Number($("seat").value || 0), n - 1);
  fillSelect($("seat"), [...Array(n).keys()].map((k) => [String(k), "player_" + k]), String(seat));
  const box = $("opponents");
  const before = [...box.querySelectorAll("select")].map((s) => s.value);
  box.textContent = "";
  // the learned search plays only games with a shipped network, at its seat count
  const learned = ["az", "az_policy"];
  const fits = (gameInfo().learned_seats || []).includes(n);
  const offered = catalog.opponents.filter((a) => fits || !learned.includes(a));
  let other = 0;
  for (let k = 0; k < n; k++) {
    if (k === seat) continue;
    const label = document.createElement("label");
    label.append("player_" + k + " ");
    const select = document.createElement("select");
    select.className = "opponent";
    const kept = offered.includes(before[other]) ? before[other] : null;
    const name = kept || (offered.includes("greedy") ? "greedy" : offered[0]);
    fillSelect(select, offered.map((a) => [a, a]), name);
    label.append(select);
    box.append(label);
    other++;
  }
}

function refreshGame() {
  const game = gameInfo();
  const counts = game.player_counts;
  const preferred = counts.includes(2) ? 2 : counts[0];
  fillSelect($("num-players"), counts.map((c) => [String(c), String(c)]), String(preferred));
  $("options").textContent = "";
  for (const option of game.options) $("options").append(optionField(option));
  refreshSeats();
}

function readOptions() {
  const options = {num_players: Number($("num-players").value)};
  for (const input of $("options").querySelectorAll("[data-option]")) {
    if (input.value === "") continue;
    options[input.dataset.option] = input.dataset.kind === "int" ? Number(input.value) : JSON.parse(input.value);
  }
  return options;
}

async function start(event) {
  event.preventDefault();
  if (busy) return;
  showError("");
  const body = {
    game: $("game").value, options: readOptions(), seat: Number($("seat").value),
    opponents: [...$("opponents").querySelectorAll("select.opponent")].map((s) => s.value),
    seed: $("seed").value.trim() === "" ? null : $("seed").value.trim(),   // digits: 63 bits exactly
  };
  busy = true;
  try {
    render(await api("POST", "/api/games", body));
  } catch (error) {
    showError(error.message);
  } finally {
    busy = false;
  }
  runAgents();
}

function render(view) {
  const fresh = current === null || current.id !== view.id ? 0 : current.moves.length;
  current = view;
  $("play").hidden = false;
  $("setup-box").open = false;   // folded away while playing; a click on "New game" opens it
  document.body.dataset.counter = String(view.counter);
  document.body.dataset.state = view.over ? "over" : (view.your_turn ? "you" : "agent");
  // The record holds the seed and every secret move: the server gives it once the game is over.
  $("download-box").hidden = !view.record;
  $("download").href = view.record || "#";
  const mover = view.to_move === null ? "" : view.players[view.to_move] + " (player_" + view.to_move + ")";
  $("status").textContent = view.over ? "Game over"
      : view.your_turn ? "Your turn (" + view.phase + ")" : mover + " is thinking\u2026";
  $("picture").innerHTML = view.picture;
  for (const shape of $("picture").querySelectorAll(".cz-action")) {
    shape.addEventListener("click", () => playMove(Number(shape.dataset.action)));
  }
  const legal = $("legal");
  legal.textContent = "";
  for (const move of view.legal) {
    const button = document.createElement("button");
    button.className = "cz-move";
    button.dataset.action = String(move.action);
    button.textContent = move.label;
    button.addEventListener("click", () => playMove(move.action));
    legal.append(button);
  }
  const list = $("moves");
  list.textContent = "";
  view.moves.forEach((move, i) => {
    const item = document.createElement("li");
    item.textContent = move.player + ": " + move.label;
    if (move.seat !== view.seat) item.classList.add("agent");
    if (i >= fresh && fresh > 0) item.classList.add("new");
    list.append(item);
  });
  if (list.lastChild) list.lastChild.scrollIntoView({block: "nearest"});
  $("final").hidden = !view.over;
  if (view.over) {
    const table = $("final-table");
    table.textContent = "";
    const head = table.insertRow();
    for (const t of ["seat", "player", "final score", "rank"]) {
      const th = document.createElement("th"); th.textContent = t; head.append(th);
    }
    view.players.forEach((name, k) => {
      const row = table.insertRow();
      row.className = "final-row";
      for (const v of ["player_" + k, name, view.final.scores[k], view.final.ranks[k]]) {
        row.insertCell().textContent = String(v);
      }
    });
  }
}

async function playMove(action) {
  if (busy || current === null || !current.your_turn) return;
  busy = true;
  showError("");
  try {
    render(await api("POST", "/api/games/" + current.id + "/move", {counter: current.counter, action}));
  } catch (error) {
    showError(error.message);
    try { render(await api("GET", "/api/games/" + current.id)); } catch (ignored) { /* shown above */ }
  } finally {
    busy = false;
  }
  runAgents();
}

async function runAgents() {
  // The agents' moves, one request each, with a pause so each one can be seen.
  if (busy) return;
  busy = true;
  try {
    while (current !== null && !current.over && !current.your_turn) {
      await new Promise((resolve) => setTimeout(resolve, AGENT_DELAY_MS));
      render(await api("POST", "/api/games/" + current.id + "/advance", {counter: current.counter}));
    }
  } catch (error) {
    showError(error.message);
  } finally {
    busy = false;
  }
}

async function init() {
  try {
    catalog = await api("GET", "/api/catalog");
  } catch (error) {
    showError("cannot reach the server: " + error.message);
    return;
  }
  fillSelect($("game"), catalog.games.map((g) => [g.id, g.title || g.id]), catalog.games[0].id);
  $("game").addEventListener("change", refreshGame);
  $("num-players").addEventListener("change", refreshSeats);
  $("seat").addEventListener("change", refreshSeats);
  $("setup").addEventListener("submit", start);
  refreshGame();
  document.body.dataset.ready = "1";
}

init();
