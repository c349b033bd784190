// The replay page: a game record stepped through round by round and move by move, every die shown.

import { bindAnalysis, followReplay, loadAnalysis, markBadge, renderMoveAnalysis } from "./analysis.js";
import { $, api, bidWords, die, fill, formatDate, h, ordinal, parseBid, plural, wildFace } from "./common.js";
import { forfeitLine, forfeitResult } from "./forfeit.js";
import { describeAction, outcomeLines, rankingGroups, recordRounds, roundPosition } from "./rules.js";

const parts = location.pathname.split("/").filter(Boolean);
const GAME_ID = decodeURIComponent(parts[0] === "replay" && parts[1] ? parts[1] : parts[parts.length - 1] || "");

// `result`: the record's, or for a game a bot account forfeited (its record has none: the steps do
// not end the game) the forfeit's; `forfeit`: what to say of it.
const R = { record: null, rounds: [], positions: [], at: 0, result: null, forfeit: null };

function buildPositions() {
  R.positions = [];
  R.rounds.forEach((round, r) => {
    for (let k = 0; k <= round.steps.length; k += 1) R.positions.push({ r, k });
  });
  if (R.result) R.positions.push({ end: true });
}

function stepText(step) {
  if (step.kind === "reroll") return `${step.seat}'s cup is rerolled: ${step.faces.join(" ")}`;
  return describeAction(step.seat, step.action, R.record.options);
}

function roundSummary(round) {
  const o = round.outcome;
  if (!o) return R.forfeit && round === R.rounds[R.rounds.length - 1] ? `${R.forfeit.name} forfeited` : "not finished";
  const lines = outcomeLines(o, R.record.options).filter((l) => !/^Counted|^Votes/.test(l));
  return lines.slice(0, 2).join(" ");
}

function render() {
  const pos = R.positions[R.at];
  if (!pos) return;
  const atEnd = !!pos.end;
  const r = atEnd ? R.rounds.length - 1 : pos.r;
  const round = R.rounds[r];
  const k = atEnd ? round.steps.length : pos.k;
  const options = R.record.options || {};
  const o = round.outcome;
  const revealed = k === round.steps.length && !!o;
  const wild = o && o.one_die_round ? null : wildFace(options);
  const { hands, standing } = roundPosition(round, k);
  const bid = revealed ? parseBid(o.bid) : null;
  const counts = (f) => !!bid && (f === bid[1] || (wild !== null && bid[1] !== wild && f === wild));
  const last = k > 0 ? round.steps[k - 1] : null;

  $("#where").textContent = atEnd ? "The end" : `Round ${round.no} · move ${k} of ${round.steps.length}`;
  $("#round-title").textContent = `Round ${round.no}`;
  const badges = [];
  if (o && o.one_die_round) badges.push(h("span", { class: "badge gold", text: "one-die round" }));
  badges.push(h("span", { class: "badge", text: wild ? `${wild}s wild` : "no wilds" }));
  if (round.starter) badges.push(h("span", { class: "badge", text: `${round.starter} opens` }));
  fill($("#round-badges"), badges);

  const standingBox = $("#round-standing");
  if (standing) {
    fill(
      standingBox,
      h("span", { class: "muted", text: "Standing bid" }),
      h("span", { class: "big-bid", "aria-label": bidWords(standing[0], standing[1]) }, `${standing[0]} ×`, die(standing[1], { wild: standing[1] === wild })),
      h("span", { text: `by ${standing[2]}` }),
      revealed && o.count !== null && o.count !== undefined ? h("span", { class: "badge accent", text: `counted: ${o.count}` }) : null,
    );
  } else fill(standingBox, h("span", { class: "muted", text: "No bid yet." }));

  // Chips at the start of this round (economy games): the previous round's, or the starting chips.
  const econ = options.economy && options.economy !== "none" ? options.economy : null;
  const chipsAt = econ ? (r > 0 && R.rounds[r - 1].outcome?.chips_after) || null : null;
  const seatRows = (R.record.seats || []).map((name) => {
    const hand = hands[name];
    const out = !hand || (hand.cup.length === 0 && hand.pushed.length === 0);
    const acted = last && last.seat === name;
    const chips = econ ? (chipsAt?.[name] ?? (r === 0 ? econ.starting_chips : null)) : null;
    const delta = revealed && o.dice_before && name in o.dice_before ? (o.dice_after?.[name] ?? 0) - o.dice_before[name] : 0;
    return h(
      "div",
      { class: `replay-seat${acted ? " acted" : ""}${out ? " out" : ""}`, "data-name": name },
      h("span", { class: "who" }, h("strong", { text: name }), h("br"), h("span", {
          class: "small muted",
          text: [out ? (options.goal === "shedding" ? "finished" : "out") : plural(hand.cup.length + hand.pushed.length, "die", "dice"), econ && !out ? (chips === null ? "? chips" : plural(chips, "chip")) : null].filter(Boolean).join(" · "),
        })),
      out
        ? h("span", { class: "muted small", text: "—" })
        : h(
            "span",
            { class: "dice" },
            hand.cup.map((f) => die(f, { size: "small", wild: f === wild, counted: counts(f), dim: !!bid && !counts(f) })),
            hand.pushed.length
              ? h("span", { class: "dice pushed", "aria-label": "pushed" }, hand.pushed.map((f) => die(f, { size: "small", wild: f === wild, counted: counts(f), dim: !!bid && !counts(f) })))
              : null,
            delta ? h("span", { class: `delta ${(options.goal === "shedding" ? -delta : delta) < 0 ? "minus" : "plus"}`, text: `${delta > 0 ? "+" : "−"}${plural(Math.abs(delta), "die", "dice")}` }) : null,
          ),
    );
  });
  fill($("#round-seats"), seatRows);

  // Each move goes to itself when picked, with its mark once the analysis has come.
  const moves = round.steps.slice(0, k).map((s, i) =>
    h(
      "li",
      { class: i === k - 1 ? "current" : "", "data-step": s.index },
      h("a", { href: `#r${round.no}-${i + 1}`, class: "move-link", onclick: (ev) => (ev.preventDefault(), go(R.positions.findIndex((p) => p.r === r && p.k === i + 1))), text: stepText(s) }),
      markBadge(s.index),
    ),
  );
  if (!moves.length) moves.push(h("li", { class: "muted", text: "The dice are rolled." }));
  if (k < round.steps.length) moves.push(h("li", { class: "muted small", text: `${plural(round.steps.length - k, "more move")} to come` }));
  const movesList = $("#moves");
  fill(movesList, moves);
  scrollWithin(movesList, movesList.querySelector(".current"));

  const reveal = $("#round-reveal");
  reveal.hidden = !revealed;
  if (revealed) {
    $("#reveal-title").textContent = `Round ${round.no}: the reveal`;
    fill($("#reveal-body"), h("ul", { class: "lines" }, outcomeLines(o, options).map((l) => h("li", { text: l }))));
  }

  const final = $("#final");
  final.hidden = !atEnd;
  if (atEnd) renderResult();

  fill(
    $("#rounds"),
    R.rounds.map((rd, i) =>
      h(
        "li",
        { class: i === r ? "current" : "" },
        h("a", {
          href: `#r${rd.no}`,
          "aria-current": i === r ? "step" : null,
          onclick: (ev) => {
            ev.preventDefault();
            go(R.positions.findIndex((p) => p.r === i && p.k === 0));
          },
          text: `Round ${rd.no}`,
        }),
        h("span", { class: "small muted", text: ` · ${roundSummary(rd)}` }),
      ),
    ),
  );

  scrollWithin($("#rounds"), $("#rounds .current"));

  $("#prev-step").disabled = R.at === 0;
  $("#first-round").disabled = R.at === 0;
  $("#prev-round").disabled = R.at === 0;
  $("#next-step").disabled = R.at === R.positions.length - 1;
  $("#next-round").disabled = R.at === R.positions.length - 1;
  $("#last").disabled = R.at === R.positions.length - 1;
  // The analysis follows the replay: the card of its last move, the chart's mark.
  renderMoveAnalysis(last && !atEnd ? last.index : null);
  followReplay(atEnd ? Infinity : k > 0 ? last.index : round.index);
  const hash = atEnd ? "#end" : `#r${round.no}-${k}`;
  if (location.hash !== hash) history.replaceState(null, "", hash);
}

/** Scroll a list (not the page) so that `item` is in view. */
function scrollWithin(list, item) {
  if (!item) return;
  const top = item.offsetTop; // .log is positioned, so this is within the list
  if (top < list.scrollTop) list.scrollTop = top;
  else if (top + item.offsetHeight > list.scrollTop + list.clientHeight) list.scrollTop = top + item.offsetHeight - list.clientHeight;
}

function renderResult() {
  const result = R.result;
  const groups = rankingGroups(result);
  const why = $("#final-why");
  why.textContent = R.forfeit ? R.forfeit.line : "";
  why.hidden = !R.forfeit;
  fill(
    $("#ranking"),
    groups.map(([place, names]) =>
      h("li", { "data-place": place }, h("span", { class: "place", "aria-label": `${ordinal(place)} place`, text: place }), h("span", { class: "names", text: names.join(", ") + (names.length > 1 ? " (shared)" : "") })),
    ),
  );
  const lines = [];
  if (result.returns) lines.push(`Returns: ${Object.entries(result.returns).map(([n, v]) => `${n} ${v > 0 ? "+" : ""}${v}`).join(", ")}`);
  if (result.running_pot_award) lines.push(...Object.entries(result.running_pot_award).map(([n, v]) => `${n} takes the running pot of ${v}.`));
  if (result.chips) lines.push(`Chips: ${Object.entries(result.chips).map(([n, v]) => `${n} ${v}`).join(", ")}`);
  fill($("#final-lines"), lines.map((l) => h("li", { text: l })));
}

/** The position just after record step `step` (a move of a round, or the roll that starts it). */
function positionAfter(step) {
  let found = 0;
  R.positions.forEach((p, i) => {
    if (p.end) return;
    const round = R.rounds[p.r];
    const index = p.k > 0 ? round.steps[p.k - 1].index : round.index;
    if (index <= step) found = i;
  });
  return found;
}

/** Record step `step` in words: "Round 2, move 3". */
function stepWhere(step) {
  const p = R.positions[positionAfter(step)];
  return p.k > 0 ? `Round ${R.rounds[p.r].no}, move ${p.k}` : `Round ${R.rounds[p.r].no}, the roll`;
}

function go(i) {
  if (i < 0 || i >= R.positions.length) return;
  R.at = i;
  render();
}

function roundStart(r) {
  return R.positions.findIndex((p) => p.r === r && p.k === 0);
}

function prevRound() {
  const pos = R.positions[R.at];
  if (pos.end) return go(roundStart(R.rounds.length - 1));
  if (pos.k > 0) return go(roundStart(pos.r));
  if (pos.r > 0) go(roundStart(pos.r - 1));
}

function nextRound() {
  const pos = R.positions[R.at];
  if (pos.end) return;
  if (pos.r + 1 < R.rounds.length) go(roundStart(pos.r + 1));
  else go(R.positions.length - 1);
}

function fromHash() {
  const m = /^#r(\d+)(?:-(\d+))?$/.exec(location.hash);
  if (location.hash === "#end") return R.positions.length - 1;
  if (!m) return 0;
  const r = R.rounds.findIndex((x) => x.no === Number(m[1]));
  if (r < 0) return 0;
  const k = Math.min(Number(m[2] || 0), R.rounds[r].steps.length);
  return Math.max(0, R.positions.findIndex((p) => p.r === r && p.k === k));
}

function showError(text) {
  const e = $("#replay-error");
  e.textContent = text;
  e.hidden = false;
}

async function init() {
  if (!GAME_ID) {
    showError("No game is named in the address.");
    return;
  }
  let record;
  try {
    record = await api(`/api/games/${encodeURIComponent(GAME_ID)}`);
  } catch (e) {
    showError(e.status === 404 ? `There is no finished game ${GAME_ID}.` : `The game could not be loaded: ${e.message}`);
    return;
  }
  // Offered only once there is a record to download.
  $("#download").href = `/api/games/${encodeURIComponent(GAME_ID)}?download=1`;
  $("#download").setAttribute("download", `liarsdice-game-${GAME_ID}.json`);
  $("#download").hidden = false;
  R.record = record;
  R.rounds = recordRounds(record);
  const forfeit = record.result ? null : record.meta?.forfeit;
  if (forfeit && (record.seats || []).includes(forfeit.seat)) {
    R.forfeit = { name: forfeit.seat, line: forfeitLine(forfeit.seat, forfeit.reason) };
    R.result = forfeitResult(record.seats, forfeit.seat);
  } else R.result = record.result || null;
  if (!R.rounds.length) {
    showError("This record holds no round.");
    return;
  }
  buildPositions();
  const title = record.meta?.title || record.preset || "Game";
  $("#replay-title").textContent = `Game ${GAME_ID}: ${title.charAt(0).toUpperCase()}${title.slice(1)}`;
  document.title = `Replay of game ${GAME_ID} · Liar's Dice`;
  const when = record.meta?.finished ? formatDate(record.meta.finished) : "";
  $("#replay-meta").textContent = [`${(record.seats || []).join(", ")}`, plural(R.rounds.length, "round"), when, record.meta?.table ? `table ${record.meta.table}` : ""].filter(Boolean).join(" · ");
  $("#replay").hidden = false;

  $("#first-round").addEventListener("click", () => go(0));
  $("#prev-round").addEventListener("click", prevRound);
  $("#prev-step").addEventListener("click", () => go(R.at - 1));
  $("#next-step").addEventListener("click", () => go(R.at + 1));
  $("#next-round").addEventListener("click", nextRound);
  $("#last").addEventListener("click", () => go(R.positions.length - 1));
  document.addEventListener("keydown", (ev) => {
    if (ev.altKey || ev.ctrlKey || ev.metaKey) return;
    if (ev.target instanceof HTMLElement && ev.target.closest("input, textarea, select")) return;
    const keys = {
      ArrowLeft: () => go(R.at - 1),
      ArrowRight: () => go(R.at + 1),
      PageUp: prevRound,
      PageDown: nextRound,
      Home: () => go(0),
      End: () => go(R.positions.length - 1),
    };
    if (keys[ev.key]) {
      ev.preventDefault();
      keys[ev.key]();
    }
  });
  go(fromHash());
  bindAnalysis({ go: (step) => go(positionAfter(step)), where: stepWhere });
  loadAnalysis(GAME_ID, render);
}

init();
