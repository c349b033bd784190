// Names at the table: the word a joiner gets when the name asked for was taken (the join's
// `notice`, kept with the seat until it is read), and changing one's name before the game starts
// (the `rename` message, docs/protocol.md). The page's state is lent once by `bindRename`.

import { $, capitalize, prefs, seats as seatStore } from "./common.js";

let S, link, CODE;
const asked = new Set(); // refs of the renames this page sent

export function bindRename(page) {
  ({ S, link, CODE } = page);
  $("#rename-open").addEventListener("click", () => openForm(true));
  $("#rename-cancel").addEventListener("click", () => openForm(false));
  $("#rename-form").addEventListener("submit", submit);
}

function sentence(text) {
  const t = capitalize(String(text || "").trim());
  return /[.!?]$/.test(t) ? t : `${t}.`;
}

function openForm(on) {
  $("#rename-form").hidden = !on;
  $("#rename-open").hidden = on;
  $("#rename-error").hidden = true;
  if (on) {
    const input = $("#rename-input");
    input.value = S.me.name || "";
    input.focus();
    input.select();
  }
}

function showError(text) {
  const node = $("#rename-error");
  node.textContent = text;
  node.hidden = false;
  $("#rename-input").setAttribute("aria-invalid", "true");
}

function submit(ev) {
  ev.preventDefault();
  const input = $("#rename-input");
  input.removeAttribute("aria-invalid");
  const name = input.value.trim().replace(/\s+/g, " ");
  if (!name || name.length > 24) {
    showError("A name is 1 to 24 characters.");
    return;
  }
  if (name === S.me.name) {
    openForm(false);
    return;
  }
  const ref = ++S.ref;
  if (!link.isOpen() || !link.send({ type: "rename", name, ref })) {
    showError("You are not connected: your name was not changed. Try again when the connection is back.");
    return;
  }
  asked.add(ref);
  $("#rename-save").disabled = true;
}

/** The server's `renamed`: the seat's name from now on, here and in what this browser keeps. */
export function onRenamed(msg) {
  S.me.name = msg.name;
  const saved = seatStore.get(CODE);
  if (saved) seatStore.set(CODE, { ...saved, name: msg.name, notice: null });
  prefs.name = msg.name;
  if (msg.ref !== null && msg.ref !== undefined && asked.delete(msg.ref)) {
    $("#rename-save").disabled = false;
    openForm(false);
    const note = $("#rename-notice");
    note.textContent = `You are ${msg.name} at this table now.`;
    note.hidden = false;
  }
  renderRename();
}

/** A refused rename is said under the field; whether `msg` was the answer to one. */
export function renameError(msg) {
  if (msg.ref === null || msg.ref === undefined || !asked.delete(msg.ref)) return false;
  $("#rename-save").disabled = false;
  showError(sentence(msg.message || "The name was not changed"));
  return true;
}

export function renderRename() {
  const t = S.table;
  const box = $("#rename-box");
  const seat = S.me.role === "player" ? S.me.seat : null;
  if (!t || seat === null || seat === undefined) {
    box.hidden = true;
    return;
  }
  const canRename = t.status === "open" && !t.seats?.[seat]?.bot_account;
  const saved = seatStore.get(CODE);
  const note = $("#rename-notice");
  if (saved?.notice && canRename) {
    note.textContent = `${sentence(saved.notice)}`;
    note.hidden = false;
  } else if (!canRename) note.hidden = true;
  if (!canRename) $("#rename-form").hidden = true;
  $("#rename-open").hidden = !canRename || !$("#rename-form").hidden;
  box.hidden = !canRename;
}
