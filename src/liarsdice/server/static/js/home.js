// The home page: create a table, join one by code, the lobby of open tables.

import { $, api, capitalize, fill, h, plural, prefs, seats, timeAgo } from "./common.js";
import { initRatedChoice, ratedBody } from "./ratedform.js";
import { tableItem } from "./tableitem.js";

const state = { presets: [], lobbyTimer: null, checkTimer: null, checkSeq: 0 };

// A table's limits (GET /api/limits; these until it answers): the form's fields take them, with
// the preset's own range of players, so a number out of range is said before Create.
const limits = { players: [2, 12], dice: [1, 20], faces: [2, 20], chips: [0, 1000], turn_seconds: [0, 3600] };

// Options shown under "More rules": RULES.md 2.1 names, each with its values in words.
const MORE = [
  { name: "wild_face", label: "Wild face", values: [["none", "No wilds"], ["1", "Ones are wild"], ["top", "The top face is wild"]] },
  {
    name: "wild_bid_rule",
    label: "Bids on the wild face",
    values: [["plain", "Plain order"], ["perudo_half", "Halve / double plus one"], ["joker_double", "Jokers count double"]],
  },
  { name: "bid_order", label: "Bid order", values: [["quantity_major", "Quantity first"], ["face_major", "Face first"]] },
  { name: "wild_opening", label: "Open a round on the wild face", values: [["true", "Allowed"], ["false", "Not allowed"]] },
  {
    name: "exact",
    label: "Exact call",
    values: [["none", "None"], ["gain_die", "Right: win a die back"], ["others_lose", "Right: everyone else loses one"]],
  },
  { name: "exact_limit", label: "Exact calls", values: [["unlimited", "Unlimited"], ["once_per_game", "Once per game"]] },
  { name: "challenge_mode", label: "Liar call", values: [["duel", "Duel"], ["siding_vote", "Everyone takes a side"]] },
  { name: "goal", label: "Goal", values: [["elimination", "Last with dice wins"], ["shedding", "First to empty the cup wins"]] },
  { name: "pass", label: "Pass", values: [["none", "No pass"], ["at_pass", "Judged when passing"], ["at_reveal", "Judged at the reveal"]] },
  { name: "push", label: "Push dice", values: [["false", "No"], ["true", "Yes"]] },
  { name: "next_starter", label: "Next opener", values: [["round_loser", "The round's loser"], ["opener_ccw", "Rotates"]] },
];

function optionString(value) {
  if (value === null || value === undefined) return "none";
  return String(value);
}

function optionValue(name, text) {
  if (text === "true") return true;
  if (text === "false") return false;
  if (name === "wild_face" && text === "1") return 1;
  return text;
}

function currentPreset() {
  return state.presets.find((p) => p.name === $("#preset").value) || null;
}

function buildMoreFields() {
  const box = $("#more-fields");
  fill(
    box,
    MORE.map((o) =>
      h(
        "div",
        { class: "field" },
        h("label", { for: `opt-${o.name}`, text: o.label }),
        h(
          "select",
          { id: `opt-${o.name}`, "data-option": o.name },
          o.values.map(([v, label]) => h("option", { value: v, text: label })),
        ),
      ),
    ),
    h(
      "div",
      { class: "field", id: "chips-field", hidden: true },
      h("label", { for: "opt-chips", text: "Starting chips" }),
      h("input", { id: "opt-chips", type: "number", min: 0, max: 1000, inputmode: "numeric", "aria-describedby": "chips-hint" }),
      h("span", { id: "chips-hint", class: "hint", text: "0 to 1000" }),
    ),
  );
}

function presetChanged() {
  const p = currentPreset();
  if (!p) return;
  fill($("#preset-desc"), `${p.description || ""} `, h("a", { href: `/rules/${encodeURIComponent(p.name)}`, target: "_blank", rel: "noopener", text: "The full rules" }));
  const players = $("#players");
  players.value = p.default_players ?? p.options?.num_players ?? 4;
  players.disabled = p.min_players === p.max_players && p.min_players !== undefined && p.max_players !== null;
  applyLimits();
  const o = p.options || {};
  $("#dice").value = Array.isArray(o.dice_per_player) ? o.dice_per_player[0] : (o.dice_per_player ?? 5);
  $("#faces").value = o.faces ?? 6;
  for (const sel of document.querySelectorAll("#more-fields select[data-option]")) {
    const name = sel.dataset.option;
    const value = optionString(o[name]);
    if (![...sel.options].some((opt) => opt.value === value)) sel.appendChild(h("option", { value, text: value }));
    sel.value = value;
    sel.dataset.preset = value;
  }
  const economy = o.economy && o.economy !== "none" ? o.economy : null;
  $("#chips-field").hidden = !economy;
  $("#opt-chips").value = economy ? economy.starting_chips : "";
  $("#opt-chips").dataset.preset = economy ? String(economy.starting_chips) : "";
  try {
    localStorage.setItem("liarsdice:preset", p.name);
  } catch {
    /* ignore */
  }
  checkForm();
}

/** The players, dice, faces and chips a table of the chosen preset may have, on the fields. */
function applyLimits() {
  const p = currentPreset();
  const range = (selector, [lo, hi]) => {
    const input = $(selector);
    input.min = lo;
    input.max = hi;
    const hint = $(`${selector}-hint`);
    if (hint) hint.textContent = lo === hi ? `only ${lo}` : `${lo} to ${hi}`;
  };
  const most = Math.min(limits.players[1], p?.max_players ?? limits.players[1]);
  range("#players", [Math.max(limits.players[0], p?.min_players ?? limits.players[0]), most]);
  range("#dice", limits.dice);
  range("#faces", limits.faces);
  range("#opt-chips", limits.chips);
  const turn = $("#turn-seconds");
  turn.min = limits.turn_seconds[0];
  turn.max = limits.turn_seconds[1];
}

async function loadLimits() {
  try {
    Object.assign(limits, await api("/api/limits"));
  } catch {
    return; // the built-in limits stand; the server checks on Create anyway
  }
  applyLimits();
  checkForm();
}

/** Say now what Create would refuse: a number out of range at once, and the rest as the
 * server words it (options that do not go together, a table too big), asked after a pause. */
function checkForm() {
  const p = currentPreset();
  if (!p) return;
  showError("#create-error", null); // what Create said is about the form as it was
  for (const input of document.querySelectorAll("#create-form [aria-invalid]")) input.removeAttribute("aria-invalid");
  clearTimeout(state.checkTimer);
  const seq = ++state.checkSeq; // an answer to an older form is not said
  let options;
  try {
    options = readOptions(p, false).options;
  } catch (e) {
    showError("#create-check", e.message);
    return;
  }
  state.checkTimer = setTimeout(async () => {
    try {
      await api("/api/rules", { method: "POST", body: { preset: p.name, options } });
      if (seq === state.checkSeq) showError("#create-check", null);
    } catch (e) {
      if (seq === state.checkSeq && e.status === 422) showError("#create-check", `${capitalize(e.message)}.`);
    }
  }, 250);
}

async function loadPresets() {
  const select = $("#preset");
  try {
    state.presets = await api("/api/presets");
  } catch (e) {
    fill(select, h("option", { text: "Rules unavailable" }));
    showError("#create-error", `The rules could not be loaded: ${e.message}`);
    return;
  }
  fill(
    select,
    state.presets.map((p) => h("option", { value: p.name, text: p.title || p.name })),
  );
  let saved = null;
  try {
    saved = localStorage.getItem("liarsdice:preset");
  } catch {
    saved = null;
  }
  const pick = state.presets.find((p) => p.name === saved) || state.presets.find((p) => p.name === "perudo") || state.presets[0];
  if (pick) select.value = pick.name;
  presetChanged();
}

function showError(selector, message) {
  const node = $(selector);
  if (!message) {
    node.hidden = true;
    node.replaceChildren();
    return;
  }
  node.hidden = false;
  if (typeof message === "string") node.textContent = message;
  else fill(node, message);
}

function readInt(selector, what, lo, hi, focus = true) {
  const input = $(selector);
  const n = Number(input.value);
  if (input.value.trim() === "" || !Number.isInteger(n) || n < lo || n > hi) {
    input.setAttribute("aria-invalid", "true");
    if (focus) input.focus();
    throw new Error(`${what} must be a whole number from ${lo} to ${hi}.`);
  }
  return n;
}

/** The options and turn timer the form asks for (only what differs from the preset is sent);
 * an Error saying which field is out of range, and the range, if one is. */
function readOptions(p, focus = true) {
  const players = $("#players");
  const lo = Number(players.min);
  const hi = Number(players.max);
  const who = p.title || p.name;
  let n;
  try {
    n = readInt("#players", "Players", lo, hi, focus);
  } catch {
    throw new Error(lo === hi ? `${who} is played by ${lo} players.` : `${who} is played by ${lo} to ${hi} players.`);
  }
  const options = { num_players: n };
  const dice = readInt("#dice", "Dice per player", ...limits.dice, focus);
  const faces = readInt("#faces", "Faces per die", ...limits.faces, focus);
  const o = p.options || {};
  if (dice !== Number(Array.isArray(o.dice_per_player) ? NaN : o.dice_per_player)) options.dice_per_player = dice;
  if (faces !== Number(o.faces)) options.faces = faces;
  for (const sel of document.querySelectorAll("#more-fields select[data-option]")) {
    if (sel.value !== sel.dataset.preset) options[sel.dataset.option] = optionValue(sel.dataset.option, sel.value);
  }
  const chips = $("#opt-chips");
  if (!$("#chips-field").hidden && chips.value !== chips.dataset.preset) {
    options.economy = { starting_chips: readInt("#opt-chips", "Starting chips", ...limits.chips, focus) };
  }
  const turnSeconds = readInt("#turn-seconds", "The turn timer", ...limits.turn_seconds, focus);
  return { options, turnSeconds };
}

function readName(selector) {
  const input = $(selector);
  const name = input.value.trim();
  if (!name || name.length > 24) {
    input.focus();
    throw new Error("Your name is 1 to 24 characters.");
  }
  return name;
}

async function createTable(event) {
  event.preventDefault();
  showError("#create-error", null);
  showError("#create-check", null);
  const p = currentPreset();
  const button = $("#create-btn");
  let body;
  try {
    if (!p) throw new Error("Choose the rules first.");
    const { options, turnSeconds } = readOptions(p);
    const name = readName("#create-name");
    body = ratedBody({ preset: p.name, name, options, turn_seconds: turnSeconds });
    prefs.name = name;
  } catch (e) {
    showError("#create-error", e.message);
    return;
  }
  button.disabled = true;
  button.textContent = "Creating…";
  try {
    const made = await api("/api/tables", { method: "POST", body });
    seats.set(made.code, { token: made.token, seat: made.seat, name: body.name });
    location.assign(`/t/${encodeURIComponent(made.code)}`);
  } catch (e) {
    showError("#create-error", e.message);
    button.disabled = false;
    button.textContent = "Create table";
  }
}

function readCode() {
  const input = $("#join-code");
  let code = input.value.trim();
  const m = /\/t\/([A-Za-z0-9_-]+)/.exec(code); // a pasted invitation link works too
  if (m) code = m[1];
  code = code.toUpperCase().replace(/[^A-Z0-9_-]/g, "");
  if (!code) {
    input.focus();
    throw new Error("Enter the table's code.");
  }
  return code;
}

async function joinTable(event) {
  event.preventDefault();
  showError("#join-error", null);
  let code;
  let name;
  try {
    code = readCode();
    if (seats.get(code)) {
      location.assign(`/t/${encodeURIComponent(code)}`);
      return;
    }
    name = readName("#join-name");
  } catch (e) {
    showError("#join-error", e.message);
    return;
  }
  prefs.name = name;
  const button = $("#join-btn");
  button.disabled = true;
  try {
    const got = await api(`/api/tables/${encodeURIComponent(code)}/join`, { method: "POST", body: { name } });
    seats.set(code, { token: got.token, seat: got.seat, name: got.name ?? name, notice: got.notice ?? null });
    location.assign(`/t/${encodeURIComponent(code)}`);
  } catch (e) {
    button.disabled = false;
    if (e.status === 404) showError("#join-error", `There is no table with the code ${code}.`);
    else if (e.status === 409) {
      showError("#join-error", [`${e.message} `, h("a", { href: `/t/${encodeURIComponent(code)}?watch=1`, text: "Watch this table instead." })]);
    } else showError("#join-error", e.message);
  }
}

function watchTable() {
  showError("#join-error", null);
  try {
    const code = readCode();
    location.assign(`/t/${encodeURIComponent(code)}?watch=1`);
  } catch (e) {
    showError("#join-error", e.message);
  }
}

function statusWords(status) {
  return { open: "waiting for players", playing: "playing", finished: "finished" }[status] || status;
}

async function refreshLobby() {
  const list = $("#lobby");
  let tables;
  try {
    tables = await api("/api/tables");
  } catch (e) {
    $("#lobby-updated").textContent = `could not refresh: ${e.message}`;
    return;
  }
  $("#lobby-updated").textContent = `updated ${new Date().toLocaleTimeString([], { hour: "2-digit", minute: "2-digit", second: "2-digit" })}`;
  $("#lobby-empty").hidden = tables.length > 0;
  fill(
    list,
    tables.map((t) => {
      const mine = seats.get(t.code);
      const canJoin = t.status === "open" && Number(t.empty) > 0;
      const href = `/t/${encodeURIComponent(t.code)}${!mine && !canJoin ? "?watch=1" : ""}`;
      const label = mine ? "Your seat" : canJoin ? "Join" : "Watch";
      const seatsTotal = typeof t.seats === "number" ? t.seats : Array.isArray(t.seats) ? t.seats.length : "?";
      const parts = [plural(Number(t.humans) || 0, "player"), Number(t.bots) ? plural(Number(t.bots), "bot") : null, Number(t.empty) ? `${t.empty} free` : "full"].filter(Boolean);
      const details = `${t.rated ? "Rated · " : ""}${seatsTotal} seats · ${parts.join(", ")} · ${statusWords(t.status)}${t.created ? ` · ${timeAgo(t.created)}` : ""}`;
      return tableItem(t, { label, href, primary: canJoin || mine, details });
    }),
  );
}

function startLobby() {
  refreshLobby();
  clearInterval(state.lobbyTimer);
  state.lobbyTimer = setInterval(() => {
    if (!document.hidden) refreshLobby();
  }, 5000);
  document.addEventListener("visibilitychange", () => {
    if (!document.hidden) refreshLobby();
  });
}

function init() {
  buildMoreFields();
  const name = prefs.name;
  $("#create-name").value = name;
  $("#join-name").value = name;
  const params = new URLSearchParams(location.search);
  if (params.get("code")) $("#join-code").value = params.get("code").toUpperCase();
  $("#preset").addEventListener("change", presetChanged);
  for (const kind of ["input", "change"]) {
    $("#create-form").addEventListener(kind, (ev) => {
      if (ev.target.id !== "preset" && ev.target.id !== "create-name") checkForm();
    });
  }
  $("#create-form").addEventListener("submit", createTable);
  initRatedChoice();
  $("#join-form").addEventListener("submit", joinTable);
  $("#watch-btn").addEventListener("click", watchTable);
  loadPresets();
  loadLimits();
  startLobby();
}

init();
