// The table page: join or watch, then one websocket for play (docs/protocol.md).
// The server is the only authority: the action panel is built from `legal` alone, and every
// move waits for the server's next `state` (or its `error`) before another can be sent.

import {
  $,
  api,
  bidWords,
  capitalize,
  copyText,
  die,
  fill,
  h,
  parseBid,
  plural,
  prefs,
  seats as seatStore,
  wildBidNote,
  wildFace,
  wildWords,
} from "./common.js";
import { addChat, bindChat, renderChat, setupChat, showChatError } from "./chat.js";
import { overByForfeit } from "./forfeit.js";
import { bindLink, link, showBanner } from "./link.js";
import { bindMoves, clearPending, hideActionError, renderActions, renderCup, showActionError } from "./moves.js";
import { bindReveal, closeReveal, flushBring, noteReveal, openReveal, renderLog, renderResult, renderReveal, revealLines } from "./reveal.js";
import { clamp, isEconomy } from "./rules.js";
import { renderRulesBox } from "./rulesbox.js";
import { bindRename, onRenamed, renameError, renderRename } from "./seatname.js";
import { bindSkip, renderSkip, skipError } from "./skip.js";

const parts = location.pathname.split("/").filter(Boolean);
const CODE = decodeURIComponent(parts[0] === "t" && parts[1] ? parts[1] : parts[parts.length - 1] || "");

const S = {
  token: null,
  me: { role: null, seat: null, host: false },
  table: null,
  game: null, // the game as drawn: `view`, or over with its ranking once the table says a forfeit ended it
  view: null, // the server's last GameView
  chat: [],
  clockOffset: 0,
  ref: 0,
  pending: null,
  pendingTimer: null,
  // The refs of the host's messages (and the rematch) sent: a refusal is said where it was asked.
  hostRefs: new Map(),
  lastSent: null,
  pick: { key: null, face: null, qty: null },
  push: new Set(),
  raise: { on: false, value: null },
  labelers: [],
  resultShown: null, // the game whose result this page has shown (it comes into view once)
  // The reveal of the round that ended last: open (at the top of the game) until the person
  // says Continue, moves, or the next reveal replaces it.
  reveal: { key: null, open: false },
  watchName: null, // the name a spectator chats under (asked for in the gate)
  leaving: false, // the person asked to give the seat up
  copyTimer: null,
  bring: null, // a card to bring into view when the render is done
  welcomed: false,
};

// ----- messages from the server -----

function onMessage(msg) {
  switch (msg.type) {
    case "welcome":
      onWelcome(msg);
      break;
    case "table": {
      S.table = msg.table;
      const was = S.game;
      S.game = overByForfeit(S.view, S.table);
      renderTable();
      if (S.game !== was) renderGame(); // a forfeit ended the game: the table says so, not the state
      else if (S.game) renderTurnLine(); // "a bot is playing for you" follows the table's `auto`
      break;
    }
    case "state":
      onState(msg);
      break;
    case "error":
      onError(msg);
      break;
    case "chat":
      addChat(msg);
      break;
    case "chat_history":
      S.chat = Array.isArray(msg.messages) ? msg.messages.slice(-200) : [];
      renderChat(true);
      break;
    case "renamed":
      onRenamed(msg);
      break;
    case "called":
      $("#invite-note").textContent = `Asked ${msg.bots === 1 ? "the bot account" : `${msg.bots} bot accounts`} online: the first to accept takes the first empty seat.`;
      break;
    default:
      break; // pong and anything newer
  }
}

function onWelcome(msg) {
  S.welcomed = true;
  link.opened = true;
  link.backoff = 500;
  showBanner(null);
  if (typeof msg.server_time === "number") S.clockOffset = msg.server_time - Date.now();
  S.me = { role: msg.role, seat: msg.seat ?? null, host: !!msg.host, name: msg.name ?? null };
  if (S.token && msg.role !== "player" && S.leaving) {
    // The seat was given up on purpose: watch from now on, under the same name.
    seatStore.remove(CODE);
    S.token = null;
    S.watchName = msg.name ?? null;
  } else if (S.token && msg.role !== "player") {
    // The server does not know this token (the table was closed and opened again, say).
    seatStore.remove(CODE);
    S.token = null;
    showNotice("Your seat at this table could not be found: you are watching.");
  } else if (S.token && msg.role === "player") {
    const saved = seatStore.get(CODE);
    if (saved && saved.seat !== msg.seat) seatStore.set(CODE, { ...saved, seat: msg.seat });
  }
  S.leaving = false;
  renderTable();
  renderGame();
  renderConnection();
}

function onState(msg) {
  const g = msg.state || null;
  const mineAnswered = S.pending !== null && msg.ref === S.pending;
  if (g && S.game && g.game_id !== S.game.game_id) hideActionError(); // a rematch: no refusal of the last game
  S.view = g;
  S.game = overByForfeit(g, S.table);
  if (mineAnswered || !S.game || !S.game.legal) {
    clearPending();
    if (mineAnswered) hideActionError();
  }
  renderTable();
  renderGame();
}

function onError(msg) {
  if (renameError(msg) || skipError(msg)) return; // said where it was asked
  const text = msg.message || msg.code || "The server refused that.";
  if (!S.welcomed && S.lastSent === "hello" && msg.code === "not_ready") {
    // The table is changing servers: it comes on this socket (the welcome hides the banner).
    showBanner(`${capitalize(text)}…`);
    return;
  }
  if (!S.welcomed && S.lastSent === "hello") {
    // The hello was refused: the server closes the socket next.
    if (msg.code === "not_seated") {
      seatStore.remove(CODE);
      S.token = null;
      link.stop();
      $("#layout").hidden = true;
      showGate(S.table, `${capitalize(text)}.`);
      return;
    }
    if (msg.code === "no_table") {
      link.stop();
      $("#layout").hidden = true;
      $("#gate").hidden = true;
      $("#missing").hidden = false;
      $("#missing-text").textContent = `${capitalize(text)}. It may have closed.`;
      return;
    }
  }
  const where = msg.ref !== null && msg.ref !== undefined ? S.hostRefs.get(msg.ref) : undefined;
  if (where) {
    S.hostRefs.delete(msg.ref);
    showHostError(text, where);
    return;
  }
  const isMine = S.pending !== null && msg.ref === S.pending;
  if (isMine || msg.code === "illegal" || msg.code === "not_your_turn" || msg.code === "no_game") {
    clearPending();
    showActionError(text);
    renderActions();
    return;
  }
  switch (S.lastSent) {
    case "chat":
      showChatError(text);
      break;
    case "fill_bots":
    case "clear_bots":
    case "invite_bot":
    case "call_bots":
    case "configure":
    case "start":
      showHostError(text, "host");
      break;
    case "rematch":
      showHostError(text, "rematch");
      break;
    case "act":
      clearPending();
      showActionError(text);
      renderActions();
      break;
    case "leave":
      S.leaving = false;
      showHostError(text, "host");
      break;
    default:
      showNotice(text);
  }
}

/** A message for the person, in the lobby's place or the game's, whichever is on the screen. */
function showNotice(text) {
  if ($("#game-view").hidden) showHostError(text, "host");
  else showActionError(text);
}

// ----- helpers about seats -----

function seatName(i) {
  const t = S.table?.seats?.[i];
  if (S.game?.seats?.[i]) return S.game.seats[i];
  return t?.name || `Seat ${i + 1}`;
}

function seatCount() {
  return S.game?.seats?.length || S.table?.seats?.length || 0;
}

function options() {
  return S.table?.options || null;
}

function mySeat() {
  return S.me.role === "player" ? S.me.seat : null;
}

function isMyTurn() {
  const g = S.game;
  return !!(g && g.legal && g.phase !== "over" && mySeat() !== null && g.to_act === mySeat());
}

function remainingMs(deadline) {
  return deadline - (Date.now() + S.clockOffset);
}

/** Milliseconds left on a turn timer, never more than the table's limit: right after a reveal
 * the server's deadline also holds the reveal pause, before which the turn's timer does not run. */
function turnMsLeft(deadline) {
  const left = Math.max(0, remainingMs(deadline));
  const limit = (S.table?.turn_seconds || 0) * 1000;
  return limit > 0 ? Math.min(limit, left) : left;
}

// ----- rendering: the table (seats, header, lobby) -----

function renderTable() {
  const t = S.table;
  if (!t) return;
  const title = t.title || t.preset || "Table";
  $("#title").textContent = title;
  const status = { open: "Waiting for players", playing: "Playing", finished: "Game over" }[t.status] || t.status;
  $("#status-badge").textContent = status;
  $("#status-badge").className = `badge ${t.status === "playing" ? "accent" : t.status === "finished" ? "gold" : ""}`;
  $("#invite").hidden = false;
  $("#code").textContent = t.code || CODE;
  $("#spectators").textContent = t.spectators ? `${plural(t.spectators, "spectator")}` : "";
  document.title = `${isMyTurn() ? "● Your turn · " : ""}${title} ${t.code || CODE} · Liar's Dice`;

  renderRulesBox(t);
  renderRename();
  const extra = [];
  if (t.turn_seconds) extra.push(`Turn timer: ${t.turn_seconds} s; when it runs out a bot plays for you.`);
  else extra.push("No turn timer.");
  if (t.games_played) extra.push(`${plural(t.games_played, "game")} played at this table.`);
  fill($("#rules-list"), extra.map((x) => h("li", { text: x })));

  renderSeats();

  const empty = t.seats.filter((s) => s.kind === "empty").length;
  const lobby = t.status === "open" && !S.game;
  $("#lobby-view").hidden = !lobby;
  $("#game-view").hidden = lobby;
  if (!lobby) $("#host-error").hidden = true; // said about the lobby, gone with it
  if (lobby) {
    const host = t.seats[t.host_seat]?.name || "The host";
    const taken = t.seats.length - empty;
    const base = `Waiting for players: ${taken} of ${t.seats.length} seats taken.`;
    $("#lobby-text").textContent = S.me.host
      ? `${base} Invite friends with the code or the link, fill the empty seats with bots if you like, then start.`
      : `${base} ${host} starts the game when every seat is taken.`;
  }
  const hostControls = $("#host-controls");
  hostControls.hidden = !(S.me.host && t.status === "open");
  if (!hostControls.hidden) {
    refreshHostButtons();
    const cfg = $("#cfg-turn");
    if (document.activeElement !== cfg) cfg.value = t.turn_seconds ?? 0;
  }
  $("#seat-offer").hidden = !(S.me.role === "spectator" && S.welcomed && t.status === "open" && empty > 0);
  $("#seat-offer-text").textContent = `You are watching${S.me.name ? ` as ${S.me.name}` : ""}. A seat is free:`;
  $("#guest-controls").hidden = !(S.me.role === "player" && !S.me.host && t.status === "open");
  $("#watching").textContent = `You are watching this table${S.me.name ? ` as ${S.me.name}` : ""}: you see every public move, but no one's cup.`;
  renderResult();
  renderConnection();
}

/** While the connection is down nothing can reach the table: say so, and let nothing look clickable. */
function renderConnection() {
  const online = link.isOpen();
  const game = $("#game-view");
  $("#offline-note").hidden = online || game.hidden || !S.table;
  const controls = [
    ...document.querySelectorAll("#host-controls button, #guest-controls button, #rematch-row button, #reveal-continue"),
    $("#chat-send"),
  ];
  for (const el of controls) {
    if (!online) {
      if (!el.disabled) el.dataset.offline = "1";
      el.disabled = true;
    } else if (el.dataset.offline) {
      delete el.dataset.offline;
      el.disabled = false;
    }
  }
  if (online && !$("#host-controls").hidden) refreshHostButtons();
}

function refreshHostButtons() {
  const t = S.table;
  const empty = t.seats.filter((s) => s.kind === "empty").length;
  for (const id of ["#start", "#clear-bots", "#fill-bots", "#cfg-apply", "#invite-send", "#call-bots"]) delete $(id).dataset.offline;
  $("#start").disabled = empty > 0;
  $("#start").title = empty > 0 ? "Every seat must be taken first" : "";
  $("#clear-bots").disabled = !t.seats.some((s) => s.kind === "bot");
  $("#fill-bots").disabled = empty === 0;
  $("#invite-send").disabled = empty === 0 || !$("#invite-bot").value;
  $("#call-bots").disabled = empty === 0;
  $("#cfg-apply").disabled = false;
  loadOnlineBots();
}

function renderSeats() {
  const t = S.table;
  const g = S.game;
  const n = t ? t.seats.length : g ? g.seats.length : 0;
  const me = mySeat();
  const items = [];
  for (let i = 0; i < n; i += 1) {
    const ts = t?.seats?.[i] || {};
    const name = ts.kind === "empty" ? "Empty seat" : seatName(i);
    const toAct = !!(g && g.phase !== "over" && g.to_act === i);
    const out = !!(g && g.active && g.active[i] === false);
    const classes = ["seat", toAct && "to-act", i === me && "me", out && "out", ts.kind === "empty" && "empty"].filter(Boolean).join(" ");
    const top = h("div", { class: "seat-top" });
    if (ts.kind === "human") {
      top.appendChild(h("span", { class: `dot${ts.connected ? "" : " away"}`, role: "img", "aria-label": ts.connected ? "connected" : "away", title: ts.connected ? "connected" : "away" }));
    }
    top.appendChild(h("span", { class: "seat-name", text: name }));
    if (i === me) top.appendChild(h("span", { class: "badge accent", text: "you" }));
    if (t && i === t.host_seat && ts.kind !== "empty") top.appendChild(h("span", { class: "badge", text: "host" }));
    if (ts.kind === "bot") top.appendChild(h("span", { class: "badge", text: `bot${ts.bot_level ? ` · ${levelName(ts.bot_level)}` : ""}` }));
    if (ts.bot_account) top.appendChild(h("span", { class: "badge", text: "bot", title: `the bot account ${ts.bot_account}` }));
    if (ts.kind === "human" && !ts.connected) top.appendChild(h("span", { class: "badge", text: "away" }));
    if (ts.auto) top.appendChild(h("span", { class: "badge gold", text: "auto", title: "a bot plays for this seat for now" }));
    if (toAct) top.appendChild(h("span", { class: "badge accent", text: g.phase === "vote" ? "votes" : "to act" }));

    const info = h("div", { class: "seat-info" });
    if (g && g.dice) {
      const count = g.dice[i] ?? 0;
      if (out) info.appendChild(h("span", { class: "badge danger", text: options()?.goal === "shedding" ? "finished" : "out" }));
      else {
        // `dice` counts the whole hand: the pushed dice are part of it, shown face up.
        const pushed = g.pushed?.[i] || [];
        const hidden = Math.max(0, count - pushed.length);
        const icons = hidden <= 8 ? Array.from({ length: hidden }, () => h("span", { class: "die tiny hidden-die", "aria-hidden": "true" })) : [];
        const under = `${hidden} under the cup`;
        info.appendChild(h("span", { class: "dice", "aria-label": pushed.length ? under : plural(count, "die", "dice"), role: "img" }, icons, hidden > 8 || count === 0 ? ` ${hidden}` : null));
        if (pushed.length) {
          info.appendChild(h("span", { class: "dice pushed-dice", title: "pushed: shown to everyone" }, pushed.map((f) => die(f, { size: "tiny", wild: f === g.wild }))));
        }
        info.appendChild(h("span", { class: "dice-count", text: pushed.length ? `${plural(count, "die", "dice")} (${pushed.length} pushed)` : plural(count, "die", "dice") }));
      }
      if (g.passed?.[i]) info.appendChild(h("span", { class: "badge", text: "passed" }));
      if (g.exact_used?.[i] && options()?.exact_limit === "once_per_game") info.appendChild(h("span", { class: "badge", text: `${g.words?.exact || "exact"} used` }));
      if (g.chips) info.appendChild(h("span", { text: plural(g.chips[i], "chip") }));
      if (g.paid && g.paid[i]) info.appendChild(h("span", { text: `paid ${g.paid[i]}` }));
      if (g.folded?.[i]) info.appendChild(h("span", { class: "badge danger", text: "folded" }));
    }
    const li = h("li", { class: classes, "data-seat": i, "aria-current": toAct ? "true" : null }, top, info.childNodes.length ? info : null);
    if (toAct && g.deadline) li.appendChild(timerBar(g.deadline));
    items.push(li);
  }
  fill($("#seats"), items);
}

function timerBar(deadline) {
  const total = Math.max(1, (S.table?.turn_seconds || 60) * 1000);
  const wrap = h("div", { class: "seat-timer" });
  const bar = h("span");
  const holder = h("div", { class: "timer", "data-deadline": deadline, "data-total": total, role: "progressbar", "aria-label": "time left", "aria-valuemin": 0, "aria-valuemax": Math.round(total / 1000) }, bar);
  wrap.appendChild(holder);
  wrap.appendChild(h("span", { class: "small muted", "data-countdown": deadline }));
  return wrap;
}

function tick() {
  for (const node of document.querySelectorAll("[data-deadline]")) {
    const left = turnMsLeft(Number(node.dataset.deadline));
    const total = Number(node.dataset.total) || 60000;
    const frac = clamp(left / total, 0, 1);
    node.firstElementChild.style.width = `${(frac * 100).toFixed(1)}%`;
    node.classList.toggle("low", left < 10000);
    node.setAttribute("aria-valuenow", String(Math.ceil(left / 1000)));
  }
  for (const node of document.querySelectorAll("[data-countdown]")) {
    const left = Math.ceil(turnMsLeft(Number(node.dataset.countdown)) / 1000);
    node.textContent = `${left} s left`;
  }
  for (const node of document.querySelectorAll("[data-reveal-until]")) {
    const left = Math.ceil(remainingMs(Number(node.dataset.revealUntil)) / 1000);
    node.textContent = left > 0 ? `Next round in ${left} s` : "";
  }
}

// ----- rendering: the game -----

function renderGame() {
  const g = S.game;
  const t = S.table;
  if (t) {
    const lobby = t.status === "open" && !g;
    $("#lobby-view").hidden = !lobby;
    $("#game-view").hidden = lobby;
  }
  renderSeats();
  renderResult();
  if (!g) {
    $("#reveal-card").hidden = true;
    $("#log-card").hidden = true;
    $("#actions").hidden = true;
    return;
  }
  const o = options();
  const wild = g.wild ?? null;

  // round facts
  const info = [h("span", { class: "badge accent", text: `Round ${g.round}` })];
  if (g.one_die_round) info.push(h("span", { class: "badge gold", text: S.table?.preset?.startsWith("perudo") ? "Palifico round" : "One-die round", title: "wilds do not count this round" }));
  info.push(h("span", { class: "badge", text: wild ? wildWords(o, wild) : wildFace(o) ? "no wilds this round" : "no wilds", title: wild ? wildBidNote(o, wild) || null : null }));
  info.push(h("span", { class: "badge", text: `${plural(g.dice_in_play, "die", "dice")} in play` }));
  if (g.current_bet !== null && g.current_bet !== undefined) info.push(h("span", { class: "badge", text: `bet ${g.current_bet}` }));
  if (g.round_pot !== null && g.round_pot !== undefined) info.push(h("span", { class: "badge", text: `pot ${g.round_pot}` }));
  if (g.running_pot !== null && g.running_pot !== undefined) info.push(h("span", { class: "badge", text: `running pot ${g.running_pot}` }));
  fill($("#round-info"), info);

  // standing bid
  const standing = $("#standing");
  standing.hidden = false;
  const sb = g.standing ? parseBid(g.standing.bid) || parseBid(g.standing.text) : null;
  const word = g.words?.bid || (isEconomy(o) ? "claim" : "bid");
  if (sb) {
    fill(
      standing,
      h("span", { class: "muted", text: `Standing ${word}` }),
      h("span", { class: "big-bid", "aria-label": `${bidWords(sb[0], sb[1])}` }, `${sb[0]} ×`, die(sb[1], { wild: sb[1] === wild })),
      h("span", { text: `by ${seatName(g.standing.seat)}` }),
    );
  } else if (g.phase === "over") {
    standing.hidden = true;
  } else {
    fill(standing, h("span", { class: "muted", text: `No ${word} yet: ${g.starter !== null && g.starter !== undefined ? `${seatName(g.starter)} opens` : "the opener starts"}.` }));
  }

  // the reveal of the round that just ended opens by itself; afterwards one line recalls it
  noteReveal(g);
  const lr = g.last_round;
  const summary = $("#last-summary");
  if (lr && g.phase !== "over" && !S.reveal.open) {
    const lines = revealLines(lr).filter((l) => !/^Counted/.test(l));
    fill(
      summary,
      `Round ${lr.round}: ${lines.join(" ")} `,
      h("a", {
        href: "#reveal-card",
        id: "open-reveal",
        text: "See the reveal",
        onclick: (ev) => {
          ev.preventDefault();
          openReveal(true);
        },
      }),
    );
    summary.hidden = false;
  } else summary.hidden = true;

  const myTurn = isMyTurn();
  renderTurnLine();
  announceChanges(g, myTurn);

  // the cup
  renderCup();
  $("#watching").hidden = S.me.role === "player";
  renderSkip();

  renderActions();
  renderReveal();
  renderLog();
  tick();
  flushBring();
  document.title = `${myTurn ? "● Your turn · " : ""}${S.table?.title || "Table"} ${CODE} · Liar's Dice`;
}

/** Whose turn it is, the turn timer, and whether a bot is playing for you (from the table's `auto`). */
function renderTurnLine() {
  const g = S.game;
  if (!g) return;
  const turn = $("#turn-line");
  const me = mySeat();
  const myTurn = isMyTurn();
  const mySeatInfo = me !== null ? S.table?.seats?.[me] : null;
  turn.className = `turn-line${myTurn ? " mine" : ""}`;
  if (g.phase === "over") fill(turn, "Game over: the final ranking is above.");
  else if (g.to_act === null || g.to_act === undefined) fill(turn, "…");
  else {
    const who = myTurn ? "Your turn" : `${seatName(g.to_act)} ${g.phase === "vote" ? "is voting" : "is to act"}`;
    const what = myTurn && g.legal?.voting ? ": do you believe the bid?" : myTurn ? "." : "…";
    fill(turn, who + what, g.deadline ? [" ", h("span", { class: "small muted", "data-countdown": g.deadline })] : null);
  }
  if (mySeatInfo?.auto && g.phase !== "over") {
    turn.appendChild(h("div", { class: "small muted", id: "auto-note", text: "A bot is playing for you for now; your next move takes the seat back." }));
  }
  tick();
}

/** Tell screen readers what just happened: the newest move, a reveal, and when it is your turn. */
function announceChanges(g, myTurn) {
  const said = S.announced || {};
  const last = (g.history || [])[g.history.length - 1];
  const bits = [];
  const lastKey = last ? `${g.game_id}:${g.round}:${g.history.length}` : null;
  if (lastKey && lastKey !== said.move) bits.push(last.text || "");
  const lr = g.last_round;
  const revealKey = lr ? `${g.game_id}:${lr.round}` : null;
  if (revealKey && revealKey !== said.reveal && said.reveal !== undefined) bits.push(`Round ${lr.round} revealed. ${revealLines(lr).join(" ")}`);
  const turnKey = myTurn ? `${g.game_id}:${g.round}:${g.history.length}` : null;
  if (turnKey && turnKey !== said.turn) bits.push(g.legal?.voting ? "Your vote." : "Your turn.");
  if (g.result && !said.result) bits.push(g.forfeit ? `${g.forfeit.line} The game is over.` : "The game is over.");
  S.announced = { move: lastKey ?? said.move, reveal: revealKey, turn: turnKey, result: !!g.result };
  if (bits.length) $("#announce").textContent = bits.filter(Boolean).join(" ");
}


bindLink({ S, CODE, onMessage, clearPending, renderActions, renderConnection });
bindMoves({ S, link, options, mySeat, isMyTurn, seatName });
bindChat({ S, link });
bindRename({ S, link, CODE });
bindSkip({ S, link, mySeat });
bindReveal({ S, link, options, remainingMs, renderGame, mySeat, seatName, isMyTurn, seatCount, hostSend });

// ----- host controls -----

/** A refusal of the host's lobby controls shows under them (`where` "host"), of the rematch
 * under the ranking ("rematch"): where the click was, never in the game's move area. */
function showHostError(text, where = "host") {
  const node = $(where === "rematch" ? "#rematch-error" : "#host-error");
  const said = capitalize(text); // the server's words start lower case
  node.textContent = /[.!?…]$/.test(said) ? said : `${said}.`;
  node.hidden = false;
}

function hideHostError() {
  $("#host-error").hidden = true;
  $("#rematch-error").hidden = true;
}

function hostSend(msg, where = "host") {
  hideHostError();
  const ref = ++S.ref;
  if (!link.send({ ...msg, ref })) showHostError("You are not connected. Reconnecting…", where);
  else S.hostRefs.set(ref, where);
}

// ----- joining: the gate -----

function showGate(info, message) {
  const gate = $("#gate");
  gate.hidden = false;
  const empty = info ? info.seats.filter((s) => s.kind === "empty").length : 0;
  const canJoin = !!info && info.status === "open" && empty > 0;
  const title = info?.title || info?.preset || "This table";
  $("#gate-info").textContent = info
    ? `${title} · ${info.seats.length - empty} of ${info.seats.length} seats taken · ${{ open: "waiting for players", playing: "playing", finished: "finished" }[info.status] || info.status}. ${canJoin ? "" : "No seat is free, but you can watch."}`
    : "";
  $("#gate-join").hidden = !canJoin;
  $("#gate-name-hint").textContent = canJoin ? "Your name at the table, and in the chat if you watch." : "Your name in the chat while you watch (optional).";
  const name = $("#gate-name");
  if (!name.value) name.value = prefs.name;
  const err = $("#gate-error");
  err.hidden = !message;
  err.textContent = message || "";
  (canJoin ? name : $("#gate-watch")).focus();
}

async function joinFromGate(ev) {
  ev.preventDefault();
  const input = $("#gate-name");
  const name = input.value.trim();
  const err = $("#gate-error");
  if (!name || name.length > 24) {
    err.textContent = "Your name is 1 to 24 characters.";
    err.hidden = false;
    input.focus();
    return;
  }
  prefs.name = name;
  const button = $("#gate-join");
  button.disabled = true;
  try {
    const got = await api(`/api/tables/${encodeURIComponent(CODE)}/join`, { method: "POST", body: { name } });
    S.token = got.token;
    seatStore.set(CODE, { token: got.token, seat: got.seat, name: got.name ?? name, notice: got.notice ?? null });
    $("#gate").hidden = true;
    enterTable();
    link.reconnectNow();
  } catch (e) {
    err.textContent = e.status === 409 ? `${e.message} You can still watch.` : e.message;
    err.hidden = false;
    try {
      const info = await api(`/api/tables/${encodeURIComponent(CODE)}`);
      S.table = info;
      showGate(info, err.textContent);
    } catch {
      /* keep the message */
    }
  } finally {
    button.disabled = false;
  }
}

function enterTable() {
  $("#layout").hidden = false;
  $("#gate").hidden = true;
  renderTable();
  renderGame();
}

function setupStatic() {
  // "Copied." goes away by itself; a text that could not be copied stays longer, to copy by hand.
  const copied = (text, ok) => {
    const node = $("#copy-done");
    node.textContent = text;
    clearTimeout(S.copyTimer);
    S.copyTimer = setTimeout(() => {
      node.textContent = "";
    }, ok ? 2500 : 15000);
  };
  $("#copy-link").addEventListener("click", async () => {
    // The address this browser reached the table by: right behind a proxy, and on any host name
    // (TableInfo.url is built from the first request the server ever saw).
    const url = `${location.origin}/t/${encodeURIComponent(S.table?.code || CODE)}`;
    const ok = await copyText(url);
    copied(ok ? "Link copied." : url, ok);
  });
  $("#copy-code").addEventListener("click", async () => {
    const ok = await copyText(S.table?.code || CODE);
    copied(ok ? "Code copied." : S.table?.code || CODE, ok);
  });
  $("#gate-form").addEventListener("submit", joinFromGate);
  $("#gate-watch").addEventListener("click", () => {
    const name = $("#gate-name").value.trim();
    if (name && name.length <= 24) {
      S.watchName = name;
      prefs.name = name;
    }
    $("#gate").hidden = true;
    enterTable();
    link.connect();
  });
  $("#reveal-continue").addEventListener("click", closeReveal);
  $("#leave-seat").addEventListener("click", () => {
    hideHostError();
    if (!link.isOpen() || !link.send({ type: "leave" })) {
      showHostError("You are not connected: you are still seated. Reconnecting…", "host");
      return;
    }
    S.leaving = true;
  });
  $("#take-seat").addEventListener("click", async () => {
    try {
      S.table = await api(`/api/tables/${encodeURIComponent(CODE)}`);
    } catch {
      /* use what we have */
    }
    showGate(S.table);
  });
  $("#fill-bots").addEventListener("click", () => hostSend({ type: "fill_bots", level: $("#bot-level").value }));
  $("#bot-level").addEventListener("change", () => {
    $("#bot-level").dataset.touched = "1";
    showBotLevel();
  });
  $("#clear-bots").addEventListener("click", () => hostSend({ type: "clear_bots" }));
  $("#invite-send").addEventListener("click", () => {
    const bot = $("#invite-bot").value;
    if (bot) hostSend({ type: "invite_bot", bot });
  });
  $("#invite-bot").addEventListener("focus", () => loadOnlineBots(true));
  $("#call-bots").addEventListener("click", () => hostSend({ type: "call_bots" }));
  $("#start").addEventListener("click", () => hostSend({ type: "start" }));
  $("#cfg-apply").addEventListener("click", () => {
    const raw = $("#cfg-turn").value.trim();
    const n = Number(raw);
    if (raw === "" || !Number.isInteger(n) || n < 0 || n > 3600) {
      const what = raw === "" ? "No turn timer was typed" : `A turn timer of ${raw} seconds is not allowed`;
      showHostError(`${what}: it is a whole number of seconds from 0 to 3600 (0: no timer).`);
      return;
    }
    hostSend({ type: "configure", turn_seconds: n });
  });
  setupChat();
  setInterval(tick, 250);
  window.addEventListener("online", () => {
    if (!link.ws) link.reconnectNow();
  });
  document.addEventListener("visibilitychange", () => {
    if (!document.hidden && !link.ws && link.retryTimer) link.reconnectNow();
  });
}

// The bot levels the server has, strongest first, the default chosen (the page lists their names
// until it has asked); the chosen level's whole sentence shows under the select.
let botLevels = [];
async function loadBotLevels() {
  const select = $("#bot-level");
  try {
    botLevels = await api("/api/bots");
    const touched = select.dataset.touched === "1";
    const chosen = touched ? select.value : botLevels.find((b) => b.default)?.level;
    select.replaceChildren(...botLevels.map((b) => h("option", { value: b.level, text: b.name })));
    select.value = botLevels.some((b) => b.level === chosen) ? chosen : botLevels[0]?.level ?? "";
    if (S.table) renderSeats();
  } catch {
    // keep the built-in choices
  }
  showBotLevel();
}

function showBotLevel() {
  const level = botLevels.find((b) => b.level === $("#bot-level").value);
  $("#bot-level-note").textContent = level ? level.description : "";
}

// A seat's bot as players know it: its level's name ("duel" is Master), else as the server says.
function levelName(bot) {
  const key = String(bot).toLowerCase();
  return botLevels.find((b) => b.level === key || b.bot === key || b.aliases.includes(key))?.name ?? bot;
}

// The bots a host may invite (the operator's programs and the bot accounts online), asked for
// while the host controls show, at most every few seconds.
let onlineAsked = 0;
async function loadOnlineBots(now = false) {
  if (!now && Date.now() - onlineAsked < 5000) return;
  onlineAsked = Date.now();
  let bots;
  try {
    bots = await api("/api/bots/online");
  } catch {
    return;
  }
  const select = $("#invite-bot");
  const chosen = select.value;
  const label = (b) => `${b.name} (${b.kind === "operator" ? "run by this server" : "bot account, online"})`;
  if (bots.length) select.replaceChildren(...bots.map((b) => h("option", { value: b.name, text: label(b) })));
  else select.replaceChildren(h("option", { value: "", text: "No bot online" }));
  select.value = bots.some((b) => b.name === chosen) ? chosen : bots[0]?.name ?? "";
  const t = S.table;
  if (t) $("#invite-send").disabled = !select.value || !t.seats.some((s) => s.kind === "empty") || !link.isOpen();
}

async function init() {
  setupStatic();
  loadBotLevels();
  $("#code").textContent = CODE;
  if (!CODE) {
    $("#missing").hidden = false;
    return;
  }
  let info = null;
  try {
    info = await api(`/api/tables/${encodeURIComponent(CODE)}`);
  } catch (e) {
    if (e.status === 404) {
      $("#missing").hidden = false;
      $("#missing-text").textContent = `There is no table with the code ${CODE}. It may have closed.`;
      return;
    }
    info = null;
  }
  S.table = info;
  if (info) renderTable();
  const saved = seatStore.get(CODE);
  const watch = new URLSearchParams(location.search).has("watch");
  if (saved) {
    S.token = saved.token;
    enterTable();
    link.connect();
  } else if (watch || !info) {
    S.watchName = prefs.name || null;
    enterTable();
    link.connect();
  } else {
    showGate(info);
  }
}

init();
