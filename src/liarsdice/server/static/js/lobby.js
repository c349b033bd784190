// The table's header (its title, status and invitation code) and the lobby below it: who is
// waiting, which controls show, and what shows while the connection is down. The page's state is
// lent once by `bindLobby`, which also wires the invitation's copy buttons.

import { $, copyText, fill, h, plural } from "./common.js";
import { refreshHostButtons } from "./host.js";
import { link } from "./link.js";
import { renderResult } from "./reveal.js";
import { renderRulesBox } from "./rulesbox.js";
import { renderRename } from "./seatname.js";
import { isMyTurn, renderSeats } from "./seats.js";

let S, CODE;

/** Lend this module the table page's state (once, before any render). */
export function bindLobby(page) {
  ({ S, CODE } = page);
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
}

export function renderTable() {
  const t = S.table;
  if (!t) return;
  const title = t.title || t.preset || "Table";
  $("#title").textContent = title;
  const status = { open: "Waiting for players", playing: "Playing", finished: "Game over" }[t.status] || t.status;
  $("#status-badge").textContent = status;
  $("#status-badge").className = `badge ${t.status === "playing" ? "accent" : t.status === "finished" ? "gold" : ""}`;
  $("#rated-badge").textContent = t.rated ? (t.bots_rated ? "Rated (bots allowed)" : "Rated") : "Casual";
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
      : t.host_seat === -1
        ? "Play now: the game starts by itself when every player has the table open."
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
export function renderConnection() {
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
