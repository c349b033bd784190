// The table page: join or watch, then one websocket for play (docs/protocol.md).
// The server is the only authority: the action panel is built from `legal` alone, and every
// move waits for the server's next `state` (or its `error`) before another can be sent.
//
// This module holds the page's state and what the server's messages do to it; the page's parts
// are drawn by their own modules (lobby, seats, game, moves, reveal, chat, ...), each lent the
// state once by its `bind...` below, before anything is drawn.

import { $, api, capitalize, prefs, seats as seatStore } from "./common.js";
import { loadBotLevels } from "./botlevels.js";
import { addChat, bindChat, renderChat, setupChat, showChatError } from "./chat.js";
import { overByForfeit } from "./forfeit.js";
import { bindGame, renderGame, renderTurnLine } from "./game.js";
import { bindGate, enterTable, showGate } from "./gate.js";
import { bindHost, hostSend, showHostError } from "./host.js";
import { bindLink, link, showBanner } from "./link.js";
import { bindLobby, renderConnection, renderTable } from "./lobby.js";
import { bindHint, hintError, onHint } from "./hint.js";
import { bindMoves, clearPending, hideActionError, renderActions, showActionError } from "./moves.js";
import { bindOdds, oddsOnWelcome } from "./odds.js";
import { bindReveal, closeReveal } from "./reveal.js";
import { bindRename, onRenamed, renameError } from "./seatname.js";
import { bindSeats, isMyTurn, mySeat, options, renderSeats, seatCount, seatName } from "./seats.js";
import { bindSkip, skipError } from "./skip.js";
import { bindSound } from "./sound.js";
import { bindTimer, remainingMs } from "./timer.js";

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
    case "hint":
      onHint(msg);
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
  if (msg.role === "player") oddsOnWelcome();
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
  if (renameError(msg) || skipError(msg) || hintError(msg)) return; // said where it was asked
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

bindSeats({ S });
bindTimer({ S });
bindLobby({ S, CODE });
bindGame({ S, CODE });
bindHost({ S, link });
bindGate({ S, CODE });
bindLink({ S, CODE, onMessage, clearPending, renderActions, renderConnection });
bindMoves({ S, link, options, mySeat, isMyTurn, seatName });
bindOdds({ S, link, options });
bindHint({ S, link });
bindChat({ S, link });
bindRename({ S, link, CODE });
bindSkip({ S, link, mySeat });
bindSound();
bindReveal({ S, link, options, remainingMs, renderGame, mySeat, seatName, isMyTurn, seatCount, hostSend });

function setupStatic() {
  $("#reveal-continue").addEventListener("click", closeReveal);
  setupChat();
  window.addEventListener("online", () => {
    if (!link.ws) link.reconnectNow();
  });
  document.addEventListener("visibilitychange", () => {
    if (!document.hidden && !link.ws && link.retryTimer) link.reconnectNow();
  });
}

async function init() {
  setupStatic();
  loadBotLevels(() => {
    if (S.table) renderSeats();
  });
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
