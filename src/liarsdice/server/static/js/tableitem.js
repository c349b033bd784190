// One table in a list of tables (the home page's tables, the lobby's open tables and games to
// watch): its rules and code, who sits there, an optional line of details, and one button.

import { h } from "./common.js";

/** The list item of table `t` (as /api/tables and /api/lobby give it), with a button `label` to `href`. */
export function tableItem(t, { label, href, primary = false, details = null }) {
  const title = t.title || t.preset;
  return h(
    "li",
    { "data-code": t.code },
    h(
      "div",
      { class: "lobby-meta" },
      h("div", { class: "title" }, `${title} `, h("span", { class: "code small", text: t.code })),
      Array.isArray(t.names) && t.names.length ? h("div", { class: "small", text: `with ${t.names.join(", ")}` }) : null,
      details ? h("div", { class: "small muted", text: details }) : null,
    ),
    h("a", { class: `button${primary ? " primary" : ""}`, href, text: label, "aria-label": `${label}: ${title} table ${t.code}` }),
  );
}
