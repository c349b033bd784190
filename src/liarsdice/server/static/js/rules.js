// Pure helpers about moves and records: no DOM, so they can be checked on their own.

import { bidWords, parseBid, wildFace } from "./common.js";

/** What the exact call is named with these options (as the terminal names it). */
export function exactWord(options) {
  if (!options) return "exact";
  if (options.exact === "others_lose") return "spot-on";
  if (options.exact === "gain_die" && (options.pass ?? "none") === "none") return "calza";
  return "exact";
}

export function isEconomy(options) {
  return !!options && !!options.economy && options.economy !== "none";
}

/** `you` agreed: "Ann bids" but "You bid". */
function says(who, verb, rest = "") {
  let v = verb;
  if (who === "You") {
    v = { is: "are", has: "have", goes: "go", does: "do" }[verb] ?? verb.replace(/(ss|sh|ch|x)es$/, "$1").replace(/s$/, "");
  }
  return `${who} ${v}${rest ? ` ${rest}` : ""}`;
}

/** A list-form action in words: ["bid", 3, 5, {push: [5]}] -> "Ann bids 3 × 5s, pushing 5". */
export function describeAction(who, action, options) {
  const [kind, ...rest] = action;
  const extra = rest.length && typeof rest[rest.length - 1] === "object" && !Array.isArray(rest[rest.length - 1]) ? rest[rest.length - 1] : {};
  const push = extra.push && extra.push.length ? `, pushing ${extra.push.join(" ")}` : "";
  const raise = extra.raise_to !== undefined && extra.raise_to !== null ? `, raising the bet to ${extra.raise_to}` : "";
  switch (kind) {
    case "bid":
      return says(who, "bids", bidWords(rest[0], rest[1])) + push;
    case "claim":
      return says(who, "claims", bidWords(rest[0], rest[1])) + raise + push;
    case "pass":
      return says(who, "passes") + push;
    case "challenge":
      return says(who, options && options.exact === "others_lose" ? "calls" : "challenges", extra.target || "");
    case "exact":
      return says(who, "calls", exactWord(options));
    case "vote":
      return says(who, rest[0] === "believe" ? "believes" : "doubts", "the bid");
    case "accuse":
      return says(who, "accuses") + raise;
    case "all_in":
      return says(who, "goes", who === "You" ? "all-in and accuse" : "all-in and accuses");
    case "fold":
      return says(who, "folds");
    default:
      return `${who}: ${JSON.stringify(action)}`;
  }
}

/**
 * The bid picker's model from `legal.bids` ([[face, lo, hi], ...]) and the number of faces.
 * Returns one entry per face 1..faces: {face, legal, lo, hi}.
 */
export function pickerFaces(legalBids, faces) {
  const byFace = new Map((legalBids || []).map(([f, lo, hi]) => [Number(f), [Number(lo), Number(hi)]]));
  const maxFace = Math.max(Number(faces) || 0, ...byFace.keys(), 0);
  const out = [];
  for (let f = 1; f <= maxFace; f += 1) {
    const r = byFace.get(f);
    out.push(r ? { face: f, legal: true, lo: r[0], hi: r[1] } : { face: f, legal: false, lo: null, hi: null });
  }
  return out;
}

/**
 * The face the picker selects first: the kept choice if still legal, else the standing bid's face,
 * else the legal face with the lowest minimum quantity (ties: the lower face).
 */
export function defaultFace(entries, keep, standingFace) {
  const legal = entries.filter((e) => e.legal);
  if (!legal.length) return null;
  if (keep && legal.some((e) => e.face === keep)) return keep;
  if (standingFace && legal.some((e) => e.face === standingFace)) return standingFace;
  let best = legal[0];
  for (const e of legal) if (e.lo < best.lo) best = e;
  return best.face;
}

export function clamp(n, lo, hi) {
  return Math.min(hi, Math.max(lo, n));
}

/** Remove `faces` (with repetition) from `cup`; returns the cup that is left. */
export function removeFaces(cup, faces) {
  const left = [...cup];
  for (const f of faces) {
    const i = left.indexOf(f);
    if (i >= 0) left.splice(i, 1);
  }
  return left;
}

/**
 * The replay model of a game record: rounds with their starting hands and their steps.
 * Each round: {no, hands: {name: faces}, steps: [{kind: "action"|"reroll", seat, action?, faces?}],
 * starter, outcome}.
 */
export function recordRounds(record) {
  const rounds = [];
  let current = null;
  let starter = null;
  // `index`: the step's place in the record's `steps` (what an analysis names a move by).
  for (const [index, step] of (record.steps || []).entries()) {
    if (step.chance === "starter") {
      starter = step.seat;
      if (current) current.nextStarter = step.seat;
    } else if (step.chance === "roll") {
      current = { no: step.round ?? rounds.length + 1, index, hands: step.hands || {}, steps: [], starter, outcome: null };
      starter = null;
      rounds.push(current);
    } else if (step.chance === "reroll") {
      if (current) current.steps.push({ kind: "reroll", seat: step.seat, faces: step.faces || [], index });
    } else if (step.seat !== undefined && Array.isArray(step.action)) {
      if (current) {
        if (current.starter === null) current.starter = step.seat;
        current.steps.push({ kind: "action", seat: step.seat, action: step.action, index });
      }
    }
  }
  const outcomes = record.rounds || [];
  rounds.forEach((r, i) => {
    r.outcome = outcomes.find((o) => o.round === r.no) ?? outcomes[i] ?? null;
  });
  return rounds;
}

/**
 * Every seat's dice after the first `k` steps of a round: {name: {cup, pushed}}, plus the standing
 * bid [q, f, seat] and the seats that have passed.
 */
export function roundPosition(round, k) {
  const hands = {};
  for (const [name, faces] of Object.entries(round.hands)) hands[name] = { cup: [...faces], pushed: [] };
  let standing = null;
  for (const step of round.steps.slice(0, k)) {
    const seat = hands[step.seat];
    if (step.kind === "reroll") {
      if (seat) seat.cup = [...step.faces];
      continue;
    }
    const [kind, ...rest] = step.action;
    const extra = rest.length && typeof rest[rest.length - 1] === "object" ? rest[rest.length - 1] : {};
    if (extra && Array.isArray(extra.push) && seat) {
      seat.cup = removeFaces(seat.cup, extra.push);
      seat.pushed.push(...extra.push);
    }
    if (kind === "bid" || kind === "claim") standing = [rest[0], rest[1], step.seat];
  }
  return { hands, standing };
}

/** The reveal of a recorded round outcome in words (record format, as in liarsdice.text). */
export function outcomeLines(o, options) {
  if (!o) return [];
  const lines = [];
  const whose = (n) => `${n}'s`;
  const bid = parseBid(o.bid);
  const wild = o.one_die_round ? null : wildFace(options);
  if (bid && o.count !== null && o.count !== undefined) {
    const f = bid[1];
    const counted = `${f}s${wild !== null && f !== wild ? ` (with wild ${wild}s)` : ""}`;
    lines.push(`Counted ${counted}: ${o.count} against the ${isEconomy(options) ? "claim" : "bid"} ${bidWords(bid[0], bid[1])}.`);
  }
  if (o.kind === "challenge" && o.caller && o.target) {
    if (o.pass_valid !== null && o.pass_valid !== undefined) {
      lines.push(`${whose(o.target)} pass was ${o.pass_valid ? "valid" : "not valid"}.`);
    } else {
      lines.push(`${o.caller} challenged: ${whose(o.target)} bid was ${o.claim_true ? "true" : "a lie"}.`);
    }
  } else if (o.kind === "exact" && o.caller) {
    lines.push(`${whose(o.caller)} ${exactWord(options)} ${o.exact_hit ? "hit: the count is exactly right." : "missed."}`);
  } else if (o.kind === "accusation" && o.caller && o.target) {
    lines.push(`${o.caller} accused: ${whose(o.target)} claim was ${o.claim_true ? "true" : "a lie"}.`);
  } else if (o.kind === "folds" && o.target) {
    lines.push(`Everyone else folded: ${o.target} is the last one in.`);
  }
  if (o.votes && Object.keys(o.votes).length) {
    lines.push(`Votes: ${Object.entries(o.votes).map(([n, v]) => `${n} ${v === "believe" ? "believed" : "doubted"}`).join(", ")}.`);
  }
  const changes = [];
  for (const [name, before] of Object.entries(o.dice_before || {})) {
    const d = (o.dice_after?.[name] ?? before) - before;
    if (d) {
      const word = d > 0 ? "gains" : options?.goal === "shedding" ? "sheds" : "loses";
      changes.push(`${name} ${word} ${Math.abs(d)} ${Math.abs(d) === 1 ? "die" : "dice"}`);
    }
  }
  if (changes.length) lines.push(`${changes.join("; ")}.`);
  else if (options?.rounds !== "single") lines.push("No dice change hands.");
  if (o.out && o.out.length) {
    const shed = options?.goal === "shedding";
    lines.push(o.out.length === 1 ? `${o.out[0]} ${shed ? "finishes" : "is out"}.` : `${o.out.join(" and ")} ${shed ? "finish" : "are out"}.`);
  }
  if (o.pot !== undefined && o.pot !== null) {
    if (o.pot === 0) lines.push("The pot was empty.");
    else if (o.winner) lines.push(`Pot ${o.pot}: ${o.winner} takes ${o.pot_share ?? 0}, ${o.pot - (o.pot_share ?? 0)} to the running pot.`);
    lines.push(`Running pot: ${o.running_pot_after}.`);
  }
  return lines;
}

/** The final ranking as [[place, [names]]] from a result (`ranking` groups, `places` by name). */
export function rankingGroups(result) {
  if (!result) return [];
  const groups = Array.isArray(result.ranking) ? result.ranking : [];
  const places = result.places || {};
  const out = [];
  let next = 1;
  for (const g of groups) {
    const names = Array.isArray(g) ? g : [g];
    const place = places[names[0]] ?? next;
    out.push([place, names]);
    next += names.length;
  }
  return out;
}

function facesList(faces) {
  const words = faces.map((f) => `${f}s`);
  return words.length > 1 ? `${words.slice(0, -1).join(", ")} or ${words[words.length - 1]}` : words[0];
}

/** Why a face of the bid picker cannot be bid now: a key, and its sentence for these faces. */
function faceBlock(face, ctx) {
  const { options: o, standing, oneDieRound, myDice, diceInPlay, word = "bid" } = ctx;
  const w = wildFace(o);
  if (!standing) {
    if (face === w && o?.wild_opening === false && !oneDieRound) return { key: "wild-open", text: () => `${w}s can't open a round in these rules: open on another face.` };
    return { key: "none", text: (fs) => `No ${word} on ${facesList(fs)} is possible now.` };
  }
  const [q, f] = standing;
  if (oneDieRound && face !== f && o?.one_die_round && o.one_die_round !== "none") {
    if (o.one_die_round.face_change === "nobody") return { key: "locked", text: () => `Nobody may change the face this round: ${word} more ${f}s.` };
    if (myDice !== 1) return { key: "locked", text: () => `This round only players with 1 die may change the face: ${word} more ${f}s.` };
  }
  if (o?.bid_order === "face_major" && face < f) return { key: "lower", text: (fs) => `A ${word} goes up by face: after ${f}s, not ${facesList(fs)}.` };
  return { key: "many", text: (fs) => `No ${word} on ${facesList(fs)} beats ${bidWords(q, f)}: ${diceInPlay === 1 ? "there is only 1 die" : `there are only ${diceInPlay} dice`} on the table.` };
}

/**
 * Why the faces the picker shows disabled cannot be bid, in a player's words: {byFace: Map(face ->
 * sentence), notes: [sentence, ...]} (one note per reason, naming all its faces).
 * `ctx`: {options, standing: [q, f] | null, oneDieRound, myDice, diceInPlay, word}.
 */
export function blockedFaces(entries, ctx) {
  const byFace = new Map();
  const groups = new Map();
  for (const e of entries) {
    if (e.legal) continue;
    const why = faceBlock(e.face, ctx);
    byFace.set(e.face, why.text([e.face]));
    if (!groups.has(why.key)) groups.set(why.key, { text: why.text, faces: [] });
    groups.get(why.key).faces.push(e.face);
  }
  return { byFace, notes: [...groups.values()].map((g) => g.text(g.faces)) };
}
