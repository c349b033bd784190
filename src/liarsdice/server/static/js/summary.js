// The end of a game at the table (docs/lobby.md): who lost which dice to what, each player's
// accuracy once the best bot's analysis is ready, the rating changes of a rated game, and, at a
// table with no host (Play now), everyone's Rematch with who has asked.

import { $, api, bidWords, fill, h, parseBid } from "./common.js";

const ANALYSIS_TRIES = 8; // asks for an analysis still being made...
const ANALYSIS_EVERY = 4000; // ...this many ms apart

const shown = { game: null, record: null, analysis: null, analysisNote: "", ratings: null, tries: 0, timer: null };

function bidText(bid) {
  const b = parseBid(bid);
  return b ? bidWords(b[0], b[1]) : String(bid ?? "");
}

const dice = (n) => (n === 1 ? "a die" : `${n} dice`);

/** One line per die lost in a round, in players' words. */
export function roundLines(round) {
  const before = round.dice_before || {};
  const after = round.dice_after || {};
  const bid = bidText(round.bid);
  const why = (name) => {
    if (round.kind === "challenge" && name === round.caller) return `challenging ${round.target}'s ${bid}`;
    if (round.kind === "challenge") return `to ${round.caller}'s challenge of ${bid}`;
    if (round.kind === "exact" && name === round.caller) return `calling spot on ${bid}`;
    if (round.kind === "exact") return `to ${round.caller}'s spot on ${bid}`;
    return round.kind === "folds" ? "(everyone else folded)" : `(${round.kind})`;
  };
  const lines = [];
  for (const [name, had] of Object.entries(before)) {
    const lost = had - (after[name] ?? had);
    if (lost > 0) lines.push(`Round ${round.round}: ${name} lost ${dice(lost)} ${why(name)}.`);
  }
  // A game of one round, or a round won on chips: the loser loses the round, not a die.
  if (!lines.length && round.round_loser) lines.push(`Round ${round.round}: ${round.round_loser} lost the round ${why(round.round_loser)}.`);
  if (round.kind === "exact" && round.exact_hit) lines.push(`Round ${round.round}: ${round.caller} was spot on with ${bid}.`);
  return lines;
}

async function fetchAll(gameId) {
  try {
    shown.record = await api(`/api/games/${gameId}`);
  } catch {
    shown.record = null;
  }
  draw();
  fetchRatings(gameId);
  fetchAnalysis(gameId);
}

async function fetchRatings(gameId) {
  if ($("#summary")?.dataset.ratings !== "1") return; // this server rates no game
  try {
    const answer = await api(`/api/games/${gameId}/ratings`);
    shown.ratings = answer && answer.rated ? answer : null;
  } catch {
    shown.ratings = null; // no ratings here (a casual game, or a server without them)
  }
  if (shown.game === gameId) draw();
}

async function fetchAnalysis(gameId) {
  shown.tries += 1;
  let answer = null;
  try {
    answer = await api(`/api/games/${gameId}/analysis`);
  } catch {
    shown.analysisNote = "";
    if (shown.game === gameId) draw();
    return;
  }
  if (shown.game !== gameId) return;
  if (answer && Array.isArray(answer.summary)) {
    shown.analysis = answer;
    shown.analysisNote = "";
  } else if (shown.tries < ANALYSIS_TRIES) {
    shown.analysisNote = "Accuracy: analysis in progress…";
    shown.timer = setTimeout(() => fetchAnalysis(gameId), ANALYSIS_EVERY);
  } else shown.analysisNote = "Accuracy: the analysis is not ready yet; the replay will show it.";
  draw();
}

function draw() {
  const box = $("#summary");
  if (!box) return;
  const items = [];
  for (const round of shown.record?.rounds || []) items.push(...roundLines(round).map((t) => h("li", { text: t })));
  const accuracy = (shown.analysis?.summary || [])
    .filter((s) => s.judged)
    .map((s) => h("li", { text: `${s.seat}: ${Math.round(s.accuracy)}% accuracy` }));
  const ratings = (shown.ratings?.changes || []).map((c) =>
    h("li", { text: `${c.name}: ${c.before}${c.provisional ? "?" : ""} → ${c.after} (${c.delta >= 0 ? "+" : "−"}${Math.abs(c.delta)})` }),
  );
  fill(
    box,
    h("h3", { text: "How the dice went" }),
    items.length ? h("ul", { class: "lines small", id: "summary-rounds" }, items) : h("p", { class: "small muted", text: "…" }),
    accuracy.length ? [h("h3", { text: "Accuracy" }), h("ul", { class: "lines small", id: "summary-accuracy" }, accuracy)] : null,
    shown.analysisNote ? h("p", { class: "small muted", id: "summary-analysis-note", text: shown.analysisNote }) : null,
    ratings.length ? [h("h3", { text: "Ratings" }), h("ul", { class: "lines small", id: "summary-ratings" }, ratings)] : null,
    shown.game ? h("p", { class: "small" }, h("a", { href: `/replay/${encodeURIComponent(shown.game)}`, text: "Replay this game" })) : null,
  );
}

/** Fill the summary of the game that just ended (once per game; the asks go on by themselves). */
export function renderSummary(gameId) {
  if (!gameId || shown.game === gameId) return;
  clearTimeout(shown.timer);
  Object.assign(shown, { game: gameId, record: null, analysis: null, analysisNote: "", ratings: null, tries: 0 });
  draw();
  fetchAll(gameId);
}

/** The rematch row at a table with no host: every seated person asks; shows who has. */
export function rematchForAll(S, row, send) {
  const table = S.table;
  const asked = new Set(table.rematch_asked || []);
  const people = table.seats.filter((s) => s.kind === "human");
  const waitingFor = people.filter((s) => !asked.has(s.seat)).map((s) => s.name);
  const me = S.me.seat;
  const mine = me !== null && me !== undefined && people.some((s) => s.seat === me);
  const askedNames = people.filter((s) => asked.has(s.seat)).map((s) => s.name);
  fill(
    row,
    mine
      ? h("button", {
          type: "button",
          class: "primary",
          id: "rematch",
          text: asked.has(me) ? "Rematch asked" : "Rematch",
          disabled: asked.has(me),
          onclick: () => send({ type: "rematch" }, "rematch"),
        })
      : null,
    h("span", {
      class: "small muted",
      id: "rematch-who",
      text: askedNames.length
        ? `Asked: ${askedNames.join(", ")}. Waiting for ${waitingFor.join(", ")}.`
        : "A new game starts when every player seated asks for a rematch (the bots stay).",
    }),
  );
}
