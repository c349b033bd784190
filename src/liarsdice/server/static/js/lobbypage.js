// The site lobby (/lobby, docs/lobby.md): Play now (playnow.js), and, refreshed every few
// seconds, the open tables to join, the games in play to watch and how many people are online.

import { $, api, fill, h, plural, seats } from "./common.js";
import { setupPlayNow } from "./playnow.js";

const REFRESH = 3000; // ms

function tableItem(t, action, href) {
  return h(
    "li",
    { "data-code": t.code },
    h(
      "div",
      { class: "lobby-meta" },
      h("div", { class: "title" }, `${t.title || t.preset} `, h("span", { class: "code small", text: t.code })),
      Array.isArray(t.names) && t.names.length ? h("div", { class: "small", text: `with ${t.names.join(", ")}` }) : null,
    ),
    h("a", { class: "button", href, text: action, "aria-label": `${action}: ${t.title || t.preset} table ${t.code}` }),
  );
}

async function refresh() {
  let lobby;
  try {
    lobby = await api("/api/lobby");
  } catch (e) {
    $("#lobby-error").textContent = `Could not refresh the lobby: ${e.message}`;
    $("#lobby-error").hidden = false;
    return;
  }
  $("#lobby-error").hidden = true;
  $("#online").textContent = `${plural(lobby.online, "player")} online`;
  fill(
    $("#open-tables"),
    lobby.open.map((t) => {
      const mine = seats.get(t.code);
      return tableItem(t, mine ? "Your seat" : `Join (${t.empty} free)`, `/t/${encodeURIComponent(t.code)}`);
    }),
  );
  $("#open-empty").hidden = lobby.open.length > 0;
  fill(
    $("#watching"),
    lobby.playing.map((t) => {
      const mine = seats.get(t.code);
      return tableItem(t, mine ? "Your seat" : "Watch", mine ? `/t/${encodeURIComponent(t.code)}` : t.watch);
    }),
  );
  $("#watch-empty").hidden = lobby.playing.length > 0;
}

setupPlayNow();
refresh();
setInterval(() => {
  if (!document.hidden) refresh();
}, REFRESH);
document.addEventListener("visibilitychange", () => {
  if (!document.hidden) refresh();
});
