// /learn/LESSON: the lesson's steps one at a time. Each step draws the table as the player sees
// it (their cup; the others' cups hidden until the reveal), the instruction and the moves as
// buttons; a move is judged by the server (POST /api/learn/LESSON/STEP, the same judge as the
// terminal's), and the page shows why it was right or what went wrong, and the reveal. The step
// reached is remembered in the browser (progress.js); the last step offers a short game against
// the easiest bot at a real table.

import { $, api, capitalize, diceRow, fill, h, plural, prefs, seats as seatTokens } from "./common.js";
import { progressOf, saveProgress } from "./progress.js";

const name = $("#lesson-title").dataset.lesson;
let lesson = null;
let index = 0; // the step shown, from 0
let busy = false;

function bidText(bid) {
  return bid ? `${bid[0]} × ${bid[1]}` : "";
}

function seatRow(seat, step) {
  const me = seat.name === "You";
  const cells = [h("span", { class: "lesson-seat-name", text: seat.name })];
  if (!seat.active) {
    cells.push(h("span", { class: "small muted", text: "out" }));
  } else if (me) {
    cells.push(diceRow(step.cup, { className: "lesson-cup", each: (f) => ({ wild: f === step.wild, label: `${f}${f === step.wild ? " (wild)" : ""}` }) }));
  } else {
    const hidden = seat.dice - seat.pushed.length;
    cells.push(
      h(
        "span",
        { class: "dice lesson-hidden", role: "img", "aria-label": `${plural(hidden, "die", "dice")} under the cup` },
        Array.from({ length: hidden }, () => h("span", { class: "die small hidden-die", "aria-hidden": "true" })),
      ),
    );
  }
  if (seat.pushed.length) cells.push(h("span", { class: "small muted" }, "pushed ", diceRow(seat.pushed, { size: "small" })));
  if (seat.chips !== null) cells.push(h("span", { class: "small muted", text: `${plural(seat.chips, "chip")}` }));
  if (seat.to_act) cells.push(h("span", { class: "badge accent", text: "to act" }));
  return h("li", { class: `lesson-seat${me ? " me" : ""}`, "data-seat": seat.name }, cells);
}

function renderTable(step) {
  const notes = [];
  notes.push(`Rules: ${step.rules.title}`);
  if (step.one_die_round) notes.push("one-die round: nothing is wild");
  else if (step.wild) notes.push(`${step.wild}s are wild`);
  if (step.bet !== null) notes.push(`bet ${step.bet}, pot ${step.pot}`);
  fill(
    $("#step-table"),
    h("p", { class: "small muted lesson-rules", text: notes.join(" · ") }),
    h("ul", { class: "lesson-seats" }, step.seats.map((s) => seatRow(s, step))),
    step.history.length
      ? h("div", { class: "lesson-history" }, h("h3", { class: "small", text: "This round" }), h("ol", { class: "lines small lesson-log" }, step.history.map((line) => h("li", { text: line }))))
      : h("p", { class: "small muted", text: `No ${step.words.bid}s yet this round: you open.` }),
    step.standing ? h("p", { class: "lesson-standing" }, `Standing ${step.words.bid}: `, h("strong", { text: bidText(step.standing) })) : null,
  );
}

function moveClass(move) {
  const kind = move[0];
  if (["challenge", "accuse", "all_in", "exact"].includes(kind)) return "danger";
  if (kind === "fold") return "";
  return "primary";
}

function renderMoves(step, solved) {
  const box = $("#step-moves");
  fill(
    box,
    step.choices.map((c) =>
      h("button", { type: "button", class: `lesson-move ${moveClass(c.move)}`, "data-move": JSON.stringify(c.move), disabled: solved, onclick: () => play(c.move), text: c.label }),
    ),
  );
}

function renderDots() {
  fill(
    $("#step-dots"),
    lesson.steps.map((s, i) =>
      h("li", { class: `step-dot${i < index ? " passed" : ""}${i === index ? " current" : ""}`, "aria-current": i === index ? "step" : null, title: s.title, text: String(i + 1) }),
    ),
  );
}

function showStep(i) {
  index = i;
  const step = lesson.steps[i];
  $("#step-title").textContent = step.title;
  $("#step-count").textContent = `Step ${i + 1} of ${lesson.steps.length}`;
  renderDots();
  renderTable(step);
  $("#step-instruction").textContent = step.instruction;
  renderMoves(step, false);
  $("#step-feedback").hidden = true;
  $("#step-error").hidden = true;
  $("#step-next").hidden = true;
  $("#done-card").hidden = true;
}

function reveal(r) {
  if (!r) return null;
  const face = r.bid ? r.bid[1] : null;
  const wild = lesson.steps[index].wild;
  return h(
    "div",
    { class: "lesson-reveal" },
    h("h3", { class: "small", text: "The cups are lifted" }),
    h(
      "ul",
      { class: "lesson-seats" },
      Object.entries(r.hands).map(([who, faces]) =>
        h("li", { class: "lesson-seat" }, h("span", { class: "lesson-seat-name", text: who }), diceRow(faces, { size: "small", each: (f) => ({ counted: face !== null && (f === face || (f === wild && face !== wild)) }) })),
      ),
    ),
    h("ul", { class: "lines small" }, r.lines.filter((l) => !l.startsWith(" ")).map((l) => h("li", { text: l }))),
  );
}

async function play(move) {
  if (busy) return;
  busy = true;
  $("#step-error").hidden = true;
  let verdict;
  try {
    verdict = await api(`/api/learn/${encodeURIComponent(name)}/${index + 1}`, { method: "POST", body: { move } });
  } catch (e) {
    busy = false;
    const node = $("#step-error");
    node.textContent = `${capitalize(e.message)}.`;
    node.hidden = false;
    return;
  }
  busy = false;
  const box = $("#step-feedback");
  box.className = `lesson-feedback ${verdict.right ? "right" : "wrong"}`;
  fill(
    box,
    h("p", { class: "lesson-verdict", text: verdict.right ? "Right!" : "Not quite." }),
    verdict.said.length ? h("ul", { class: "lines small" }, verdict.said.map((l) => h("li", { text: l }))) : null,
    reveal(verdict.reveal),
    h("p", { class: "lesson-why", text: verdict.explanation }),
    verdict.right ? null : h("p", { class: "small muted", text: "Try another move." }),
  );
  box.hidden = false;
  if (!verdict.right) return;
  renderMoves(lesson.steps[index], true);
  const last = index + 1 === lesson.steps.length;
  saveProgress(name, last ? lesson.steps.length : index + 2, last);
  if (last) finish();
  else {
    $("#step-next").hidden = false;
    $("#step-next").focus();
  }
}

function finish() {
  $("#done-card").hidden = false;
  $("#step-restart").hidden = false;
  $("#done-card").scrollIntoView({ block: "nearest" });
}

async function playGame() {
  const button = $("#play-game");
  const typed = $("#game-name").value.trim();
  const player = typed || prefs.name || "Player";
  button.disabled = true;
  $("#game-error").hidden = true;
  try {
    const made = await api(`/api/learn/${encodeURIComponent(name)}/game`, { method: "POST", body: { name: player } });
    if (typed) prefs.name = typed;
    seatTokens.set(made.code, { token: made.token, seat: made.seat, name: player });
    location.assign(`/t/${encodeURIComponent(made.code)}`);
  } catch (e) {
    button.disabled = false;
    const node = $("#game-error");
    node.textContent = `${capitalize(e.message)}.`;
    node.hidden = false;
  }
}

async function start() {
  try {
    lesson = await api(`/api/learn/${encodeURIComponent(name)}`);
  } catch (e) {
    $("#step-title").textContent = "The lesson cannot be loaded";
    const node = $("#step-error");
    node.textContent = `${capitalize(e.message)}.`;
    node.hidden = false;
    return;
  }
  $("#game-name").value = prefs.name;
  $("#step-next").addEventListener("click", () => {
    showStep(index + 1);
    $("#step-card").focus();
  });
  $("#step-restart").addEventListener("click", () => {
    saveProgress(name, 1);
    $("#step-restart").hidden = true;
    showStep(0);
  });
  $("#play-game").addEventListener("click", playGame);
  const { step, done } = progressOf(name);
  if (done) {
    // a finished lesson opens at its last step, solved, with the game on offer
    showStep(lesson.steps.length - 1);
    $("#step-restart").hidden = false;
    $("#done-card").hidden = false;
    renderMoves(lesson.steps[index], true);
    fill($("#step-feedback"), h("p", { class: "lesson-verdict", text: "You finished this lesson." }));
    $("#step-feedback").className = "lesson-feedback right";
    $("#step-feedback").hidden = false;
  } else {
    showStep(Math.min(step, lesson.steps.length) - 1);
  }
}

start();
