// The history page: finished games, each with its replay and its record to download.

import { $, api, fill, formatDate, h, plural } from "./common.js";
import { forfeitLine } from "./forfeit.js";

function names(list) {
  if (!Array.isArray(list)) return [];
  return list.map((x) => (typeof x === "string" ? x : x && x.name ? x.name : String(x)));
}

function gameItem(g) {
  const players = names(g.seats);
  const winners = new Set(names(g.winners));
  const who = [];
  players.forEach((n, i) => {
    if (i) who.push(", ");
    who.push(winners.has(n) ? h("strong", { title: "winner", text: `${n} ★` }) : n);
  });
  const when = formatDate(g.finished || g.started);
  return h(
    "li",
    { "data-game": g.id },
    h(
      "div",
      { class: "game-meta" },
      h("div", { class: "title" }, `${g.title || g.preset || "Game"} `, h("span", { class: "small muted", text: `#${g.id}` })),
      h("div", { class: "small" }, who),
      g.forfeit?.seat ? h("div", { class: "small forfeit-line", text: forfeitLine(g.forfeit.seat, g.forfeit.reason) }) : null,
      h(
        "div",
        { class: "small muted", text: [when, g.rounds !== undefined && g.rounds !== null ? plural(g.rounds, "round") : null, g.table ? `table ${g.table}` : null].filter(Boolean).join(" · ") },
      ),
    ),
    h(
      "div",
      { class: "row" },
      h("a", { class: "button primary", href: `/replay/${encodeURIComponent(g.id)}`, text: "Replay", "aria-label": `Replay game ${g.id}` }),
      h("a", { class: "button", href: `/api/games/${encodeURIComponent(g.id)}?download=1`, download: `liarsdice-game-${g.id}.json`, text: "Download", "aria-label": `Download the record of game ${g.id}` }),
    ),
  );
}

async function load() {
  let games;
  try {
    games = await api("/api/games");
  } catch (e) {
    const err = $("#history-error");
    err.textContent = `The history could not be loaded: ${e.message}`;
    err.hidden = false;
    return;
  }
  $("#history-empty").hidden = games.length > 0;
  $("#history-count").textContent = games.length ? plural(games.length, "game") : "";
  fill($("#games"), games.map(gameItem));
}

load();
