"""The OpenSpiel game `python_liarsdice`: `liarsdice.rules` behind pyspiel's Python game API.

A state holds the engine's immutable `GameState` plus what OpenSpiel needs around it: the faces
of a roll drawn so far (OpenSpiel's chance nodes roll one die each, as its `liars_dice` does, so
a roll of many dice never has to list every combination), the log of what each seat has seen
(for perfect-recall information states), and the rounds played (for games with no natural end,
see `max_rounds`). All of it sits in one immutable snapshot, replaced at every move, so that
pyspiel's clones (deep copies) share it instead of copying the engine.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, NamedTuple

import numpy as np
import pyspiel

from liarsdice.rules import (
    DiceRerolled,
    DrawStarter,
    Encoding,
    Event,
    Game,
    GameOver,
    GameState,
    HandsRolled,
    Options,
    Reroll,
    Roll,
    RoundResolved,
    RoundStarted,
    StarterDrawn,
    Turn,
)

from .native import NativeDescriber, problems
from .parameters import PARAMETERS, encoding_from_parameters, options_from_parameters

MAX_PLAYERS = 64

GAME_TYPE = pyspiel.GameType(
    short_name="python_liarsdice",
    long_name="Liar's Dice (liarsdice: every preset and option)",
    dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
    chance_mode=pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC,
    information=pyspiel.GameType.Information.IMPERFECT_INFORMATION,
    utility=pyspiel.GameType.Utility.ZERO_SUM,
    reward_model=pyspiel.GameType.RewardModel.TERMINAL,
    max_num_players=MAX_PLAYERS,
    min_num_players=2,
    provides_information_state_string=True,
    provides_information_state_tensor=True,
    provides_observation_string=True,
    provides_observation_tensor=True,
    parameter_specification=PARAMETERS,
)


class _Snapshot(NamedTuple):
    """Everything a state holds; never changed, only replaced. Each snapshot keeps the one before
    it and the move between them, so that `undo_action` steps back and the history is the chain's
    (pyspiel's own C++ history cannot be shortened from Python: after an undo it is not used)."""

    game: LiarsDiceGame  # kept here so that copies share it (pyspiel would rebuild a copied game)
    state: GameState
    pending: tuple[int, ...]  # faces of the current roll or reroll drawn so far
    log: tuple[tuple[int | None, str], ...]  # (audience seat, or None for everyone; text)
    rounds: int  # rounds finished
    truncated: bool  # stopped at max_rounds
    parent: _Snapshot | None = None  # the state before the last move
    move: tuple[int, int] | None = None  # (player, action) of the last move; player -1 for chance

    def __deepcopy__(self, memo: dict[int, Any]) -> _Snapshot:
        return self

    def moves(self) -> list[tuple[int, int]]:
        """Every (player, action) from the start, oldest first."""
        out = []
        snap: _Snapshot | None = self
        while snap is not None and snap.move is not None:
            out.append(snap.move)
            snap = snap.parent
        out.reverse()
        return out


class PlayerAction(NamedTuple):
    """One step of `full_history()`, like pyspiel's PlayerAction (which Python cannot build)."""

    player: int
    action: int


class LiarsDiceGame(pyspiel.Game):  # type: ignore[misc]
    """Any preset and options of `liarsdice.rules` (parameters: `PARAMETERS`)."""

    def __init__(self, params: dict[str, Any] | None = None) -> None:
        given = dict(params or {})
        options, max_rounds = options_from_parameters(given)
        if options.num_players > MAX_PLAYERS:
            raise ValueError(f"at most {MAX_PLAYERS} players, not {options.num_players}")
        self.options: Options = options
        self.rules = Game(options)
        self.encoding = Encoding(options)
        self.native = _native_describer(given, options, self.encoding)
        self.round_cap = self.encoding.rounds_bound(max_rounds)
        # A cap below the game's own bound can stop a game before it ends; so can a game with none.
        natural = self.encoding.natural_rounds()
        self.may_truncate = natural is None or self.round_cap < natural
        info = pyspiel.GameInfo(
            num_distinct_actions=self.encoding.num_distinct_actions,
            max_chance_outcomes=max(options.faces, options.num_players),
            num_players=options.num_players,
            min_utility=-1.0,
            max_utility=1.0,
            utility_sum=0.0,
            max_game_length=self.round_cap * self.encoding.max_round_actions,
        )
        super().__init__(GAME_TYPE, info, given)

    def new_initial_state(self) -> LiarsDiceState:
        return LiarsDiceState(self)

    def make_py_observer(
        self, iig_obs_type: pyspiel.IIGObservationType | None = None, params: dict[str, Any] | None = None
    ) -> LiarsDiceObserver:
        return LiarsDiceObserver(self, iig_obs_type or pyspiel.IIGObservationType(perfect_recall=False), params)


def _native_describer(given: dict[str, Any], options: Options, encoding: Encoding) -> NativeDescriber | None:
    """liars_dice's descriptions if asked (`encoding=native`), or by default for the openspiel
    preset (so that policies and networks trained on liars_dice carry over) where its options
    leave a game liars_dice can describe; None for the full encoding."""
    from liarsdice.rules import OptionsError, find_preset

    asked = encoding_from_parameters(given)
    if asked == "full":
        return None
    why = problems(options, encoding)
    if asked == "native":
        if why:
            raise OptionsError(f"encoding=native describes liars_dice's games, and this one is not: {'; '.join(why)}")
        return NativeDescriber(options, encoding)
    openspiel = find_preset(str(given.get("preset", PARAMETERS["preset"]))).name == "openspiel"
    return NativeDescriber(options, encoding) if openspiel and not why else None


class LiarsDiceState(pyspiel.State):  # type: ignore[misc]
    """One moment of a game; `rules_state` is the engine's `GameState`."""

    def __init__(self, game: LiarsDiceGame) -> None:
        super().__init__(game)
        self._snap = _Snapshot(game, game.rules.new_initial_state(), (), (), 0, False)

    @property
    def _game(self) -> LiarsDiceGame:
        return self._snap.game

    @property
    def rules_state(self) -> GameState:
        return self._snap.state

    # ----- the pyspiel API -----

    def current_player(self) -> int:
        snap = self._snap
        if snap.truncated or snap.state.is_terminal:
            return int(pyspiel.PlayerId.TERMINAL)
        if snap.state.is_chance:
            return int(pyspiel.PlayerId.CHANCE)
        to_act = snap.state.to_act
        assert to_act is not None
        return to_act

    def is_terminal(self) -> bool:
        return self._snap.truncated or self._snap.state.is_terminal

    def _legal_actions(self, player: int) -> list[int]:
        state = self._snap.state
        if self.is_terminal() or state.is_chance or player != state.to_act:
            return []
        return self._game.encoding.legal_ids(state.legal_actions(), state.history)

    def chance_outcomes(self) -> list[tuple[int, float]]:
        spec = self._snap.state.chance_spec()
        if spec.kind == "starter":
            p = 1.0 / len(spec.candidates)
            return [(seat, p) for seat in spec.candidates]
        p = 1.0 / spec.faces
        return [(face - 1, p) for face in range(1, spec.faces + 1)]

    def _apply_action(self, action: int) -> None:
        before = self._snap
        player = self.current_player()
        self._apply(action)
        self._snap = self._snap._replace(parent=before, move=(int(player), int(action)))

    def undo_action(self, player: int, action: int) -> None:
        """Take back the last move, which must be `action` by `player` (-1 for chance), in place."""
        snap = self._snap
        if snap.parent is None or snap.move is None:
            raise ValueError(f"undo_action({player}, {action}): there is no move to take back")
        if snap.move != (int(player), int(action)):
            raise ValueError(f"undo_action({player}, {action}): the last move was {snap.move[1]} by {snap.move[0]}")
        self._snap = snap.parent

    # pyspiel's history lives in C++ and an undo cannot shorten it, so the history is the chain's.

    def history(self) -> list[int]:
        return [a for _, a in self._snap.moves()]

    def full_history(self) -> list[PlayerAction]:
        return [PlayerAction(p, a) for p, a in self._snap.moves()]

    def history_str(self) -> str:
        return ", ".join(str(a) for a in self.history())

    def move_number(self) -> int:
        return len(self._snap.moves())

    def is_initial_state(self) -> bool:
        return self._snap.move is None

    def _apply(self, action: int) -> None:
        snap = self._snap
        state = snap.state
        if state.is_chance:
            spec = state.chance_spec()
            if spec.kind == "starter":
                self._advance(DrawStarter(int(action)))
                return
            pending = (*snap.pending, int(action) + 1)
            needed = sum(spec.dice) if spec.kind == "roll" else spec.dice[spec.seat or 0]
            if len(pending) < needed:
                self._snap = snap._replace(pending=pending)
                return
            if spec.kind == "roll":
                hands, i = [], 0
                for n in spec.dice:
                    hands.append(pending[i : i + n])
                    i += n
                self._advance(Roll(tuple(hands)))
            else:
                assert spec.seat is not None
                self._advance(Reroll(spec.seat, pending))
            return
        decoded = self._game.encoding.decode(int(action), state.history)
        self._advance(decoded)

    def _advance(self, action: Any) -> None:
        snap = self._snap
        state, events = snap.state.apply(action)
        log = snap.log + tuple(_log_entries(events))
        rounds = snap.rounds + sum(1 for e in events if isinstance(e, RoundResolved))
        truncated = not state.is_terminal and self._game.may_truncate and rounds >= self._game.round_cap
        self._snap = _Snapshot(snap.game, state, (), log, rounds, truncated)

    def _action_to_string(self, player: int, action: int) -> str:
        if player == pyspiel.PlayerId.CHANCE:
            state = self._snap.state
            if state.is_chance and state.chance_spec().kind == "starter":
                return f"starter P{action}"
            return f"die {action + 1}"
        return self._game.encoding.describe(int(action))

    def returns(self) -> list[float]:
        snap = self._snap
        enc = self._game.encoding
        if snap.truncated:
            return enc.returns(enc.provisional_places(snap.state.dice, snap.state.out_round))
        result = snap.state.result
        if result is None:
            return [0.0] * self._game.options.num_players
        return enc.returns(result.places, result.returns)

    def __str__(self) -> str:
        snap = self._snap
        pending = f" drawn {','.join(map(str, snap.pending))}" if snap.pending else ""
        cut = " (stopped at max_rounds)" if snap.truncated else ""
        return f"{snap.state!r}{pending}{cut}"


def _log_entries(events: Sequence[Event]) -> list[tuple[int | None, str]]:
    """What each seat learns from `events`: private cups to their owner, the rest to all."""
    out: list[tuple[int | None, str]] = []
    for e in events:
        if isinstance(e, HandsRolled):
            out += [(seat, f"cup {','.join(map(str, hand))}") for seat, hand in enumerate(e.hands) if hand]
        elif isinstance(e, DiceRerolled):
            out.append((e.seat, f"reroll {','.join(map(str, e.faces))}"))
            out.append((None, f"P{e.seat} rerolls {len(e.faces)}"))
        elif isinstance(e, Turn):
            out.append((None, f"P{e.seat}:{_action_text(e)}"))
        elif isinstance(e, StarterDrawn):
            out.append((None, f"starter P{e.seat}"))
        elif isinstance(e, RoundStarted):
            special = " one-die" if e.one_die_round else ""
            out.append((None, f"round {e.round_no}{special} P{e.starter} opens dice {','.join(map(str, e.dice))}"))
        elif isinstance(e, RoundResolved):
            o = e.outcome
            hands = " ".join(",".join(map(str, h)) or "-" for h in o.hands)
            out.append((None, f"reveal {hands} dice {','.join(map(str, o.dice_after))}"))
        elif isinstance(e, GameOver):
            out.append((None, f"over places {','.join(map(str, e.result.places))}"))
    return out


def _action_text(turn: Turn) -> str:
    from liarsdice.rules import format_action

    return format_action(turn.action, [f"P{i}" for i in range(64)])


class LiarsDiceObserver:
    """Observations and information states (pyspiel's PyObserver interface).

    With `perfect_recall` the string is everything the player has seen since the start of the
    game (its own cups and rerolls, every public action and reveal); the tensor is the current
    observation followed by every public action of this round. Without it, both describe the
    present only. `private_info` NONE leaves out the player's own cup (a public observer).
    """

    def __init__(
        self, game: LiarsDiceGame, iig_obs_type: pyspiel.IIGObservationType, params: dict[str, Any] | None
    ) -> None:
        if params:
            raise ValueError(f"observation parameters are not supported; passed {params}")
        self.game = game
        self.perfect_recall = bool(iig_obs_type.perfect_recall)
        self.private = iig_obs_type.private_info == pyspiel.PrivateInfoType.SINGLE_PLAYER
        enc = game.encoding
        self.native = game.native
        # liars_dice's observation holds the last bid of each player; its information state all bids
        self.last = None if self.perfect_recall or self.native is None else self.native.players
        if self.native is not None:
            size = self.native.size
        else:
            size = enc.information_state_size if self.perfect_recall else enc.observation_size
        self.tensor = np.zeros(size, np.float32)
        self.dict = {"observation": self.tensor}

    def _view(self, state: LiarsDiceState, player: int) -> Any:
        view = state.rules_state.view(player)
        if not self.private:
            view = _without_cup(view)
        return view

    def set_from(self, state: LiarsDiceState, player: int) -> None:
        if self.native is not None:
            self.native.tensor(state._snap.moves(), player, self.private, self.last, self.tensor)
            return
        enc = self.game.encoding
        view = self._view(state, player)
        values = enc.information_state(view) if self.perfect_recall else enc.observation(view)
        self.tensor[:] = values

    def string_from(self, state: LiarsDiceState, player: int) -> str:
        if self.native is not None:
            return self.native.string(state._snap.moves(), player, self.private, self.last)
        if self.perfect_recall:
            seen = [
                text for audience, text in state._snap.log if audience is None or (audience == player and self.private)
            ]
            pending = state._snap.pending
            # the faces of a roll drawn so far: only the player's own, as the seat learns them
            own = _own_pending(state, player) if pending and self.private else ()
            tail = [f"drawing {','.join(map(str, own))}"] if pending and own else []
            return " | ".join([f"P{player}", *seen, *tail])
        return _observation_text(self._view(state, player), player)


def _own_pending(state: LiarsDiceState, player: int) -> tuple[int, ...]:
    """The faces of `player`'s own dice among a roll being drawn die by die."""
    snap = state._snap
    spec = snap.state.chance_spec()
    if spec.kind == "reroll":
        return snap.pending if spec.seat == player else ()
    start = sum(spec.dice[:player])
    return snap.pending[start : start + spec.dice[player]]


def _without_cup(view: Any) -> Any:
    from dataclasses import replace

    return replace(view, cup=(), legal=None, legal_actions=())


def _observation_text(view: Any, player: int) -> str:
    parts = [f"P{player}", f"round {view.round_no}", view.phase]
    if view.to_act is not None:
        parts.append(f"P{view.to_act} to act")
    parts.append(f"cup {','.join(map(str, view.cup)) or '-'}")
    parts.append(f"dice {','.join(map(str, view.dice))}")
    if any(view.pushed):
        parts.append("pushed " + " ".join(",".join(map(str, p)) or "-" for p in view.pushed))
    if view.one_die_round:
        parts.append("one-die round")
    if view.chips is not None:
        parts.append(f"chips {','.join(map(str, view.chips))} pot {view.round_pot} running {view.running_pot}")
        parts.append(f"bet {view.current_bet} paid {','.join(map(str, view.paid or ()))}")
    history = " ".join(f"P{t.seat}:{_action_text(t)}" for t in view.history)
    if history:
        parts.append(history)
    return " | ".join(parts)


pyspiel.register_game(GAME_TYPE, LiarsDiceGame)
