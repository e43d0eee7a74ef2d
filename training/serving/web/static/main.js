// The page: choose a game, its options, an opponent, a seat and a seed; then play on the
// server's board. The page knows no game's rules: the server draws the board (SVG), lists the
// legal moves with the element each belongs to, says why a click is illegal, and plays the bots.
//
// Test hooks (kept on purpose, docs/web.md): data-action, data-choices, data-result, data-rules,
// data-log with data-ply, data-clock, data-error. <body data-state> is "setup", "starting",
// "your-turn", "thinking", "busy", "choosing", "over", "bot-failed" or "error".
//
// The address is the game: once a game starts, the address is /?g=<link>, the name the server
// keeps the game under (unguessable, nothing of the seed or the hidden items in it); opening
// it again, or reloading, brings the game back (web_resume).

import { Board } from "./board.js";
import { Client } from "./client.js";
import { showRules } from "./rules.js";
import { fitBoard, zoomBoard } from "./zoom.js";

const $ = (id) => document.getElementById(id);
const SEAT_COLOURS = 4; // how many seat colours style.css has (.seat-0 … .seat-3)
const CLOCK_POLL_MS = 1000; // a running clock is asked about this often (the server ends a game on time)

const page = {
  client: null,
  games: [],
  view: null,
  busy: false,
  choosing: null, // {element, moves, selected, previews}
  opponentChosen: false, // the person picked an opponent on the form (kept when the list is renewed)
  clockTimer: null,
  review: null, // {step, steps}: the replay at the end
  levels: [],
};

const board = new Board($("board"), (element) => activate(element));

function setState(state) {
  document.body.dataset.state = state;
}

function settle() {
  const view = page.view;
  if (!view) {
    setState("setup");
  } else if (!$("bot-error").hidden) {
    setState("bot-failed");
  } else if (page.choosing) {
    setState("choosing");
  } else if (view.over) {
    setState("over");
  } else if (page.busy) {
    setState(view.your_turn ? "busy" : "thinking");
  } else {
    setState(view.your_turn ? "your-turn" : "thinking");
  }
}

function say(text) {
  $("reason").textContent = text || "";
}

function setupError(text) {
  $("setup-error").textContent = text || "";
}

// ----- the connection and the new-game form -----------------------------------------------------
function socketUrl() {
  const scheme = location.protocol === "https:" ? "wss:" : "ws:";
  return `${scheme}//${location.host}/ws`;
}

async function connect() {
  page.client = new Client(socketUrl());
  page.client.onclose = () => {
    $("connection").textContent = "disconnected: reload the page to play on";
    $("connection").classList.add("lost");
    stopClock();
    setState("error");
  };
  try {
    await page.client.open();
  } catch (error) {
    $("connection").textContent = "cannot reach the server";
    setState("error");
    return;
  }
  $("connection").textContent = "connected";
  page.games = (await page.client.ask("list_games")).games;
  const select = $("game");
  for (const game of page.games) {
    const option = document.createElement("option");
    option.value = game.game;
    option.textContent = shortName(game.game);
    select.appendChild(option);
  }
  wireControls();
  await route(new URLSearchParams(location.search));
}

function wireControls() {
  $("game").addEventListener("change", () => chooseGame($("game").value));
  $("opponent").addEventListener("change", () => {
    page.opponentChosen = true;
  });
  $("option-fields").addEventListener("change", () => relistOpponents());
  $("options-json").addEventListener("change", () => relistOpponents());
  $("new-game").addEventListener("submit", (event) => {
    event.preventDefault();
    startFromForm();
  });
  $("show-rules").addEventListener("click", () => toggle($("setup-rules")));
  $("rules-button").addEventListener("click", () => toggle($("game-rules")));
  $("undo").addEventListener("click", () => undo());
  $("hint").addEventListener("click", () => hint());
  $("new").addEventListener("click", () => showSetup(true));
  $("confirm").addEventListener("click", () => confirmChoice());
  $("cancel").addEventListener("click", () => closeChoices(true));
  $("choices").addEventListener("keydown", (event) => choiceKey(event));
  $("retry").addEventListener("click", () => botTurn(null));
  $("stand-in").addEventListener("click", () => botTurn("heuristic"));
  $("rematch").addEventListener("click", () => rematch(false));
  $("swap").addEventListener("click", () => rematch(true));
  $("zoom-in").addEventListener("click", () => zoomBoard($("board"), 1.25));
  $("zoom-out").addEventListener("click", () => zoomBoard($("board"), 0.8));
  $("zoom-fit").addEventListener("click", () => fitBoard($("board"), true));
  for (const [id, move] of [["review-first", -Infinity], ["review-back", -1], ["review-forward", 1], ["review-last", Infinity]]) {
    $(id).addEventListener("click", () => reviewStep(move));
  }
  document.addEventListener("keydown", (event) => {
    if (event.key === "Escape" && page.choosing) {
      closeChoices(true);
    }
  });
  window.addEventListener("resize", () => fitBoard($("board")));
}

function toggle(element) {
  element.hidden = !element.hidden;
}

// What the address asks for: a kept game (g=<link>), a deep link (game=…), or the form.
async function route(params) {
  if (params.get("g")) {
    await resume(params.get("g"));
  } else if (params.get("game")) {
    try {
      await deepLink(params);
    } catch (error) {
      // whatever went wrong with the link, the form is there to start a game, and says what
      showSetup();
      setupError(`the link could not start a game: ${error.message}`);
    }
  } else {
    await chooseGame($("game").value);
    showSetup();
  }
}

function shortName(name) {
  return name.replace(/_v0$/, "");
}

function gameEntry(name) {
  const short = shortName(String(name));
  return page.games.find((game) => game.game === name || game.game === `${short}_v0`);
}

function isObject(value) {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function isSimple(value) {
  return ["boolean", "number", "string"].includes(typeof value);
}

async function chooseGame(name, preset = {}) {
  const entry = gameEntry(name);
  page.opponentChosen = false; // another game: its own list, its own default
  $("game").value = entry.game;
  const fields = $("option-fields");
  fields.replaceChildren();
  for (const [key, value] of Object.entries(entry.default_options)) {
    if (!isSimple(value)) {
      continue; // lists, objects and options without a default: the JSON box takes them
    }
    fields.appendChild(optionField(key, value, key in preset ? preset[key] : value));
  }
  const extra = Object.fromEntries(Object.entries(preset).filter(([key]) => !isSimple(entry.default_options[key])));
  $("options-json").value = JSON.stringify(extra);
  const others = Object.keys(entry.default_options).filter((key) => !isSimple(entry.default_options[key]));
  $("options-more").textContent = others.length ? `other options, as JSON: ${others.join(", ")}` : "";
  showRules($("setup-rules"), shortName(entry.game));
  let options = {};
  try {
    options = formOptions();
  } catch (error) {
    // options that do not read: starting the game says what is wrong with them
  }
  await listOpponents(entry.game, options);
}

function optionField(key, value, given) {
  const input = document.createElement("input");
  if (typeof value === "boolean") {
    input.type = "checkbox";
    input.checked = Boolean(given);
  } else {
    input.type = typeof value === "number" ? "number" : "text";
    input.value = String(given);
  }
  input.dataset.option = key;
  input.dataset.kind = typeof value;
  const label = document.createElement("label");
  label.append(`${key} `, input);
  return label;
}

async function listOpponents(game, options = {}) {
  // the levels are those of the options on the form (another board has levels of its own, or none)
  let answer;
  try {
    answer = await page.client.ask("list_agents", { game, options });
  } catch (error) {
    answer = await page.client.ask("list_agents", { game }); // options the server refuses: it says so at the start
  }
  const select = $("opponent");
  const chosen = page.opponentChosen ? select.value : null; // the person's choice is kept where it still fits
  select.replaceChildren();
  const levels = Array.isArray(answer.levels) ? answer.levels : [];
  page.levels = levels;
  let others = select;
  if (levels.length) {
    select.appendChild(levelGroup(levels));
    others = document.createElement("optgroup");
    others.label = "other opponents";
    select.appendChild(others);
  }
  for (const agent of answer.agents) {
    addOption(others, agent, agent);
  }
  if (answer.checkpoints && answer.checkpoints.length) {
    const group = document.createElement("optgroup");
    group.label = "shipped agent files";
    for (const file of answer.checkpoints) {
      addOption(group, file, file.split("/").pop());
    }
    select.appendChild(group);
  }
  $("levels-note").textContent = levelsNote(levels);
  // a gentle start: the middle level (among those that answer within a second), else the heuristic
  const quick = levels.filter((level) => level.ms_per_move === undefined || level.ms_per_move < 1000);
  if (quick.length) {
    select.value = `level:${quick[Math.floor((quick.length - 1) / 2)].level}`;
  } else if (answer.agents.includes("heuristic")) {
    select.value = "heuristic";
  }
  if ([...select.options].some((option) => option.value === chosen)) {
    select.value = chosen;
  }
}

function addOption(group, value, text) {
  const option = document.createElement("option");
  option.value = value;
  option.textContent = text;
  group.appendChild(option);
  return option;
}

function levelGroup(levels) {
  const group = document.createElement("optgroup");
  group.label = "strength levels";
  for (const level of levels) {
    const elo = level.elo !== undefined ? ` · Elo ${Math.round(level.elo)}` : "";
    const speed = level.ms_per_move !== undefined ? ` · ${Math.round(level.ms_per_move)} ms a move` : "";
    addOption(group, `level:${level.level}`, `${level.name} (level ${level.level}${elo}${speed})`);
  }
  return group;
}

function levelsNote(levels) {
  if (!levels.length) {
    return "No strength levels for these options: the named bots play them.";
  }
  const base = levels[0];
  return `Levels from ${base.name} to ${levels[levels.length - 1].name}. Elo is measured against level 1 ` +
    `(${base.name}, ${base.spec}), which stands at ${Math.round(base.elo || 0)}: 400 more means about 10 wins in 11.`;
}

function relistOpponents() {
  let options;
  try {
    options = formOptions();
  } catch (error) {
    return; // options being typed: the list stays until they read as JSON
  }
  listOpponents($("game").value, options);
}

function formOptions() {
  let options = {};
  const text = $("options-json").value.trim();
  if (text) {
    options = JSON.parse(text);
    if (!isObject(options)) {
      throw new Error("more options: write a JSON object, e.g. {\"size\": 8}");
    }
  }
  const entry = gameEntry($("game").value);
  for (const input of $("option-fields").querySelectorAll("input[data-option]")) {
    const key = input.dataset.option;
    let value;
    if (input.dataset.kind === "boolean") {
      value = input.checked;
    } else if (input.dataset.kind === "number") {
      value = Number(input.value);
    } else {
      value = input.value;
    }
    if (value !== entry.default_options[key]) {
      options[key] = value;
    }
  }
  return options;
}

async function startFromForm() {
  setupError("");
  let options;
  let seed;
  try {
    options = formOptions();
    seed = readSeed($("seed").value);
  } catch (error) {
    setupError(error.message);
    return;
  }
  await start({ game: $("game").value, opponent: $("opponent").value, seat: Number($("seat").value || 0), seed, options });
}

function readSeed(text) {
  // empty: the server draws one (hidden until the end); else a whole number JavaScript holds exactly
  const written = String(text ?? "").trim();
  if (written === "") {
    return null;
  }
  const seed = Number(written);
  if (!/^[0-9]+$/.test(written) || !Number.isSafeInteger(seed)) {
    throw new Error(`seed: a whole number from 0 to ${Number.MAX_SAFE_INTEGER}, or empty for a random one (got ${JSON.stringify(written)})`);
  }
  return seed;
}

// /?game=loom&opponent=level:3&seat=0&seed=7 (options: options={json} or name=value pairs).
// Anything in the link that does not read is said on the form (data-error): never a silent default.
const LINK_KEYS = new Set(["game", "opponent", "seat", "seed", "options"]);

function linkOptions(params, entry) {
  let options = {};
  const written = params.get("options");
  if (written !== null) {
    try {
      options = JSON.parse(written);
    } catch (error) {
      throw new Error(`options in the link are not JSON (${error.message}): ${written}`);
    }
    if (!isObject(options)) {
      throw new Error(`options in the link must be a JSON object such as {"bounty": 3}, not ${written}`);
    }
  }
  for (const [key, text] of params) {
    if (LINK_KEYS.has(key)) {
      continue;
    }
    if (!(key in entry.default_options)) {
      const known = Object.keys(entry.default_options).join(", ");
      throw new Error(`the link names ${JSON.stringify(key)}, which is not an option of ${shortName(entry.game)} (its options: ${known})`);
    }
    try {
      options[key] = JSON.parse(text);
    } catch (error) {
      options[key] = text;
    }
  }
  return options;
}

async function deepLink(params) {
  const entry = gameEntry(params.get("game"));
  if (!entry) {
    await chooseGame($("game").value);
    showSetup();
    setupError(`unknown game ${JSON.stringify(params.get("game"))}: the games are ${page.games.map((g) => shortName(g.game)).join(", ")}`);
    return;
  }
  let options;
  let seed;
  try {
    options = linkOptions(params, entry);
    seed = readSeed(params.get("seed"));
  } catch (error) {
    await chooseGame(entry.game);
    showSetup();
    setupError(error.message);
    return;
  }
  await chooseGame(entry.game, options);
  const opponent = params.get("opponent") || $("opponent").value;
  if (![...$("opponent").options].some((option) => option.value === opponent)) {
    addOption($("opponent"), opponent, opponent);
  }
  $("opponent").value = opponent;
  $("seat").value = params.get("seat") || "0";
  $("seed").value = params.get("seed") || "";
  await start({ game: entry.game, opponent, seat: Number(params.get("seat") || 0), seed, options });
}

function showSetup(fromGame = false) {
  closeChoices(false);
  stopClock();
  $("table").hidden = true;
  $("setup").hidden = false;
  if (fromGame && page.view) {
    page.client.ask("web_close", { game_id: page.view.game_id }).catch(() => {});
    history.replaceState(null, "", "/");
  }
  page.view = null;
  settle();
}

// ----- a game --------------------------------------------------------------------------------
async function start({ game, opponent, seat, seed, options }) {
  const fields = { game, opponent, seat, options };
  if (seed !== null) {
    fields.seed = seed;
  }
  if (page.view) {
    page.client.ask("web_close", { game_id: page.view.game_id }).catch(() => {});
  }
  page.view = null;
  stopClock();
  $("start").disabled = true;
  setState("starting");
  showPreparing(`starting ${shortName(gameEntry(game).game)} against ${opponent}: loading the opponent…`);
  let view;
  try {
    view = await newGame(fields);
  } catch (error) {
    $("setup").hidden = false;
    $("table").hidden = true;
    setupError(error.message);
    setState("setup");
    return;
  } finally {
    $("start").disabled = false;
    $("preparing").hidden = true;
  }
  history.replaceState(null, "", `/?g=${encodeURIComponent(view.link)}`); // the address is the game
  await enter(view);
}

function showPreparing(text) {
  $("preparing").hidden = false;
  $("preparing-what").textContent = text;
}

// A game on the table (a new one, or one brought back by its link).
async function enter(view) {
  $("setup").hidden = true;
  $("table").hidden = false;
  $("log").replaceChildren();
  delete $("log").dataset.reviewed;
  $("bot-error").hidden = true;
  $("thought").textContent = "";
  page.review = null;
  say("");
  showRules($("game-rules"), view.short_name);
  show(view);
  fitBoard($("board"), true);
  await runBots();
}

async function resume(link) {
  setState("starting");
  showPreparing("bringing the game back…");
  let view;
  try {
    view = await page.client.ask("web_resume", { link });
  } catch (error) {
    $("preparing").hidden = true;
    await chooseGame($("game").value);
    showSetup();
    setupError(error.message);
    return;
  }
  $("preparing").hidden = true;
  await chooseGame(view.game, view.asked_options);
  await enter(view);
}

const PREPARING_RETRY_MS = 1000;
const PREPARING_TRIES = 300; // five minutes: a solver table takes seconds, its first build on 5×5 about 15

async function newGame(fields) {
  // the server may first have to prepare what the opponent needs (Linecatch's solver table):
  // it says so ("preparing"), and the page asks again until the game starts
  for (let tries = 1; ; tries++) {
    try {
      return await page.client.ask("web_new_game", fields);
    } catch (error) {
      if (error.code !== "preparing" || tries >= PREPARING_TRIES) {
        throw error;
      }
      showPreparing(`${error.message} (${tries} s)`);
      await new Promise((resolve) => setTimeout(resolve, PREPARING_RETRY_MS));
    }
  }
}

function show(view) {
  page.view = view;
  board.show(view.over && view.revealed ? view.revealed : view.svg); // at the end, every hidden item shown
  board.attach(view.actions, view.your_turn && !page.busy);
  board.mark(view.last);
  fitBoard($("board"));
  $("game-title").textContent = view.title;
  showPlayers(view);
  $("status").textContent = view.status;
  $("notes").textContent = (view.notes || []).join(" ");
  $("undo").disabled = !view.undo || page.busy;
  $("undo").title = view.undo_rule;
  $("hint").disabled = !view.your_turn || page.busy;
  $("undo-rule").textContent = view.undo_rule ? `Undo: ${view.undo_rule}.` : "";
  showLog(view);
  showResult(view);
  runClock(view);
  settle();
}

function showResult(view) {
  const result = $("result");
  if (!(view.over && view.result)) {
    result.hidden = true;
    $("after").hidden = true;
    $("review").hidden = true;
    delete result.dataset.result;
    result.textContent = "";
    return;
  }
  result.hidden = false;
  result.dataset.result = view.result.outcome;
  result.className = `result ${view.result.outcome}`;
  result.textContent = view.result.text;
  $("after").hidden = false;
  $("again").href = dealLink(view, view.seat);
  $("swap").hidden = view.players.length < 2;
  if (!page.review) {
    page.review = { step: null };
    askReview(view.game_id);
  }
  $("review").hidden = false;
  showReviewPlace();
}

// Each of your moves beside a stronger one's: the points it lost to perfect play (Linecatch's
// solver), or the move a quick search prefers there.
async function askReview(gameId) {
  let answer;
  try {
    answer = await page.client.ask("web_review", { game_id: gameId });
  } catch (error) {
    $("log").dataset.reviewed = "none";
    return; // the game is closed already, or the review could not be reckoned: the log stays as it is
  }
  for (const entry of answer.review) {
    const item = $("log").querySelector(`li[data-ply="${entry.ply}"]`);
    if (!item || item.querySelector(".review")) {
      continue;
    }
    const note = document.createElement("span");
    note.className = "review";
    note.dataset.preferred = entry.preferred;
    if (entry.lost !== null) {
      note.dataset.lost = String(entry.lost);
      note.textContent = entry.lost ? ` · lost ${entry.lost} (best ${entry.preferred})` : " · perfect";
    } else {
      note.textContent = entry.preferred === entry.played ? ` · as ${entry.by} would` : ` · ${entry.by}: ${entry.preferred}`;
    }
    item.appendChild(note);
  }
  $("log").dataset.reviewed = "yes"; // what a reader of the page (or a test) may wait for
}

// The deep link of the same deal: every option the game was started with, the opponent, the
// seat and the seed (known at the end).
function dealLink(view, seat, withSeed = true) {
  const params = new URLSearchParams({ game: view.short_name, opponent: view.opponent, seat: String(seat) });
  if (withSeed && view.seed !== null && view.seed !== undefined) {
    params.set("seed", String(view.seed));
  }
  if (Object.keys(view.asked_options || {}).length) {
    params.set("options", JSON.stringify(view.asked_options));
  }
  return `${location.origin}/?${params}`;
}

async function rematch(swap) {
  const view = page.view;
  const seat = swap ? (view.seat + 1) % view.players.length : view.seat;
  await start({
    game: view.game, opponent: view.opponent, seat, options: view.asked_options || {},
    seed: swap ? view.seed : null, // the other side of the same deal; a rematch is a new deal
  });
}

function showPlayers(view) {
  const list = $("players");
  list.replaceChildren();
  for (const player of view.players) {
    const item = document.createElement("li");
    item.className = "player";
    item.dataset.seat = String(player.seat);
    if (player.seat === view.to_move) {
      item.classList.add("to-move");
    }
    const swatch = document.createElement("span");
    swatch.className = `swatch seat-${player.seat % SEAT_COLOURS}`;
    const name = document.createElement("span");
    name.className = "name";
    name.textContent = `${player.name} (player_${player.seat})`;
    item.append(swatch, name);
    const clock = (view.clocks || []).find((c) => c.seat === player.seat);
    if (clock) {
      const shown = document.createElement("span");
      shown.className = `clock${clock.running ? " running" : ""}`;
      shown.dataset.clock = String(clock.left);
      shown.dataset.seat = String(player.seat);
      shown.textContent = clockText(clock.left);
      item.append(shown);
    }
    const score = document.createElement("b");
    score.className = "score";
    score.dataset.score = String(view.scores[player.seat]);
    score.textContent = String(view.scores[player.seat]);
    item.append(score);
    list.appendChild(item);
  }
}

function clockText(seconds) {
  const whole = Math.ceil(seconds);
  return `${Math.floor(whole / 60)}:${String(whole % 60).padStart(2, "0")}`;
}

// A running clock: the server is asked every second (it ends the game when the time is up,
// whoever's turn it is, and the page shows that without waiting for a click).
function runClock(view) {
  const running = !view.over && (view.clocks || []).some((clock) => clock.running);
  if (!running) {
    stopClock();
    return;
  }
  if (page.clockTimer === null) {
    page.clockTimer = setInterval(() => tickClock(), CLOCK_POLL_MS);
  }
}

function stopClock() {
  if (page.clockTimer !== null) {
    clearInterval(page.clockTimer);
    page.clockTimer = null;
  }
}

async function tickClock() {
  const view = page.view;
  if (!view || page.busy || page.ticking) {
    return;
  }
  page.ticking = true;
  try {
    const next = await page.client.ask("web_view", { game_id: view.game_id });
    if (page.view && page.view.game_id === next.game_id && !page.busy) {
      if (page.choosing && !next.over) {
        showPlayers(next); // the clocks tick; the choice's preview stays on the board
        page.view = next;
      } else {
        closeChoices(false);
        show(next);
      }
    }
  } catch (error) {
    stopClock();
  } finally {
    page.ticking = false;
  }
}

function showLog(view) {
  const list = $("log");
  while (list.children.length > view.log_start) {
    list.lastElementChild.remove();
  }
  for (const entry of view.log) {
    list.appendChild(logEntry(view, entry));
  }
  list.scrollTop = list.scrollHeight;
}

function logEntry(view, entry) {
  const item = document.createElement("li");
  if (entry.seat === null) {
    item.className = "chance";
    item.textContent = entry.text;
    return item;
  }
  item.dataset.seat = String(entry.seat);
  item.dataset.ply = String(entry.ply);
  if (entry.notation !== null) {
    item.dataset.notation = entry.notation;
  }
  const number = document.createElement("span");
  number.className = "ply";
  number.textContent = `${entry.ply}.`;
  const who = document.createElement("span");
  who.className = `who seat-${entry.seat % SEAT_COLOURS}`;
  const player = view.players.find((p) => p.seat === entry.seat);
  who.textContent = player ? player.name : `player_${entry.seat}`;
  const move = document.createElement("b");
  move.textContent = entry.notation || "";
  item.append(number, " ", who, " ", move);
  if (entry.text) {
    item.append(` — ${entry.text}`);
  }
  return item;
}

function setBusy(busy) {
  page.busy = busy;
  if (page.view) {
    board.attach(page.view.actions, page.view.your_turn && !busy);
    $("undo").disabled = !page.view.undo || busy;
    $("hint").disabled = !page.view.your_turn || busy;
  }
  settle();
}

async function runBots() {
  while (page.view && !page.view.over && !page.view.your_turn && $("bot-error").hidden) {
    if (!(await botTurn(null))) {
      break;
    }
  }
}

// One bot turn (stand_in: a named bot plays it instead, after a failure); false when it failed,
// and the page then offers to retry or to let the stand-in play: never a dead end.
async function botTurn(standIn) {
  const view = page.view;
  const who = view.players.find((p) => p.seat === view.to_move);
  $("thinking-who").textContent = standIn || (who ? who.name : `player_${view.to_move}`);
  $("thinking").hidden = false;
  $("bot-error").hidden = true;
  setBusy(true);
  const fields = { game_id: view.game_id };
  if (standIn) {
    fields.stand_in = standIn;
  }
  let ok = true;
  try {
    const answer = await page.client.ask("web_bot", fields);
    show(answer);
    showThought(answer, who);
  } catch (error) {
    ok = false;
    $("bot-error-text").textContent = `${who ? who.name : "the bot"} could not move: ${error.message}`;
    $("bot-error").hidden = false;
  } finally {
    $("thinking").hidden = true;
    setBusy(false);
  }
  if (ok && standIn) {
    await runBots();
  }
  return ok;
}

// A search's last move, beside the moves it weighed most (their share of its visits).
function showThought(answer, who) {
  const thought = (answer.thinking || []).at(-1);
  if (!thought) {
    $("thought").textContent = "";
    return;
  }
  const weighed = thought.top.map((move) => `${move.notation} ${Math.round(100 * move.share)}%`).join(" · ");
  $("thought").textContent = `${who ? who.name : "the bot"} weighed ${weighed}; played ${thought.notation}`;
}

async function play(action) {
  const view = page.view;
  setBusy(true);
  try {
    const next = await page.client.ask("web_play", { game_id: view.game_id, move: action });
    say("");
    show(next);
  } catch (error) {
    say(error.message);
  } finally {
    setBusy(false);
  }
  await runBots();
}

async function undo() {
  if (!page.view || page.busy) {
    return;
  }
  closeChoices(false);
  setBusy(true);
  try {
    const next = await page.client.ask("web_undo", { game_id: page.view.game_id });
    say(`took back ${next.undone}`);
    show(next);
  } catch (error) {
    say(error.message);
  } finally {
    setBusy(false);
  }
}

async function hint() {
  if (!page.view || page.busy || !page.view.your_turn) {
    return;
  }
  closeChoices(false);
  setBusy(true);
  try {
    const next = await page.client.ask("web_hint", { game_id: page.view.game_id });
    show(next);
    const element = board.element(next.hint.element);
    if (element) {
      element.classList.add("hinted");
    }
    say(`hint: ${next.hint.by} would play ${next.hint.notation}`);
  } catch (error) {
    say(error.message);
  } finally {
    setBusy(false);
  }
}

// A click (or Enter) on a board element.
async function activate(element) {
  const view = page.view;
  if (!view || page.choosing) {
    return;
  }
  if (view.over) {
    say("the game is over");
    return;
  }
  if (!$("bot-error").hidden) {
    say("the bot's move failed: retry it, or let the heuristic play it (beside the board)");
    return;
  }
  if (page.busy || !view.your_turn) {
    say("wait: it is not your turn");
    return;
  }
  if (element.dataset.action !== undefined) {
    await play(Number(element.dataset.action));
    return;
  }
  if (element.dataset.choices !== undefined) {
    openChoices(element);
    return;
  }
  setBusy(true);
  try {
    const answer = await page.client.ask("web_why", { game_id: view.game_id, element: element.dataset.el });
    say(answer.reason || "");
  } catch (error) {
    say(error.message);
  } finally {
    setBusy(false);
  }
}

// ----- the replay at the end: step through the log's positions -----------------------------------
function showReviewPlace() {
  const steps = page.view.log_length || $("log").children.length;
  const step = page.review.step === null ? steps : page.review.step;
  $("review-where").textContent = step === steps ? "Replay: the end" : `Replay: after ${step} of ${steps} log lines`;
  for (const [index, item] of [...$("log").children].entries()) {
    item.classList.toggle("reviewed", index === step - 1 && step !== steps);
  }
}

async function reviewStep(move) {
  const view = page.view;
  if (!view || !view.over) {
    return;
  }
  const steps = $("log").children.length;
  const current = page.review.step === null ? steps : page.review.step;
  const step = Math.max(0, Math.min(steps, current + move));
  try {
    const answer = await page.client.ask("web_position", { game_id: view.game_id, step });
    page.review.step = step;
    board.show(answer.svg);
    board.attach([], false);
    showReviewPlace();
  } catch (error) {
    say(error.message);
  }
}

// ----- choosing among the moves of one element ---------------------------------------------------------
function openChoices(element) {
  const moves = board.movesOf(element);
  page.choosing = { element: element.dataset.el, moves, selected: null, previews: new Map() };
  const list = $("choice-list");
  list.replaceChildren();
  for (const move of moves) {
    const button = document.createElement("button");
    button.type = "button";
    button.dataset.choice = String(move.action);
    button.setAttribute("role", "option");
    button.textContent = move.notation;
    button.addEventListener("click", () => select(move.action));
    list.appendChild(button);
  }
  $("choice-title").textContent = `${moves.length} moves here: choose one (each is shown on the board), then play it.`;
  $("choices").hidden = false;
  $("choices").scrollIntoView({ block: "nearest" });
  say("");
  settle();
  select(moves[0].action);
}

async function select(action) {
  const choosing = page.choosing;
  if (!choosing) {
    return;
  }
  choosing.selected = action;
  const move = choosing.moves.find((m) => m.action === action);
  for (const button of $("choice-list").children) {
    const chosen = Number(button.dataset.choice) === action;
    button.classList.toggle("selected", chosen);
    button.setAttribute("aria-selected", String(chosen));
    if (chosen) {
      button.focus({ preventScroll: true });
    }
  }
  const confirm = $("confirm");
  confirm.dataset.action = String(action);
  confirm.textContent = `Play ${move.notation}`;
  let svg = choosing.previews.get(action);
  if (!svg) {
    try {
      svg = (await page.client.ask("web_preview", { game_id: page.view.game_id, move: action })).svg;
    } catch (error) {
      say(error.message);
      return;
    }
    choosing.previews.set(action, svg);
  }
  if (page.choosing === choosing && choosing.selected === action) {
    board.show(svg);
    fitBoard($("board"));
    board.attach([], false);
    const element = board.element(choosing.element);
    if (element) {
      element.classList.add("choosing");
    }
  }
}

function choiceKey(event) {
  const choosing = page.choosing;
  if (!choosing) {
    return;
  }
  const index = choosing.moves.findIndex((m) => m.action === choosing.selected);
  if (["ArrowDown", "ArrowRight"].includes(event.key)) {
    event.preventDefault();
    select(choosing.moves[(index + 1) % choosing.moves.length].action);
  } else if (["ArrowUp", "ArrowLeft"].includes(event.key)) {
    event.preventDefault();
    select(choosing.moves[(index - 1 + choosing.moves.length) % choosing.moves.length].action);
  } else if (event.key === "Enter" && event.target.id !== "cancel") {
    event.preventDefault();
    confirmChoice();
  }
}

function closeChoices(redraw) {
  if (!page.choosing) {
    return;
  }
  page.choosing = null;
  $("choices").hidden = true;
  delete $("confirm").dataset.action;
  if (redraw && page.view) {
    show(page.view);
    board.setCursor(board.cursorName);
  }
  settle();
}

async function confirmChoice() {
  const choosing = page.choosing;
  if (!choosing || choosing.selected === null) {
    return;
  }
  const action = choosing.selected;
  closeChoices(false);
  await play(action);
  board.setCursor(board.cursorName);
}

connect();
