// The game as the table page draws it: the round's facts, the standing bid, whose turn it is, the
// line that recalls the last reveal, and what screen readers are told; then the cup, the moves,
// the reveal and the log (their own modules). The page's state is lent once by `bindGame`.

import { $, bidWords, die, fill, h, parseBid, plural, wildBidNote, wildFace, wildWords } from "./common.js";
import { renderActions, renderCup } from "./moves.js";
import { renderHint } from "./hint.js";
import { renderOdds } from "./odds.js";
import { flushBring, moveLine, noteReveal, openReveal, renderLog, renderResult, renderReveal, revealLines } from "./reveal.js";
import { isEconomy } from "./rules.js";
import { isMyTurn, mySeat, options, renderSeats, seatName } from "./seats.js";
import { renderSkip } from "./skip.js";
import { play } from "./sound.js";
import { tick } from "./timer.js";

let S, CODE;

/** Lend this module the table page's state (once, before any render). */
export function bindGame(page) {
  ({ S, CODE } = page);
}

export function renderGame() {
  const g = S.game;
  const t = S.table;
  if (t) {
    const lobby = t.status === "open" && !g;
    $("#lobby-view").hidden = !lobby;
    $("#game-view").hidden = lobby;
  }
  renderSeats();
  renderResult();
  if (!g) {
    $("#reveal-card").hidden = true;
    $("#log-card").hidden = true;
    $("#actions").hidden = true;
    renderOdds();
    renderHint();
    return;
  }
  const o = options();
  const wild = g.wild ?? null;

  // round facts
  const info = [h("span", { class: "badge accent", text: `Round ${g.round}` })];
  if (g.one_die_round) info.push(h("span", { class: "badge gold", text: S.table?.preset?.startsWith("perudo") ? "Palifico round" : "One-die round", title: "wilds do not count this round" }));
  info.push(h("span", { class: "badge", text: wild ? wildWords(o, wild) : wildFace(o) ? "no wilds this round" : "no wilds", title: wild ? wildBidNote(o, wild) || null : null }));
  info.push(h("span", { class: "badge", text: `${plural(g.dice_in_play, "die", "dice")} in play` }));
  if (g.current_bet !== null && g.current_bet !== undefined) info.push(h("span", { class: "badge", text: `bet ${g.current_bet}` }));
  if (g.round_pot !== null && g.round_pot !== undefined) info.push(h("span", { class: "badge", text: `pot ${g.round_pot}` }));
  if (g.running_pot !== null && g.running_pot !== undefined) info.push(h("span", { class: "badge", text: `running pot ${g.running_pot}` }));
  fill($("#round-info"), info);

  // standing bid
  const standing = $("#standing");
  standing.hidden = false;
  const sb = g.standing ? parseBid(g.standing.bid) || parseBid(g.standing.text) : null;
  const word = g.words?.bid || (isEconomy(o) ? "claim" : "bid");
  if (sb) {
    fill(
      standing,
      h("span", { class: "muted", text: `Standing ${word}` }),
      h("span", { class: "big-bid", "aria-label": `${bidWords(sb[0], sb[1])}` }, `${sb[0]} ×`, die(sb[1], { wild: sb[1] === wild })),
      h("span", { text: `by ${seatName(g.standing.seat)}` }),
    );
  } else if (g.phase === "over") {
    standing.hidden = true;
  } else {
    fill(standing, h("span", { class: "muted", text: `No ${word} yet: ${g.starter !== null && g.starter !== undefined ? `${seatName(g.starter)} opens` : "the opener starts"}.` }));
  }

  // the reveal of the round that just ended opens by itself; afterwards one line recalls it
  noteReveal(g);
  const lr = g.last_round;
  const summary = $("#last-summary");
  if (lr && g.phase !== "over" && !S.reveal.open) {
    const lines = revealLines(lr).filter((l) => !/^Counted/.test(l));
    fill(
      summary,
      `Round ${lr.round}: ${lines.join(" ")} `,
      h("a", {
        href: "#reveal-card",
        id: "open-reveal",
        text: "See the reveal",
        onclick: (ev) => {
          ev.preventDefault();
          openReveal(true);
        },
      }),
    );
    summary.hidden = false;
  } else summary.hidden = true;

  const myTurn = isMyTurn();
  renderTurnLine();
  announceChanges(g, myTurn);

  // the cup
  renderCup();
  $("#watching").hidden = S.me.role === "player";
  renderSkip();

  renderActions();
  renderOdds();
  renderHint();
  renderReveal();
  renderLog();
  tick();
  flushBring();
  document.title = `${myTurn ? "● Your turn · " : ""}${S.table?.title || "Table"} ${CODE} · Liar's Dice`;
}

/** Whose turn it is, the turn timer, and whether a bot is playing for you (from the table's `auto`). */
export function renderTurnLine() {
  const g = S.game;
  if (!g) return;
  const turn = $("#turn-line");
  const me = mySeat();
  const myTurn = isMyTurn();
  const mySeatInfo = me !== null ? S.table?.seats?.[me] : null;
  turn.className = `turn-line${myTurn ? " mine" : ""}`;
  if (g.phase === "over") fill(turn, "Game over: the final ranking is above.");
  else if (g.to_act === null || g.to_act === undefined) fill(turn, "…");
  else {
    const who = myTurn ? "Your turn" : `${seatName(g.to_act)} ${g.phase === "vote" ? "is voting" : "is to act"}`;
    const what = myTurn && g.legal?.voting ? ": do you believe the bid?" : myTurn ? "." : "…";
    fill(turn, who + what, g.deadline ? [" ", h("span", { class: "small muted", "data-countdown": g.deadline })] : null);
  }
  if (mySeatInfo?.auto && g.phase !== "over") {
    turn.appendChild(h("div", { class: "small muted", id: "auto-note", text: "A bot is playing for you for now; your next move takes the seat back." }));
  }
  tick();
}

/** Tell screen readers what just happened, in the move log's words: every move since the last
 * render (the one that ended a round among them), the reveal's outcome, whose turn it is, and the
 * end. Each render's news is one new line of the #announce log, read once (aria-relevant
 * additions), so moves that arrive together are not lost when a newer one replaces them. */
function announceChanges(g, myTurn) {
  const said = S.announced;
  const history = g.history || [];
  const lr = g.last_round;
  const revealKey = lr ? `${g.game_id}:${lr.round}` : null;
  const bits = [];
  if (!said || said.game !== g.game_id) {
    // First sight of this game (a load, a rematch): the newest move, not the whole round again.
    if (history.length) bits.push(moveLine(history[history.length - 1]));
  } else {
    let from = g.round === said.round && history.length >= said.n ? said.n : 0;
    if (revealKey && revealKey !== said.reveal) {
      if (lr.round === said.round && Array.isArray(lr.moves)) bits.push(...lr.moves.slice(said.n).map(moveLine));
      bits.push(`Round ${lr.round} revealed. ${revealLines(lr).join(" ")}`);
      if (g.round !== lr.round) from = 0;
    }
    bits.push(...history.slice(from).map(moveLine));
  }
  const turnKey = g.phase !== "over" && g.to_act !== null && g.to_act !== undefined ? `${g.game_id}:${g.round}:${history.length}:${g.to_act}:${g.phase}` : null;
  if (turnKey && turnKey !== said?.turn) {
    if (myTurn) bits.push(g.legal?.voting ? "Your vote." : "Your turn.");
    else bits.push(`${seatName(g.to_act)} ${g.phase === "vote" ? "is voting" : "is to act"}.`);
  }
  if (g.result && !(said?.game === g.game_id && said.result)) {
    const ranking = (g.result.lines || []).join("; ");
    bits.push(`${g.forfeit ? `${g.forfeit.line} ` : ""}The game is over.${ranking ? ` Final ranking: ${ranking}.` : ""}`);
  }
  if (said?.game === g.game_id) play(...soundsOf(said, g, revealKey));
  S.announced = { game: g.game_id, round: g.round, n: history.length, reveal: revealKey, turn: turnKey ?? said?.turn, result: !!g.result };
  const text = bits.filter(Boolean).join(" ");
  if (!text) return;
  const log = $("#announce");
  log.appendChild(h("p", { text }));
  while (log.childElementCount > 12) log.firstElementChild.remove(); // what is read is the new line
}

/** The sounds of what happened since the last render: new bids and challenges, a reveal, a roll. */
function soundsOf(said, g, revealKey) {
  const history = g.history || [];
  const lr = g.last_round;
  const fresh = revealKey !== said.reveal;
  const moves = [...(fresh && lr?.round === said.round ? (lr.moves || []).slice(said.n) : []), ...history.slice(g.round === said.round ? said.n : 0)];
  const kinds = [];
  if (moves.some((m) => m.action?.[0] === "bid" || m.action?.[0] === "claim")) kinds.push("bid");
  if (moves.some((m) => !["bid", "claim", "pass", "vote", "fold"].includes(m.action?.[0]))) kinds.push("challenge");
  if (fresh && revealKey) kinds.push("reveal");
  if (g.round !== said.round && g.phase !== "over") kinds.push("roll");
  return kinds;
}
