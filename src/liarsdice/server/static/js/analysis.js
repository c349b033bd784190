// The best bot's analysis on the replay page (docs/replay.md): each judged move's mark in the
// move list, the card of the move the replay is at (its value against the best move's, the loss,
// the chance the bid held from the player's own view, and whether that is exact or an estimate),
// a chart of each seat's standing that jumps to a point, and a summary a seat.
//
// The server makes the analysis in the background (GET /api/games/{id}/analysis answers 202
// while it waits or runs): the page asks again every few seconds until it is there. Polling,
// not a socket: the replay has no socket, and the analysis may be made by another of the
// server's processes, which only the database (which the route reads) hears of.

import { $, fill, h } from "./common.js";
import { MARKS, percent, sourceLine, sourceWord, valueText } from "./judgement.js";
import { drawStandingChart, seatColour } from "./standingchart.js";

let page; // { go(step), where(step) }: lent by replay.js
let A = null; // the analysis, once made
const byStep = new Map(); // record step -> decision
let markChart = () => {};
let current = null; // the step the replay is at (its last move), for when the analysis comes

/** Lend this module the replay's ways to go to a step and to name one (once, before loading). */
export function bindAnalysis(p) {
  page = p;
}

/** The mark of the move at record step `step` ({sign, word, mark}), or null. */
export function markOf(step) {
  const d = byStep.get(step);
  return d && d.judged && d.mark && MARKS[d.mark] ? { ...MARKS[d.mark], mark: d.mark } : null;
}

/** The badge of a move's mark, for the move list; null for an unmarked move. */
export function markBadge(step) {
  const m = markOf(step);
  return m ? h("span", { class: `mark mark-${m.mark}`, title: m.word, "aria-label": m.word, text: m.sign }) : null;
}

function status(text, busy = false) {
  const box = $("#analysis-status");
  box.textContent = text;
  box.hidden = !text;
  box.classList.toggle("busy", busy);
}

/** Fetch the game's analysis, asking again while it is being made; `done()` once it is here. */
export async function loadAnalysis(gameId, done) {
  $("#analysis").hidden = false;
  status("Analysing… the best bot is judging every move of this game.", true);
  let wait = 1000;
  for (;;) {
    let res, data;
    try {
      res = await fetch(`/api/games/${encodeURIComponent(gameId)}/analysis`, { headers: { Accept: "application/json" } });
      data = await res.json();
    } catch {
      status("The analysis could not be fetched: the server cannot be reached. Reload the page to try again.");
      return;
    }
    if (res.status === 200) {
      A = data;
      for (const d of A.decisions || []) byStep.set(d.step, d);
      status("");
      renderSummary();
      renderMoveAnalysis(current);
      done();
      return;
    }
    if (res.status !== 202) {
      const why = data && typeof data.detail === "string" ? data.detail : `${res.status} ${res.statusText}`;
      status(`No analysis: ${why}.`);
      $("#move-analysis").hidden = true;
      return;
    }
    await new Promise((resolve) => setTimeout(resolve, wait));
    wait = Math.min(4000, wait * 1.5);
  }
}

function row(label, value, id) {
  return h("div", { class: "fact", id }, h("dt", { text: label }), h("dd", {}, value));
}

function holdsLabel(d) {
  const kind = Array.isArray(d.action) ? d.action[0] : null;
  const what = kind === "challenge" || kind === "exact" ? "the bid challenged" : "the bid made";
  return `Chance ${what} was true, from ${d.seat}'s view`;
}

/** The card of the move at record step `step` (the replay's last move), or a word why there is none. */
export function renderMoveAnalysis(step) {
  current = step;
  const card = $("#move-analysis");
  if (!A) {
    card.hidden = true;
    return;
  }
  card.hidden = false;
  const title = h("h2", { id: "move-analysis-title", text: "The best bot's view" });
  const d = step === null || step === undefined ? null : byStep.get(step);
  if (!d) {
    fill(card, title, h("p", { class: "small muted", text: step === null || step === undefined ? "Step to a move (or pick one in the chart) to see what the best bot thinks of it." : "Nothing to judge here: no one chose this move." }));
    return;
  }
  const heading = h("p", { class: "move-judged-head" }, h("strong", { text: `${d.seat}: ${d.move}` }), " ", markBadge(step));
  if (!d.judged) {
    fill(card, title, heading, h("p", { class: "unjudged", id: "move-unjudged", text: `Not judged: ${d.reason || "the analysis cannot weigh this move"}.` }));
    return;
  }
  const unit = A.unit;
  const facts = [
    row("Move made", `${d.move} · ${valueText(d.value, unit)}`, "fact-made"),
    row("Best move", `${d.best} · ${valueText(d.best_value, unit)}`, "fact-best"),
    row("Cost against the best", d.loss > 0.004 ? `${d.loss.toFixed(2)} ${unit === "chips" ? "chips" : "dice"}` : "none: as good as the best", "fact-loss"),
  ];
  if (d.holds !== null && d.holds !== undefined) facts.push(row(holdsLabel(d), percent(d.holds), "fact-holds"));
  facts.push(row("Source", h("span", { class: `badge source-${sourceWord(d.source)}`, text: sourceWord(d.source) }), "fact-source"));
  // The best few it weighed, and the move made wherever it ranks.
  const all = d.moves || [];
  const others = all.slice(0, 5);
  const made = all.find((m) => m.move === d.move);
  if (made && !others.includes(made)) others.push(made);
  fill(
    card,
    title,
    heading,
    h("dl", { class: "facts" }, facts),
    h("p", { class: "small muted", text: sourceLine(d.source) }),
    others.length
      ? h(
          "div",
          { class: "table-scroll" },
          h(
            "table",
            { class: "hint-moves" },
            h("thead", {}, h("tr", {}, h("th", { scope: "col", text: "Move" }), h("th", { scope: "col", text: "Value" }), h("th", { scope: "col", text: "Plays it" }))),
            h(
              "tbody",
              {},
              others.map((m) => h("tr", { class: m.move === d.best ? "hint-best" : m.move === d.move ? "hint-made" : "" }, h("th", { scope: "row", text: m.move }), h("td", { class: "num", text: valueText(m.value, unit) }), h("td", { class: "num", text: m.chance > 0 ? percent(m.chance) : "never" }))),
            ),
          ),
        )
      : null,
  );
}

function summaryRow(s) {
  const turning = s.turning_point;
  return h(
    "tr",
    { "data-seat": s.seat },
    h("th", { scope: "row" }, h("span", { class: "swatch", style: `background:${seatColour(A.seats.indexOf(s.seat))}` }), s.seat),
    h("td", { class: "num", text: s.judged ? `${Math.round(s.accuracy)}%` : "—" }),
    h("td", { class: "num", text: s.inaccuracies }),
    h("td", { class: "num", text: s.mistakes }),
    h("td", { class: "num", text: s.blunders }),
    h("td", { class: "num", text: `${s.judged} of ${s.decisions}` }),
    h(
      "td",
      {},
      turning
        ? h("a", {
            href: "#",
            class: "turning-point",
            onclick: (ev) => {
              ev.preventDefault();
              page.go(turning.step);
            },
            text: `${page.where(turning.step)} (${valueText(-turning.loss, A.unit)})`,
          })
        : h("span", { class: "muted", text: "none" }),
    ),
  );
}

function renderSummary() {
  const t = A.thresholds || {};
  const unit = A.unit === "chips" ? "chips" : "dice";
  const win = A.standing?.[0]?.kind === "win";
  $("#analysis-chart-note").textContent = win
    ? "Each seat's chance of winning, as the best bot sees it from that seat, move by move."
    : `Each seat's expected ${unit} at the end of the round, as the best bot sees it from that seat, move by move.`;
  fill($("#analysis-legend"), A.seats.map((seat, i) => h("span", { class: "legend-item" }, h("span", { class: "swatch", style: `background:${seatColour(i)}` }), seat)));
  markChart = drawStandingChart($("#analysis-chart"), {
    seats: A.seats,
    standing: A.standing || [],
    unit: A.unit,
    label: (p) => page.where(p.step),
    pick: (step) => page.go(step),
  });
  markChart(current ?? -1);
  fill(
    $("#analysis-summary"),
    h(
      "thead",
      {},
      h(
        "tr",
        {},
        h("th", { scope: "col", text: "Seat" }),
        h("th", { scope: "col", class: "num", text: "Accuracy" }),
        Object.values(MARKS).map((m) => h("th", { scope: "col", class: "num" }, h("abbr", { title: `${m.word}s`, text: m.sign }))),
        h("th", { scope: "col", class: "num", text: "Judged" }),
        h("th", { scope: "col", text: "Turning point" }),
      ),
    ),
    h("tbody", {}, (A.summary || []).map(summaryRow)),
  );
  $("#analysis-thresholds").textContent =
    `A move is marked by what it lost against the best move: ?! an inaccuracy from ${t.inaccuracy} ${unit}, ? a mistake from ${t.mistake}, ?? a blunder from ${t.blunder}. ` +
    "Accuracy: 100% is every judged move as good as the best bot's (docs/analysis.md). A move the analysis cannot judge is said so, and never marked.";
}

/** The replay moved: the chart's mark follows it. */
export function followReplay(step) {
  markChart(step ?? -1);
}
