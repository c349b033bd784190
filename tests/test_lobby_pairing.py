"""The lobby's pairing (server/pairing.py): who plays whom, with explicit ratings and waits."""

from __future__ import annotations

from liarsdice.server.pairing import BASE_GAP, GAP_PER_SECOND, Seeker, accepted_gap, check_seek, pair
from liarsdice.server.playnow import seat_names


def s(
    i: int, rating: int = 1500, preset: str | None = "perudo", seats: int = 2, waited: float = 0.0, **kw: object
) -> Seeker:
    return Seeker(id=i, preset=preset, seats=seats, rating=rating, waited=waited, **kw)  # type: ignore[arg-type]


def groups(matches: list) -> list[tuple[int, ...]]:  # type: ignore[type-arg]
    return sorted(tuple(sorted(x.id for x in m.seekers)) for m in matches)


def test_two_seekers_of_one_preset_and_seat_count_are_paired() -> None:
    [m] = pair([s(1), s(2)])
    assert {x.id for x in m.seekers} == {1, 2} and m.preset == "perudo" and m.bots == 0


def test_the_closest_ratings_are_paired_first() -> None:
    seekers = [s(1, 1500), s(2, 1590), s(3, 1520), s(4, 1600)]
    assert groups(pair(seekers)) == [(1, 3), (2, 4)]


def test_the_accepted_gap_widens_with_the_wait() -> None:
    far = [s(1, 1500), s(2, 1800)]
    assert pair(far) == []  # 300 apart: neither accepts at once
    assert accepted_gap(s(1, waited=10)) == BASE_GAP + 10 * GAP_PER_SECOND
    assert pair([s(1, 1500, waited=7.9), s(2, 1800, waited=20)]) == []  # the first accepts 297.5 after 7.9 s...
    assert groups(pair([s(1, 1500, waited=8.5), s(2, 1800, waited=20)])) == [(1, 2)]  # ...and 312 after 8.5 s


def test_any_preset_pairs_with_anyone_and_takes_their_choice() -> None:
    [m] = pair([s(1, preset=None), s(2, preset="classic")])
    assert m.preset == "classic"
    [m] = pair([s(1, preset=None), s(2, preset=None)])
    assert m.preset == "perudo"
    assert pair([s(1, preset="perudo"), s(2, preset="classic")]) == []


def test_seat_counts_and_rated_must_agree() -> None:
    assert pair([s(1, seats=2), s(2, seats=3)]) == []
    assert pair([s(1, rated=True), s(2, rated=False)]) == []
    assert groups(pair([s(1, rated=True), s(2, rated=True)])) == [(1, 2)]
    assert groups(pair([s(i, seats=3) for i in range(1, 4)])) == [(1, 2, 3)]
    assert pair([s(1, seats=3), s(2, seats=3)]) == []  # a third is missing, and nobody's wait is over


def test_after_the_wait_bots_fill_the_rest_at_the_chosen_level() -> None:
    [m] = pair([s(1, waited=31, wait=30, level="casual")])
    assert [x.id for x in m.seekers] == [1] and m.bots == 1 and m.level == "casual"
    assert pair([s(1, waited=29, wait=30)]) == []
    # Not enough people for four seats: the two there, and two bots.
    [m] = pair([s(1, seats=4, waited=61, wait=60), s(2, seats=4, waited=5)])
    assert {x.id for x in m.seekers} == {1, 2} and m.bots == 2
    assert [x.id for x in m.seekers] == [1, 2]  # the longest waiting sits first


def test_a_seeker_is_never_in_two_tables() -> None:
    seekers = [s(i, 1500 + 7 * i, waited=100, wait=15) for i in range(1, 12)]
    ids = [x.id for m in pair(seekers) for x in m.seekers]
    assert len(ids) == len(set(ids)) == 11


def test_a_seek_is_checked_with_what_is_allowed() -> None:
    assert check_seek("perudo", 2, 30) is None and check_seek(None, 6, 300) is None
    assert "unknown preset" in (check_seek("nope", 2, 30) or "")
    assert "2 to 6" in (check_seek("perudo", 7, 30) or "")
    assert "OpenSpiel is played by 2 to 2" in (check_seek("openspiel", 3, 30) or "")
    assert "15, 30, 60, 120, 300" in (check_seek("perudo", 2, 31) or "")


def test_seat_names_are_unique_and_bots_are_numbered() -> None:
    assert seat_names(["Ann", "ann", "Bob"], 2) == ["Ann", "ann (2)", "Bob", "Bot 1", "Bot 2"]
    assert seat_names(["Bot 1"], 1) == ["Bot 1", "Bot 2"]
