// The page: choose a game, its options, an opponent, a seat and a seed; then play on the
// server's board. The page knows no game's rules: the server draws the board (SVG), lists the
// legal moves with the element each belongs to, says why a click is illegal, and plays the bots.
//
// Test hooks (kept on purpose): an element that plays exactly one move carries
// data-action="<action>" while that move is legal and it is your turn; one that opens a choice
// carries data-choices; the final result sits in the element with data-result.
// <body data-state> is "setup", "your-turn", "thinking", "busy", "choosing", "over" or "error".

import { Board } from "./board.js";
import { Client } from "./client.js";

const $ = (id) => document.getElementById(id);
const SEAT_COLOURS = 4; // how many seat colours style.css has (.seat-0 … .seat-3)

const page = {
  client: null,
  games: [],
  view: null,
  log: [],
  busy: false,
  choosing: null, // {element, moves, selected, previews}
  opponentChosen: false, // the person picked an opponent on the form (kept when the list is renewed)
};

const board = new Board($("board"), (element) => activate(element));

function setState(state) {
  document.body.dataset.state = state;
}

function settle() {
  const view = page.view;
  if (!view) {
    setState("setup");
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
    option.textContent = game.game.replace(/_v0$/, "");
    select.appendChild(option);
  }
  select.addEventListener("change", () => chooseGame(select.value));
  $("opponent").addEventListener("change", () => {
    page.opponentChosen = true;
  });
  $("option-fields").addEventListener("change", () => relistOpponents());
  $("options-json").addEventListener("change", () => relistOpponents());
  $("new-game").addEventListener("submit", (event) => {
    event.preventDefault();
    startFromForm();
  });
  $("undo").addEventListener("click", () => undo());
  $("new").addEventListener("click", () => showSetup());
  $("confirm").addEventListener("click", () => confirmChoice());
  $("cancel").addEventListener("click", () => closeChoices(true));
  $("choices").addEventListener("keydown", (event) => choiceKey(event));
  document.addEventListener("keydown", (event) => {
    if (event.key === "Escape" && page.choosing) {
      closeChoices(true);
    }
  });
  const params = new URLSearchParams(location.search);
  if (params.get("game")) {
    try {
      await deepLink(params);
    } catch (error) {
      // whatever went wrong with the link, the form is there to start a game, and says what
      showSetup();
      $("setup-error").textContent = `the link could not start a game: ${error.message}`;
    }
  } else {
    await chooseGame(select.value);
    showSetup();
  }
}

function gameEntry(name) {
  const short = name.replace(/_v0$/, "");
  return page.games.find((game) => game.game === name || game.game === `${short}_v0`);
}

function isObject(value) {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

async function chooseGame(name, preset = {}) {
  const entry = gameEntry(name);
  if (!isObject(preset)) {
    preset = {};
  }
  page.opponentChosen = false; // another game: its own list, its own default
  $("game").value = entry.game;
  const fields = $("option-fields");
  fields.replaceChildren();
  for (const [key, value] of Object.entries(entry.default_options)) {
    const given = key in preset ? preset[key] : value;
    let input;
    if (typeof value === "boolean") {
      input = document.createElement("input");
      input.type = "checkbox";
      input.checked = Boolean(given);
    } else if (typeof value === "number") {
      input = document.createElement("input");
      input.type = "number";
      input.value = String(given);
    } else if (typeof value === "string") {
      input = document.createElement("input");
      input.type = "text";
      input.value = String(given);
    } else {
      continue; // lists, objects and options without a default: the JSON box takes them
    }
    input.dataset.option = key;
    input.dataset.kind = typeof value;
    const label = document.createElement("label");
    label.append(`${key} `, input);
    fields.appendChild(label);
  }
  const simple = (key) => ["boolean", "number", "string"].includes(typeof entry.default_options[key]);
  const extra = Object.fromEntries(Object.entries(preset).filter(([key]) => !simple(key)));
  $("options-json").value = JSON.stringify(extra);
  const others = Object.keys(entry.default_options).filter((key) => !simple(key));
  $("options-more").textContent = others.length ? `other options, as JSON: ${others.join(", ")}` : "";
  let options = {};
  try {
    options = formOptions();
  } catch (error) {
    // options that do not read: starting the game says what is wrong with them
  }
  await listOpponents(entry.game, options);
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
  const add = (value, text, group = select) => {
    const option = document.createElement("option");
    option.value = value;
    option.textContent = text;
    group.appendChild(option);
    return option;
  };
  const levels = Array.isArray(answer.levels) ? answer.levels : [];
  let others = select;
  if (levels.length) {
    const group = document.createElement("optgroup");
    group.label = "strength levels";
    for (const level of levels) {
      const speed = level.ms_per_move !== undefined ? `, ${Math.round(level.ms_per_move)} ms a move` : "";
      const elo = level.elo !== undefined ? ` (Elo ${Math.round(level.elo)}${speed})` : "";
      add(`level:${level.level}`, `level ${level.level}: ${level.name}${elo}`, group);
    }
    select.appendChild(group);
    others = document.createElement("optgroup");
    others.label = "other agents";
    select.appendChild(others);
  }
  for (const agent of answer.agents) {
    add(agent, agent, others);
  }
  if (answer.checkpoints && answer.checkpoints.length) {
    const group = document.createElement("optgroup");
    group.label = "shipped agent files";
    for (const file of answer.checkpoints) {
      add(file, file.split("/").pop(), group);
    }
    select.appendChild(group);
  }
  // the default: the strongest level that answers within a second (as terminal play chooses), else the heuristic
  const quick = levels.filter((level) => level.ms_per_move !== undefined && level.ms_per_move < 1000);
  if (quick.length) {
    select.value = `level:${quick[quick.length - 1].level}`;
  } else if (answer.agents.includes("heuristic")) {
    select.value = "heuristic";
  }
  if ([...select.options].some((option) => option.value === chosen)) {
    select.value = chosen;
  }
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
    if (typeof options !== "object" || options === null || Array.isArray(options)) {
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
  $("setup-error").textContent = "";
  let options;
  try {
    options = formOptions();
  } catch (error) {
    $("setup-error").textContent = error.message;
    return;
  }
  let seed;
  try {
    seed = readSeed($("seed").value);
  } catch (error) {
    $("setup-error").textContent = error.message;
    return;
  }
  await start({
    game: $("game").value,
    opponent: $("opponent").value,
    seat: Number($("seat").value || 0),
    seed,
    options,
  });
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

// /?game=loom&opponent=level:3&seat=0&seed=7 (options: options={json} or name=value pairs)
async function deepLink(params) {
  const entry = gameEntry(params.get("game"));
  if (!entry) {
    await chooseGame($("game").value);
    showSetup();
    $("setup-error").textContent = `unknown game ${JSON.stringify(params.get("game"))}`;
    return;
  }
  // options={json}: a JSON object; anything else is said on the form, and no game starts
  let options = {};
  const written = params.get("options");
  if (written !== null && written.trim() !== "") {
    let problem = null;
    try {
      options = JSON.parse(written);
      if (!isObject(options)) {
        problem = `options in the link must be a JSON object such as {"bounty": 3}, not ${written}`;
      }
    } catch (error) {
      problem = `options in the link are not JSON (${error.message}): ${written}`;
    }
    if (problem !== null) {
      await chooseGame(entry.game);
      showSetup();
      $("setup-error").textContent = problem;
      return;
    }
  }
  for (const [key, text] of params) {
    if (key in entry.default_options) {
      try {
        options[key] = JSON.parse(text);
      } catch (error) {
        options[key] = text;
      }
    }
  }
  await chooseGame(entry.game, options);
  const opponent = params.get("opponent") || $("opponent").value;
  if (![...$("opponent").options].some((option) => option.value === opponent)) {
    const option = document.createElement("option");
    option.value = opponent;
    option.textContent = opponent;
    $("opponent").appendChild(option);
  }
  $("opponent").value = opponent;
  $("seat").value = params.get("seat") || "0";
  $("seed").value = params.get("seed") || "";
  let seed;
  try {
    seed = readSeed(params.get("seed"));
  } catch (error) {
    showSetup();
    $("setup-error").textContent = error.message;
    return;
  }
  await start({
    game: entry.game,
    opponent,
    seat: Number(params.get("seat") || 0),
    seed,
    options,
  });
}

function showSetup() {
  closeChoices(false);
  $("table").hidden = true;
  $("setup").hidden = false;
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
  page.log = [];
  $("start").disabled = true;
  setState("busy");
  let view;
  try {
    view = await newGame(fields);
  } catch (error) {
    $("setup").hidden = false;
    $("table").hidden = true;
    $("setup-error").textContent = error.message;
    setState("setup");
    return;
  } finally {
    $("start").disabled = false;
    $("preparing").hidden = true;
  }
  $("setup").hidden = true;
  $("table").hidden = false;
  $("log").replaceChildren();
  $("replay").textContent = "";
  say("");
  show(view);
  await runBots();
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
      $("preparing").hidden = false;
      $("preparing-what").textContent = error.message;
      await new Promise((resolve) => setTimeout(resolve, PREPARING_RETRY_MS));
    }
  }
}

function show(view) {
  page.view = view;
  board.show(view.svg);
  board.attach(view.actions, view.your_turn && !page.busy);
  board.mark(view.last);
  $("game-title").textContent = `${view.title}`;
  showPlayers(view);
  $("status").textContent = view.status;
  $("notes").textContent = (view.notes || []).join(" ");
  $("undo").disabled = !view.undo || page.busy;
  $("undo").title = view.undo_rule;
  $("undo-rule").textContent = view.undo_rule ? `Undo: ${view.undo_rule}.` : "";
  showLog(view);
  const result = $("result");
  if (view.over && view.result) {
    result.hidden = false;
    result.dataset.result = view.result.outcome;
    result.className = `result ${view.result.outcome}`;
    result.textContent = view.result.text;
    if (view.seed !== null && view.seed !== undefined) {
      const link = `${location.origin}/?game=${view.game.replace(/_v0$/, "")}&opponent=${encodeURIComponent(view.players.find((p) => p.seat !== view.seat).name)}&seat=${view.seat}&seed=${view.seed}`;
      $("replay").textContent = `This deal again: ${link}`;
    }
  } else {
    result.hidden = true;
    delete result.dataset.result;
    result.textContent = "";
  }
  settle();
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
    const score = document.createElement("b");
    score.className = "score";
    score.dataset.score = String(view.scores[player.seat]);
    score.textContent = String(view.scores[player.seat]);
    item.append(swatch, name, score);
    list.appendChild(item);
  }
}

function showLog(view) {
  const list = $("log");
  while (list.children.length > view.log_start) {
    list.lastElementChild.remove();
  }
  for (const entry of view.log) {
    const item = document.createElement("li");
    if (entry.seat === null) {
      item.className = "chance";
      item.textContent = entry.text;
    } else {
      item.dataset.seat = String(entry.seat);
      if (entry.notation !== null) {
        item.dataset.notation = entry.notation;
      }
      const who = document.createElement("span");
      who.className = `who seat-${entry.seat % SEAT_COLOURS}`;
      const player = view.players.find((p) => p.seat === entry.seat);
      who.textContent = player ? player.name : `player_${entry.seat}`;
      const move = document.createElement("b");
      move.textContent = entry.notation || "";
      item.append(who, " ", move);
      if (entry.text) {
        item.append(` — ${entry.text}`);
      }
    }
    list.appendChild(item);
  }
  list.scrollTop = list.scrollHeight;
}

function setBusy(busy) {
  page.busy = busy;
  if (page.view) {
    board.attach(page.view.actions, page.view.your_turn && !busy);
    $("undo").disabled = !page.view.undo || busy;
  }
  settle();
}

async function runBots() {
  while (page.view && !page.view.over && !page.view.your_turn) {
    const view = page.view;
    const who = view.players.find((p) => p.seat === view.to_move);
    $("thinking-who").textContent = who ? who.name : `player_${view.to_move}`;
    $("thinking").hidden = false;
    setBusy(true);
    try {
      show(await page.client.ask("web_bot", { game_id: view.game_id }));
    } catch (error) {
      say(`the bot could not move: ${error.message}`);
      break;
    } finally {
      $("thinking").hidden = true;
      setBusy(false);
    }
  }
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
