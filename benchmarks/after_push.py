"""Who plays the best level's decisions in Soar, after a push and once an exact is called: a
trained strategy, or the reader?

    python benchmarks/after_push.py [--games 200] [--seed 1] [--opponent Expert] [--dice 5]

Whole heads-up Soar games, Master against `--opponent` (a level), seats alternated and each game
and bot seeded. Every decision of Master is counted by what the round is (a duel before any push
where both may still call exact, one once an exact is called, a duel after a push, or anything
else) and by what played it (`DuelBot.source`): the trained strategy (`duel`), the reader because
it trusts its read of the other (`reader`), or the reader because no strategy covers the round
(`fallback`). After a push the strategy plays where the round after it is shipped (`duel.plan`'s
`soar-pushed`: cups of up to 5 dice in all; after the last push, of all the pusher's dice
shown), unless the other player passed before that push or both pushed; once an exact is
called, by `soar-opener`, `soar-other` or `soar-spent` (every size). It prints figures; nothing
is asserted.
"""

from __future__ import annotations

import argparse
import platform
import shlex
import sys
import time
from collections import Counter

from liarsdice.bots.after_push import after_push
from liarsdice.bots.cfr import duel_dice, duel_exact_left
from liarsdice.bots.duel import DuelBot
from liarsdice.levels import find
from liarsdice.match import play_game
from liarsdice.players import make_bot
from liarsdice.rules import Game, PlayerView, preset_options


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=200)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--opponent", default="Expert", help="the level Master plays against")
    parser.add_argument("--dice", type=int, default=5, help="dice a player at the start")
    args = parser.parse_args(argv)
    print("$ python " + " ".join(shlex.quote(a) for a in [sys.argv[0], *(argv or sys.argv[1:])]))
    print(f"python {platform.python_version()} on {platform.machine()}")
    opponent = find(args.opponent)
    if opponent is None:
        raise SystemExit(f"--opponent {args.opponent!r} is not a level")
    game = Game(preset_options("soar", {"num_players": 2, "dice_per_player": args.dice}))
    tally: Counter[tuple[str, str]] = Counter()
    sizes: Counter[tuple[tuple[int, int], str]] = Counter()
    spent: Counter[tuple[tuple[int, int], str]] = Counter()
    wins = 0

    class Counted:
        def __init__(self, bot: DuelBot) -> None:
            self.bot = bot

        def __getattr__(self, name: str) -> object:
            return getattr(self.bot, name)

        def act(self, view: PlayerView, limit: object = None) -> object:
            action = self.bot.act(view, limit)  # type: ignore[arg-type]
            dice = duel_dice(view, passes=True)
            pushed = None if dice is not None else after_push(view)
            if dice is not None:
                kind = "duel" if duel_exact_left(view) == (True, True) else "duel, an exact called"
                if kind != "duel":
                    spent[(dice, self.bot.source)] += 1
            else:
                kind = "after a push" if pushed else "other"
            tally[(kind, self.bot.source)] += 1
            if pushed is not None:
                sizes[(pushed.dice, self.bot.source)] += 1
            return action

    started = time.perf_counter()
    for g in range(args.games):
        seed = args.seed * 100_000 + g
        master = DuelBot(seed=2 * seed)
        other = make_bot(opponent.bot, 2 * seed + 1)
        seats = [Counted(master), other] if g % 2 == 0 else [other, Counted(master)]
        state, _ = play_game(game, seats, seed=seed)  # type: ignore[arg-type]
        result = state.result
        if result is not None and result.places[g % 2] == 1:
            wins += 1
    print(f"{args.games} games of {args.dice} dice each, Master against {opponent.name}: Master won {wins}")
    print(f"{time.perf_counter() - started:.0f} s")
    print("| Master's decisions | strategy (duel) | reader, trusted | reader, no strategy | other |")
    print("|---|---|---|---|---|")
    for kind in ("duel", "duel, an exact called", "after a push", "other"):
        row = {source: n for (k, source), n in tally.items() if k == kind}
        strategy, trusted, uncovered = row.pop("duel", 0), row.pop("reader", 0), row.pop("fallback", 0)
        print(f"| {kind} | {strategy} | {trusted} | {uncovered} | {sum(row.values())} |")
    print()
    print("Once an exact is called, by cups (the opener's first): strategy / reader trusted / no strategy")
    for dice in sorted({d for d, _ in spent}, key=lambda d: (sum(d), d)):
        counts = " / ".join(str(spent[(dice, source)]) for source in ("duel", "reader", "fallback"))
        print(f"  {dice[0]}v{dice[1]}: {counts}")
    print()
    print("After a push, by cups (the pusher's first): strategy / reader")
    for dice in sorted({d for d, _ in sizes}):
        print(f"  {dice[0]}v{dice[1]}: {sizes[(dice, 'duel')]} / {sizes[(dice, 'reader')] + sizes[(dice, 'fallback')]}")


if __name__ == "__main__":
    main()
