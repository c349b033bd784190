// The lobby's "Play now" (docs/lobby.md): send a seek, then ask the server every second where it
// stands (POST /api/lobby/seek/news) until it is seated; then the seeker's token is its seat's:
// kept as joining keeps one (localStorage), and the table opens, already seated.

import { $, api, prefs, seats } from "./common.js";

const ASK_EVERY = 1000; // ms between asks while waiting
const SEEK_KEY = "liarsdice:seek"; // the token of a seek still waiting (a reload goes on waiting)

const state = { token: null, timer: null, name: null };

function showError(text) {
  const node = $("#seek-error");
  node.textContent = text || "";
  node.hidden = !text;
}

function waiting(on) {
  $("#seek-form").hidden = on;
  $("#seeking").hidden = !on;
}

function remember(token) {
  try {
    if (token) sessionStorage.setItem(SEEK_KEY, token);
    else sessionStorage.removeItem(SEEK_KEY);
  } catch {
    /* private mode: the seek lasts as long as the page */
  }
}

function stop() {
  clearTimeout(state.timer);
  state.timer = null;
  state.token = null;
  remember(null);
  waiting(false);
}

function waitWords(news) {
  const left = Math.max(0, Math.round(news.wait - news.waited));
  return left > 0
    ? `Looking for players… ${Math.round(news.waited)} s so far; bots fill the empty seats in ${left} s.`
    : "Seating you with bots…";
}

async function ask() {
  if (!state.token) return;
  let news;
  try {
    news = await api("/api/lobby/seek/news", { method: "POST", body: { token: state.token } });
  } catch (e) {
    if (e.status === 404) {
      stop();
      showError("The server lost your place in the queue: press Play now again.");
      return;
    }
    $("#seek-status").textContent = `Could not reach the server (${e.message}): trying again…`;
    state.timer = setTimeout(ask, ASK_EVERY);
    return;
  }
  if (news.status === "seated") {
    seats.set(news.code, { token: state.token, seat: news.seat, name: news.name });
    remember(null);
    $("#seek-status").textContent = "Found a table: taking you to your seat…";
    location.assign(`/t/${encodeURIComponent(news.code)}`);
    return;
  }
  if (news.status !== "waiting") {
    stop();
    showError(news.status === "gone" ? "You waited too long without the page: press Play now again." : "");
    return;
  }
  $("#seek-status").textContent = waitWords(news);
  state.timer = setTimeout(ask, ASK_EVERY);
}

async function send(ev) {
  ev.preventDefault();
  showError("");
  const nameInput = $("#seek-name");
  const body = {
    preset: $("#seek-preset").value,
    seats: Number($("#seek-seats").value),
    wait: Number($("#seek-wait").value),
    level: $("#seek-level").value,
    rated: !!$("#seek-rated")?.checked,
  };
  if (nameInput) {
    const name = nameInput.value.trim();
    if (!name) {
      showError("Type the name you want at the table.");
      nameInput.focus();
      return;
    }
    body.name = name;
    prefs.name = name;
  }
  $("#seek-go").disabled = true;
  try {
    const answer = await api("/api/lobby/seek", { method: "POST", body });
    state.token = answer.token;
    remember(answer.token);
    $("#seek-status").textContent = "Looking for players…";
    waiting(true);
    $("#seek-cancel").focus();
    state.timer = setTimeout(ask, 200);
  } catch (e) {
    showError(e.message);
  } finally {
    $("#seek-go").disabled = false;
  }
}

async function cancel() {
  const token = state.token;
  clearTimeout(state.timer);
  if (!token) return stop();
  try {
    const answer = await api("/api/lobby/seek/cancel", { method: "POST", body: { token } });
    if (answer.status !== "cancelled") {
      state.timer = setTimeout(ask, 0); // seated meanwhile: go to the table
      return;
    }
  } catch (e) {
    showError(`Could not cancel: ${e.message}`);
    state.timer = setTimeout(ask, ASK_EVERY);
    return;
  }
  stop();
  $("#seek-go").focus();
}

export function setupPlayNow() {
  const nameInput = $("#seek-name");
  if (nameInput) nameInput.value = prefs.name;
  $("#seek-form").addEventListener("submit", send);
  $("#seek-cancel").addEventListener("click", cancel);
  let saved = null;
  try {
    saved = sessionStorage.getItem(SEEK_KEY);
  } catch {
    saved = null;
  }
  if (saved) {
    state.token = saved;
    waiting(true);
    ask();
  }
}
