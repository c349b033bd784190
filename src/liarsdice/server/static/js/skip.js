// "Skip to the end": once every player still in is one of the server's bots (the person is out,
// or watches bots play on), the rest of the game can be played at once (the `finish` message,
// docs/protocol.md): no bot pace, no reveal pauses, straight to the result.

import { $, capitalize } from "./common.js";

let S, link, mySeat;
const asked = new Set(); // refs of the `finish` messages this page sent

export function bindSkip(page) {
  ({ S, link, mySeat } = page);
  $("#skip-end").addEventListener("click", skip);
}

/** Whether only the server's bots are still in the game being played. */
export function onlyBotsLeft(game, table) {
  if (!game || !table || game.phase === "over" || game.result) return false;
  const still = (game.active || []).flatMap((inGame, seat) => (inGame ? [seat] : []));
  return still.length > 0 && still.every((seat) => table.seats?.[seat]?.kind === "bot");
}

export function renderSkip() {
  const on = onlyBotsLeft(S.game, S.table);
  $("#skip-box").hidden = !on;
  if (!on) {
    asked.clear();
    $("#skip-end").disabled = false;
    $("#skip-error").hidden = true;
    return;
  }
  const me = mySeat();
  const out = me !== null && S.game.active?.[me] === false;
  const shed = S.table?.options?.goal === "shedding";
  $("#skip-text").textContent = `${out ? (shed ? "You are finished" : "You are out") + ": only bots are still playing." : "Only bots are still playing."} Watch them, or skip to the final ranking.`;
  $("#skip-end").disabled = asked.size > 0 || !link.isOpen();
}

function skip() {
  const ref = ++S.ref;
  const error = $("#skip-error");
  if (!link.isOpen() || !link.send({ type: "finish", ref })) {
    error.textContent = "You are not connected. Try again when the connection is back.";
    error.hidden = false;
    return;
  }
  asked.add(ref);
  error.hidden = true;
  $("#skip-end").disabled = true;
}

/** A refused skip is said under its button; whether `msg` was the answer to one. */
export function skipError(msg) {
  if (msg.ref === null || msg.ref === undefined || !asked.delete(msg.ref)) return false;
  const error = $("#skip-error");
  error.textContent = `${capitalize(msg.message || "The game could not be skipped")}.`;
  error.hidden = false;
  $("#skip-end").disabled = false;
  return true;
}
