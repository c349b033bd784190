// The odds panel of the table page: how likely the standing bid is to hold (and to be exactly
// right, where exact calls exist) and the bids this person might make next, as the server
// counts them from this seat's own view (`odds` in docs/protocol.md: the page has no rules
// engine). Off until the person opens it; the choice is remembered in the browser.

import { $, bidWords, die, fill, h, prefs } from "./common.js";
import { exactWord } from "./rules.js";

let S, link, options;
// What this socket last asked for (the server counts odds per socket): null, nothing yet.
let asked = null;

/** Lend this module the table page's state and helpers (once, before any render). */
export function bindOdds(page) {
  ({ S, link, options } = page);
  $("#odds-toggle").addEventListener("click", () => {
    prefs.odds = !prefs.odds;
    askOdds();
    renderOdds();
  });
  // The choice is the browser's: opened or closed in another tab at this seat (which took the
  // seat over, say), it holds here too, and this socket asks for it at once.
  window.addEventListener("storage", (event) => {
    if (event.key !== "liarsdice:odds" && event.key !== null) return;
    askOdds();
    renderOdds();
  });
}

/** Tell the server whether to send this seat's odds with its turns: it counts them only for a
 * seat that asked, on the socket that asked. */
function askOdds() {
  const want = !!prefs.odds;
  if (link.isOpen() && link.send({ type: "odds", show: want })) asked = want;
}

/** A new socket: it has asked for nothing; ask again for the odds if the panel is open. */
export function oddsOnWelcome() {
  asked = null;
  if (prefs.odds) askOdds();
}

function cell(b, wild) {
  return h(
    "span",
    { class: "odds-cell", title: b.how, "data-bid": `${b.bid[0]}x${b.bid[1]}`, "aria-label": `${bidWords(b.bid[0], b.bid[1])}: ${b.holds}` },
    h("span", { class: "odds-bid" }, `${b.bid[0]} ×`, die(b.bid[1], { size: "small", wild: b.bid[1] === wild })),
    h("span", { class: "odds-p", text: b.holds }),
  );
}

export function renderOdds() {
  const g = S.game;
  const odds = g?.odds ?? null;
  const toggle = $("#odds-toggle");
  const panel = $("#odds-panel");
  const playing = !!(g && g.legal && g.phase !== "over"); // this seat's turn (or vote)
  toggle.hidden = !playing;
  const open = playing && prefs.odds;
  toggle.setAttribute("aria-expanded", open ? "true" : "false");
  toggle.textContent = open ? "Hide odds" : "Odds";
  panel.hidden = !open;
  if (!open) return;
  // Open, but this socket never asked (the panel was opened in another tab, or before this
  // socket took the seat): ask now, so it does not wait at "Counting…" for a toggle.
  if (asked !== true) askOdds();
  if (!odds) {
    fill(panel, h("h3", { class: "odds-title", text: "Odds" }), h("p", { class: "small muted", text: "Counting…" }));
    return;
  }
  const wild = g.wild ?? null;
  const word = g.words?.bid || "bid";
  const rows = [];
  const s = odds.standing;
  if (s) {
    const line = [h("span", { class: "muted", text: `Standing ${word} ` }), cell(s, wild), h("span", { class: "muted", text: " holds" })];
    if (odds.exact) {
      line.push(h("span", { class: "muted odds-exact-label", text: ` · exactly right (${g.words?.exact || exactWord(options())}): ` }), h("span", { class: "odds-p", id: "odds-exactly", text: s.exactly }));
    }
    rows.push(h("p", { class: "odds-standing", id: "odds-standing" }, line));
  }
  if (odds.bids.length) {
    const byFace = new Map();
    for (const b of odds.bids) {
      if (!byFace.has(b.bid[1])) byFace.set(b.bid[1], []);
      byFace.get(b.bid[1]).push(b);
    }
    rows.push(h("p", { class: "small muted odds-next-title", text: `Your next ${word}: the lowest on each face, and two above it` }));
    rows.push(h("div", { class: "odds-grid", id: "odds-grid" }, [...byFace.values()].map((bids) => h("div", { class: "odds-row" }, bids.map((b) => cell(b, wild))))));
  } else if (s) {
    rows.push(h("p", { class: "small muted", text: `No ${word} of yours to weigh now.` }));
  }
  rows.push(h("p", { class: "small odds-how", id: "odds-how", text: odds.how }));
  fill(panel, h("h3", { class: "odds-title", text: "Odds" }), h("p", { class: "small muted odds-note", text: "Your cup and the pushed dice are known; every other die is even odds on each face. Counted exactly." }), rows);
}
