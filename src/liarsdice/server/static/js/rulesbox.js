// The table's Rules box: the whole rules of this table's own options, in a player's words, as
// the server words them (POST /api/rules, the same text as the /rules pages), with a link to
// the full rules of its preset.

import { $, api, fill, h, rulesSummary } from "./common.js";

let asked = null; // the preset and options last asked for: asked again only when they change

export async function renderRulesBox(table) {
  if (!table || !table.options) return;
  const key = JSON.stringify([table.preset, table.options]);
  if (key === asked) return;
  asked = key;
  const box = $("#rules-text");
  const more = $("#rules-full");
  more.href = `/rules/${encodeURIComponent(table.preset)}`;
  more.textContent = `The full rules of ${table.title || table.preset}`;
  showLesson(table.preset);
  // The short summary at once, the whole rules when the server has worded them.
  if (!box.querySelector(".rules-section")) fill(box, h("p", { class: "rules-summary", text: rulesSummary(table.options).join(" · ") }));
  let book;
  try {
    book = await api("/api/rules", { method: "POST", body: { preset: table.preset, options: table.options } });
  } catch (e) {
    if (asked !== key) return;
    if (e.status === 0) asked = null; // not reached: ask again at the next render
    return;
  }
  if (asked !== key) return; // the rules changed while this was asked
  fill(
    box,
    h("p", { class: "rules-summary", text: book.summary }),
    book.sections.map((s) =>
      h("section", { class: "rules-section" }, h("h3", { text: s.title }), h("ul", { class: "rules-lines" }, s.lines.map((line) => h("li", { text: line })))),
    ),
  );
}

// The lesson of this table's preset (the page holds each preset's, from the server).
function showLesson(preset) {
  const link = $("#rules-learn");
  let lessons = {};
  try {
    lessons = JSON.parse(link.dataset.lessons || "{}");
  } catch {
    lessons = {};
  }
  const found = lessons[preset];
  if (!found) return;
  link.href = `/learn/${encodeURIComponent(found[0])}`;
  link.textContent = `Learn these rules: ${found[1]}`;
}
