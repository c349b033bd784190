// The turn timers of the table page: a seat's bar and every countdown, redrawn four times a
// second against the server's clock. The page's state is lent once by `bindTimer`.

import { h } from "./common.js";
import { clamp } from "./rules.js";

let S;

/** Lend this module the table page's state (once, before any render), and start the clock. */
export function bindTimer(page) {
  ({ S } = page);
  setInterval(tick, 250);
}

export function remainingMs(deadline) {
  return deadline - (Date.now() + S.clockOffset);
}

/** Milliseconds left on a turn timer, never more than the table's limit: right after a reveal
 * the server's deadline also holds the reveal pause, before which the turn's timer does not run. */
export function turnMsLeft(deadline) {
  const left = Math.max(0, remainingMs(deadline));
  const limit = (S.table?.turn_seconds || 0) * 1000;
  return limit > 0 ? Math.min(limit, left) : left;
}

export function timerBar(deadline) {
  const total = Math.max(1, (S.table?.turn_seconds || 60) * 1000);
  const wrap = h("div", { class: "seat-timer" });
  const bar = h("span");
  const holder = h("div", { class: "timer", "data-deadline": deadline, "data-total": total, role: "progressbar", "aria-label": "time left", "aria-valuemin": 0, "aria-valuemax": Math.round(total / 1000) }, bar);
  wrap.appendChild(holder);
  wrap.appendChild(h("span", { class: "small muted", "data-countdown": deadline }));
  return wrap;
}

export function tick() {
  for (const node of document.querySelectorAll("[data-deadline]")) {
    const left = turnMsLeft(Number(node.dataset.deadline));
    const total = Number(node.dataset.total) || 60000;
    const frac = clamp(left / total, 0, 1);
    node.firstElementChild.style.width = `${(frac * 100).toFixed(1)}%`;
    node.classList.toggle("low", left < 10000);
    node.setAttribute("aria-valuenow", String(Math.ceil(left / 1000)));
  }
  for (const node of document.querySelectorAll("[data-countdown]")) {
    const left = Math.ceil(turnMsLeft(Number(node.dataset.countdown)) / 1000);
    node.textContent = `${left} s left`;
  }
  for (const node of document.querySelectorAll("[data-reveal-until]")) {
    const left = Math.ceil(remainingMs(Number(node.dataset.revealUntil)) / 1000);
    node.textContent = left > 0 ? `Next round in ${left} s` : "";
  }
}
