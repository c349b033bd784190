// The seats of the table page: who sits where, whose turn it is, and the list of seats with
// their dice, badges and turn timer. The page's state is lent once by `bindSeats`.

import { $, die, fill, h, plural } from "./common.js";
import { levelName } from "./botlevels.js";
import { timerBar } from "./timer.js";

let S;

/** Lend this module the table page's state (once, before any render). */
export function bindSeats(page) {
  ({ S } = page);
}

export function seatName(i) {
  const t = S.table?.seats?.[i];
  if (S.game?.seats?.[i]) return S.game.seats[i];
  return t?.name || `Seat ${i + 1}`;
}

export function seatCount() {
  return S.game?.seats?.length || S.table?.seats?.length || 0;
}

export function options() {
  return S.table?.options || null;
}

export function mySeat() {
  return S.me.role === "player" ? S.me.seat : null;
}

export function isMyTurn() {
  const g = S.game;
  return !!(g && g.legal && g.phase !== "over" && mySeat() !== null && g.to_act === mySeat());
}

export function renderSeats() {
  const t = S.table;
  const g = S.game;
  const n = t ? t.seats.length : g ? g.seats.length : 0;
  const me = mySeat();
  const items = [];
  for (let i = 0; i < n; i += 1) {
    const ts = t?.seats?.[i] || {};
    const name = ts.kind === "empty" ? "Empty seat" : seatName(i);
    const toAct = !!(g && g.phase !== "over" && g.to_act === i);
    const out = !!(g && g.active && g.active[i] === false);
    const classes = ["seat", toAct && "to-act", i === me && "me", out && "out", ts.kind === "empty" && "empty"].filter(Boolean).join(" ");
    const top = h("div", { class: "seat-top" });
    if (ts.kind === "human") {
      top.appendChild(h("span", { class: `dot${ts.connected ? "" : " away"}`, role: "img", "aria-label": ts.connected ? "connected" : "away", title: ts.connected ? "connected" : "away" }));
    }
    top.appendChild(h("span", { class: "seat-name", text: name }));
    if (i === me) top.appendChild(h("span", { class: "badge accent", text: "you" }));
    if (t && i === t.host_seat && ts.kind !== "empty") top.appendChild(h("span", { class: "badge", text: "host" }));
    if (ts.kind === "bot") top.appendChild(h("span", { class: "badge", text: `bot${ts.bot_level ? ` · ${levelName(ts.bot_level)}` : ""}` }));
    if (ts.bot_account) top.appendChild(h("span", { class: "badge", text: "bot", title: `the bot account ${ts.bot_account}` }));
    if (ts.kind === "human" && !ts.connected) top.appendChild(h("span", { class: "badge", text: "away" }));
    if (ts.auto) top.appendChild(h("span", { class: "badge gold", text: "auto", title: "a bot plays for this seat for now" }));
    if (toAct) top.appendChild(h("span", { class: "badge accent", text: g.phase === "vote" ? "votes" : "to act" }));

    const info = h("div", { class: "seat-info" });
    if (g && g.dice) {
      const count = g.dice[i] ?? 0;
      if (out) info.appendChild(h("span", { class: "badge danger", text: options()?.goal === "shedding" ? "finished" : "out" }));
      else {
        // `dice` counts the whole hand: the pushed dice are part of it, shown face up.
        const pushed = g.pushed?.[i] || [];
        const hidden = Math.max(0, count - pushed.length);
        const icons = hidden <= 8 ? Array.from({ length: hidden }, () => h("span", { class: "die tiny hidden-die", "aria-hidden": "true" })) : [];
        const under = `${hidden} under the cup`;
        info.appendChild(h("span", { class: "dice", "aria-label": pushed.length ? under : plural(count, "die", "dice"), role: "img" }, icons, hidden > 8 || count === 0 ? ` ${hidden}` : null));
        if (pushed.length) {
          info.appendChild(h("span", { class: "dice pushed-dice", title: "pushed: shown to everyone" }, pushed.map((f) => die(f, { size: "tiny", wild: f === g.wild }))));
        }
        info.appendChild(h("span", { class: "dice-count", text: pushed.length ? `${plural(count, "die", "dice")} (${pushed.length} pushed)` : plural(count, "die", "dice") }));
      }
      if (g.passed?.[i]) info.appendChild(h("span", { class: "badge", text: "passed" }));
      if (g.exact_used?.[i] && options()?.exact_limit === "once_per_game") info.appendChild(h("span", { class: "badge", text: `${g.words?.exact || "exact"} used` }));
      if (g.chips) info.appendChild(h("span", { text: plural(g.chips[i], "chip") }));
      if (g.paid && g.paid[i]) info.appendChild(h("span", { text: `paid ${g.paid[i]}` }));
      if (g.folded?.[i]) info.appendChild(h("span", { class: "badge danger", text: "folded" }));
    }
    const li = h("li", { class: classes, "data-seat": i, "aria-current": toAct ? "true" : null }, top, info.childNodes.length ? info : null);
    if (toAct && g.deadline) li.appendChild(timerBar(g.deadline));
    items.push(li);
  }
  fill($("#seats"), items);
}
