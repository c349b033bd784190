"""The exact call (spot-on, calza) in the duel's abstract game: trained, measured by a best
response written here over the full public tree, packed and played.

Small games only (one or two dice, four faces), where remembering every bid makes the abstract
game the real one: CFR's average strategy must then be nearly unexploitable."""

from __future__ import annotations

import math
from functools import cache
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("numba")

from liarsdice.bots.trained import strategy_key
from liarsdice.duel import DuelStrategy, default_k, game_for, train
from liarsdice.duel.graph import GAME_WORTH_MOST_DICE, exact_worth
from liarsdice.duel.packed import pack, unpack
from liarsdice.duel.strategy import EXACT
from liarsdice.rules import Bid, Options, preset_options


def rules(preset: str, cup: int, **more: object) -> Options:
    return preset_options(preset, {"num_players": 2, "faces": 4, "dice_per_player": cup, **more})


def best_response(strategy: DuelStrategy, p: int) -> float:
    """What player p wins a round on average playing its best against `strategy`'s other player,
    each of its hands separately (perfect recall: the whole history is public)."""
    g = strategy.game
    spec = g.spec
    hit = g.exact_hit
    me, them = g.players[p], g.players[1 - p]
    bids = spec.bids

    @cache
    def policy(player: int, h: int, history: tuple[int, ...]) -> dict[Bid | str | None, float]:
        hand = g.players[player].hands[h]
        return strategy.policy(hand, [bids[r] for r in history])

    def raises(history: tuple[int, ...]) -> list[int]:
        return list(spec.openings) if not history else list(range(history[-1] + 1, len(bids)))

    def ends(x: int, history: tuple[int, ...], caller: int, call: str) -> np.ndarray:
        """p's payoff against each opponent hand when `caller` calls the last bid."""
        bid = bids[history[-1]]
        mine = spec.count(me.hands[x], bid.face)
        total = np.array([mine + spec.count(y, bid.face) for y in them.hands])
        if call == "liar":
            caller_wins = total < bid.quantity
            won = np.where(caller_wins, 1.0, -1.0)
        else:
            assert hit is not None
            won = np.where(total == bid.quantity, hit[caller], -1.0)
        return won if caller == p else -won

    def value(x: int, history: tuple[int, ...], w: np.ndarray) -> float:
        actor = len(history) % 2
        if actor == p:
            options = [value(x, (*history, r), w) for r in raises(history)]
            if history:
                options.append(float(w @ ends(x, history, p, "liar")))
                if hit is not None:
                    options.append(float(w @ ends(x, history, p, "exact")))
            return max(options)
        pol = [policy(actor, y, history) for y in range(len(them.hands))]
        total = 0.0
        if history:
            total += float((w * np.array([q.get(None, 0.0) for q in pol])) @ ends(x, history, actor, "liar"))
            if hit is not None:
                total += float((w * np.array([q.get(EXACT, 0.0) for q in pol])) @ ends(x, history, actor, "exact"))
        for r in raises(history):
            reach = np.array([q.get(bids[r], 0.0) for q in pol])
            if reach.any():
                total += value(x, (*history, r), w * reach)
        return total

    return float(sum(me.chance[x] * value(x, (), them.chance.copy()) for x in range(len(me.hands))))


def exploitability(strategy: DuelStrategy) -> float:
    return (best_response(strategy, 0) + best_response(strategy, 1)) / 2


@pytest.mark.parametrize(
    ("options", "dice"),
    [
        (rules("red-dead", 1), (1, 1)),  # spot-on: a hit costs the bidder a die
        (rules("perudo", 2, wild_face="none", wild_bid_rule="plain"), (1, 1)),  # calza: a hit gains one
        (rules("perudo", 2, wild_face="none", wild_bid_rule="plain"), (2, 1)),  # the opener's cup is full
    ],
)
def test_with_every_bid_remembered_the_trained_strategy_is_nearly_unexploitable(
    options: Options, dice: tuple[int, int]
) -> None:
    k = len(game_for(options, dice, 1).spec.bids)  # every bid: the abstract game is the round itself
    strategy = train(options, dice, k=k, iterations=1500)
    assert strategy.game.has_exact
    early = train(options, dice, k=k, iterations=5)
    # measured: 0.2 to 0.3 after 5 iterations, under 0.01 after 1,500
    assert exploitability(strategy) < 0.02 < exploitability(early)


def test_an_exact_call_is_worth_what_the_rules_say() -> None:
    # spot-on: the bidder loses a die; calza: the caller gains one, which a full cup cannot, worth
    # what it does for the game in a game's last rounds (1.5 dice lost by the other at 1 against
    # 3, half of one at 3 against 1 in a cup of 4: `test_a_die_gained_is_worth_what_it_does_for_the_game`)
    assert game_for(rules("red-dead", 3), (3, 1), 2).exact_hit == (1.0, 1.0)
    assert game_for(rules("perudo", 3), (3, 1), 2).exact_hit == (0.0, 1.5)
    assert game_for(rules("perudo", 3, max_dice=4), (3, 1), 2).exact_hit == (0.5, 1.5)
    assert game_for(rules("perudo", 2, max_dice=4), (2, 3), 2).exact_hit == pytest.approx((1.0, 2 / 3))
    assert game_for(rules("perudo", 2, max_dice=4), (1, 4), 2).exact_hit == (2.0, 0.0)
    # up to GAME_WORTH_MOST_DICE = T dice in all (half a round at T - 1 against 1, (T - 1) / 2 at 1
    # against T - 1); above it a round won, as those sizes' shipped strategies were trained, but
    # where the two agree (4 against 5 in a cup of 5: a round won either way, the full cup nothing)
    T, roomy = GAME_WORTH_MOST_DICE, rules("perudo", 3, max_dice=9)
    assert game_for(roomy, (T - 1, 1), 2).exact_hit == (0.5, (T - 1) / 2)
    assert game_for(roomy, (T // 2 + 1, T // 2 + 1), 2).exact_hit == (1.0, 1.0)
    five = rules("perudo", 3, max_dice=5)
    assert exact_worth(five, (4, 5)) == "game" and game_for(five, (4, 5), 2).exact_hit == (1.0, 0.0)
    assert not game_for(rules("classic", 3), (3, 1), 2).has_exact
    # once a game: who may still call it is the game's, which the caller says
    with pytest.raises(ValueError, match="say which players may still call it"):
        game_for(rules("soar", 3), (3, 1), 2)
    one = game_for(rules("soar", 3), (3, 1), 2, exact_left=(True, False))
    # a die gained in Soar is worth what it does for the game: nothing in a full cup, 1.5 dice
    # lost by the other at 1 against 3 (`test_a_die_gained_is_worth_what_it_does_for_the_game`)
    assert one.exact_hit == (0.0, 1.5) and one.can_exact[one.parity == 0].any()
    assert not one.can_exact[one.parity == 1].any()
    assert not game_for(rules("soar", 3), (3, 1), 2, exact_left=(False, False)).has_exact


def test_the_exact_call_survives_packing_and_saving(tmp_path: Path) -> None:
    strategy = train(rules("red-dead", 2), (2, 1), k=3, iterations=200)
    bits = 12
    again = unpack(pack(strategy, bits, 0.0))
    assert again.game.has_exact
    for p in (0, 1):
        reached = again.exact[p] + again.liar[p] > 0  # the nodes a hand reaches are stored
        assert np.abs(again.exact[p] - strategy.exact[p])[reached].max() <= 1.0 / ((1 << bits) - 1) + 1e-6
    saved = DuelStrategy.load(strategy.save(tmp_path / "s.npz"))
    for p in (0, 1):
        assert np.abs(saved.exact[p] - strategy.exact[p]).max() < 2e-4  # KEEP drops under 1e-4
    hand = strategy.game.players[1].hands[0]
    policy = saved.policy(hand, [strategy.game.spec.bids[0]])
    assert EXACT in policy and math.isclose(sum(policy.values()), 1.0, rel_tol=1e-5)


def test_train_takes_the_exact_call_any_time_or_once_a_game(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from typer.testing import CliRunner

    from liarsdice.cli import app

    monkeypatch.setenv("LIARSDICE_DATA", str(tmp_path))
    base = ["train", "--dice", "1", "1", "--iterations", "20", "-o", "rounds=single"]
    done = CliRunner().invoke(app, [*base, "--preset", "perudo"])
    assert done.exit_code == 0 and "20 iterations in" in done.output, done.output
    (saved,) = (p for p in (tmp_path / "duel").glob("1v1-*.npz") if not p.name.endswith(".train.npz"))
    assert DuelStrategy.load(saved).game.exact_hit == (0.5, 0.5)  # a calza gains a die: half a round at 1 vs 1
    # once a game: for the players --exact-left names (both unless it says otherwise), with passes
    soar = [*base, "--preset", "soar", "-o", "push=false", "--dice", "2", "1", "-f", "3"]
    for left, want in ((None, (True, True)), ("other", (False, True))):
        done = CliRunner().invoke(app, [*soar, *([] if left is None else ["--exact-left", left]), "--exact"])
        assert done.exit_code == 0 and "exact exploitability on the full tree" in done.output, done.output
        options = preset_options("soar", {"push": False, "faces": 3})
        key = strategy_key(options, (2, 1), default_k(options, (2, 1)), want)
        trained = DuelStrategy.load(tmp_path / "duel" / f"{key}.npz")
        assert trained.exact_left == want and trained.game.passes
    wrong = CliRunner().invoke(app, [*base, "--preset", "perudo", "--exact-left", "opener"])
    assert wrong.exit_code == 2 and "once a game; perudo's exact is any time" in wrong.output
    pushed = CliRunner().invoke(app, [*base, "--preset", "soar"])
    assert pushed.exit_code == 2 and "push=true (pushing dice aside" in pushed.output
    assert "also models the exact call" in pushed.output


def test_a_die_gained_is_worth_what_it_does_for_the_game() -> None:
    from liarsdice.duel.graph import die_gained

    def race(mine: int, theirs: int) -> float:
        """The chance that the other loses `theirs` rounds before we lose `mine`, each a coin toss."""
        if theirs == 0:
            return 1.0
        if mine == 0:
            return 0.0
        return sum(math.comb(theirs - 1 + k, k) / 2 ** (theirs + k) for k in range(mine))

    for mine in range(1, 5):
        for theirs in range(1, 6):
            won, lost, gained = race(mine, theirs - 1), race(mine - 1, theirs), race(mine + 1, theirs)
            # in the unit of the liar call: +1 a round won, -1 a round lost
            assert die_gained(mine, theirs, 5) == pytest.approx((gained - (won + lost) / 2) / ((won - lost) / 2))
    assert die_gained(1, 1, 5) == 0.5 and die_gained(1, 4, 5) == 2.0 and die_gained(2, 3, 5) == 1.0
    assert die_gained(5, 1, 5) == 0.0
