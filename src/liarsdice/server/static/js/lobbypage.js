// The site lobby (/lobby, docs/lobby.md): Play now (playnow.js), and, refreshed every few
// seconds, the open tables to join, the games in play to watch and how many people are online.

import { $, api, fill, plural, seats } from "./common.js";
import { setupPlayNow } from "./playnow.js";
import { tableItem } from "./tableitem.js";

const REFRESH = 3000; // ms

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
      return tableItem(t, { label: mine ? "Your seat" : `Join (${t.empty} free)`, href: `/t/${encodeURIComponent(t.code)}` });
    }),
  );
  $("#open-empty").hidden = lobby.open.length > 0;
  fill(
    $("#watching"),
    lobby.playing.map((t) => {
      const mine = seats.get(t.code);
      return tableItem(t, { label: mine ? "Your seat" : "Watch", href: mine ? `/t/${encodeURIComponent(t.code)}` : t.watch });
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
