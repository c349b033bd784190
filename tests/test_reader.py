"""The reader (bots/reader.py) and Master's use of it: it reads a player of Expert's play better
than Expert's own reading does, learns from the reveals who plays that way, and Master hands a
duel to it only against such a player."""

from __future__ import annotations

import random

import numpy as np
import pytest

from liarsdice.bots import reader as reader_module
from liarsdice.bots import strong_duel
from liarsdice.bots.duel import DuelBot
from liarsdice.bots.random_bot import RandomBot
from liarsdice.bots.reader import POSITION_COST, ReaderBot
from liarsdice.bots.reader_mixture import equilibrium_chance
from liarsdice.bots.reader_trust import EVIDENCE, FLOOR, MISFIT_PRIOR, SURPRISE, TRUST_MISFIT, checkable
from liarsdice.bots.strong import StrongBot
from liarsdice.bots.strong_belief import Round, beliefs
from liarsdice.bots.strong_counts import hand_space
from liarsdice.match import play_game
from liarsdice.rules import Bid, BidAction, Game, Pass, Reroll, preset_options


def _index(hand: tuple[int, ...], faces: int) -> int:
    counts = np.bincount(np.asarray(hand) - 1, minlength=faces)
    rows = hand_space(len(hand), faces).counts
    return int(np.flatnonzero((rows == counts).all(axis=1))[0])


def test_the_model_reads_an_expert_cup_better_than_expert_does() -> None:
    """Over deals of 3 v 3 Perudo, after Expert's bids the weight the reader's model gives the
    cup Expert really holds is larger than Expert's generic reading gives it, on average by far."""
    options = preset_options("perudo", {"num_players": 2, "dice_per_player": 3})
    game = Game(options)
    reader = ReaderBot(0)
    rng = random.Random(5)
    model_weight, generic_weight = [], []
    for deal in range(12):
        hands = [tuple(sorted(rng.randint(1, 6) for _ in range(3))) for _ in range(2)]
        state = game.position(hands, starter=1, round_no=1)
        expert = StrongBot(deal)
        # Expert opens, the reader answers with a bid, Expert bids again: then read its cup.
        state, _ = state.apply(expert.act(state.view(1)), 1)
        bids = [a for a in state.view(0).legal_actions if type(a).__name__ == "BidAction"]
        state, _ = state.apply(bids[0], 0)
        view = state.view(1)
        action = expert.act(view)
        if type(action).__name__ != "BidAction":
            continue
        state, _ = state.apply(action, 1)
        ours = state.view(0)
        r = Round(ours, {})
        truth = _index(hands[1], 6)
        reader.new_decision(ours)
        model_weight.append(reader.read(game, ours, r, 1)[truth])
        generic_weight.append(beliefs(r)[1][truth])
    assert len(model_weight) >= 8
    assert np.mean(model_weight) > 1.8 * np.mean(generic_weight)


def _play(preset: str, bots: list, seed: int, **overrides: object) -> None:
    options = preset_options(preset, {"num_players": 2, "dice_per_player": 3, **overrides})
    play_game(Game(options), bots, seed=seed, close_agents=False)


def test_reveals_teach_who_plays_as_the_model_does() -> None:
    """After a game against Expert the reader finds Expert's moves explained by its model (misfit
    well under the prior); after one against the random bot, not (misfit over the prior)."""
    against_expert = ReaderBot(1)
    _play("perudo", [against_expert, StrongBot(2)], seed=3)
    against_random = ReaderBot(1)
    _play("perudo", [against_random, RandomBot(2)], seed=3)
    assert against_expert.misfit(1) < MISFIT_PRIOR - 0.2
    assert against_random.misfit(1) > MISFIT_PRIOR + 0.2


@pytest.mark.parametrize("opponent, reads", [("strong", True), ("random", False)])
def test_master_hands_a_duel_to_the_reader_only_against_a_player_it_fits(
    opponent: str, reads: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Master plays its duel strategy until the reveals show the opponent plays as the model
    does; then the reader plays the duel. Against the random bot the strategy plays on."""
    # Expert's own moves in its duels too (as from a data directory without strategies): Expert
    # mixing in the shipped equilibrium is less readable, as it is meant to be.
    monkeypatch.setattr(strong_duel, "DUEL_SHARE", 0.0)
    master = DuelBot(4)
    other = StrongBot(5) if opponent == "strong" else RandomBot(5)
    sources: list[str] = []

    class Watched:
        def act(self, view, limit=None):  # type: ignore[no-untyped-def]
            action = master.act(view, limit)
            sources.append(master.source)
            return action

    _play("classic", [Watched(), other], seed=11, wild_face=1, dice_per_player=5)  # every duel shipped
    assert sources[0] == "duel"  # nothing known of the opponent yet: the strategy plays
    assert ("reader" in sources) is reads
    assert (master.fallback.misfit(1) < TRUST_MISFIT) is reads  # type: ignore[attr-defined]


def test_at_a_table_of_three_it_learns_each_player_and_plays_to_the_end() -> None:
    """Three seats: the reader reads both others, learns that each plays as its model does, and
    the game ends with every move legal (play_game checks each one)."""
    reader = ReaderBot(7)
    options = preset_options("perudo", {"num_players": 3, "dice_per_player": 4})
    final, _ = play_game(Game(options), [StrongBot(8), reader, StrongBot(9)], seed=21, close_agents=False)
    assert final.is_terminal
    assert reader.misfit(0) < MISFIT_PRIOR and reader.misfit(2) < MISFIT_PRIOR


def test_a_one_die_round_is_read_as_expert_reads_it() -> None:
    """Perudo's palifico round (ones not wild, no opening on them barred) cannot be set up again
    from the public facts: the reader reads it as Expert does and plays a legal move."""
    options = preset_options("perudo", {"num_players": 2, "dice_per_player": 3})
    game = Game(options)
    state = game.position([(1, 4, 4), (1,)], starter=1, special_round=True)
    opening = next(a for a in state.view(1).legal_actions if getattr(a, "bid", None) and a.bid.face == 1)
    state, _ = state.apply(opening, 1)
    view = state.view(0)
    assert view.one_die_round
    reader = ReaderBot(3)
    assert reader.belief(Round(view, {})) is None
    assert reader.act(view) in view.legal_actions


def test_a_decision_reads_within_its_budget_and_alike_in_any_process(monkeypatch: pytest.MonkeyPatch) -> None:
    """At one decision the model is asked about at most the budget's hands; a hand not asked
    keeps Expert's reading of the move. What is read depends on the round alone: a process that
    has already asked the model about every hand reads the same."""
    options = preset_options("perudo", {"num_players": 2, "dice_per_player": 5})
    game = Game(options)
    state = game.position([(1, 2, 3, 5, 5), (2, 4, 4, 6, 6)], starter=1, round_no=1)
    state, _ = state.apply(StrongBot(3).act(state.view(1)), 1)
    ours = state.view(0)
    r = Round(ours, {})

    asked: list[int] = []

    def reading(reader: ReaderBot) -> np.ndarray:
        chances = reader.model.hand_chances

        def counted(view, counts, action, passes=True, pushes=True):  # type: ignore[no-untyped-def]
            asked.append(len(counts))
            return chances(view, counts, action, passes, pushes)

        monkeypatch.setattr(reader.model, "hand_chances", counted)
        reader.new_decision(ours)
        return reader.read(game, ours, r, 1)

    def budgeted() -> ReaderBot:
        reader = ReaderBot(1)
        reader.ask_budget = POSITION_COST + 30  # fewer hands than are worth asking about
        return reader

    reader_module.ANSWERS.clear()
    fresh = reading(budgeted())
    assert 0 < sum(asked) <= 30
    unlimited = ReaderBot(1)
    unlimited.ask_budget = None
    everything = reading(unlimited)
    assert sum(asked) > 30  # every hand worth asking about asked
    asked.clear()
    again = reading(budgeted())
    assert not asked  # all kept by the process now
    assert np.array_equal(again, fresh)
    assert not np.allclose(everything, fresh)
    # hands left unasked are not read as nothing: the reading is neither the prior nor Expert's own
    prior = hand_space(5, 6).prior
    assert not np.allclose(fresh, prior / prior.sum())
    assert not np.allclose(fresh, beliefs(r)[1])


def test_against_a_player_it_trusts_the_reader_plays_its_own_game_in_a_duel(monkeypatch: pytest.MonkeyPatch) -> None:
    """Expert mixes a duel's equilibrium into its play to hide its cup; the reader leaves it out
    against a player it trusts (one that plays as the model does reads nothing) and mixes it in
    against anyone else, as Expert does."""
    from liarsdice.bots import strong as strong_module

    options = preset_options("classic", {"num_players": 2, "wild_face": 1, "dice_per_player": 2})
    view = Game(options, seats=["A", "B"]).position([(2, 5), (3, 4)], starter=0).view(0)
    mixed: list[int] = []
    in_duel = strong_module.in_duel

    def watched(bot, views, own, seconds=None):  # type: ignore[no-untyped-def]
        mixed.append(1)
        return in_duel(bot, views, own, seconds)

    monkeypatch.setattr(strong_module, "in_duel", watched)
    reader = ReaderBot(3)
    reader.policy(view)
    assert len(mixed) == 1 and not reader.trusts_in_duel(view)  # nothing known of B yet
    reader.trust.fit[1] = (0.0, 40.0)  # 40 moves of B's shown, none surprising
    assert reader.trusts_in_duel(view)
    policy = reader.policy(view)
    assert len(mixed) == 1 and policy == reader.scored_policies([view])[0]
    StrongBot(3).policy(view)
    assert len(mixed) == 2  # Expert mixes it in, whoever it plays


def test_a_pass_expert_makes_is_one_the_model_makes() -> None:
    """Soar: from a cup of one face Expert passes; asked about that pass after the reveal, the
    model gives it Expert's own chance, not the zero of a model that cannot pass (which found
    every pass shown surprising, and kept the reader from trusting a player who passes)."""
    game = Game(preset_options("soar", {"num_players": 2}))
    hand = (4, 4, 4, 4, 4)
    state = game.position([(1, 2, 3, 5, 6), hand], starter=0, round_no=1)
    state, _ = state.apply(StrongBot(1).act(state.view(0)), 0)
    expert = sum(p for a, p in StrongBot(2).policy(state.view(1)) if isinstance(a, Pass))
    assert expert > 0.5
    state, _ = state.apply(Pass(), 1)
    after = state.view(0)
    chance = ReaderBot(3)._answers(game, after, 1, np.array([_index(hand, 6)]))
    assert float(chance[0]) == pytest.approx(expert, abs=1e-9)
    assert float(chance[0]) > SURPRISE


def test_a_round_with_a_push_is_checked_up_to_the_push_but_not_the_pushers_moves() -> None:
    """At the reveal of a Soar round with a push, the others' moves made before the first push
    are checked against the cups shown; the pusher's are not (the cup shown is not the one it
    bid from), nor any move after the push."""
    game = Game(preset_options("soar", {"num_players": 2}))
    shown = [(2, 2, 3, 5, 6), (1, 4, 4, 4, 6)]

    def bid(state, seat: int, push: bool):  # type: ignore[no-untyped-def]
        return next(a for a in state.view(seat).legal_actions if isinstance(a, BidAction) and bool(a.push) == push)

    def round_with(pusher: int) -> tuple[object, ...]:
        state = game.position(shown, starter=1, round_no=1)
        for seat, push in [(1, False), (0, False), (1, False), (pusher, True)]:
            if state.view(seat).to_act != seat:
                state, _ = state.apply(bid(state, 1 - seat, False), 1 - seat)
            action = bid(state, seat, push)
            state, _ = state.apply(action, seat)
            if push:
                state, _ = state.apply(Reroll(seat, (6,) * (5 - len(action.push))))
        seat = state.view(0).to_act
        state, _ = state.apply(bid(state, seat, False), seat)
        return state.view(0)

    ours_pushed = round_with(pusher=0)
    pushed_at = next(i for i, t in enumerate(ours_pushed.history) if t.action.push)
    theirs_before = [i for i, t in enumerate(ours_pushed.history[:pushed_at]) if t.seat == 1]
    assert len(theirs_before) == 2 and pushed_at < len(ours_pushed.history) - 1
    assert checkable(ours_pushed, shown) == [(i, shown[1]) for i in theirs_before]
    assert checkable(round_with(pusher=1), shown) == []  # the other pushed: none of its moves


def test_a_move_of_the_equilibrium_expert_mixes_in_does_not_surprise_the_model(monkeypatch: pytest.MonkeyPatch) -> None:
    """Red Dead 2 v 2 (its spot-on strategy shipped): from (5, 5) after "one 3", the equilibrium
    Expert plays in 6 rounds of 10 bids "one 5", which Expert's own play almost never does. At the
    reveal the move is checked against the two mixed, so a player who mixes as Expert does is
    not taken for one the model cannot explain; without the mixing, the move surprises."""
    game = Game(preset_options("red-dead", {"num_players": 2, "dice_per_player": 2}))
    hand = (5, 5)
    state = game.position([(3, 6), hand], starter=0, round_no=1)
    state, _ = state.apply(BidAction(Bid(1, 3)), 0)
    state, _ = state.apply(BidAction(Bid(1, 5)), 1)
    view = state.view(0)
    own = float(ReaderBot(1)._answers(game, view, 1, np.array([_index(hand, 6)]))[0])
    assert own < SURPRISE
    found = equilibrium_chance(game, view, 1, hand)
    assert found is not None and found[0] == pytest.approx(1.0, abs=0.01)
    share = strong_duel.DUEL_SHARE
    assert (1 - share) * own + share * found[0] > SURPRISE
    monkeypatch.setattr(strong_duel, "DUEL_SHARE", 0.0)
    assert equilibrium_chance(game, view, 1, hand) is None


def test_the_rounds_shown_tell_expert_from_the_equilibrium_it_mixes_in() -> None:
    """Red Dead heads-up, where Expert plays 6 rounds of 10 by the shipped equilibrium: both
    Expert's moves and an equilibrium player's fit the two mixed, but the rounds shown say which
    it is. Master ends trusting Expert in most games and the equilibrium player in none."""
    game = Game(preset_options("red-dead", {"num_players": 2}))

    def equilibrium_only(seed: int) -> DuelBot:
        bot = DuelBot(seed)
        bot.reads_the_opponent = lambda view: False  # type: ignore[method-assign]
        return bot

    def evidence(opponent: object, g: int) -> float:
        master = DuelBot(g)
        play_game(game, [master, opponent] if g % 2 else [opponent, master], seed=g, close_agents=False)
        found = master.fallback.evidence(0 if g % 2 == 0 else 1)  # type: ignore[attr-defined]
        assert found is not None
        return float(found)

    expert = [evidence(StrongBot(100 + g), g) for g in range(1, 9)]
    equilibrium = [evidence(equilibrium_only(100 + g), g) for g in range(1, 9)]
    assert sum(e >= EVIDENCE for e in expert) >= 4  # Expert's own rounds shown: 5 of these 8 games
    assert max(equilibrium) < EVIDENCE


def test_a_duel_s_cup_is_read_as_expert_plays_it_its_own_play_or_the_equilibrium(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Red Dead 2 v 2: Expert plays 6 rounds of 10 by the shipped equilibrium. Read by the model
    alone, "one 5" after "one 3" all but rules out (5, 5), from which Expert's own play seldom
    bids it and the equilibrium always does. The reader weighs each hand by both, as Expert plays:
    (1 - share) times the model's chance of the move plus share times the equilibrium's."""
    monkeypatch.setattr(reader_module, "NEGLIGIBLE", 0.0)  # every hand asked: the reading exact
    game = Game(preset_options("red-dead", {"num_players": 2, "dice_per_player": 2}))
    state = game.position([(3, 6), (5, 5)], starter=0, round_no=1)
    state, _ = state.apply(BidAction(Bid(1, 3)), 0)
    state, _ = state.apply(BidAction(Bid(1, 5)), 1)
    view = state.view(0)
    r = Round(view, {})
    space = hand_space(2, 6)
    hands = [tuple(f + 1 for f in range(6) for _ in range(int(row[f]))) for row in space.counts]
    reader = ReaderBot(1)
    reader.ask_budget = None
    found = [equilibrium_chance(game, view, 1, hand) for hand in hands]
    assert all(f is not None for f in found)
    legal = found[0][1]  # type: ignore[index]
    own = FLOOR / legal + (1 - FLOOR) * reader._answers(game, view, 1, np.arange(len(hands)))
    eq = FLOOR / legal + (1 - FLOOR) * np.array([f[0] for f in found])  # type: ignore[index]
    share = strong_duel.DUEL_SHARE
    want = space.prior * ((1 - share) * own + share * eq)
    reader.new_decision(view)
    read = reader.read(game, view, r, 1)
    assert read == pytest.approx(want / want.sum(), rel=1e-9, abs=1e-12)
    fives = _index((5, 5), 6)
    monkeypatch.setattr(strong_duel, "DUEL_SHARE", 0.0)
    reader.new_decision(view)
    alone = reader.read(game, view, r, 1)
    assert alone == pytest.approx(space.prior * own / (space.prior * own).sum(), rel=1e-9, abs=1e-12)
    assert read[fives] > 10 * alone[fives]


def test_how_often_a_player_plays_a_round_by_the_equilibrium_is_learnt_from_its_rounds_shown() -> None:
    """Expert's share before any round shown; rounds whose moves the equilibrium made far likelier
    raise it, rounds of the player's own play lower it (the reference program mixes in none)."""
    from liarsdice.bots.reader_trust import Trust

    trust = Trust()
    assert trust.share(1) == strong_duel.DUEL_SHARE
    trust.rounds[1] = {r: (-9.0, -1.0) for r in range(4)}  # each round e^8 likelier from the equilibrium
    by_equilibrium = trust.share(1)
    trust.rounds[1] = {r: (-1.0, -9.0) for r in range(4)}
    by_its_own = trust.share(1)
    assert by_its_own < 0.25 < strong_duel.DUEL_SHARE < 0.85 < by_equilibrium < 1
    trust.rounds[1] = {0: (-1.0, -1.0)}  # a round that tells nothing leaves it where it was
    assert trust.share(1) == pytest.approx(strong_duel.DUEL_SHARE)
