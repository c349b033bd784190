// The table's chat: the log (the last 200 messages) and the form. The page's state and its
// websocket are lent once by `bindChat`.

import { $, capitalize, fill, h } from "./common.js";

let S, link;

/** Lend this module the table page's state and websocket (once, before any message). */
export function bindChat(page) {
  ({ S, link } = page);
}

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

export function renderChat() {
  const log = $("#chat-log");
  fill(log, S.chat.length ? S.chat.map(chatItem) : h("li", { class: "muted small", text: "No message yet." }));
  log.scrollTop = log.scrollHeight;
}

export function addChat(m) {
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

export function showChatError(text) {
  const node = $("#chat-error");
  node.textContent = text;
  node.hidden = false;
}

export function setupChat() {
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
