// "What would the best bot do?" on the table page: at this person's turn, the server's best bot
// judges every move open to their seat from their own view (`hint` in docs/protocol.md) and the
// panel lists them best first: the value of each in dice (or chips), how often the bot plays it
// (its mix), and where the judgement comes from (exact, or the multi-seat level's estimate).
// The hint holds for the turn it was asked at: once the game moves on, it goes.

import { $, fill, h } from "./common.js";
import { percent, sourceLine, sourceWord, valueText } from "./judgement.js";

let S, link;
// The hint asked for: its ref, the turn it is for ("game:step"), and what came back.
const H = { ref: null, turn: null, asking: false, hint: null, error: null };

/** Lend this module the table page's state and socket (once, before any render). */
export function bindHint(page) {
  ({ S, link } = page);
  $("#hint-ask").addEventListener("click", askHint);
}

const turnOf = (g) => (g ? `${g.game_id}:${g.version}` : null);

function askHint() {
  const g = S.game;
  if (!g || !g.legal || H.asking) return;
  H.ref = ++S.ref;
  H.turn = turnOf(g);
  H.hint = null;
  H.error = null;
  H.asking = link.send({ type: "hint", ref: H.ref });
  if (!H.asking) H.error = "Not connected: the hint cannot be asked now.";
  renderHint();
}

/** The server's answer (`hint`): shown if it is for the turn still standing. */
export function onHint(msg) {
  if (msg.ref !== H.ref) return;
  H.asking = false;
  if (`${msg.game_id}:${msg.version}` === H.turn) H.hint = msg.hint;
  renderHint();
}

/** A refusal of the hint asked for, said in its panel; whether it was one. */
export function hintError(msg) {
  if (H.ref === null || msg.ref !== H.ref) return false;
  H.asking = false;
  H.error = msg.message || "The hint was refused.";
  renderHint();
  return true;
}

function moveRow(m, best, unit) {
  return h(
    "tr",
    { class: m.move === best ? "hint-best" : "" },
    h("th", { scope: "row", text: m.move }),
    h("td", { class: "num", text: valueText(m.value, unit) }),
    h("td", { class: "num", text: m.chance > 0 ? percent(m.chance) : "never" }),
    h("td", { class: "num", text: m.holds === null || m.holds === undefined ? "" : percent(m.holds) }),
  );
}

export function renderHint() {
  const g = S.game;
  const playing = !!(g && g.legal && g.phase !== "over"); // this seat's turn (or vote)
  const button = $("#hint-ask");
  const panel = $("#hint-panel");
  button.hidden = !playing;
  if (!playing || H.turn !== turnOf(g)) {
    // A new turn: the last hint no longer holds (an answer still coming is not shown).
    H.turn = null;
    H.hint = null;
    H.error = null;
    H.asking = false;
    button.disabled = false;
    panel.hidden = true;
    return;
  }
  button.disabled = H.asking;
  panel.hidden = false;
  const title = h("h3", { class: "hint-title", text: "What would the best bot do?" });
  if (H.asking) return void fill(panel, title, h("p", { class: "small muted", text: "The best bot is thinking…" }));
  if (H.error) return void fill(panel, title, h("p", { class: "error-text small", role: "alert", text: H.error }));
  const hint = H.hint;
  if (!hint) return void fill(panel);
  // Its mix as a sentence: the moves it plays at least one time in twenty, then how many more.
  const mix = hint.moves.filter((m) => m.chance > 0).sort((a, b) => b.chance - a.chance);
  const main = mix.filter((m) => m.chance >= 0.05);
  const rare = mix.length - main.length;
  let says =
    mix.length > 1
      ? `It mixes ${main.map((m) => `${m.move} (${percent(m.chance)})`).join(", ")}${rare ? `, and ${rare} more now and then` : ""}.`
      : `It plays ${mix.length ? mix[0].move : hint.best}.`;
  if (mix.length !== 1 || mix[0].move !== hint.best) says += ` Best by value: ${hint.best}.`;
  fill(
    panel,
    title,
    h("p", { class: "hint-says", id: "hint-says" }, h("strong", { text: says }), " ", h("span", { class: `badge source-${sourceWord(hint.source)}`, text: sourceWord(hint.source) })),
    h(
      "div",
      { class: "table-scroll" },
      h(
        "table",
        { class: "hint-moves", id: "hint-moves" },
        h("thead", {}, h("tr", {}, h("th", { scope: "col", text: "Move" }), h("th", { scope: "col", text: "Value" }), h("th", { scope: "col", text: "Plays it" }), h("th", { scope: "col", text: "Holds" }))),
        h("tbody", {}, hint.moves.map((m) => moveRow(m, hint.best, hint.unit))),
      ),
    ),
    h("p", { class: "small muted hint-how", text: `${sourceLine(hint.source)} Value: the ${hint.unit === "chips" ? "chips" : "dice"} the move is worth to you, higher is better. Holds: the chance, from what you can see, that the bid made or challenged is true.` }),
  );
}
