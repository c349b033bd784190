// The lobby's controls: the host's (bots, the turn timer, the start) and a guest's (leave my
// seat), and where a refusal of them shows. The page's state and its websocket are lent once by
// `bindHost`, which also wires the buttons.

import { $, api, capitalize, h } from "./common.js";
import { showBotLevel } from "./botlevels.js";

let S, link;

/** Lend this module the table page's state and websocket (once, before any render). */
export function bindHost(page) {
  ({ S, link } = page);
  $("#leave-seat").addEventListener("click", () => {
    hideHostError();
    if (!link.isOpen() || !link.send({ type: "leave" })) {
      showHostError("You are not connected: you are still seated. Reconnecting…", "host");
      return;
    }
    S.leaving = true;
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
}

/** A refusal of the host's lobby controls shows under them (`where` "host"), of the rematch
 * under the ranking ("rematch"): where the click was, never in the game's move area. */
export function showHostError(text, where = "host") {
  const node = $(where === "rematch" ? "#rematch-error" : "#host-error");
  const said = capitalize(text); // the server's words start lower case
  node.textContent = /[.!?…]$/.test(said) ? said : `${said}.`;
  node.hidden = false;
}

export function hideHostError() {
  $("#host-error").hidden = true;
  $("#rematch-error").hidden = true;
}

export function hostSend(msg, where = "host") {
  hideHostError();
  const ref = ++S.ref;
  if (!link.send({ ...msg, ref })) showHostError("You are not connected. Reconnecting…", where);
  else S.hostRefs.set(ref, where);
}

export function refreshHostButtons() {
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

// The bots a host may invite (the operator's programs and the bot accounts online), asked for
// while the host controls show, at most every few seconds.
let onlineAsked = 0;
export async function loadOnlineBots(now = false) {
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
