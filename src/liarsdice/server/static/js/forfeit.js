// A game a bot account forfeited (docs/protocol.md, the `forfeit` message): the game ends at once,
// the seat that forfeited last and every other seat sharing first place. The engine's state and
// the record have no result (their steps do not end the game), so the table page (from the
// table's `forfeit`) and the replay (from the record's `meta.forfeit`) draw it from these.

// The bot protocol's failures (docs/bot-protocol.md), as a player would say them.
const WHY = {
  timeout: "its program did not answer in time",
  illegal: "its program chose a move the rules do not allow",
  garbage: "its program sent something that is not a move",
  huge_line: "its program sent a line too long to read",
  crash: "its program stopped",
};

/** Why a bot forfeited, in a player's words: "timeout: no answer within 5 s" becomes "its
 * program did not answer in time (no answer within 5 s)"; any other reason is kept as given. */
export function forfeitWhy(reason) {
  const text = String(reason ?? "").trim();
  if (!text || text === "forfeited") return "";
  const m = /^([a-z_]+):\s*([\s\S]*)$/.exec(text);
  if (!m || !WHY[m[1]]) return text;
  const detail = m[2].trim().replace(/[.\s]+$/, "");
  return detail ? `${WHY[m[1]]} (${detail})` : WHY[m[1]];
}

/** The sentence that says a game ended by a forfeit: "Robo forfeited the game: its program …". */
export function forfeitLine(name, reason) {
  const why = forfeitWhy(reason).replace(/[.\s]+$/, "");
  return `${name} forfeited the game${why ? `: ${why}` : ""}.`;
}

/** A forfeit's result as a record gives a result: `name` last, every other seat first. */
export function forfeitResult(seats, name) {
  const names = Array.isArray(seats) ? seats : [];
  const others = names.filter((n) => n !== name);
  return {
    places: Object.fromEntries(names.map((n) => [n, n === name ? names.length : 1])),
    ranking: others.length ? [others, [name]] : [[name]],
  };
}

/** The game `g` as the table page draws it: once the table says a forfeit ended it, it is over
 * (no turn, no timer, no move) with the forfeit's ranking, like any finished game. */
export function overByForfeit(g, table) {
  const f = table?.forfeit;
  if (!g || !f || g.result || table.game_id !== g.game_id) return g;
  const name = g.seats?.[f.seat] ?? `Seat ${f.seat + 1}`;
  const line = forfeitLine(name, f.reason);
  const result = { ...(f.result || forfeitResult(g.seats, name)), lines: [] };
  return { ...g, phase: "over", to_act: null, legal: null, deadline: null, reveal_until: null, result, forfeit: { name, reason: f.reason, line } };
}
