// The ladder page: per preset, the bots by rating, each with its latest games to replay.

import { $, api, fill, formatDate, h, ordinal, plural } from "./common.js";

const REFRESH_MS = 15000; // the ladder plays on while the page is open

const fixed = (x, digits) => (typeof x === "number" && Number.isFinite(x) ? x.toFixed(digits) : "–");

function kindWord(kind) {
  return { anchor: "built-in level (anchor)", operator: "the server's program", account: "bot account" }[kind] || kind;
}

function gameItem(bot, g) {
  const others = (g.seats || []).filter((n) => n !== bot.name);
  const place = typeof g.place === "number" ? (g.place === 1 ? "won" : `${ordinal(g.place)} place`) : "no result";
  return h(
    "li",
    { "data-game": g.id },
    h(
      "div",
      { class: "game-meta" },
      h("div", { class: "small" }, g.place === 1 ? h("strong", { text: `${place} ★` }) : place, others.length ? ` against ${others.join(", ")}` : ""),
      h("div", { class: "small muted", text: [formatDate(g.finished), g.rounds != null ? plural(g.rounds, "round") : null, `#${g.id}`].filter(Boolean).join(" · ") }),
    ),
    h("a", { class: "button", href: `/replay/${encodeURIComponent(g.id)}`, text: "Replay", "aria-label": `Replay game ${g.id}` }),
  );
}

function botRows(bot, rank, preset) {
  const row = h(
    "tr",
    { "data-key": `${preset} ${bot.entrant}` },
    h("td", { text: String(rank) }),
    h("td", {}, h("strong", { text: bot.name }), h("div", { class: "small muted", text: kindWord(bot.kind) })),
    h("td", { text: fixed(bot.ordinal, 1) }),
    h("td", { text: fixed(bot.mu, 1) }),
    h("td", { text: fixed(bot.sigma, 2) }),
    h("td", { text: String(bot.games) }),
    h("td", { text: `${bot.wins}${bot.games ? ` (${Math.round((100 * bot.wins) / bot.games)}%)` : ""}` }),
  );
  const games = bot.recent || [];
  const details = h(
    "tr",
    { class: "ladder-games" },
    h(
      "td",
      { colspan: "7" },
      h(
        "details",
        { class: "more" },
        h("summary", { text: games.length ? `${bot.name}: the latest ${plural(games.length, "game")}` : `${bot.name}: no game listed yet` }),
        h("ul", { class: "games-list" }, games.map((g) => gameItem(bot, g))),
      ),
    ),
  );
  return [row, details];
}

function board(b) {
  return h(
    "section",
    { class: "ladder-board", "aria-label": `${b.title} ladder` },
    h("h2", { text: `${b.title} (${plural(b.bots.length, "bot")})` }),
    h(
      "div",
      { class: "table-scroll" },
      h(
        "table",
        { class: "plain" },
        h(
          "thead",
          {},
          h(
            "tr",
            {},
            h("th", { scope: "col", text: "#" }),
            h("th", { scope: "col", text: "Bot" }),
            h("th", { scope: "col", text: "μ − 3σ", title: "the rating bots are ranked by" }),
            h("th", { scope: "col", text: "μ" }),
            h("th", { scope: "col", text: "σ" }),
            h("th", { scope: "col", text: "Games" }),
            h("th", { scope: "col", text: "Wins" }),
          ),
        ),
        h("tbody", {}, b.bots.map((bot, i) => botRows(bot, i + 1, b.preset))),
      ),
    ),
  );
}

let chosen = new URLSearchParams(location.search).get("preset") || "";

function presetChoice(data) {
  const names = [...new Set([...(data.presets || []), ...data.boards.map((b) => b.preset)])];
  const select = $("#ladder-preset");
  fill(select, h("option", { value: "", text: "Every preset" }), names.map((n) => h("option", { value: n, text: n, selected: n === chosen })));
  select.value = names.includes(chosen) ? chosen : "";
}

async function load() {
  const err = $("#ladder-error");
  let data;
  try {
    data = await api("/api/ladder");
  } catch (e) {
    err.textContent = `The ladder could not be loaded: ${e.message}`;
    err.hidden = false;
    return;
  }
  err.hidden = true;
  // Open game lists stay open across a refresh.
  const open = new Set([...document.querySelectorAll("tr.ladder-games details[open]")].map((d) => d.closest("tr").previousElementSibling.dataset.key));
  presetChoice(data);
  const boards = data.boards.filter((b) => !chosen || b.preset === chosen);
  $("#ladder-status").textContent = data.running ? `running: ${data.presets.join(", ")}, ${data.seats} seats a table` : "not running on this server";
  $("#ladder-empty").hidden = boards.length > 0;
  fill($("#boards"), boards.map(board));
  for (const tr of document.querySelectorAll("#boards tr[data-key]")) {
    if (open.has(tr.dataset.key)) tr.nextElementSibling.querySelector("details").open = true;
  }
}

$("#ladder-preset").addEventListener("change", (e) => {
  chosen = e.target.value;
  const url = new URL(location.href);
  if (chosen) url.searchParams.set("preset", chosen);
  else url.searchParams.delete("preset");
  history.replaceState(null, "", url);
  load();
});

load();
setInterval(load, REFRESH_MS);
