// The best bot's words, shared by the table page's hint (hint.js) and the replay's analysis
// (analysis.js): a move's value in dice or chips, a chance, where a judgement comes from, and
// the marks of a move that lost (docs/replay.md).

/** A value in the game's unit, signed: "+0.18 dice", "−1.40 chips". */
export function valueText(value, unit) {
  if (typeof value !== "number" || !Number.isFinite(value)) return "—";
  const n = Math.abs(value).toFixed(2);
  const sign = value > 0.004 ? "+" : value < -0.004 ? "−" : "±";
  return `${sign}${n} ${unit === "chips" ? "chips" : "dice"}`;
}

/** A probability as a whole percentage ("<1%" and ">99%" at the ends, never a false 0 or 100). */
export function percent(p) {
  if (typeof p !== "number" || !Number.isFinite(p)) return "—";
  if (p > 0 && p < 0.005) return "<1%";
  if (p < 1 && p > 0.995) return ">99%";
  return `${Math.round(p * 100)}%`;
}

/** Where a judgement comes from, in a sentence. */
export function sourceLine(source) {
  return source === "exact"
    ? "Exact: the shipped two-player strategy covers this position."
    : "Estimate: the multi-seat (Expert) level's reckoning, not an exact value.";
}

export function sourceWord(source) {
  return source === "exact" ? "exact" : "estimate";
}

/** The marks of a judged move, as chess players know them. */
export const MARKS = {
  inaccuracy: { sign: "?!", word: "Inaccuracy" },
  mistake: { sign: "?", word: "Mistake" },
  blunder: { sign: "??", word: "Blunder" },
};
