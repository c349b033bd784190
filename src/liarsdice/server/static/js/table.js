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
  rulesSummary,
  seats as seatStore,
  wildBidNote,
  wildFace,
  wildWords,
} from "./common.js";
import { bindReveal, closeReveal, flushBring, noteReveal, openReveal, renderLog, renderResult, renderReveal, revealLines } from "./reveal.js";
import { clamp, defaultFace, exactWord, isEconomy, pickerFaces } from "./rules.js";

const parts = location.pathname.split("/").filter(Boolean);
const CODE = decodeURIComponent(parts[0] === "t" && parts[1] ? parts[1] : parts[parts.length - 1] || "");

const S = {
  token: null,
  me: { role: null, seat: null, host: false },
  table: null,
  game: null,
  chat: [],
  clockOffset: 0,
  ref: 0,
  pending: null,
  pendingTimer: null,
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

// ----- the websocket, with reconnection -----

const link = {
  ws: null,
  backoff: 500,
  retryTimer: null,
  pingTimer: null,
  lastMessage: 0,
  opened: false,
  stopped: false,

  url() {
    const scheme = location.protocol === "https:" ? "wss" : "ws";
    return `${scheme}://${location.host}/ws/${encodeURIComponent(CODE)}`;
  },

  connect() {
    this.stopped = false;
    clearTimeout(this.retryTimer);
    this.retryTimer = null;
    if (this.ws) return;
    let ws;
    try {
      ws = new WebSocket(this.url());
    } catch {
      this.retry();
      return;
    }
    this.ws = ws;
    ws.addEventListener("open", () => {
      if (this.ws !== ws) return;
      this.lastMessage = Date.now();
      const hello = { type: "hello", token: S.token };
      if (!S.token && S.watchName) hello.name = S.watchName;
      ws.send(JSON.stringify(hello));
      S.lastSent = "hello";
      this.startPing();
    });
    ws.addEventListener("message", (event) => {
      if (this.ws !== ws) return;
      this.lastMessage = Date.now();
      let msg;
      try {
        msg = JSON.parse(event.data);
      } catch {
        return;
      }
      if (msg && typeof msg === "object") onMessage(msg);
    });
    ws.addEventListener("close", (event) => {
      if (this.ws !== ws) return;
      this.ws = null;
      this.stopPing();
      S.welcomed = false;
      clearPending();
      renderActions();
      renderConnection();
      this.retry(event);
    });
  },

  retry(event) {
    if (this.stopped) return;
    const delay = this.backoff;
    this.backoff = Math.min(5000, this.backoff * 2);
    const why = event && event.reason ? ` (${event.reason})` : "";
    showBanner(`${this.opened ? "Connection lost" : "Connecting"}${why}. Reconnecting…`);
    clearTimeout(this.retryTimer);
    this.retryTimer = setTimeout(() => this.connect(), delay);
  },

  /** Drop the socket and open a new one now (after taking a seat, or when the network returns). */
  /** Close and stay closed (the server refused us for good). */
  stop() {
    this.stopped = true;
    clearTimeout(this.retryTimer);
    this.stopPing();
    const old = this.ws;
    this.ws = null;
    if (old) old.close();
    showBanner(null);
  },

  reconnectNow() {
    this.stopped = false;
    this.backoff = 500;
    const old = this.ws;
    this.ws = null;
    this.stopPing();
    if (old) old.close();
    this.connect();
  },

  /** Whether a message sent now reaches the table (the socket is open and the server said welcome). */
  isOpen() {
    return !!this.ws && this.ws.readyState === WebSocket.OPEN && S.welcomed;
  },

  send(msg) {
    if (!this.ws || this.ws.readyState !== WebSocket.OPEN) return false;
    this.ws.send(JSON.stringify(msg));
    S.lastSent = msg.type;
    return true;
  },

  startPing() {
    this.stopPing();
    this.pingTimer = setInterval(() => {
      if (!this.ws) return;
      if (Date.now() - this.lastMessage > 45000) {
        // Nothing heard for three pings: the connection is dead even if the browser has not noticed.
        const ws = this.ws;
        this.ws = null;
        this.stopPing();
        ws.close();
        S.welcomed = false;
        clearPending();
        renderActions();
        renderConnection();
        this.retry();
        return;
      }
      this.send({ type: "ping", t: Date.now() });
    }, 15000);
  },

  stopPing() {
    clearInterval(this.pingTimer);
    this.pingTimer = null;
  },
};

function showBanner(text) {
  const b = $("#banner");
  if (!text) {
    b.hidden = true;
    return;
  }
  b.textContent = text;
  b.hidden = false;
}

// ----- messages from the server -----

function onMessage(msg) {
  switch (msg.type) {
    case "welcome":
      onWelcome(msg);
      break;
    case "table":
      S.table = msg.table;
      renderTable();
      if (S.game) renderTurnLine(); // "a bot is playing for you" follows the table's `auto`
      break;
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
    showActionError("Your seat at this table could not be found: you are watching.");
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
  S.game = g;
  if (mineAnswered || !g || !g.legal) {
    clearPending();
    if (mineAnswered) hideActionError();
  }
  renderTable();
  renderGame();
}

function onError(msg) {
  const text = msg.message || msg.code || "The server refused that.";
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
    case "rematch":
      showHostError(text);
      break;
    case "act":
      clearPending();
      showActionError(text);
      renderActions();
      break;
    case "leave":
      S.leaving = false;
      showActionError(text);
      break;
    default:
      showActionError(text);
  }
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

  const summary = rulesSummary(t.options);
  $("#rules-text").textContent = summary.join(" · ");
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
    if (ts.kind === "bot") top.appendChild(h("span", { class: "badge", text: `bot${ts.bot_level ? ` · ${ts.bot_level}` : ""}` }));
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
      if (g.chips) info.appendChild(h("span", { text: `${g.chips[i]} chips` }));
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
    const left = remainingMs(Number(node.dataset.deadline));
    const total = Number(node.dataset.total) || 60000;
    const frac = clamp(left / total, 0, 1);
    node.firstElementChild.style.width = `${(frac * 100).toFixed(1)}%`;
    node.classList.toggle("low", left < 10000);
    node.setAttribute("aria-valuenow", String(Math.max(0, Math.ceil(left / 1000))));
  }
  for (const node of document.querySelectorAll("[data-countdown]")) {
    const left = Math.max(0, Math.ceil(remainingMs(Number(node.dataset.countdown)) / 1000));
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
  info.push(h("span", { class: "badge", text: `${g.dice_in_play} dice in play` }));
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
  if (g.result && !said.result) bits.push("The game is over.");
  S.announced = { move: lastKey ?? said.move, reveal: revealKey, turn: turnKey, result: !!g.result };
  if (bits.length) $("#announce").textContent = bits.filter(Boolean).join(" ");
}

function renderCup() {
  const g = S.game;
  const me = mySeat();
  const wrap = $("#cup-wrap");
  if (!g || me === null || g.phase === "over") {
    wrap.hidden = true;
    return;
  }
  wrap.hidden = false;
  const cup = g.cup || [];
  const wild = g.wild ?? null;
  const push = isMyTurn() && g.legal?.push && !g.legal.voting ? g.legal.push : null;
  const box = $("#cup");
  const focusedIndex = box.contains(document.activeElement) ? document.activeElement.dataset.index : null;
  if (!cup.length) {
    const out = g.active && g.active[me] === false;
    fill(box, h("p", { class: "muted", text: out ? (options()?.goal === "shedding" ? "Your cup is empty: you are finished." : "You are out of dice. Watch the rest of the game.") : "Your cup is empty." }));
  } else if (push) {
    fill(
      box,
      cup.map((f, i) =>
        die(f, {
          size: "big",
          wild: f === wild,
          tag: "button",
          "data-index": i,
          "aria-pressed": S.push.has(i) ? "true" : "false",
          label: `${f}${f === wild ? " (wild)" : ""}: push this die`,
          onclick: () => togglePush(i),
        }),
      ),
    );
    if (focusedIndex !== null) box.querySelector(`[data-index="${focusedIndex}"]`)?.focus();
  } else {
    fill(box, cup.map((f) => die(f, { size: "big", wild: f === wild })));
  }
  const pushedMine = g.pushed?.[me] || [];
  const pm = $("#pushed-mine");
  if (pushedMine.length) {
    fill(pm, "Pushed in front of you: ", h("span", { class: "dice" }, pushedMine.map((f) => die(f, { size: "small", wild: f === wild }))));
    pm.hidden = false;
  } else pm.hidden = true;
  const hint = $("#push-hint");
  if (push) {
    const n = S.push.size;
    hint.textContent = n
      ? `${plural(n, "die", "dice")} selected to push with your ${g.words?.bid || "bid"} or pass; the rest of your cup is rerolled.`
      : `You may push 1 to ${push.max} dice: click them to show them with your ${g.words?.bid || "bid"} or pass (the rest are rerolled).`;
    hint.hidden = false;
  } else hint.hidden = true;
}

function togglePush(i) {
  const max = S.game?.legal?.push?.max ?? 0;
  if (S.push.has(i)) S.push.delete(i);
  else if (S.push.size < max) S.push.add(i);
  else {
    showActionError(`You may push at most ${plural(max, "die", "dice")}.`);
    return;
  }
  hideActionError();
  renderCup();
  refreshLabels();
}

function pushFaces() {
  const cup = S.game?.cup || []; // the cup as drawn (sorted); the faces are what is sent
  return [...S.push].sort((a, b) => a - b).map((i) => cup[i]);
}

// ----- the action panel (from `legal` only) -----

function act(action) {
  if (S.pending !== null || !action) return;
  const ref = ++S.ref;
  if (!link.isOpen() || !link.send({ type: "act", action, ref })) {
    showActionError("You are not connected: your move was not sent. Reconnecting…");
    return;
  }
  S.pending = ref;
  if (S.reveal.open) S.reveal.open = false; // moving on: the reveal has been seen
  hideActionError();
  setBusy(true);
  clearTimeout(S.pendingTimer);
  S.pendingTimer = setTimeout(() => {
    if (S.pending === ref) {
      clearPending();
      showActionError("No answer from the server yet. Try again.");
      renderActions();
    }
  }, 10000);
}

function clearPending() {
  S.pending = null;
  clearTimeout(S.pendingTimer);
}

function setBusy(busy) {
  const box = $("#actions");
  box.setAttribute("aria-busy", busy ? "true" : "false");
  if (busy) for (const el of box.querySelectorAll("button, input, select")) el.disabled = true;
}

function withExtras(action, { push = true, raise = true } = {}) {
  if (raise && S.raise.on && S.raise.invalid) {
    showActionError(`Raise the bet to a number from ${S.game?.legal?.economy?.raise_min} to ${S.game?.legal?.economy?.raise_max}, or untick the raise.`);
    return null;
  }
  const extra = {};
  const faces = push ? pushFaces() : [];
  if (faces.length) extra.push = faces;
  if (raise && S.raise.on && S.raise.value !== null) extra.raise_to = S.raise.value;
  return Object.keys(extra).length ? [...action, extra] : action;
}

function cost() {
  const econ = S.game?.legal?.economy;
  if (!econ) return null;
  if (S.raise.on && S.raise.value !== null) {
    const stake = options()?.economy?.stake;
    const paid = S.game.paid?.[mySeat()] ?? 0;
    return stake === "per_turn" ? S.raise.value : S.raise.value - paid;
  }
  return econ.owed;
}

function refreshLabels() {
  for (const fn of S.labelers) fn();
}

function renderActions() {
  const box = $("#actions");
  const g = S.game;
  const hadFocus = box.contains(document.activeElement) || document.activeElement === document.body || !document.activeElement;
  S.labelers = [];
  if (!isMyTurn()) {
    box.hidden = true;
    box.replaceChildren();
    S.push.clear();
    return;
  }
  const L = g.legal;
  const turnKey = `${g.game_id}:${g.round}:${(g.history || []).length}:${L.voting ? "v" : "t"}:${g.standing?.text ?? ""}`;
  if (S.pick.key !== turnKey) {
    S.pick = { key: turnKey, face: null, qty: null };
    S.push = new Set();
    S.raise = { on: false, value: null };
  }
  const content = [];
  let primary = null;
  if (L.voting) {
    const sb = g.standing ? parseBid(g.standing.bid) : null;
    const what = sb ? ` ${bidWords(sb[0], sb[1])}` : "";
    const believe = h("button", { type: "button", class: "primary", "data-move": "believe", onclick: () => act(["vote", "believe"]), text: `Believe${what}` });
    const doubt = h("button", { type: "button", "data-move": "doubt", onclick: () => act(["vote", "doubt"]), text: `Doubt${what}` });
    content.push(h("p", { text: "A liar call: everyone takes a side. Do you believe the bid, or doubt it?" }));
    content.push(h("div", { class: "moves", role: "group", "aria-label": "Vote" }, believe, doubt));
    primary = believe;
  } else {
    const econ = L.economy || null;
    if (econ) content.push(economyPanel(econ, g));
    if (L.bids && L.bids.length) {
      const picker = bidPicker(L, g, !!econ);
      content.push(picker.node);
      primary = picker.submit;
    } else {
      content.push(h("p", { class: "muted", text: econ && !econ.can_meet ? `You cannot meet the bet (${econ.owed} owed).` : `No higher ${g.words?.bid || "bid"} is possible.` }));
    }
    const moves = h("div", { class: "moves", role: "group", "aria-label": "Other moves" });
    if (L.pass) {
      const b = h("button", { type: "button", "data-move": "pass", onclick: () => act(withExtras(["pass"], { raise: false })) });
      S.labelers.push(() => {
        const n = pushFaces().length;
        b.textContent = n ? `Pass and push ${plural(n, "die", "dice")}` : "Pass";
      });
      moves.appendChild(b);
    }
    for (const c of L.challenge || []) {
      const name = seatName(c.seat);
      const verb = options()?.exact === "others_lose" ? "Call" : "Challenge";
      const b = h(
        "button",
        { type: "button", class: "danger two-line", "data-move": "challenge", "data-target": c.seat, onclick: () => act(["challenge", { target: name }]) },
        h("span", { text: `${verb} ${name}` }),
        c.what ? h("span", { class: "what", text: c.what }) : null,
      );
      moves.appendChild(b);
      if (!primary) primary = b;
    }
    if (L.exact) {
      const word = g.words?.exact || exactWord(options());
      const sb = g.standing ? parseBid(g.standing.bid) : null;
      moves.appendChild(
        h("button", {
          type: "button",
          "data-move": "exact",
          title: "Claim the standing bid is exactly right",
          onclick: () => act(["exact"]),
          text: `${capitalize(word)}${sb ? `: exactly ${bidWords(sb[0], sb[1])}` : ""}`,
        }),
      );
    }
    if (econ) {
      if (econ.accuse) {
        const target = g.standing ? seatName(g.standing.seat) : "the claim";
        const b = h("button", { type: "button", class: "danger", "data-move": "accuse", onclick: () => act(withExtras(["accuse"], { push: false })) });
        S.labelers.push(() => {
          const c = cost();
          b.textContent = `Accuse ${target}${S.raise.on ? `, raising to ${S.raise.value}` : ""}${c ? ` · pay ${c}` : ""}`;
        });
        moves.appendChild(b);
        if (!primary) primary = b;
      }
      if (econ.all_in) {
        const chips = g.chips?.[mySeat()] ?? 0;
        moves.appendChild(h("button", { type: "button", class: "danger", "data-move": "all_in", onclick: () => act(["all_in"]), text: `All in (${plural(chips, "chip")}) and accuse` }));
      }
      if (econ.fold) {
        moves.appendChild(h("button", { type: "button", "data-move": "fold", onclick: () => act(["fold"]), text: "Fold (lose a die)" }));
      }
    }
    if (moves.childNodes.length) content.push(moves);
  }
  fill(box, content);
  box.hidden = false;
  refreshLabels();
  if (S.pending !== null) setBusy(true);
  else box.setAttribute("aria-busy", "false");
  if (!link.isOpen()) {
    // A click now could not reach the table: nothing here looks clickable until it can.
    for (const el of box.querySelectorAll("button, input, select")) el.disabled = true;
    return;
  }
  if (hadFocus && primary && S.pending === null) primary.focus({ preventScroll: true });
}

function economyPanel(econ, g) {
  const me = mySeat();
  const chips = g.chips?.[me] ?? 0;
  const paid = g.paid?.[me] ?? 0;
  const node = h("div", { class: "economy-line" });
  node.appendChild(
    h("p", {
      text: `The bet is ${g.current_bet ?? "?"}; you have paid ${paid} this round and hold ${plural(chips, "chip")}. ${econ.can_meet ? (econ.owed ? `Meeting it costs ${econ.owed}.` : "You are level with the bet.") : `You cannot meet it (${econ.owed} owed).`}`,
    }),
  );
  if (econ.can_meet && econ.raise_min !== null && econ.raise_min !== undefined && econ.raise_max !== null && econ.raise_max !== undefined) {
    if (S.raise.value === null) S.raise.value = econ.raise_min;
    const input = h("input", {
      type: "number",
      id: "raise-to",
      min: econ.raise_min,
      max: econ.raise_max,
      value: S.raise.value,
      inputmode: "numeric",
      style: "width:6rem",
      disabled: !S.raise.on,
      "aria-label": `raise the bet to (${econ.raise_min} to ${econ.raise_max})`,
    });
    const check = h("input", { type: "checkbox", id: "raise-on", checked: S.raise.on });
    check.addEventListener("change", () => {
      S.raise.on = check.checked;
      input.disabled = !check.checked;
      refreshLabels();
      if (check.checked) input.focus();
    });
    // As with the quantity: a raise is sent as typed or refused, never changed into another.
    const raiseError = h("p", { id: "raise-error", class: "error-text small", role: "alert", hidden: true });
    const checkRaise = () => {
      const raw = input.value.trim();
      const v = Number(raw);
      const ok = raw !== "" && Number.isInteger(v) && v >= econ.raise_min && v <= econ.raise_max;
      S.raise.invalid = !ok;
      if (ok) {
        S.raise.value = v;
        input.removeAttribute("aria-invalid");
      } else input.setAttribute("aria-invalid", "true");
      raiseError.textContent = ok ? "" : `${raw === "" ? "Type the new bet" : `The bet cannot be raised to ${raw}`}: ${econ.raise_min} to ${econ.raise_max}.`;
      raiseError.hidden = ok;
      refreshLabels();
    };
    input.addEventListener("input", checkRaise);
    input.addEventListener("change", checkRaise);
    node.appendChild(
      h(
        "div",
        { class: "row" },
        h("label", { class: "checkbox", for: "raise-on" }, check, "Raise the bet to"),
        input,
        h("span", { class: "small muted", text: `${econ.raise_min} to ${econ.raise_max}` }),
      ),
    );
    node.appendChild(raiseError);
  }
  return node;
}

/**
 * The bid picker: one button per face with the lowest quantity that raises the standing bid on
 * it (from `legal.bids`), faces that cannot be bid disabled, and a quantity stepper bounded by
 * that face's range. Keys: 1-9 pick a face, arrows left/right move between faces, up/down
 * change the quantity, Enter submits.
 */
function bidPicker(L, g, economy) {
  const faces = Number(options()?.faces) || Math.max(...L.bids.map((b) => Number(b[0])));
  const entries = pickerFaces(L.bids, faces);
  const standingFace = g.standing ? parseBid(g.standing.bid)?.[1] : null;
  S.pick.face = defaultFace(entries, S.pick.face, standingFace);
  const word = g.words?.bid || (economy ? "claim" : "bid");
  const wild = g.wild ?? null;

  const form = h("form", { class: "picker-form", novalidate: true });
  const fieldset = h("fieldset", { class: "picker" }, h("legend", { text: `Your ${word}` }));
  const group = h("div", { class: "faces", role: "radiogroup", "aria-label": "Face" });
  const buttons = new Map();
  for (const e of entries) {
    const b = h(
      "button",
      {
        type: "button",
        class: "face-btn",
        role: "radio",
        "data-face": e.face,
        disabled: !e.legal,
        "aria-label": e.legal ? `${e.face}s${e.face === wild ? ` (wild${wildBidNote(options(), wild) ? `; ${wildBidNote(options(), wild)}` : ""})` : ""}: at least ${e.lo}` : `${e.face}s: not possible`,
        title: e.legal && e.face === wild ? wildBidNote(options(), wild) || null : null,
      },
      die(e.face, { wild: e.face === wild, label: "", "aria-hidden": "true", role: null }),
      h("span", { class: "min", "aria-hidden": "true", text: e.legal ? `${e.lo}+` : "—" }),
    );
    b.addEventListener("click", () => selectFace(e.face, true));
    buttons.set(e.face, b);
    group.appendChild(b);
  }
  const qtyInput = h("input", { type: "number", id: "bid-qty", inputmode: "numeric", "aria-describedby": "bid-qty-range" });
  const minus = h("button", { type: "button", "aria-label": "one fewer", text: "−" });
  const plus = h("button", { type: "button", "aria-label": "one more", text: "+" });
  const range = h("span", { id: "bid-qty-range", class: "small muted" });
  const submit = h("button", { type: "submit", class: "primary bid-submit", "data-move": "bid" });
  // A typed quantity is sent as typed or not at all: out of range the button is disabled and this
  // says what is allowed; it is never turned into another bid.
  const qtyError = h("p", { id: "bid-qty-error", class: "error-text small", role: "alert", hidden: true });
  fieldset.appendChild(group);
  fieldset.appendChild(
    h("div", { class: "qty" }, h("label", { for: "bid-qty", text: "Quantity" }), minus, qtyInput, plus, range),
  );
  fieldset.appendChild(qtyError);
  form.appendChild(fieldset);
  form.appendChild(h("div", { class: "row" }, submit));

  function entry() {
    return entries.find((e) => e.face === S.pick.face);
  }

  function update() {
    const e = entry();
    for (const [face, b] of buttons) {
      const on = face === S.pick.face;
      b.setAttribute("aria-checked", on ? "true" : "false");
      b.tabIndex = on ? 0 : -1;
    }
    qtyInput.min = e.lo;
    qtyInput.max = e.hi;
    if (document.activeElement !== qtyInput || Number(qtyInput.value) !== S.pick.qty) qtyInput.value = S.pick.qty;
    S.pick.invalid = false;
    qtyInput.removeAttribute("aria-invalid");
    qtyError.hidden = true;
    submit.disabled = false;
    minus.disabled = S.pick.qty <= e.lo;
    plus.disabled = S.pick.qty >= e.hi;
    range.textContent = e.lo === e.hi ? `only ${e.lo}` : `${e.lo} to ${e.hi}`;
    refreshLabels();
  }

  /** Read the typed quantity: taken if the rules allow it, else refused with the allowed range. */
  function checkTyped() {
    const e = entry();
    const raw = qtyInput.value.trim();
    const v = Number(raw);
    const ok = raw !== "" && Number.isInteger(v) && v >= e.lo && v <= e.hi;
    S.pick.invalid = !ok;
    if (ok) {
      S.pick.qty = v;
      qtyInput.removeAttribute("aria-invalid");
      qtyError.hidden = true;
    } else {
      qtyInput.setAttribute("aria-invalid", "true");
      const allowed = e.lo === e.hi ? `only ${e.lo}` : `${e.lo} to ${e.hi}`;
      qtyError.textContent = `${raw === "" ? "Type a quantity" : `${raw} cannot be bid`}: on ${e.face}s the quantity is ${allowed}.`;
      qtyError.hidden = false;
    }
    submit.disabled = !ok;
    minus.disabled = ok && v <= e.lo;
    plus.disabled = ok && v >= e.hi;
    refreshLabels();
    return ok;
  }

  function selectFace(face, resetQty) {
    const e = entries.find((x) => x.face === face && x.legal);
    if (!e) return;
    S.pick.face = face;
    if (resetQty || S.pick.qty === null) S.pick.qty = e.lo;
    S.pick.qty = clamp(S.pick.qty, e.lo, e.hi);
    update();
  }

  function step(delta) {
    const e = entry();
    if (S.pick.invalid) {
      // From a refused number the stepper comes back to the nearest allowed one.
      const v = Number(qtyInput.value);
      S.pick.qty = clamp(Number.isFinite(v) && qtyInput.value.trim() !== "" ? Math.round(v) : e.lo, e.lo, e.hi);
    } else S.pick.qty = clamp(S.pick.qty + delta, e.lo, e.hi);
    update();
  }

  function moveFace(dir) {
    const legal = entries.filter((e) => e.legal);
    const i = legal.findIndex((e) => e.face === S.pick.face);
    const next = legal[(i + dir + legal.length) % legal.length];
    selectFace(next.face, true);
    buttons.get(next.face).focus();
  }

  minus.addEventListener("click", () => step(-1));
  plus.addEventListener("click", () => step(1));
  qtyInput.addEventListener("input", checkTyped);
  qtyInput.addEventListener("change", checkTyped);
  form.addEventListener("keydown", (ev) => {
    if (ev.altKey || ev.ctrlKey || ev.metaKey) return;
    const inQty = ev.target === qtyInput;
    if (/^[1-9]$/.test(ev.key) && !inQty) {
      const f = Number(ev.key);
      if (buttons.has(f) && !buttons.get(f).disabled) {
        ev.preventDefault();
        selectFace(f, true);
        buttons.get(f).focus();
      }
    } else if (ev.key === "ArrowUp" || ev.key === "ArrowDown") {
      ev.preventDefault();
      step(ev.key === "ArrowUp" ? 1 : -1);
    } else if ((ev.key === "ArrowLeft" || ev.key === "ArrowRight") && !inQty) {
      ev.preventDefault();
      moveFace(ev.key === "ArrowRight" ? 1 : -1);
    } else if ((ev.key === "+" || ev.key === "-") && !inQty) {
      ev.preventDefault();
      step(ev.key === "+" ? 1 : -1);
    } else if (ev.key === "Enter" && (ev.target.getAttribute("role") === "radio" || inQty)) {
      // Enter in the quantity goes through the same check as the button, even when it is disabled.
      ev.preventDefault();
      form.requestSubmit();
    }
  });
  form.addEventListener("submit", (ev) => {
    ev.preventDefault();
    const e = entry();
    if (!e) return;
    if (!checkTyped()) {
      qtyInput.focus();
      return;
    }
    act(withExtras([economy ? "claim" : "bid", S.pick.qty, e.face], { raise: economy }));
  });
  S.labelers.push(() => {
    const e = entry();
    if (!e) return;
    const n = pushFaces().length;
    const c = economy ? cost() : null;
    const bits = [S.pick.invalid ? `${capitalize(word)}: a quantity from ${e.lo} to ${e.hi}` : `${capitalize(word)} ${bidWords(S.pick.qty, e.face)}`];
    if (n) bits.push(`push ${n}`);
    if (economy && S.raise.on) bits.push(S.raise.invalid ? "raise: see below" : `raise to ${S.raise.value}`);
    if (c) bits.push(`pay ${c}`);
    submit.textContent = bits.join(" · ");
  });
  if (S.pick.face !== null) selectFace(S.pick.face, S.pick.qty === null);
  return { node: form, submit };
}

function showActionError(text) {
  const node = $("#action-error");
  node.textContent = text;
  node.hidden = false;
}

function hideActionError() {
  $("#action-error").hidden = true;
}

bindReveal({ S, link, options, remainingMs, renderGame, mySeat, seatName, isMyTurn, seatCount, hideHostError, showActionError });

// ----- host controls -----

function showHostError(text) {
  const node = $("#host-error");
  if (!node.closest("[hidden]")) {
    node.textContent = text;
    node.hidden = false;
  } else showActionError(text);
}

function hideHostError() {
  $("#host-error").hidden = true;
}

function hostSend(msg) {
  hideHostError();
  if (!link.send(msg)) showHostError("You are not connected. Reconnecting…");
}

// ----- chat -----

function chatItem(m) {
  const spectator = m.seat === null || m.seat === undefined;
  const at = m.at ? new Date(m.at) : null;
  return h(
    "li",
    { class: spectator ? "spectator" : "", title: at ? at.toLocaleTimeString() : null },
    h("span", { class: "from", text: `${spectator && /^spectator( \d+)?$/i.test(m.from ?? "") ? capitalize(m.from) : `${m.from ?? "?"}${spectator ? " (watching)" : ""}`}:` }),
    h("span", { class: "text", text: m.text ?? "" }),
  );
}

function renderChat() {
  const log = $("#chat-log");
  fill(log, S.chat.length ? S.chat.map(chatItem) : h("li", { class: "muted small", text: "No message yet." }));
  log.scrollTop = log.scrollHeight;
}

function addChat(m) {
  const log = $("#chat-log");
  const atBottom = log.scrollHeight - log.scrollTop - log.clientHeight < 40;
  if (!S.chat.length) log.replaceChildren();
  S.chat.push(m);
  if (S.chat.length > 200) {
    S.chat.shift();
    log.firstElementChild?.remove();
  }
  log.appendChild(chatItem(m));
  if (atBottom) log.scrollTop = log.scrollHeight;
}

function showChatError(text) {
  const node = $("#chat-error");
  node.textContent = text;
  node.hidden = false;
}

function setupChat() {
  const input = $("#chat-input");
  const counter = $("#chat-counter");
  const update = () => {
    const n = input.value.length;
    counter.textContent = `${n} / 300`;
    counter.classList.toggle("over", n > 300);
  };
  input.addEventListener("input", () => {
    update();
    $("#chat-error").hidden = true;
  });
  $("#chat-form").addEventListener("submit", (ev) => {
    ev.preventDefault();
    const text = input.value.trim();
    if (!text) return;
    if (text.length > 300) {
      showChatError("A message is at most 300 characters.");
      return;
    }
    if (!link.send({ type: "chat", text })) {
      showChatError("You are not connected: the message was not sent.");
      return;
    }
    input.value = "";
    update();
  });
  update();
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
    seatStore.set(CODE, { token: got.token, seat: got.seat, name });
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
      showActionError("You are not connected: you are still seated. Reconnecting…");
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
  $("#clear-bots").addEventListener("click", () => hostSend({ type: "clear_bots" }));
  $("#invite-send").addEventListener("click", () => {
    const bot = $("#invite-bot").value;
    if (bot) hostSend({ type: "invite_bot", bot });
  });
  $("#invite-bot").addEventListener("focus", () => loadOnlineBots(true));
  $("#call-bots").addEventListener("click", () => hostSend({ type: "call_bots" }));
  $("#start").addEventListener("click", () => hostSend({ type: "start" }));
  $("#cfg-apply").addEventListener("click", () => {
    const n = Number($("#cfg-turn").value);
    if (!Number.isInteger(n) || n < 0 || n > 3600) {
      showHostError("The turn timer is a whole number of seconds from 0 to 3600.");
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

// The bot levels the server has (the page lists the two simplest until it has asked).
async function loadBotLevels() {
  try {
    const levels = await api("/api/bots");
    const select = $("#bot-level");
    const chosen = select.value;
    select.replaceChildren(...levels.map((b) => h("option", { value: b.level, text: `${capitalize(b.level)}: ${b.description}` })));
    select.value = levels.some((b) => b.level === chosen) ? chosen : levels[0]?.level ?? "";
  } catch {
    // keep the built-in choices
  }
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
