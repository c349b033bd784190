// Joining: the gate a newcomer sees (take a seat with a name, or watch), and entering the table.
// The page's state is lent once by `bindGate`, which also wires the gate's buttons and
// "Take a seat".

import { $, api, prefs, seats as seatStore } from "./common.js";
import { renderGame } from "./game.js";
import { link } from "./link.js";
import { renderTable } from "./lobby.js";

let S, CODE;

/** Lend this module the table page's state (once, before any render). */
export function bindGate(page) {
  ({ S, CODE } = page);
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
  $("#take-seat").addEventListener("click", async () => {
    try {
      S.table = await api(`/api/tables/${encodeURIComponent(CODE)}`);
    } catch {
      /* use what we have */
    }
    showGate(S.table);
  });
}

export function showGate(info, message) {
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

export function enterTable() {
  $("#layout").hidden = false;
  $("#gate").hidden = true;
  renderTable();
  renderGame();
}
