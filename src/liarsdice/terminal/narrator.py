"""What everyone at the terminal is told as the game goes: each move as it is made, each round as
it starts, the reveal at its end and the pause after it, and the final ranking. Once the people
at the keyboard are out, they may skip the bots' remaining rounds straight to the ranking."""

from __future__ import annotations

import time
from collections.abc import Callable

from rich.text import Text

from ..rules import (
    CupRerolled,
    DiceRerolled,
    Event,
    GameOver,
    GameState,
    PlayerView,
    RoundOutcome,
    RoundResolved,
    RoundStarted,
    StarterDrawn,
    Turn,
    redact,
)
from ..text import describe_outcome, describe_result, describe_turn, faces_text, plural, says
from .screen import QuitGame, Screen

Sleep = Callable[[float], None]

REVEAL_PROMPT = "Press Enter for the next round. "
SKIP_WORDS = ("skip", "s")


class Narrator:
    """Tells everyone at the terminal what happens, through the screen. After each reveal it waits
    for Enter while a person is still in the game, else `delay` seconds (through `sleep`), so that
    a game can be followed."""

    def __init__(self, screen: Screen, delay: float = 0.0, sleep: Sleep = time.sleep) -> None:
        self.screen = screen
        self.delay = delay
        self.sleep = sleep
        self.skipping = False  # the people are out and chose to skip to the final ranking
        self.skipped_rounds = 0

    def observe(self, state: GameState, events: tuple[Event, ...]) -> None:
        """Called by `play_game` after every step: keep it, and show what it did."""
        view = state.view(self.screen.viewer)
        seats = self.screen.game.seats
        o = self.screen.game.options
        for event in events:
            shown = redact(event, self.screen.viewer)
            if self.skipping and not isinstance(shown, GameOver):
                self.skipped_rounds += isinstance(shown, RoundResolved)
                continue
            if isinstance(shown, StarterDrawn):
                self.screen.say(f"Luck picks {self.screen.name(shown.seat)} to open.")
            elif isinstance(shown, RoundStarted):
                self._round_started(view, shown)
            elif isinstance(shown, Turn):
                if self.screen.hot_seat and shown.seat in self.screen.people:
                    self.screen.clear()
                self.screen.say(describe_turn(shown, seats, o))
            elif isinstance(shown, DiceRerolled):
                self.screen.say(
                    f"{self.screen.cup_label(shown.seat)} after the reroll: {faces_text(sorted(shown.faces))}", "bold"
                )
            elif isinstance(shown, CupRerolled):
                dice = plural(shown.count, "die", "dice")
                self.screen.say(f"{says(self.screen.name(shown.seat), 'rerolls', dice)} under the cup.")
            elif isinstance(shown, RoundResolved):
                self._reveal(shown)
                self._pause(shown.outcome)
            elif isinstance(shown, GameOver):
                if self.skipping:
                    self.screen.say(f"The bots played {plural(self.skipped_rounds, 'more round')}.")
                self.screen.console.rule(Text("Game over"))
                self.screen.say("Final ranking:", "bold")
                for line in describe_result(shown.result, seats):
                    self.screen.say("  " + line)

    def _round_started(self, view: PlayerView, event: RoundStarted) -> None:
        title = f"Round {event.round_no}"
        if event.one_die_round:
            title += ": one-die round, nothing is wild"
        self.screen.console.rule(Text(title))
        dice = ", ".join(f"{self.screen.name(s)} {d}" for s, d in enumerate(event.dice) if view.active[s])
        self.screen.say(f"{says(self.screen.name(event.starter), 'opens')}. Dice: {dice}.")
        if view.chips is not None:
            chips = ", ".join(f"{self.screen.name(s)} {c}" for s, c in enumerate(view.chips) if view.active[s])
            self.screen.say(f"The bet starts at {view.current_bet}. Chips: {chips}. Running pot {view.running_pot}.")
        if self.screen.viewer is not None and view.active[self.screen.viewer]:
            self.screen.say(f"{self.screen.cup_label(self.screen.viewer)}: {faces_text(sorted(view.cup))}", "bold")

    def _reveal(self, event: RoundResolved) -> None:
        outcome = event.outcome
        self.screen.say("Reveal:", "bold")
        for line in describe_outcome(outcome, self.screen.game.seats, self.screen.game.options):
            self.screen.say(line)
        if not outcome.game_over:
            if outcome.next_starter is not None:
                self.screen.say(says(self.screen.name(outcome.next_starter), "opens", "the next round."))
            if outcome.next_one_die_round:
                self.screen.say("The next round is a one-die round: nothing is wild in it.")

    def _pause(self, outcome: RoundOutcome) -> None:
        """Keep the reveal on screen: until Enter while a person still plays, else `delay`
        seconds (the rounds of bots alone would otherwise scroll past at once)."""
        if outcome.game_over:
            return
        still_in = [s for s in outcome.active if s not in outcome.out]
        if any(seat in still_in for seat in self.screen.people):
            seat = self.screen.viewer
            answer = self.screen.ask(REVEAL_PROMPT, seat)
            if " ".join(answer.lower().split()) in ("quit", "exit"):
                raise QuitGame("quit", seat=seat)
        elif self.delay > 0:
            if any(seat in outcome.out for seat in self.screen.people) and self._offer_skip(outcome):
                return
            self.sleep(self.delay)

    def _offer_skip(self, outcome: RoundOutcome) -> bool:
        """The last person at the keyboard is out: ask whether to watch the bots play on, a
        round every `delay` seconds, or skip to the final ranking. True if skipping."""
        gone = [self.screen.name(s) for s in self.screen.people if s in outcome.out]
        who = " and ".join(gone)
        if self.screen.game.options.goal == "shedding":
            gone_now = says(who, "has" if len(gone) == 1 else "have", "finished")
        else:
            gone_now = says(who, "is" if len(gone) == 1 else "are", "out")
        prompt = (
            f"{gone_now}. Press Enter to watch the bots play on (a round every {self.delay:g} s), "
            "or type skip for the final ranking now. "
        )
        try:
            answer = self.screen.ask(prompt, self.screen.viewer)
        except QuitGame as e:
            if e.code:
                raise
            answer = "skip"  # the input ended: nobody is left to watch
        command = " ".join(answer.lower().split())
        if command in ("quit", "exit"):
            raise QuitGame("quit", seat=self.screen.viewer)
        if command not in SKIP_WORDS:
            return False
        self.skipping = True
        self.screen.say("Skipping to the end of the game...", "dim")
        return True
