// The bot levels the server has (GET /api/bots), for the host's choice of a bot and for naming a
// seat's bot as players know it.

import { $, api, h } from "./common.js";

// The bot levels the server has, strongest first, the default chosen (the page lists their names
// until it has asked); the chosen level's whole sentence shows under the select.
let botLevels = [];

/** Ask the server for its bot levels; `onLoaded` runs once they are in the select. */
export async function loadBotLevels(onLoaded) {
  const select = $("#bot-level");
  try {
    botLevels = await api("/api/bots");
    const touched = select.dataset.touched === "1";
    const chosen = touched ? select.value : botLevels.find((b) => b.default)?.level;
    select.replaceChildren(...botLevels.map((b) => h("option", { value: b.level, text: b.name })));
    select.value = botLevels.some((b) => b.level === chosen) ? chosen : botLevels[0]?.level ?? "";
    onLoaded();
  } catch {
    // keep the built-in choices
  }
  showBotLevel();
}

export function showBotLevel() {
  const level = botLevels.find((b) => b.level === $("#bot-level").value);
  $("#bot-level-note").textContent = level ? level.description : "";
}

// A seat's bot as players know it: its level's name ("duel" is Master), else as the server says.
export function levelName(bot) {
  const key = String(bot).toLowerCase();
  return botLevels.find((b) => b.level === key || b.bot === key || b.aliases.includes(key))?.name ?? bot;
}
