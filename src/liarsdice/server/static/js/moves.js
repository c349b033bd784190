// The cup and the action panel of the table page: the dice to push, the bid picker, the
// economy's raise, and every other move, built from `legal` alone; a move waits for the server's
// answer before another can be sent. The page's state and helpers are lent once by `bindMoves`.

import { $, bidWords, capitalize, die, fill, h, parseBid, plural, wildBidNote } from "./common.js";
import { blockedFaces, clamp, defaultFace, exactWord, pickerFaces } from "./rules.js";

let S, link, options, mySeat, isMyTurn, seatName;

/** Lend this module the table page's state and helpers (once, before any render). */
export function bindMoves(page) {
  ({ S, link, options, mySeat, isMyTurn, seatName } = page);
}

export function renderCup() {
  const g = S.game;
  const me = mySeat();
  const wrap = $("#cup-wrap");
  if (!g || me === null || g.phase === "over") {
    wrap.hidden = true;
    return;
  }
  wrap.hidden = false;
  const cup = g.cup || [];
  const wild = g.wild ?? null;
  const push = isMyTurn() && g.legal?.push && !g.legal.voting ? g.legal.push : null;
  const box = $("#cup");
  const focusedIndex = box.contains(document.activeElement) ? document.activeElement.dataset.index : null;
  if (!cup.length) {
    const out = g.active && g.active[me] === false;
    fill(box, h("p", { class: "muted", text: out ? (options()?.goal === "shedding" ? "Your cup is empty: you are finished." : "You are out of dice. Watch the rest of the game.") : "Your cup is empty." }));
  } else if (push) {
    fill(
      box,
      cup.map((f, i) =>
        die(f, {
          size: "big",
          wild: f === wild,
          tag: "button",
          "data-index": i,
          "aria-pressed": S.push.has(i) ? "true" : "false",
          label: `${f}${f === wild ? " (wild)" : ""}: push this die`,
          onclick: () => togglePush(i),
        }),
      ),
    );
    if (focusedIndex !== null) box.querySelector(`[data-index="${focusedIndex}"]`)?.focus();
  } else {
    fill(box, cup.map((f) => die(f, { size: "big", wild: f === wild })));
  }
  // A new round's cup rolls in once (css/dice.css, only where motion is welcome); a redraw later
  // in the round makes new nodes without the class, so it does not roll again.
  const rollKey = `${g.game_id}:${g.round}`;
  if (cup.length && S.rolled !== rollKey) {
    S.rolled = rollKey;
    for (const d of box.querySelectorAll(".die")) d.classList.add("rolling");
  }
  const pushedMine = g.pushed?.[me] || [];
  const pm = $("#pushed-mine");
  if (pushedMine.length) {
    fill(pm, "Pushed in front of you: ", h("span", { class: "dice" }, pushedMine.map((f) => die(f, { size: "small", wild: f === wild }))));
    pm.hidden = false;
  } else pm.hidden = true;
  const hint = $("#push-hint");
  if (push) {
    const n = S.push.size;
    hint.textContent = n
      ? `${plural(n, "die", "dice")} selected to push with your ${g.words?.bid || "bid"} or pass; the rest of your cup is rerolled.`
      : `You may push ${push.max === 1 ? "1 die" : `1 to ${push.max} dice`}: click ${push.max === 1 ? "it" : "them"} to show ${push.max === 1 ? "it" : "them"} with your ${g.words?.bid || "bid"} or pass (the rest are rerolled).`;
    hint.hidden = false;
  } else hint.hidden = true;
}

function togglePush(i) {
  const max = S.game?.legal?.push?.max ?? 0;
  if (S.push.has(i)) S.push.delete(i);
  else if (S.push.size < max) S.push.add(i);
  else {
    showActionError(`You may push at most ${plural(max, "die", "dice")}.`);
    return;
  }
  hideActionError();
  renderCup();
  refreshLabels();
}

function pushFaces() {
  const cup = S.game?.cup || []; // the cup as drawn (sorted); the faces are what is sent
  return [...S.push].sort((a, b) => a - b).map((i) => cup[i]);
}

// ----- the action panel (from `legal` only) -----

function act(action) {
  if (S.pending !== null || !action) return;
  const ref = ++S.ref;
  if (!link.isOpen() || !link.send({ type: "act", action, ref })) {
    showActionError("You are not connected: your move was not sent. Reconnecting…");
    return;
  }
  S.pending = ref;
  if (S.reveal.open) S.reveal.open = false; // moving on: the reveal has been seen
  hideActionError();
  setBusy(true);
  clearTimeout(S.pendingTimer);
  S.pendingTimer = setTimeout(() => {
    if (S.pending === ref) {
      clearPending();
      showActionError("No answer from the server yet. Try again.");
      renderActions();
    }
  }, 10000);
}

export function clearPending() {
  S.pending = null;
  clearTimeout(S.pendingTimer);
}

function setBusy(busy) {
  const box = $("#actions");
  box.setAttribute("aria-busy", busy ? "true" : "false");
  if (busy) for (const el of box.querySelectorAll("button, input, select")) el.disabled = true;
}

function withExtras(action, { push = true, raise = true } = {}) {
  if (raise && S.raise.on && S.raise.invalid) {
    showActionError(`Raise the bet to a number from ${S.game?.legal?.economy?.raise_min} to ${S.game?.legal?.economy?.raise_max}, or untick the raise.`);
    return null;
  }
  const extra = {};
  const faces = push ? pushFaces() : [];
  if (faces.length) extra.push = faces;
  if (raise && S.raise.on && S.raise.value !== null) extra.raise_to = S.raise.value;
  return Object.keys(extra).length ? [...action, extra] : action;
}

/** While a ticked raise is not one the rules allow: what the buttons sending it say instead. */
function raiseProblem() {
  const econ = S.game?.legal?.economy;
  if (!econ || !S.raise.on || !S.raise.invalid) return null;
  const allowed = econ.raise_min === econ.raise_max ? `only ${econ.raise_min}` : `${econ.raise_min} to ${econ.raise_max}`;
  return S.raise.raw ? `no raise to ${S.raise.raw}: ${allowed} allowed` : `type a raise: ${allowed} allowed`;
}

function cost() {
  const econ = S.game?.legal?.economy;
  if (!econ || raiseProblem()) return null;
  if (S.raise.on && S.raise.value !== null) {
    const stake = options()?.economy?.stake;
    const paid = S.game.paid?.[mySeat()] ?? 0;
    return stake === "per_turn" ? S.raise.value : S.raise.value - paid;
  }
  return econ.owed;
}

function refreshLabels() {
  for (const fn of S.labelers) fn();
}

export function renderActions() {
  const box = $("#actions");
  const g = S.game;
  const hadFocus = box.contains(document.activeElement) || document.activeElement === document.body || !document.activeElement;
  const focusedControl = box.contains(document.activeElement) ? sameControl(document.activeElement) : null;
  S.labelers = [];
  if (!isMyTurn()) {
    box.hidden = true;
    box.replaceChildren();
    S.push.clear();
    return;
  }
  const L = g.legal;
  const turnKey = `${g.game_id}:${g.round}:${(g.history || []).length}:${L.voting ? "v" : "t"}:${g.standing?.text ?? ""}`;
  if (S.pick.key !== turnKey) {
    S.pick = { key: turnKey, face: null, qty: null };
    S.push = new Set();
    S.raise = { on: false, value: null };
  }
  const content = [];
  let primary = null;
  if (L.voting) {
    const sb = g.standing ? parseBid(g.standing.bid) : null;
    const what = sb ? ` ${bidWords(sb[0], sb[1])}` : "";
    const believe = h("button", { type: "button", class: "primary", "data-move": "believe", onclick: () => act(["vote", "believe"]), text: `Believe${what}` });
    const doubt = h("button", { type: "button", "data-move": "doubt", onclick: () => act(["vote", "doubt"]), text: `Doubt${what}` });
    content.push(h("p", { text: "A liar call: everyone takes a side. Do you believe the bid, or doubt it?" }));
    content.push(h("div", { class: "moves", role: "group", "aria-label": "Vote" }, believe, doubt));
    primary = believe;
  } else {
    const econ = L.economy || null;
    if (econ) content.push(economyPanel(econ, g));
    if (L.bids && L.bids.length) {
      const picker = bidPicker(L, g, !!econ);
      content.push(picker.node);
      primary = picker.submit;
    } else if (!econ || econ.can_meet) {
      // A seat that cannot meet the bet is told so on the bet's line (economyPanel), once.
      content.push(h("p", { class: "muted", text: `No higher ${g.words?.bid || "bid"} is possible.` }));
    }
    const moves = h("div", { class: "moves", role: "group", "aria-label": "Other moves" });
    if (L.pass) {
      const b = h("button", { type: "button", "data-move": "pass", onclick: () => act(withExtras(["pass"], { raise: false })) });
      S.labelers.push(() => {
        const n = pushFaces().length;
        b.textContent = n ? `Pass and push ${plural(n, "die", "dice")}` : "Pass";
      });
      moves.appendChild(b);
    }
    for (const c of L.challenge || []) {
      const name = seatName(c.seat);
      const verb = options()?.exact === "others_lose" ? "Call" : "Challenge";
      const b = h(
        "button",
        { type: "button", class: "danger two-line", "data-move": "challenge", "data-target": c.seat, onclick: () => act(["challenge", { target: name }]) },
        h("span", { text: `${verb} ${name}` }),
        c.what ? h("span", { class: "what", text: c.what }) : null,
      );
      moves.appendChild(b);
      if (!primary) primary = b;
    }
    if (L.exact) {
      const word = g.words?.exact || exactWord(options());
      const sb = g.standing ? parseBid(g.standing.bid) : null;
      moves.appendChild(
        h("button", {
          type: "button",
          "data-move": "exact",
          title: "Claim the standing bid is exactly right",
          onclick: () => act(["exact"]),
          text: `${capitalize(word)}${sb ? `: exactly ${bidWords(sb[0], sb[1])}` : ""}`,
        }),
      );
    }
    if (econ) {
      if (econ.accuse) {
        const target = g.standing ? seatName(g.standing.seat) : "the claim";
        const b = h("button", { type: "button", class: "danger", "data-move": "accuse", onclick: () => act(withExtras(["accuse"], { push: false })) });
        S.labelers.push(() => {
          const c = cost();
          const problem = raiseProblem();
          b.textContent = problem ? `Accuse ${target} · ${problem}` : `Accuse ${target}${S.raise.on ? `, raising to ${S.raise.value}` : ""}${c ? ` · pay ${c}` : ""}`;
          b.disabled = !!problem || S.pending !== null || !link.isOpen();
        });
        moves.appendChild(b);
        if (!primary) primary = b;
      }
      if (econ.all_in) {
        const chips = g.chips?.[mySeat()] ?? 0;
        moves.appendChild(h("button", { type: "button", class: "danger", "data-move": "all_in", onclick: () => act(["all_in"]), text: `All in (${plural(chips, "chip")}) and accuse` }));
      }
      if (econ.fold) {
        moves.appendChild(h("button", { type: "button", "data-move": "fold", onclick: () => act(["fold"]), text: "Fold (lose a die)" }));
      }
    }
    if (moves.childNodes.length) content.push(moves);
  }
  fill(box, content);
  box.hidden = false;
  refreshLabels();
  if (S.pending !== null) setBusy(true);
  else box.setAttribute("aria-busy", "false");
  if (!link.isOpen()) {
    // A click now could not reach the table: nothing here looks clickable until it can.
    for (const el of box.querySelectorAll("button, input, select")) el.disabled = true;
    return;
  }
  if (!hadFocus || S.pending !== null) return;
  // A state that arrives mid-choice redraws the panel: the focus stays on the control it was on
  // (the face picked with the arrows, the quantity, a move's button), else goes to the main move.
  const again = focusedControl && box.querySelector(focusedControl);
  if (again && !again.disabled) again.focus({ preventScroll: true });
  else if (primary) primary.focus({ preventScroll: true });
}

/** A selector that finds control `el` again in a redrawn panel, or null. */
function sameControl(el) {
  if (el.id) return `#${CSS.escape(el.id)}`;
  if (el.dataset.face && el.getAttribute("role") === "radio") return `[role="radio"][data-face="${CSS.escape(el.dataset.face)}"]`;
  if (el.dataset.move) return `button[data-move="${CSS.escape(el.dataset.move)}"]`;
  return null;
}

function economyPanel(econ, g) {
  const me = mySeat();
  const chips = g.chips?.[me] ?? 0;
  const paid = g.paid?.[me] ?? 0;
  const node = h("div", { class: "economy-line" });
  node.appendChild(
    h("p", {
      text: `The bet is ${g.current_bet ?? "?"}; you have paid ${paid} this round and hold ${plural(chips, "chip")}. ${econ.can_meet ? (econ.owed ? `Meeting it costs ${econ.owed}.` : "You are level with the bet.") : `You cannot meet it (${econ.owed} owed).`}`,
    }),
  );
  if (econ.can_meet && econ.raise_min !== null && econ.raise_min !== undefined && econ.raise_max !== null && econ.raise_max !== undefined) {
    if (S.raise.value === null) S.raise.value = econ.raise_min;
    const input = h("input", {
      type: "number",
      id: "raise-to",
      min: econ.raise_min,
      max: econ.raise_max,
      value: S.raise.invalid ? S.raise.raw : S.raise.value,
      inputmode: "numeric",
      style: "width:6rem",
      disabled: !S.raise.on,
      "aria-label": `raise the bet to (${econ.raise_min} to ${econ.raise_max})`,
    });
    const check = h("input", { type: "checkbox", id: "raise-on", checked: S.raise.on });
    check.addEventListener("change", () => {
      S.raise.on = check.checked;
      input.disabled = !check.checked;
      refreshLabels();
      if (check.checked) input.focus();
    });
    // As with the quantity: a raise is sent as typed or refused, never changed into another.
    // Said on the raise's own line, in place of the range it repeats (a line less on the screen).
    const raiseError = h("span", { id: "raise-error", class: "error-text small", role: "alert", hidden: true });
    const range = h("span", { class: "small muted", text: `${econ.raise_min} to ${econ.raise_max}` });
    const checkRaise = () => {
      const raw = input.value.trim();
      const v = Number(raw);
      const ok = raw !== "" && Number.isInteger(v) && v >= econ.raise_min && v <= econ.raise_max;
      S.raise.invalid = !ok;
      S.raise.raw = raw;
      if (ok) {
        S.raise.value = v;
        input.removeAttribute("aria-invalid");
      } else input.setAttribute("aria-invalid", "true");
      raiseError.textContent = ok ? "" : `${raw === "" ? "Type the new bet" : `The bet cannot be raised to ${raw}`}: ${econ.raise_min} to ${econ.raise_max}.`;
      raiseError.hidden = ok;
      range.hidden = !ok;
      refreshLabels();
    };
    input.addEventListener("input", checkRaise);
    input.addEventListener("change", checkRaise);
    if (S.raise.on && S.raise.invalid) checkRaise(); // drawn again mid-turn: the refusal stays said
    node.appendChild(
      h(
        "div",
        { class: "row" },
        h("label", { class: "checkbox", for: "raise-on" }, check, "Raise the bet to"),
        input,
        range,
        raiseError,
      ),
    );
  }
  return node;
}

/**
 * The bid picker: one button per face with the lowest quantity that raises the standing bid on
 * it (from `legal.bids`), faces that cannot be bid disabled, and a quantity stepper bounded by
 * that face's range. Keys: 1-9 pick a face, arrows left/right move between faces, up/down
 * change the quantity, Enter submits.
 */
function bidPicker(L, g, economy) {
  const faces = Number(options()?.faces) || Math.max(...L.bids.map((b) => Number(b[0])));
  const entries = pickerFaces(L.bids, faces);
  // Faces that cannot be bid say why (a title, and a note under the faces for touch screens).
  const blocked = blockedFaces(entries, {
    options: options(),
    standing: g.standing ? parseBid(g.standing.bid) : null,
    oneDieRound: !!g.one_die_round,
    myDice: g.dice?.[mySeat()],
    diceInPlay: g.dice_in_play,
    word: g.words?.bid || (economy ? "claim" : "bid"),
  });
  const standingFace = g.standing ? parseBid(g.standing.bid)?.[1] : null;
  S.pick.face = defaultFace(entries, S.pick.face, standingFace);
  const word = g.words?.bid || (economy ? "claim" : "bid");
  const wild = g.wild ?? null;

  const form = h("form", { class: "picker-form", novalidate: true });
  const fieldset = h("fieldset", { class: "picker" }, h("legend", { text: `Your ${word}` }));
  const group = h("div", { class: "faces", role: "radiogroup", "aria-label": "Face" });
  const buttons = new Map();
  for (const e of entries) {
    const b = h(
      "button",
      {
        type: "button",
        class: "face-btn",
        role: "radio",
        "data-face": e.face,
        disabled: !e.legal,
        "aria-label": e.legal ? `${e.face}s${e.face === wild ? ` (wild${wildBidNote(options(), wild) ? `; ${wildBidNote(options(), wild)}` : ""})` : ""}: at least ${e.lo}` : `${e.face}s: ${blocked.byFace.get(e.face)}`,
        title: e.legal ? (e.face === wild ? wildBidNote(options(), wild) || null : null) : blocked.byFace.get(e.face),
      },
      die(e.face, { wild: e.face === wild, label: "", "aria-hidden": "true", role: null }),
      h("span", { class: "min", "aria-hidden": "true", text: e.legal ? `${e.lo}+` : "—" }),
    );
    b.addEventListener("click", () => selectFace(e.face, true));
    buttons.set(e.face, b);
    group.appendChild(b);
  }
  const qtyInput = h("input", { type: "number", id: "bid-qty", inputmode: "numeric", "aria-describedby": "bid-qty-range" });
  const minus = h("button", { type: "button", "aria-label": "one fewer", text: "−" });
  const plus = h("button", { type: "button", "aria-label": "one more", text: "+" });
  const range = h("span", { id: "bid-qty-range", class: "small muted" });
  const submit = h("button", { type: "submit", class: "primary bid-submit", "data-move": "bid" });
  // A typed quantity is sent as typed or not at all: out of range the button is disabled and this
  // says what is allowed; it is never turned into another bid.
  const qtyError = h("p", { id: "bid-qty-error", class: "error-text small", role: "alert", hidden: true });
  fieldset.appendChild(group);
  if (blocked.notes.length) fieldset.appendChild(h("p", { id: "faces-note", class: "small muted faces-note", text: blocked.notes.join(" ") }));
  fieldset.appendChild(
    // The button on the quantity's line: one line less, so a turn fits a laptop's screen.
    h("div", { class: "qty" }, h("label", { for: "bid-qty", text: "Quantity" }), minus, qtyInput, plus, range, submit),
  );
  fieldset.appendChild(qtyError);
  form.appendChild(fieldset);

  function entry() {
    return entries.find((e) => e.face === S.pick.face);
  }

  function update() {
    const e = entry();
    for (const [face, b] of buttons) {
      const on = face === S.pick.face;
      b.setAttribute("aria-checked", on ? "true" : "false");
      b.tabIndex = on ? 0 : -1;
    }
    qtyInput.min = e.lo;
    qtyInput.max = e.hi;
    if (document.activeElement !== qtyInput || Number(qtyInput.value) !== S.pick.qty) qtyInput.value = S.pick.qty;
    S.pick.invalid = false;
    qtyInput.removeAttribute("aria-invalid");
    qtyError.hidden = true;
    submit.disabled = false;
    minus.disabled = S.pick.qty <= e.lo;
    plus.disabled = S.pick.qty >= e.hi;
    range.textContent = e.lo === e.hi ? `only ${e.lo}` : `${e.lo} to ${e.hi}`;
    refreshLabels();
  }

  /** Read the typed quantity: taken if the rules allow it, else refused with the allowed range. */
  function checkTyped() {
    const e = entry();
    const raw = qtyInput.value.trim();
    const v = Number(raw);
    const ok = raw !== "" && Number.isInteger(v) && v >= e.lo && v <= e.hi;
    S.pick.invalid = !ok;
    if (ok) {
      S.pick.qty = v;
      qtyInput.removeAttribute("aria-invalid");
      qtyError.hidden = true;
    } else {
      qtyInput.setAttribute("aria-invalid", "true");
      const allowed = e.lo === e.hi ? `only ${e.lo}` : `${e.lo} to ${e.hi}`;
      qtyError.textContent = `${raw === "" ? "Type a quantity" : `${raw} cannot be bid`}: on ${e.face}s the quantity is ${allowed}.`;
      qtyError.hidden = false;
    }
    submit.disabled = !ok;
    minus.disabled = ok && v <= e.lo;
    plus.disabled = ok && v >= e.hi;
    refreshLabels();
    return ok;
  }

  function selectFace(face, resetQty) {
    const e = entries.find((x) => x.face === face && x.legal);
    if (!e) return;
    S.pick.face = face;
    if (resetQty || S.pick.qty === null) S.pick.qty = e.lo;
    S.pick.qty = clamp(S.pick.qty, e.lo, e.hi);
    update();
  }

  function step(delta) {
    const e = entry();
    if (S.pick.invalid) {
      // From a refused number the stepper comes back to the nearest allowed one.
      const v = Number(qtyInput.value);
      S.pick.qty = clamp(Number.isFinite(v) && qtyInput.value.trim() !== "" ? Math.round(v) : e.lo, e.lo, e.hi);
    } else S.pick.qty = clamp(S.pick.qty + delta, e.lo, e.hi);
    update();
  }

  function moveFace(dir) {
    const legal = entries.filter((e) => e.legal);
    const i = legal.findIndex((e) => e.face === S.pick.face);
    const next = legal[(i + dir + legal.length) % legal.length];
    selectFace(next.face, true);
    buttons.get(next.face).focus();
  }

  minus.addEventListener("click", () => step(-1));
  plus.addEventListener("click", () => step(1));
  qtyInput.addEventListener("input", checkTyped);
  qtyInput.addEventListener("change", checkTyped);
  form.addEventListener("keydown", (ev) => {
    if (ev.altKey || ev.ctrlKey || ev.metaKey) return;
    const inQty = ev.target === qtyInput;
    if (/^[1-9]$/.test(ev.key) && !inQty) {
      const f = Number(ev.key);
      if (buttons.has(f) && !buttons.get(f).disabled) {
        ev.preventDefault();
        selectFace(f, true);
        buttons.get(f).focus();
      }
    } else if (ev.key === "ArrowUp" || ev.key === "ArrowDown") {
      ev.preventDefault();
      step(ev.key === "ArrowUp" ? 1 : -1);
    } else if ((ev.key === "ArrowLeft" || ev.key === "ArrowRight") && !inQty) {
      ev.preventDefault();
      moveFace(ev.key === "ArrowRight" ? 1 : -1);
    } else if ((ev.key === "+" || ev.key === "-") && !inQty) {
      ev.preventDefault();
      step(ev.key === "+" ? 1 : -1);
    } else if (ev.key === "Enter" && (ev.target.getAttribute("role") === "radio" || inQty)) {
      // Enter in the quantity goes through the same check as the button, even when it is disabled.
      ev.preventDefault();
      form.requestSubmit();
    }
  });
  form.addEventListener("submit", (ev) => {
    ev.preventDefault();
    const e = entry();
    if (!e) return;
    if (!checkTyped()) {
      qtyInput.focus();
      return;
    }
    act(withExtras([economy ? "claim" : "bid", S.pick.qty, e.face], { raise: economy }));
  });
  S.labelers.push(() => {
    const e = entry();
    if (!e) return;
    const n = pushFaces().length;
    const c = economy ? cost() : null;
    const problem = economy ? raiseProblem() : null;
    const bits = [S.pick.invalid ? `${capitalize(word)}: a quantity from ${e.lo} to ${e.hi}` : `${capitalize(word)} ${bidWords(S.pick.qty, e.face)}`];
    if (n) bits.push(`push ${plural(n, "die", "dice")}`);
    if (problem) bits.push(problem);
    else if (economy && S.raise.on) bits.push(`raise to ${S.raise.value}`);
    if (c) bits.push(`pay ${c}`);
    submit.textContent = bits.join(" · ");
    submit.disabled = !!S.pick.invalid || !!problem || S.pending !== null || !link.isOpen();
  });
  if (S.pick.face !== null) selectFace(S.pick.face, S.pick.qty === null);
  return { node: form, submit };
}

export function showActionError(text) {
  const node = $("#action-error");
  node.textContent = text;
  node.hidden = false;
}

export function hideActionError() {
  $("#action-error").hidden = true;
}
