"""The bots: the probability maths, their decisions, legality everywhere, and strength."""

from __future__ import annotations

from fractions import Fraction
from typing import Any

import pytest

from liarsdice.bots import BOT_LEVELS, Bot, Limit, ProbabilityBot, RandomBot
from liarsdice.bots import probability as prob
from liarsdice.bots.probability import (
    Knowledge,
    believed_pass,
    binomial_at_least,
    binomial_exactly,
    knowledge,
    pass_chance,
)
from liarsdice.match import play_game
from liarsdice.players import make_bot
from liarsdice.rules import (
    PRESETS,
    Accuse,
    Action,
    AllIn,
    Bid,
    BidAction,
    Challenge,
    Claim,
    Exact,
    Fold,
    Game,
    Pass,
    PlayerView,
    Reroll,
    Vote,
    find_preset,
    preset_options,
)
from positions import play, position


def close(x: float, y: Fraction | float) -> bool:
    return abs(x - float(y)) < 1e-12


@pytest.fixture
def no_bluffs(monkeypatch: pytest.MonkeyPatch) -> None:
    """Decision tests check the reasoned move, not the occasional seeded bluff."""
    monkeypatch.setattr(prob, "BLUFF_RATE", 0.0)
    monkeypatch.setattr(prob, "PASS_BLUFF_RATE", 0.0)


# ----- the maths -----


def test_binomial_tails_match_hand_computed_values() -> None:
    assert close(binomial_at_least(3, 1, 1, 6), Fraction(91, 216))  # 1 - (5/6)^3
    assert close(binomial_at_least(5, 2, 2, 6), 1 - Fraction(2, 3) ** 5 - 5 * Fraction(1, 3) * Fraction(2, 3) ** 4)
    assert close(binomial_exactly(4, 2, 2, 6), Fraction(24, 81))  # 6 (1/3)^2 (2/3)^2
    assert binomial_at_least(4, 0, 1, 6) == 1.0
    assert binomial_at_least(4, -3, 1, 6) == 1.0
    assert binomial_at_least(4, 5, 1, 6) == 0.0
    assert binomial_exactly(4, 5, 1, 6) == 0.0
    assert binomial_exactly(4, -1, 1, 6) == 0.0
    # the whole distribution sums to one
    assert close(sum(binomial_exactly(7, k, 2, 8) for k in range(8)), 1)


def test_wild_ones_double_the_odds_of_other_faces_but_not_their_own() -> None:
    state = position("perudo", [(1, 2, 3, 4, 5), (6, 6, 6, 6, 6)])
    k = knowledge(state.view(0))
    assert k == Knowledge(faces=6, wild=1, seen=(1, 2, 3, 4, 5), unknown=5)
    # 3x5: the 5 and the wild 1 are seen, one more among five dice at 2/6
    assert close(k.chance_true(Bid(3, 5)), 1 - Fraction(2, 3) ** 5)
    assert close(k.chance_exact(Bid(3, 5)), 5 * Fraction(1, 3) * Fraction(2, 3) ** 4)
    # 2x1: a bid on the wild face counts only ones, at 1/6
    assert close(k.chance_true(Bid(2, 1)), 1 - Fraction(5, 6) ** 5)
    assert close(k.chance_true(Bid(7, 5)), Fraction(1, 3) ** 5)  # all five unseen dice must count
    assert k.chance_true(Bid(8, 5)) == 0.0  # more than all dice that could count


def test_the_other_cup_never_changes_what_a_seat_knows() -> None:
    a = position("perudo", [(1, 2, 3, 4, 5), (6, 6, 6, 6, 6)])
    b = position("perudo", [(1, 2, 3, 4, 5), (1, 1, 1, 1, 1)])
    assert knowledge(a.view(0)) == knowledge(b.view(0))
    for seed in range(20):
        assert ProbabilityBot(seed).act(a.view(0)) == ProbabilityBot(seed).act(b.view(0))


def test_no_wilds_in_classic() -> None:
    k = knowledge(position("classic", [(1, 2, 3, 4, 5), (6, 6, 6, 6, 6)]).view(0))
    assert k.wild is None
    assert close(k.chance_true(Bid(2, 5)), 1 - Fraction(5, 6) ** 5)
    assert close(k.chance_true(Bid(2, 1)), 1 - Fraction(5, 6) ** 5)  # ones are just a face


def test_openspiel_top_face_is_wild() -> None:
    k = knowledge(position("openspiel", [(3,), (2,)]).view(0))
    assert k.wild == 6
    assert k.chance_true(Bid(1, 3)) == 1.0
    assert close(k.chance_true(Bid(2, 3)), Fraction(1, 3))  # the other die is a 3 or a 6
    assert close(k.chance_true(Bid(1, 6)), Fraction(1, 6))  # sixes count only sixes
    assert k.chance_true(Bid(2, 6)) == 0.0


def test_joker_bids_count_only_jokers() -> None:
    k = knowledge(position("jokers", [(1, 1, 4, 4, 6), (2, 3, 5, 6, 6)]).view(0))
    assert close(k.chance_true(Bid(3, 1)), 1 - Fraction(5, 6) ** 5)
    assert k.chance_true(Bid(4, 4)) == 1.0  # two fours and two jokers
    assert close(k.chance_true(Bid(5, 4)), 1 - Fraction(2, 3) ** 5)


def test_one_die_round_suspends_the_wild() -> None:
    state = position("perudo", [(1, 5), (2, 2), (3,)], special_round=True)
    view = state.view(0)
    assert view.one_die_round
    k = knowledge(view)
    assert k.wild is None
    # only the 5 counts, and each of the three unseen dice is a 5 at 1/6
    assert close(k.chance_true(Bid(2, 5)), 1 - Fraction(5, 6) ** 3)
    assert close(k.chance_true(Bid(2, 1)), 1 - Fraction(5, 6) ** 3)


def test_pushed_dice_are_known_to_everyone() -> None:
    state = position("soar", [(5, 5, 2, 3, 4), (5, 1, 6, 6, 2)])
    state = play(state, BidAction(Bid(2, 5), (5, 5)), Reroll(0, (6, 6, 6)))
    k = knowledge(state.view(1))
    assert k.seen == (1, 2, 5, 5, 5, 6, 6)
    assert k.unknown == 3  # the three rerolled dice under the first cup
    # seen: two pushed fives, B's 5 and wild 1; one more among three at 2/6
    assert close(k.chance_true(Bid(5, 5)), 1 - Fraction(2, 3) ** 3)


def test_folded_dice_count_only_when_the_economy_says_so() -> None:
    hands = [(1, 2, 3), (4, 5, 6), (7, 8, 8)]
    for counted, unknown in ((True, 6), (False, 3)):
        state = position("tavern", hands, options={"economy": {"folded_dice_count": counted}})
        state = play(state, Claim(Bid(1, 2)), Fold())
        k = knowledge(state.view(2))
        assert k.unknown == unknown
        assert k.wild is None
        # eights: two seen, at 1/8 each unseen die
        assert close(k.chance_true(Bid(3, 8)), 1 - Fraction(7, 8) ** unknown)


def test_pass_validity_from_what_is_seen() -> None:
    state = position("soar", [(2, 3, 4, 5, 6), (3, 3, 1, 2, 4), (1, 1, 1, 1, 1)])
    view = state.view(0)
    assert close(pass_chance(view, 2), Fraction(1, 6) ** 4)
    pushed = play(state, BidAction(Bid(1, 2)), Pass((3, 3)), Reroll(1, (5, 5, 5)))
    assert close(pass_chance(pushed.view(2), 1), Fraction(1, 6) ** 3)
    mixed = play(state, BidAction(Bid(1, 2)), BidAction(Bid(1, 3), (2, 4)), Reroll(1, (5, 5, 5)))
    assert pass_chance(mixed.view(2), 1) == 0.0
    # a pass is evidence: with two dice a valid pass is likelier than not
    assert believed_pass(1 / 6) > 0.4
    assert believed_pass(1 / 1296) < 0.01
    assert believed_pass(0.0) == 0.0


# ----- decisions -----


def test_challenges_a_bid_that_cannot_be_true() -> None:
    state = play(position("classic", [(2, 2, 3, 3, 4), (6, 6, 1, 2, 3)], starter=1), BidAction(Bid(6, 6)))
    for seed in range(10):
        assert ProbabilityBot(seed).act(state.view(0)) == Challenge(1)


def test_raises_with_the_lowest_certain_bid_on_its_best_face(no_bluffs: None) -> None:
    state = play(position("classic", [(6, 6, 6, 6, 5), (1, 2, 3, 4, 5)], starter=1), BidAction(Bid(2, 6)))
    assert ProbabilityBot(1).act(state.view(0)) == BidAction(Bid(3, 6))


def test_passes_a_one_face_hand(no_bluffs: None) -> None:
    state = position("soar", [(4, 4, 4, 4, 4), (1, 2, 3, 4, 5)])
    assert ProbabilityBot(0).act(state.view(0)) == Pass()


def test_pushes_matching_dice_when_it_helps(no_bluffs: None) -> None:
    state = play(position("soar", [(5, 5, 5, 1, 2), (2, 3, 4, 6, 6)], starter=1), BidAction(Bid(4, 5)))
    # 5x5 is true unless none of the other five dice counts; pushing 1,5,5,5 and rerolling
    # the 2 adds a sixth chance
    assert ProbabilityBot(0).act(state.view(0)) == BidAction(Bid(5, 5), (1, 5, 5, 5))


def test_keeps_a_die_under_the_cup(no_bluffs: None) -> None:
    # every cup die counts for fives: pushing them all is not allowed, and pushing fewer would
    # reroll a die that already counts
    state = play(position("soar", [(5, 5, 5, 5, 1), (2, 3, 4, 6, 6)], starter=1), BidAction(Bid(4, 5)))
    assert ProbabilityBot(0).act(state.view(0)) == BidAction(Bid(5, 5))


def test_calls_calza_when_the_count_is_probably_exact(no_bluffs: None) -> None:
    state = play(position("perudo", [(3,), (2,)], starter=1), BidAction(Bid(1, 3)))
    # the bid is certainly true (our 3); it is exact unless the other die is a 3 or a 1
    assert ProbabilityBot(0).act(state.view(0)) == Exact()


def test_spot_on_also_when_it_costs_everyone_else(no_bluffs: None) -> None:
    state = play(position("red-dead", [(3,), (2,)], starter=1), BidAction(Bid(1, 3)))
    assert ProbabilityBot(0).act(state.view(0)) == Exact()


def test_votes_with_the_odds() -> None:
    believable = play(position("jokers", [(1, 2, 3, 4, 5), (2, 3, 4, 5, 6), (6, 2, 3, 4, 5)]), BidAction(Bid(1, 6)))
    believable = play(believable, Challenge(0))
    assert believable.to_act == 2 and believable.view(2).legal is not None
    assert ProbabilityBot(0).act(believable.view(2)) == Vote(True)
    doubtful = play(position("jokers", [(1, 1, 1, 1, 1), (2, 3, 4, 5, 6), (6, 2, 3, 4, 5)]), BidAction(Bid(5, 1)))
    doubtful = play(doubtful, Challenge(0))
    assert ProbabilityBot(0).act(doubtful.view(2)) == Vote(False)


def test_tavern_all_in_against_a_wild_claim_and_fold_against_a_sure_one() -> None:
    hands = [(1, 2, 3), (4, 5, 6), (7, 8, 8)]
    for claim, expected in ((Bid(9, 8), AllIn()), (Bid(1, 8), Fold())):
        state = position("tavern", hands, round_no=5, chips=[10, 10, 2])
        state = play(state, Claim(Bid(1, 1)), Claim(claim))
        view = state.view(2)
        assert view.legal is not None and not view.legal.can_meet
        assert ProbabilityBot(0).act(view) == expected


def test_tavern_raises_only_with_a_claim_it_is_sure_of(no_bluffs: None) -> None:
    state = position("tavern", [(8, 8, 8), (4, 5, 6), (1, 2, 3)])
    assert ProbabilityBot(0).act(state.view(0)) == Claim(Bid(1, 8), raise_to=2)
    accuse = play(position("tavern", [(1, 2, 3), (4, 5, 6), (7, 7, 7)]), Claim(Bid(9, 8)))
    assert ProbabilityBot(0).act(accuse.view(1)) == Accuse()


def test_bluffs_sometimes_but_only_with_legal_plausible_bids() -> None:
    view = position("classic", [(6, 6, 6, 6, 5), (1, 2, 3, 4, 5)]).view(0)
    seen = {ProbabilityBot(seed).act(view) for seed in range(200)}
    assert BidAction(Bid(1, 6)) in seen  # the honest opening: lowest bid on its best face
    assert len(seen) > 1  # the seeded bluff shows up
    assert seen <= set(view.legal_actions)


# ----- every bot, every preset: only legal actions -----


class Checked:
    """Plays `bot` and asks every other level about the same view, checking each answer."""

    def __init__(self, bot: Bot, seed: int) -> None:
        self.bot = bot
        self.others = [cls(seed) for cls in BOT_LEVELS.values() if not isinstance(bot, cls)]
        self.checked = 0

    def act(self, view: PlayerView, limit: Limit | None = None) -> Action:
        legal = set(view.legal_actions)
        for other in self.others:
            assert other.act(view, limit) in legal
        action = self.bot.act(view, limit)
        assert action in legal, f"{self.bot!r} chose {action!r}"
        self.checked += 1
        return action


def _configs() -> list[tuple[str, int]]:
    out = []
    for name, preset in PRESETS.items():
        top = preset.max_players or 6
        players = range(2, top + 1) if name != "openspiel" else [2]
        out += [(name, n) for n in players if n >= preset.min_players]
    return out


@pytest.mark.parametrize(("preset", "players"), _configs())
def test_bots_only_choose_legal_actions(preset: str, players: int) -> None:
    checked = 0
    for game_no in range(2):
        game = Game(preset_options(preset, {"num_players": players}))
        agents = [
            Checked(make_bot("probability" if (seat + game_no) % 2 else "random", 100 * game_no + seat), seat)
            for seat in range(players)
        ]
        state, _ = play_game(game, agents, seed=1000 * players + game_no)
        assert state.is_terminal
        checked += sum(a.checked for a in agents)
    assert checked >= 4


# ----- strength -----


@pytest.mark.parametrize("preset", ["perudo", "classic"])
def test_probability_beats_random_heads_up(preset: str) -> None:
    games = 200
    wins = 0
    for g in range(games):
        seat = g % 2  # alternate seats so the opener's edge cancels
        agents = [make_bot("probability" if s == seat else "random", 10 * g + s) for s in range(2)]
        state, _ = play_game(Game(preset_options(preset, {"num_players": 2})), agents, seed=g)
        assert state.result is not None
        wins += state.result.places[seat] == 1
    assert wins / games >= 0.85, f"probability won {wins} of {games} {preset} games against random"


def test_same_seeds_same_game() -> None:
    def record() -> Any:
        game = Game(preset_options("soar", {"num_players": 3}))
        agents = [make_bot("probability", s) for s in range(3)]
        return play_game(game, agents, seed=42)[1].data["steps"]

    assert record() == record()


# ----- the registry -----


def test_registry_and_make_bot() -> None:
    assert {"random", "probability"} <= set(BOT_LEVELS)
    assert isinstance(make_bot("random", 1), RandomBot)
    assert isinstance(make_bot("probability", None), ProbabilityBot)
    with pytest.raises(ValueError, match=r"unknown bot level 'genius'.*Beginner.*Master.*probability.*random"):
        make_bot("genius", 1)


def test_random_bot_is_uniform_over_legal_actions() -> None:
    view = position("classic", [(1, 2), (3, 4)]).view(0)
    rng_bot = RandomBot(3)
    counts: dict[Action, int] = {}
    for _ in range(4000):
        a = rng_bot.act(view)
        counts[a] = counts.get(a, 0) + 1
    assert set(counts) == set(view.legal_actions)
    expected = 4000 / len(view.legal_actions)
    assert all(abs(c - expected) < expected * 0.5 for c in counts.values())


def test_bots_refuse_to_act_out_of_turn() -> None:
    view = position("classic", [(1, 2), (3, 4)]).view(1)
    for level in BOT_LEVELS:
        with pytest.raises(ValueError, match="not this seat's turn"):
            make_bot(level, 0).act(view)


def test_presets_are_all_covered() -> None:
    assert {find_preset(p).name for p, _ in _configs()} == set(PRESETS)


def test_the_fallback_is_the_safest_legal_action() -> None:
    # used only if a reasoned choice were ever illegal; it must still be legal and sensible
    impossible = play(position("classic", [(2, 2, 3, 3, 4), (6, 6, 1, 2, 3)], starter=1), BidAction(Bid(6, 6)))
    view = impossible.view(0)
    assert ProbabilityBot(0)._safest(view, knowledge(view)) == Challenge(1)
    opening = position("soar", [(2, 2, 3, 5, 6), (1, 2, 3, 4, 5)]).view(0)
    safest = ProbabilityBot(0)._safest(opening, knowledge(opening))
    assert safest in opening.legal_actions
    assert isinstance(safest, BidAction) and safest.push == () and knowledge(opening).chance_true(safest.bid) == 1.0
