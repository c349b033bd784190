// The bots page: make a bot account (its token shown once), see the accounts, revoke one's own.

import { $, api, copyText, fill, formatDate, h } from "./common.js";

const REFRESH_MS = 15000; // bots come online and go while the page is open

function showError(id, message) {
  const node = $(id);
  node.textContent = message || "";
  node.hidden = !message;
}

function connectLine(token) {
  return `liarsdice bot connect ${location.origin} --token ${token} -- ./mybot`;
}

async function loadAccounts() {
  try {
    const data = await api("/api/bot-accounts");
    showError("#list-error", "");
    $("#make-form").hidden = !data.signup;
    $("#signup-off").hidden = data.signup;
    const rows = data.accounts.map((a) =>
      h(
        "tr",
        { "data-bot": a.name },
        h("td", {}, h("strong", { text: a.name })),
        h("td", {}, a.online ? h("span", { class: "badge accent", text: "online" }) : h("span", { class: "muted", text: "offline" })),
        h("td", { class: "small muted", text: formatDate(a.created) }),
      ),
    );
    fill($("#accounts-body"), ...rows);
    $("#accounts").hidden = rows.length === 0;
    $("#accounts-empty").hidden = rows.length !== 0;
    const online = data.accounts.filter((a) => a.online).length;
    $("#list-status").textContent = `${data.accounts.length} in all, ${online} online`;
  } catch (e) {
    showError("#list-error", `The bot accounts could not be loaded: ${e.message}`);
  }
}

async function copy(field) {
  const ok = await copyText($(field).value);
  $("#copy-status").textContent = ok ? "Copied." : "Could not copy: select the text and copy it yourself.";
}

async function make(event) {
  event.preventDefault();
  const name = $("#bot-name").value;
  if (!name.trim()) {
    showError("#make-error", "Give your bot a name (1 to 24 characters).");
    return;
  }
  const button = $("#make-btn");
  button.disabled = true;
  showError("#make-error", "");
  try {
    const made = await api("/api/bot-accounts", { method: "POST", body: { name } });
    $("#made-title").textContent = `The bot account ${made.name} is made.`;
    $("#made-token").value = made.token;
    $("#made-command").value = connectLine(made.token);
    $("#copy-status").textContent = "";
    $("#made").hidden = false;
    $("#bot-name").value = "";
    $("#made-token").focus();
    $("#made-token").select();
    await loadAccounts();
  } catch (e) {
    showError("#make-error", e.message); // the name stays in the field, to be corrected
  } finally {
    button.disabled = false;
  }
}

async function revoke(event) {
  event.preventDefault();
  const token = $("#revoke-token").value.trim();
  $("#revoke-done").hidden = true;
  if (!token) {
    showError("#revoke-error", "Paste the bot's token: only whoever holds it may revoke it.");
    return;
  }
  const button = $("#revoke-btn");
  button.disabled = true;
  showError("#revoke-error", "");
  try {
    const done = await api("/api/bot-accounts/revoke", { method: "POST", body: { token } });
    $("#revoke-token").value = "";
    $("#revoke-done").textContent = `${done.name} is revoked: it was disconnected, and its token no longer works.`;
    $("#revoke-done").hidden = false;
    await loadAccounts();
  } catch (e) {
    showError("#revoke-error", e.message);
  } finally {
    button.disabled = false;
  }
}

$("#make-form").addEventListener("submit", make);
$("#revoke-form").addEventListener("submit", revoke);
$("#copy-token").addEventListener("click", () => copy("#made-token"));
$("#copy-command").addEventListener("click", () => copy("#made-command"));
loadAccounts();
setInterval(loadAccounts, REFRESH_MS);
