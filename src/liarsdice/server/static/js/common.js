// Shared helpers of every page: DOM building, the HTTP API, dice, seat tokens, times.
// Text from the server or from players is only ever put into the page as text nodes.

/** Build an element. `attrs`: class, text, dataset, on<Event>, aria-*, boolean and plain attributes. */
export function h(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs || {})) {
    if (value === undefined || value === null || value === false) continue;
    if (key === "class") node.className = value;
    else if (key === "text") node.textContent = String(value);
    else if (key === "dataset") Object.assign(node.dataset, value);
    else if (key.startsWith("on") && typeof value === "function") node.addEventListener(key.slice(2), value);
    else if (value === true) node.setAttribute(key, "");
    else node.setAttribute(key, String(value));
  }
  append(node, children);
  return node;
}

function append(node, children) {
  for (const child of children) {
    if (child === undefined || child === null || child === false) continue;
    if (Array.isArray(child)) append(node, child);
    else if (child instanceof Node) node.appendChild(child);
    else node.appendChild(document.createTextNode(String(child)));
  }
}

/** Replace every child of `node`. */
export function fill(node, ...children) {
  node.replaceChildren();
  append(node, children);
  return node;
}

export const $ = (selector, root = document) => root.querySelector(selector);

// ----- HTTP -----

export class ApiError extends Error {
  constructor(status, message) {
    super(message);
    this.status = status;
  }
}

function detailText(data) {
  if (!data) return "";
  const d = data.detail ?? data.message ?? data;
  if (typeof d === "string") return d;
  if (Array.isArray(d)) {
    return d
      .map((e) => (typeof e === "string" ? e : `${(e.loc || []).filter((x) => x !== "body").join(".")}: ${e.msg}`))
      .join("; ");
  }
  return JSON.stringify(d);
}

/** JSON in, JSON out; a 4xx/5xx answer throws ApiError with the server's `detail`. */
export async function api(path, { method = "GET", body } = {}) {
  let res;
  try {
    res = await fetch(path, {
      method,
      headers: body === undefined ? { Accept: "application/json" } : { "Content-Type": "application/json", Accept: "application/json" },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
  } catch {
    throw new ApiError(0, "The server cannot be reached. Check your connection and try again.");
  }
  let data = null;
  try {
    data = await res.json();
  } catch {
    data = null;
  }
  if (!res.ok) throw new ApiError(res.status, detailText(data) || `${res.status} ${res.statusText}`);
  return data;
}

// ----- seat tokens (one per table code, in localStorage) -----

const seatKey = (code) => `liarsdice:seat:${String(code).toUpperCase()}`;

function storageGet(key) {
  try {
    return localStorage.getItem(key);
  } catch {
    return null;
  }
}

function storageSet(key, value) {
  try {
    if (value === null) localStorage.removeItem(key);
    else localStorage.setItem(key, value);
  } catch {
    /* private mode: the seat lasts as long as the page */
  }
}

export const seats = {
  /** {token, seat, name} or null */
  get(code) {
    const raw = storageGet(seatKey(code));
    if (!raw) return null;
    try {
      const v = JSON.parse(raw);
      return v && typeof v.token === "string" ? v : null;
    } catch {
      return null;
    }
  },
  set(code, value) {
    storageSet(seatKey(code), JSON.stringify({ ...value, saved: Date.now() }));
  },
  remove(code) {
    storageSet(seatKey(code), null);
  },
  /** Every seat this browser holds: [{code, token, seat, name}] */
  all() {
    const found = [];
    try {
      for (let i = 0; i < localStorage.length; i++) {
        const key = localStorage.key(i);
        if (!key || !key.startsWith("liarsdice:seat:")) continue;
        const code = key.slice("liarsdice:seat:".length);
        const v = this.get(code);
        if (v) found.push({ ...v, code });
      }
    } catch {
      /* no storage: no seats */
    }
    return found;
  },
};

export const prefs = {
  get name() {
    return storageGet("liarsdice:name") || "";
  },
  set name(value) {
    storageSet("liarsdice:name", value);
  },
  /** Whether the odds panel is open at a table (off until the person opens it). */
  get odds() {
    return storageGet("liarsdice:odds") === "on";
  },
  set odds(on) {
    storageSet("liarsdice:odds", on ? "on" : null);
  },
  /** Whether the table plays its sounds (off until the person turns them on). */
  get sound() {
    return storageGet("liarsdice:sound") === "on";
  },
  set sound(on) {
    storageSet("liarsdice:sound", on ? "on" : null);
  },
};

// ----- dice -----

// Pip positions on a 3x3 grid: 0 1 2 / 3 4 5 / 6 7 8.
const PIPS = {
  1: [4],
  2: [0, 8],
  3: [0, 4, 8],
  4: [0, 2, 6, 8],
  5: [0, 2, 4, 6, 8],
  6: [0, 2, 3, 5, 6, 8],
  7: [0, 2, 3, 4, 5, 6, 8],
  8: [0, 1, 2, 3, 5, 6, 7, 8],
  9: [0, 1, 2, 3, 4, 5, 6, 7, 8],
};
const SVG = "http://www.w3.org/2000/svg";

function pipsSvg(face) {
  const svg = document.createElementNS(SVG, "svg");
  svg.setAttribute("viewBox", "0 0 30 30");
  svg.setAttribute("aria-hidden", "true");
  svg.setAttribute("focusable", "false");
  for (const p of PIPS[face]) {
    const c = document.createElementNS(SVG, "circle");
    c.setAttribute("cx", String(7.5 + (p % 3) * 7.5));
    c.setAttribute("cy", String(7.5 + Math.floor(p / 3) * 7.5));
    c.setAttribute("r", face === 1 ? "4" : "2.7");
    c.setAttribute("fill", "currentColor");
    svg.appendChild(c);
  }
  return svg;
}

/**
 * One die. opts: size ("big" | "small" | "tiny"), wild (bool), counted, dim, tag ("span" | "button"),
 * label (aria-label), plus any attributes for h().
 */
export function die(face, opts = {}) {
  const { size, wild, counted, dim, tag = "span", label, extraClass, ...rest } = opts;
  const classes = ["die", size, wild && "wild", counted && "counted", dim && "dim", extraClass].filter(Boolean).join(" ");
  const aria = label ?? `${face}${wild ? " (wild)" : ""}`;
  const attrs = { class: classes, "data-face": face, "aria-label": aria || null, title: aria || null, ...rest };
  if (tag === "span" && !("role" in rest)) attrs.role = "img";
  if (tag === "button") attrs.type = "button";
  const node = h(tag, attrs);
  if (PIPS[face]) node.appendChild(pipsSvg(face));
  else node.appendChild(h("span", { "aria-hidden": "true", text: face }));
  return node;
}

/** A row of dice. */
export function diceRow(faces, opts = {}) {
  const { className = "", each, ...dieOpts } = opts;
  return h(
    "span",
    { class: `dice ${className}`.trim() },
    faces.map((f, i) => die(f, { ...dieOpts, ...(each ? each(f, i) : {}) })),
  );
}

/** The wild face number from table options (`wild_face`: none | 1 | "1" | top). */
export function wildFace(options) {
  if (!options) return null;
  const w = options.wild_face;
  if (w === 1 || w === "1") return 1;
  if (w === "top") return Number(options.faces) || 6;
  return null;
}

/** "3x5" -> [3, 5]; [3, 5] -> [3, 5]; anything else -> null */
export function parseBid(bid) {
  if (Array.isArray(bid) && bid.length >= 2) return [Number(bid[0]), Number(bid[1])];
  if (typeof bid === "string") {
    const m = /^(\d+)\s*[x×]\s*(\d+)$/.exec(bid.trim());
    if (m) return [Number(m[1]), Number(m[2])];
  }
  return null;
}

/** "3 × 5s" in words, with a plural face. */
export function bidWords(q, f) {
  return `${q} × ${f}${q === 1 ? "" : "s"}`;
}

// ----- times -----

/** A time from the server: ms since epoch, seconds since epoch, or an ISO string. */
export function toDate(value) {
  if (value === null || value === undefined || value === "") return null;
  if (typeof value === "number") return new Date(value < 1e11 ? value * 1000 : value);
  // An ISO time without a zone is the server's UTC (SQLite drops the zone): do not read it as local.
  const text = /^\d{4}-\d\d-\d\dT\d\d:\d\d(:\d\d(\.\d+)?)?$/.test(value) ? `${value}Z` : value;
  const d = new Date(text);
  return Number.isNaN(d.getTime()) ? null : d;
}

export function formatDate(value) {
  const d = toDate(value);
  if (!d) return "";
  return d.toLocaleString(undefined, { dateStyle: "medium", timeStyle: "short" });
}

export function timeAgo(value) {
  const d = toDate(value);
  if (!d) return "";
  const s = Math.max(0, Math.round((Date.now() - d.getTime()) / 1000));
  if (s < 60) return "just now";
  if (s < 3600) return `${Math.round(s / 60)} min ago`;
  if (s < 86400) return `${Math.round(s / 3600)} h ago`;
  return formatDate(d);
}

// ----- misc -----

/** Copy text; fall back to selecting a temporary field. Resolves true on success. */
export async function copyText(text) {
  try {
    await navigator.clipboard.writeText(text);
    return true;
  } catch {
    const area = h("textarea", { class: "visually-hidden", readonly: true });
    area.value = text;
    document.body.appendChild(area);
    area.select();
    let ok = false;
    try {
      ok = document.execCommand("copy");
    } catch {
      ok = false;
    }
    area.remove();
    return ok;
  }
}

export function plural(n, one, many = `${one}s`) {
  return `${n} ${n === 1 ? one : many}`;
}

export function capitalize(s) {
  return s ? s[0].toUpperCase() + s.slice(1) : s;
}

/** Ordinal place: 1st, 2nd, 3rd, 4th... */
export function ordinal(n) {
  const s = ["th", "st", "nd", "rd"];
  const v = n % 100;
  return n + (s[(v - 20) % 10] || s[v] || s[0]);
}

/** The wild face in words: jokers (a bid on them counts double) say so. */
export function wildWords(options, wild) {
  if (options?.wild_bid_rule === "joker_double") return `${wild}s are jokers: wild, and a joker bid counts double`;
  return `${wild}s are wild`;
}

/** What a bid on the wild face is worth against other bids (null when it ranks like any face). */
export function wildBidNote(options, wild) {
  const rule = options?.wild_bid_rule;
  const low = wild === 1 ? 2 : 1;
  if (rule === "joker_double") return `a bid on ${wild}s counts double: 2 × ${wild}s ranks just below 4 × ${low}s`;
  if (rule === "perudo_half") return `a bid on ${wild}s needs half the quantity, rounded up; going back from ${wild}s needs twice as many plus one`;
  return null;
}

/** Names of the options of RULES.md 2.1 that players may want to read, in words. */
export function rulesSummary(options) {
  if (!options) return [];
  const out = [];
  const wild = wildFace(options);
  const dice = options.dice_per_player;
  const each = Array.isArray(dice) ? (dice.every((d) => d === dice[0]) ? `${plural(dice[0], "die", "dice")} each` : `dice: ${dice.join(", ")}`) : `${plural(dice, "die", "dice")} each`;
  out.push(`${options.num_players} players, ${each}, ${options.faces} faces`);
  out.push(wild ? wildWords(options, wild) : "no wilds");
  const note = wild ? wildBidNote(options, wild) : null;
  if (note) out.push(note);
  if (options.exact && options.exact !== "none") out.push(`exact call: ${options.exact.replace("_", " ")}`);
  if (options.challenge_mode === "siding_vote") out.push("siding vote");
  if (options.goal === "shedding") out.push("first to empty wins");
  if (options.pass && options.pass !== "none") out.push("pass allowed");
  if (options.push) out.push("push allowed");
  if (options.one_die_round && options.one_die_round !== "none") out.push("one-die round");
  if (options.economy && options.economy !== "none") out.push(`chips: ${options.economy.starting_chips} each`);
  return out;
}
