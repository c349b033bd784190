// The reveal of the round that ended last, the round's log and the game's result, as the table
// page draws them. The page's state and its helpers are lent once by `bindReveal`, so these
// cards read the same state the rest of the page does.

import { $, bidWords, capitalize, die, fill, h, ordinal, parseBid, plural, wildFace } from "./common.js";
import { exactWord, isEconomy, outcomeLines, rankingGroups } from "./rules.js";
import { rematchForAll, renderSummary } from "./summary.js";

let S, link, options, remainingMs, renderGame, mySeat, seatName, isMyTurn, seatCount, hostSend;

/** Lend this module the table page's state and helpers (once, before any render). */
export function bindReveal(page) {
  ({ S, link, options, remainingMs, renderGame, mySeat, seatName, isMyTurn, seatCount, hostSend } = page);
  window.addEventListener("resize", fitReveal);
}

/** A move as the log writes it (the screen readers' announcements say the same words). */
export function moveLine(x) {
  return x.text || `${seatName(x.seat)}: ${JSON.stringify(x.action)}`;
}

export function revealLines(lr) {
  const lines = Array.isArray(lr.lines) && lr.lines.length ? lr.lines : outcomeLines(lr, options());
  // The hands are drawn as dice; keep the sentences.
  return lines.filter((l) => !/^\s/.test(l)).map((l) => l.trim());
}

/** A reveal that arrives while this page follows the game opens by itself; one found on loading
 * the page opens only while its pause runs or when the game is over. */
export function noteReveal(g) {
  const lr = g.last_round;
  const key = lr ? `${g.game_id}:${lr.round}` : null;
  const following = S.reveal.game === g.game_id;
  S.reveal.game = g.game_id;
  if (key === S.reveal.key) return;
  const pausing = !!g.reveal_until && remainingMs(g.reveal_until) > 0;
  S.reveal = { ...S.reveal, key, open: !!lr && (following || pausing || !!g.result), fresh: true, seen: false };
}

export function openReveal(focus) {
  S.reveal.open = true;
  S.reveal.fresh = true;
  renderGame();
  if (focus) $("#reveal-card").focus({ preventScroll: true });
}

/** Continue: the reveal closes, and the server hears that this person has seen it. */
export function closeReveal() {
  const lr = S.game?.last_round;
  if (lr && !S.reveal.seen && link.send({ type: "seen", round: lr.round })) S.reveal.seen = true;
  S.reveal.open = false;
  renderGame();
  if (S.game?.result) {
    $("#result-card").focus({ preventScroll: true });
    $("#result-card").scrollIntoView({ block: "nearest" });
    return;
  }
  const primary = $("#actions:not([hidden]) button.primary:not(:disabled), #actions:not([hidden]) button[data-move]:not(:disabled)");
  if (primary) primary.focus();
  else $("#play-card").focus({ preventScroll: true });
  $("#play-card").scrollIntoView({ block: "nearest" });
}

/** Bound the open reveal to the screen below where it starts (css/reveal.css reads --reveal-top), so
 * its Continue is never below the fold; mark its body when the hands scroll inside it. */
function fitReveal() {
  const card = $("#reveal-card");
  if (card.hidden) return;
  const top = Math.round(card.getBoundingClientRect().top + window.scrollY);
  if (card.style.getPropertyValue("--reveal-top") !== `${top}px`) card.style.setProperty("--reveal-top", `${top}px`);
  const body = $("#reveal-body");
  body.classList.toggle("scrolls", body.scrollHeight > body.clientHeight + 1);
}

/** Scroll to the card a render asked for (a new reveal or result), once the page is drawn. */
export function flushBring() {
  fitReveal();
  const node = S.bring;
  S.bring = null;
  if (node && !node.hidden && !inView(node)) node.scrollIntoView({ block: "start" });
}

/** Whether `node` is on screen from top to bottom (or fills it). */
function inView(node) {
  const r = node.getBoundingClientRect();
  return r.top >= 0 && (r.bottom <= window.innerHeight || r.top < 80);
}

/** What each seat did in the check: who called, who was called, how each voter sided. */
function roles(lr, word) {
  const out = {};
  const add = (name, text) => {
    if (name) (out[name] ||= []).push(text);
  };
  // Whether the caller won the check (null when the outcome does not say): only a right call
  // is "called it".
  const right = lr.winner === null || lr.winner === undefined ? null : lr.winner === lr.caller;
  const verdict = right === null ? "" : right ? ": right" : ": wrong";
  if (lr.kind === "challenge") {
    add(lr.caller, right === null ? "challenged" : right ? "called it" : "wrong call");
    add(lr.target, lr.pass_valid !== null && lr.pass_valid !== undefined ? "passed" : word);
  } else if (lr.kind === "exact") {
    add(lr.caller, `called ${S.game?.words?.exact || exactWord(options())}${verdict}`);
  } else if (lr.kind === "accusation") {
    add(lr.caller, `accused${verdict}`);
    add(lr.target, word);
  } else if (lr.kind === "folds") {
    add(lr.target, "last one in");
  }
  for (const name of lr.folded || []) add(name, "folded");
  for (const [name, vote] of Object.entries(lr.votes || {})) add(name, vote === "believe" ? "believed" : "doubted");
  return out;
}

export function renderReveal() {
  const g = S.game;
  const card = $("#reveal-card");
  const lr = g?.last_round;
  if (!lr || !S.reveal.open) {
    card.hidden = true;
    return;
  }
  card.hidden = false;
  const word = g.words?.bid || (isEconomy(options()) ? "claim" : "bid");
  $("#reveal-title").textContent = `Round ${lr.round}: the reveal`;
  const bid = parseBid(lr.bid);
  const wild = lr.one_die_round ? null : wildFace(options());
  const counts = (f) => !!bid && (f === bid[1] || (wild !== null && bid[1] !== wild && f === wild));
  const shedding = options()?.goal === "shedding";
  const who = roles(lr, word);
  const rows = Object.entries(lr.hands || {}).map(([name, faces]) => {
    const before = lr.dice_before?.[name];
    const after = lr.dice_after?.[name];
    const d = before !== undefined && after !== undefined ? after - before : 0;
    const pushed = lr.pushed?.[name] || [];
    const out = (lr.out || []).includes(name);
    const chips = lr.chips_after?.[name];
    return h(
      "li",
      { "data-name": name },
      h("span", { class: "who" }, h("span", { text: name }), (who[name] || []).map((r) => h("span", { class: "badge role", text: r }))),
      h(
        "span",
        { class: "dice" },
        // In the order of "Your cup" (lowest first), so a player finds the same hand in both.
        [...faces].sort((a, b) => a - b).map((f) => die(f, { size: "small", wild: f === wild, counted: counts(f), dim: !!bid && !counts(f) })),
        pushed.length ? h("span", { class: "small muted", text: `pushed ${pushed.join(" ")}` }) : null,
      ),
      h(
        "span",
        { class: `delta ${(shedding ? -d : d) < 0 ? "minus" : d ? "plus" : ""}` },
        d ? `${d > 0 ? "+" : "−"}${plural(Math.abs(d), "die", "dice")}` : "",
        chips !== undefined ? h("span", { class: "small muted", text: ` ${plural(chips, "chip")}` }) : null,
        out ? h("span", { class: "badge danger", text: shedding ? "finished" : "out" }) : null,
      ),
    );
  });
  const head = [];
  if (bid) {
    head.push(
      h(
        "p",
        { class: "standing reveal-head" },
        h("span", { class: "muted", text: capitalize(word) }),
        h("span", { class: "big-bid", "aria-label": bidWords(bid[0], bid[1]) }, `${bid[0]} ×`, die(bid[1], { wild: bid[1] === wild })),
        h("span", { class: "muted", text: "Counted" }),
        h("span", { class: "big-bid", id: "reveal-count", text: lr.count ?? "?" }),
      ),
    );
  }
  const moves = Array.isArray(lr.moves) ? lr.moves : [];
  // The hands and the verdict first, the round's moves after them: at a table of twelve a long
  // round's moves would push every hand out of the card's first view.
  fill(
    $("#reveal-body"),
    head,
    h("ul", { class: "hands", "aria-label": "Every hand" }, rows),
    h("ul", { class: "lines" }, revealLines(lr).filter((l) => !/^Counted /.test(l)).map((l) => h("li", { text: l }))),
    moves.length
      ? h(
          "ol",
          { class: "reveal-moves small", "aria-label": "The moves of the round" },
          moves.map((m) => h("li", { class: m.seat === mySeat() ? "mine" : null, text: moveLine(m) })),
        )
      : null,
  );
  const button = $("#reveal-continue");
  button.textContent = g.result ? "Close the reveal" : isMyTurn() ? "Continue: your turn" : "Continue";
  const countdown = $("#reveal-countdown");
  if (g.reveal_until && !g.result) countdown.dataset.revealUntil = g.reveal_until;
  else delete countdown.dataset.revealUntil;
  countdown.textContent = "";
  $("#reveal-note").textContent =
    g.reveal_until && !g.result && S.me.role === "player" ? "The next round's timer starts when everyone has pressed Continue, or when the pause is over." : "";
  // Its hands turn over once, when it opens (css/dice.css); later redraws do not animate again.
  $("#reveal-body").classList.toggle("showing", S.reveal.fresh);
  if (S.reveal.fresh) {
    S.reveal.fresh = false;
    $("#reveal-body").scrollTop = 0; // a new reveal is read from its bid down
    card.classList.remove("fresh");
    void card.offsetWidth;
    card.classList.add("fresh");
    // Where the eye is: a phone shows the reveal at the top of the screen, not 1,400 px down.
    const typing = document.activeElement && document.activeElement.id === "chat-input";
    if (!typing && !g.result) S.bring ||= card; // a result comes first
    // A move that ended the round took its button away, and the focus fell to the page: it goes
    // to the reveal, so the keys (and a screen reader) are where the news is, Continue a Tab away.
    if (!document.activeElement || document.activeElement === document.body) card.focus({ preventScroll: true });
  }
}

export function renderLog() {
  const g = S.game;
  const card = $("#log-card");
  if (!g) {
    card.hidden = true;
    return;
  }
  card.hidden = false;
  $("#log-title").textContent = g.phase === "over" ? "The last round" : `Round ${g.round} so far`;
  const me = mySeat();
  const items = (g.history || []).map((x) => h("li", { class: x.seat === me ? "mine" : "", text: moveLine(x) }));
  if (!items.length) items.push(h("li", { class: "muted", text: g.phase === "over" ? "—" : "No move yet this round." }));
  const log = $("#log");
  fill(log, items);
  log.scrollTop = log.scrollHeight;
}

export function renderResult() {
  const g = S.game;
  const card = $("#result-card");
  const r = g?.result;
  if (!r) {
    card.hidden = true;
    $("#rematch-error").hidden = true; // a refused rematch is old news once a game is on
    return;
  }
  const firstSight = card.hidden && S.resultShown !== g.game_id;
  card.hidden = false;
  const name = (x) => (typeof x === "number" ? seatName(x) : x);
  const groups = rankingGroups({ ranking: (r.ranking || []).map((grp) => (Array.isArray(grp) ? grp : [grp]).map(name)), places: r.places || {} });
  const me = mySeat();
  const myName = me !== null ? seatName(me) : null;
  // The moment of the game: who won, in one line, above the ranking.
  const winners = groups.length ? groups[0][1] : [];
  const myPlace = myName !== null ? groups.find(([, names]) => names.includes(myName))?.[0] : undefined;
  const headline = $("#result-headline");
  if (myPlace === 1) headline.textContent = winners.length > 1 ? `You won, sharing first place with ${winners.filter((n) => n !== myName).join(" and ")}!` : "You won!";
  else if (myPlace !== undefined) headline.textContent = `You finished ${ordinal(myPlace)} of ${seatCount()}. ${winners.join(" and ")} ${winners.length > 1 ? "share the win" : "won"}.`;
  else headline.textContent = winners.length ? `${winners.join(" and ")} ${winners.length > 1 ? "share the win" : "won"}.` : "The game is over.";
  headline.className = `result-headline${myPlace === 1 ? " won" : ""}`;
  // A forfeit ended the game: who forfeited and why, under who won.
  const why = $("#result-why");
  why.textContent = g.forfeit ? g.forfeit.line : "";
  why.hidden = !g.forfeit;
  if (firstSight) {
    S.resultShown = g.game_id;
    const typing = document.activeElement && document.activeElement.id === "chat-input";
    if (!typing) S.bring = card;
  }
  fill(
    $("#ranking"),
    groups.map(([place, names]) =>
      h(
        "li",
        { "data-place": place },
        h("span", { class: "place", "aria-label": `${ordinal(place)} place`, text: place }),
        h("span", { class: "names", text: names.join(", ") + (names.length > 1 ? " (shared)" : "") }),
        myName && names.includes(myName) ? h("span", { class: "badge accent", text: "you" }) : null,
      ),
    ),
  );
  const extra = (Array.isArray(r.lines) ? r.lines : []).filter((l) => !/^\s*\d+\.\s/.test(l));
  fill($("#result-lines"), extra.map((l) => h("li", { text: l.trim() })));
  const row = $("#rematch-row");
  renderSummary(g.game_id);
  if (S.table && S.table.host_seat === -1) rematchForAll(S, row, hostSend);
  else if (S.me.host) {
    fill(
      row,
      h("button", {
        type: "button",
        class: "primary",
        id: "rematch",
        text: "Rematch",
        onclick: () => hostSend({ type: "rematch" }, "rematch"),
      }),
      h("span", { class: "small muted", text: "Same seats, same rules." }),
    );
  } else fill(row, h("span", { class: "small muted", text: "The host can start a rematch." }));
}
