"""Rule-by-rule tests of the pure-Python Ronda reference engine.

Every expected value below was worked out by hand from ``seeds/ronda.md``; each
test names the rule id it checks, and the worked examples E1 .. E8 are replayed
exactly. In the two-player examples A is seat 0 (first player) and B seat 1
(dealer). Positions are built with :func:`position` and decks with
:func:`deck_for`, two test-only helpers.
"""

from __future__ import annotations

import itertools
import math
import random

import pytest

from simcards.core.errors import UsageError
from simcards.ronda.reference import (
    DEAL_SIZES,
    SOURCES,
    TERMINAL,
    Announcement,
    HandState,
    MatchState,
    RondaOptions,
    card_id,
    card_name,
    card_value,
    consistent_sample,
    draw_first_dealer,
    greedy_policy,
    greedy_scores,
    holding_announcements,
    holding_counts,
    lookahead_policy,
    parse_card,
    parse_cards,
    parse_policy,
    play_hand,
    random_policy,
    resolve_announcements,
    rollout_policy,
    stretch_value,
    suit_index,
    target_winner,
    unseen_cards,
    value_index,
)

A, B, C = 0, 1, 2


def cards(text: str) -> list[int]:
    return parse_cards(text)


def c(name: str) -> int:
    return parse_card(name)


# ---------------------------------------------------------------- test-only helpers


def position(
    hands,
    table="",
    *,
    players=2,
    dealer=None,
    deal=None,
    pile="",
    pile_hitter=None,
    last_laid=None,
    last_capturer=None,
    counts=None,
    captured=None,
    stock="",
    start_scores=None,
    points=None,
    announcements=(),
    plays=(),
    **opts,
) -> HandState:
    """Test-only: a mid-hand position built directly (no deal is replayed).

    ``hands`` are card-name strings by seat; the dealer defaults to the last
    seat, so seat 0 plays first. The deal in progress is ``deal`` ('last' for
    the last round) or the first one the placed cards fit in; the stock starts
    with ``stock`` and then holds the unused cards, lowest id first; the other
    unused cards are captured cards (after the named ``captured`` cards by
    side), dealt round-robin over the sides or so that the sides' piles get
    ``counts`` more cards.
    """
    options = RondaOptions(players=players, **opts)
    n = players
    dealer = n - 1 if dealer is None else dealer
    hand_cards = [cards(h) for h in hands]
    table_cards = cards(table)
    pile_cards = cards(pile)
    stock_top = cards(stock)
    named = [cards(x) for x in captured] if captured else [[] for _ in range(options.n_sides)]
    placed = [*(x for h in hand_cards for x in h), *table_cards, *pile_cards]
    placed += [x for side in named for x in side]
    assert len(set(placed + stock_top)) == len(placed) + len(stock_top)
    sizes = options.deal_sizes

    def stock_size(d: int) -> int:
        return 40 - (1 if n == 3 else 0) - n * sum(sizes[: d + 1])

    if deal == "last":
        d = len(sizes) - 1
    elif deal is None:
        d = next(
            k
            for k in range(len(sizes))
            if 40 - stock_size(k) >= len(placed) and stock_size(k) >= len(stock_top)
        )
    else:
        d = deal
    unused = [x for x in range(40) if x not in placed and x not in stock_top]
    n_stock = stock_size(d) - len(stock_top)
    stock_cards = stock_top + unused[:n_stock]
    extras = unused[n_stock:]
    piles = [list(x) for x in named]
    if counts is not None:
        assert sum(counts) == len(extras), (counts, len(extras))
        for side, k in enumerate(counts):
            piles[side] += extras[:k]
            extras = extras[k:]
    else:
        for i, x in enumerate(extras):
            piles[i % options.n_sides].append(x)
    return HandState.from_position(
        options,
        dealer,
        hand_cards,
        table=table_cards,
        stock=stock_cards,
        pile=pile_cards,
        pile_hitter=pile_hitter,
        captured=piles,
        last_laid=c(last_laid) if last_laid else None,
        last_capturer=last_capturer,
        start_scores=start_scores,
        points=points,
        announcements=announcements,
        plays=plays,
    )


def deck_for(players: int, dealer: int, deals, face_up: str | None = None) -> list[int]:
    """Test-only: a deck (permutation of 0..39) whose first deals give ``deals``.

    ``deals`` is a list of deals, each a list of card-name strings by seat; the
    deck is laid out as D5 deals it (face-up card first with 3 players, then one
    card at a time, first player first). The unused cards follow, lowest first.
    """
    n = players
    order = [(dealer + 1 + i) % n for i in range(n)]
    dealt: list[int] = []
    for holdings in deals:
        by_seat = [cards(h) for h in holdings]
        for j in range(len(by_seat[order[0]])):
            for p in order:
                dealt.append(by_seat[p][j])
    head: list[int] = []
    if n == 3:
        head = [c(face_up)] if face_up else [min(x for x in range(40) if x not in dealt)]
    rest = [x for x in range(40) if x not in dealt and x not in head]
    deck = head + dealt + rest
    assert sorted(deck) == list(range(40))
    return deck


def play(state: HandState, *names: str):
    """Apply the named cards in turn; return their play records."""
    return [state.apply(c(name)) for name in names]


def src(state: HandState, side: int, source: str) -> int:
    return state.points_by_source(side)[source]


def names(ids) -> list[str]:
    return [card_name(x) for x in ids]


# ---------------------------------------------------------------- D: deck, seats, deal


def test_D1_card_ids_values_suits_and_names():
    assert [card_value(4 * v) for v in range(10)] == [1, 2, 3, 4, 5, 6, 7, 10, 11, 12]
    assert card_id(7, "oros") == 6 * 4 and card_id(12, "b") == 39 and card_id(1, "c") == 1
    assert card_name(39) == "12b" and card_name(0) == "1o" and card_name(4 * 7 + 2) == "10e"
    assert all(parse_card(card_name(x)) == x for x in range(40))
    assert value_index(c("10e")) == 7 and suit_index(c("10e")) == 2
    with pytest.raises(UsageError):
        parse_card("8o")  # no 8 in the 40-card deck
    with pytest.raises(UsageError):
        parse_card("7x")


def test_D1_sequence_sota_follows_the_7():
    # 7 takes 7, then Sota (10), Caballo (11), Rey (12) while present (P2 example).
    s = position(["7o", "2b"], "7c 10c 11e 12b 1o", last_capturer=B)
    (r,) = play(s, "7o")
    assert names(r.taken) == ["7c", "10c", "11e", "12b"]
    assert s.table_cards() == [c("1o")]


def test_D2_sides_alone_and_teams():
    assert [RondaOptions(players=3).side_of(p) for p in range(3)] == [0, 1, 2]
    teams = RondaOptions(players=4, teams="on")
    assert [teams.side_of(p) for p in range(4)] == [0, 1, 0, 1]
    assert teams.n_sides == 2 and RondaOptions(players=4).n_sides == 4


def test_D2_teams_play_alternates_between_teams():
    opts = RondaOptions(players=4, teams="on")
    s = HandState(opts, 2, list(range(40)))
    seats = []
    while not s.is_terminal():
        seats.append(s.current_player())
        s.apply(s.legal_actions()[0])
    assert len(seats) == 40
    assert all(opts.side_of(a) != opts.side_of(b) for a, b in itertools.pairwise(seats))


@pytest.mark.parametrize(
    "kwargs, message",
    [
        ({"players": 5}, "players=5"),
        ({"players": 1}, "players=1"),
        ({"players": 3, "teams": "on"}, "teams=on needs 4 players"),
        ({"teams": "yes"}, "unknown teams"),
        ({"derba_chain": "steep"}, "unknown derba_chain"),
        ({"announce": "never"}, "unknown announce"),
        ({"announce_conflict": "max"}, "unknown announce_conflict"),
        ({"target": 1001}, "target=1001 must be an integer from 1 to 1000 (S4)"),
        ({"target": 0}, "target=0 must be an integer from 1 to 1000"),
        ({"target_check": "later"}, "unknown target_check"),
        ({"mode": "fast"}, "unknown mode"),
        ({"mode": "classic", "hands_to_win": 0}, "hands_to_win"),
        ({"hands_to_win": 3}, "only to mode=classic"),
    ],
)
def test_D2_options_validation_one_clear_line(kwargs, message):
    with pytest.raises(UsageError) as err:
        RondaOptions(**kwargs)
    assert message in str(err.value) and "\n" not in str(err.value)


def test_D3_first_player_is_after_the_dealer_and_plays_first():
    for n in (2, 3, 4):
        for dealer in range(n):
            s = HandState(RondaOptions(players=n), dealer, list(range(40)))
            assert s.first_player == (dealer + 1) % n
            assert s.current_player() == (dealer + 1) % n
            order = []
            for _ in range(n):
                order.append(s.current_player())
                s.apply(s.legal_actions()[0])
            assert order == [(dealer + 1 + i) % n for i in range(n)]
            assert order[-1] == dealer  # the dealer plays last


def test_D3_deal_passes_to_the_first_player_after_each_hand():
    opts = RondaOptions(players=3, mode="classic", hands_to_win=50)
    rng = random.Random(3)

    def deck(_):
        d = list(range(40))
        rng.shuffle(d)
        return d

    m = MatchState(opts, 1, deck)
    dealers = [m.hand.dealer]
    for _ in range(3):
        hand = m.hand
        while m.hand is hand:
            m.apply(m.legal_actions()[0])
        dealers.append(m.hand.dealer)
    assert dealers == [1, 2, 0, 1]


@pytest.mark.parametrize(
    "players, teams, sizes, face_up",
    [
        (2, "off", [4, 4, 4, 4, 4], 0),
        (3, "off", [4, 4, 4, 1], 1),
        (4, "off", [4, 4, 2], 0),
        (4, "on", [4, 4, 2], 0),
    ],
)
def test_D4_deal_sizes_and_face_up_card(players, teams, sizes, face_up):
    opts = RondaOptions(players=players, teams=teams)
    s = HandState(opts, 0, list(range(40)))
    assert len(s.table) == face_up
    while not s.is_terminal():
        s.apply(s.legal_actions()[0])
    deal_events = [e for e in s.events if e.kind == "deal"]
    per_deal = [len(deal_events[i].cards) for i in range(0, len(deal_events), players)]
    assert per_deal == sizes == list(DEAL_SIZES[players])
    assert len(deal_events) == players * len(sizes)
    assert sum(len(e.cards) for e in deal_events) + face_up == 40


def test_D5_dealing_one_card_at_a_time_first_player_first():
    deck = list(range(40))
    s = HandState(RondaOptions(players=2), 1, deck)
    assert sorted(s.hands[0]) == [0, 2, 4, 6] and sorted(s.hands[1]) == [1, 3, 5, 7]
    s3 = HandState(RondaOptions(players=3), 0, deck)
    assert s3.face_up == 0 and s3.table_cards() == [0]
    # first player is seat 1, then 2, then the dealer 0
    assert sorted(s3.hands[1]) == [1, 4, 7, 10]
    assert sorted(s3.hands[2]) == [2, 5, 8, 11]
    assert sorted(s3.hands[0]) == [3, 6, 9, 12]
    assert len(s3.stock) == 27


def test_D5_next_deal_only_when_every_holding_is_empty():
    s = HandState(RondaOptions(players=2), 1, list(range(40)))
    assert len(s.stock) == 32
    for _ in range(7):
        s.apply(s.legal_actions()[0])
        assert len(s.stock) == 32
    s.apply(s.legal_actions()[0])
    assert len(s.stock) == 24 and s.deal_index == 1
    assert sorted(s.hands[0]) == [8, 10, 12, 14]


def test_D5_deal_boundary_keeps_the_previous_play_for_a_derba():
    # B (dealer) lays 3e as the last play of deal 0; A's first play of deal 1 is 3o: Derba.
    s = position(["", "3e"], "5c", deal=0, stock="3o 6b 7o 7b 10o 10b 11o 11b")
    (lay,) = play(s, "3e")
    assert lay.action == "lay" and s.deal_index == 1
    assert sorted(s.hands[A]) == cards("3o 7o 10o 11o")
    (derba,) = play(s, "3o")
    assert derba.action == "derba" and derba.hit == 1
    assert src(s, A, "derba") == 1


def test_D5_bad_decks_are_refused():
    with pytest.raises(UsageError):
        HandState(RondaOptions(), 0, list(range(39)))
    with pytest.raises(UsageError):
        HandState(RondaOptions(), 0, [0] * 40)
    with pytest.raises(UsageError):
        HandState(RondaOptions(), 2, list(range(40)))


# ---------------------------------------------------------------- P: playing a card


def test_P1_legal_actions_are_the_movers_cards_sorted():
    s = HandState(RondaOptions(), 1, list(range(39, -1, -1)))
    assert s.legal_actions() == sorted(s.hands[0])
    with pytest.raises(UsageError):
        s.apply(s.hands[1][0])  # not his card
    s.apply(s.legal_actions()[0])
    assert s.current_player() == 1


def test_P2_E1_capture_run_stops_at_a_missing_value():
    # E1: table 4o 6c 7b 10e 12o; A plays 6e: takes 6c 7b 10e, 12o stays.
    s = position(["6e", "4c"], "4o 6c 7b 10e 12o", last_capturer=B)
    (r,) = play(s, "6e")
    assert r.action == "capture" and names(r.taken) == ["6c", "7b", "10e"]
    assert r.credits == () and not r.missa
    assert s.table_cards() == cards("4o 12o")
    assert s.cards_held(A) - 0 == len(s.captured[A])
    assert set(cards("6e 6c 7b 10e")) <= set(s.captured[A])


def test_P2_run_ends_with_the_rey_nothing_follows_it():
    s = position(["11o", "2b"], "11c 12e 1o 2o", last_capturer=B)
    (r,) = play(s, "11o")
    assert names(r.taken) == ["11c", "12e"]
    assert s.table_cards() == cards("1o 2o")


def test_P3_laying_when_no_card_of_its_value():
    s = position(["5o", "2b"], "4o 6c", last_capturer=B)
    (r,) = play(s, "5o")
    assert r.action == "lay" and r.taken == ()
    assert s.table_cards() == cards("4o 5o 6c")
    assert s.last_laid == c("5o")


def test_P4_E1_forced_capture():
    # E1 continued: B plays 4c: it must take 4o; table 12o.
    s = position(["6e", "4c"], "4o 6c 7b 10e 12o", last_capturer=B)
    _, r = play(s, "6e", "4c")
    assert r.action == "capture" and names(r.taken) == ["4o"]
    assert r.hit == 0  # A's previous play captured: no Derba
    assert not r.missa and s.table_cards() == cards("12o")


def test_P5_plain_capture_goes_to_the_side_at_once():
    s = position(["6e", "4c"], "4o 6c 7b 10e 12o", last_capturer=B)
    before = len(s.captured[A])
    play(s, "6e")
    assert len(s.captured[A]) == before + 4 and s.pile == []


# ---------------------------------------------------------------- X: Derba, pile, re-hits


def test_X1_E2_derba_takes_the_laid_card_and_opens_a_pile():
    # E2: table 2o 5c. B lays 3e. A plays 3o: Derba, takes 3e: A +1, pile 3e 3o.
    s = position(["3o", "3e 6b"], "2o 5c", last_capturer=A)
    lay, derba = play(s, "3e", "3o")
    assert lay.action == "lay"
    assert derba.action == "derba" and derba.taken == (c("3e"),) and derba.hit == 1
    assert derba.credits == ((A, 1, "derba"),)
    assert s.pile == cards("3e 3o") and s.pile_hitter == A
    assert s.table_cards() == cards("2o 5c")


def test_X2a_first_play_of_a_hand_is_never_a_derba():
    # E4 (three players): face-up 6c; the first player plays 6o: Missa, no Derba.
    deck = deck_for(3, 2, [["6o 1c 2c 3c", "1e 2e 4e 5e", "7o 7c 10o 11o"]], face_up="6c")
    s = HandState(RondaOptions(players=3), 2, deck)
    assert s.table_cards() == cards("6c")
    (r,) = play(s, "6o")
    assert r.action == "capture" and r.hit == 0 and r.missa
    assert src(s, A, "missa") == 1 and src(s, A, "derba") == 0


def test_X2b_capturing_the_face_up_card_later_is_not_a_derba():
    # 3 players: the face-up 6c is still on the table; the previous play laid a 2.
    s = position(["6o 1b", "2b 5o", "5c 7c"], "6c 2o", players=3, last_laid="2o")
    (r,) = play(s, "6o")
    assert r.action == "capture" and r.hit == 0


def test_X2c_E2_run_through_the_laid_card_is_not_a_derba():
    # E2 counter-example: B lays 3e, A plays 2c: takes 2o then 3e; no Derba, no pile.
    s = position(["2c", "3e 6b"], "2o 5c", last_capturer=A)
    _, r = play(s, "3e", "2c")
    assert r.action == "capture" and names(r.taken) == ["2o", "3e"]
    assert r.hit == 0 and r.credits == () and s.pile == []


def test_X2d_after_a_capture_no_derba_even_on_a_card_laid_earlier():
    # 5e was laid earlier, B's previous play captured: A's 5o is a plain capture (E5).
    s = position(["5o", "7o"], "2b 5e", last_capturer=B, deal="last")
    (r,) = play(s, "5o")
    assert r.action == "capture" and r.hit == 0


def test_X3_pile_in_play_is_not_part_of_the_table():
    # E3: table 5o 10c. B lays 7c. A plays 7o: Derba, takes 7c and 10c: pile 7c 10c 7o.
    s = position(["7o 5c", "7c 7e 2b"], "5o 10c", last_capturer=A)
    play(s, "7c", "7o")
    assert s.pile == cards("7c 10c 7o") and s.table_cards() == cards("5o")
    obs = s.observation(B)
    assert obs["pile"] == tuple(cards("7c 10c 7o")) and obs["pile_hitter"] == A
    assert obs["table"] == (c("5o"),)
    assert s.cards_held(A) == len(s.captured[A]) + 3


def test_X4_rehit_takes_the_pile_and_scores_as_a_derba():
    s = position(["7o 7b", "7c 7e 2b"], "5o 10c", last_capturer=A)
    play(s, "7c", "7o")
    (r,) = play(s, "7e")
    assert r.action == "rehit" and r.taken == () and r.hit == 2
    assert r.credits == ((B, 1, "derba"),) and not r.missa
    assert s.pile == cards("7c 10c 7o 7e") and s.pile_hitter == B
    assert s.table_cards() == cards("5o")  # a re-hit never runs
    assert s.last_capturer == B


def test_X5a_E2_another_value_closes_the_pile_before_acting():
    # E2: B plays 6b: the pile (2 cards) goes to A, then 6b is laid.
    s = position(["3o", "3e 6b"], "2o 5c", last_capturer=A)
    before = len(s.captured[A])
    _, _, r = play(s, "3e", "3o", "6b")
    assert r.closed == tuple(cards("3e 3o")) and r.closed_to == A
    assert r.action == "lay" and len(s.captured[A]) == before + 2
    assert s.pile == [] and s.table_cards() == cards("2o 5c 6b")
    assert r.events[0].kind == "close" and r.events[0].rule == "X5a"


@pytest.mark.parametrize("chain, a_pts, b_pts", [("flat", 2, 1), ("tiers", 10, 0)])
def test_X5b_E3_four_of_a_value_close_the_chain(chain, a_pts, b_pts):
    s = position(["7o 7b", "7c 7e 2b"], "5o 10c", last_capturer=A, derba_chain=chain)
    before = len(s.captured[A])
    _, _, _, r = play(s, "7c", "7o", "7e", "7b")
    assert r.action == "rehit" and r.hit == 3 and r.chain_closed
    assert s.pile == [] and len(s.captured[A]) == before + 5
    assert (src(s, A, "derba"), src(s, B, "derba")) == (a_pts, b_pts)
    assert src(s, A, "missa") == 0  # 5o stays
    assert [e.rule for e in r.events if e.kind == "close"] == ["X5b"]


def test_X5c_open_pile_goes_to_its_last_hitter_at_the_end():
    # E6(f): A's Derba on B's laid 12o, B's re-hit; the pile goes to B at the end.
    s = position(["12c", "12e"], "12o 4b", deal="last", last_laid="12o", last_capturer=A)
    play(s, "12c", "12e")
    assert s.is_terminal()
    closes = [e for e in s.events if e.kind == "close"]
    assert closes[-1].rule == "X5c" and closes[-1].side == B
    assert set(cards("12o 12c 12e")) <= set(s.captured[B])


@pytest.mark.parametrize(
    "chain, variant, a_pts, b_pts",
    [("flat", False, 2, 1), ("tiers", False, 10, 0), ("flat", True, 2, 1), ("tiers", True, 1, 5)],
)
def test_X6_X7_E3_chain_points(chain, variant, a_pts, b_pts):
    s = position(["7o 7b 5c", "7c 7e 2b 3b"], "5o 10c", last_capturer=A, derba_chain=chain)
    play(s, "7c", "7o", "7e")
    if variant:
        # E3 variant: A plays 5c: the pile (4 cards) goes to B first, then Missa.
        before_b = len(s.captured[B])
        (r,) = play(s, "5c")
        assert r.closed_to == B and len(s.captured[B]) == before_b + 4
        assert r.missa and src(s, A, "missa") == 1
        total_a = src(s, A, "derba") + src(s, A, "missa")
    else:
        play(s, "7b")
        total_a = src(s, A, "derba") + src(s, A, "missa")
    assert (total_a, src(s, B, "derba")) == (a_pts, b_pts)


@pytest.mark.parametrize("chain, expected", [("flat", (1, 1, 1)), ("tiers", (0, 0, 10))])
def test_X6_X7_E3_three_players_each_hit_once(chain, expected):
    s = position(
        ["7o 2o", "7e 2c", "7c 7b 2e"], "5o", players=3, last_capturer=B, derba_chain=chain
    )
    play(s, "7c", "7o", "7e", "7b")
    assert tuple(src(s, p, "derba") for p in range(3)) == expected
    assert s.records[-1].chain_closed


def test_X7_tiers_deduction_credits_in_order():
    s = position(["7o 7b", "7c 7e 2b"], "5o 10c", last_capturer=A, derba_chain="tiers")
    _, d, r2, r3 = play(s, "7c", "7o", "7e", "7b")
    assert d.credits == ((A, 1, "derba"),)
    assert r2.credits == ((B, 5, "derba"), (A, -1, "derba"))
    assert r3.credits == ((A, 10, "derba"), (B, -5, "derba"))


# ---------------------------------------------------------------- M1, U1


def test_M1_E4_missa_derba_missa_and_rehit_never_missa():
    # E4: table 4c 5o; A plays 4e: Missa. B lays 11o. A plays 11c: Derba and Missa.
    # B plays 11e: re-hit, +1, no Missa.
    s = position(["4e 11c", "11o 11e"], "4c 5o", last_capturer=B)
    r1, r2, r3 = play(s, "4e", "11o", "11c")
    assert names(r1.taken) == ["4c", "5o"] and r1.missa and r1.credits == ((A, 1, "missa"),)
    assert r2.action == "lay"
    assert r3.action == "derba" and r3.missa
    assert r3.credits == ((A, 1, "derba"), (A, 1, "missa"))
    assert s.pile == cards("11o 11c") and s.pile_hitter == A
    (r4,) = play(s, "11e")
    assert r4.action == "rehit" and not r4.missa and r4.credits == ((B, 1, "derba"),)
    assert (src(s, A, "missa"), src(s, A, "derba"), src(s, B, "derba")) == (2, 1, 1)


def test_M1_closing_a_pile_then_laying_on_an_empty_table_is_no_missa():
    # A lays 2o, B lays 11o, A's Derba 11c leaves 2o on the table (no Missa);
    # then B's 5e closes the pile and is laid: the table was not emptied by a capture.
    s = position(["11c 2o", "11o 5e"], "", last_capturer=B)
    play(s, "2o", "11o", "11c")
    (r,) = play(s, "5e")
    assert r.closed and r.action == "lay" and not r.missa


def test_M1_last_play_of_the_hand_can_be_a_missa():
    # E6(d): table 1c 2o, B's last card 1e takes both: Missa B +1, and A +10 (L3).
    s = position(["", "1e"], "1c 2o", deal="last", last_capturer=A)
    (r,) = play(s, "1e")
    assert r.missa and r.last_card
    assert r.credits == ((B, 1, "missa"), (A, 10, "last_card"))


def test_M1_not_counted_in_classic_mode_but_flagged():
    s = position(["4e", "2b"], "4c 5o", last_capturer=B, mode="classic", hands_to_win=1)
    (r,) = play(s, "4e")
    assert r.missa and r.credits == ()


def test_U1_E5_ultima_goes_to_the_last_capturer():
    # E5: table 2b 5e; A takes 5e; B lays his last card 7o; 2b and 7o go to A.
    s = position(["5o", "7o"], "2b 5e", deal="last", last_capturer=B)
    r1, r2 = play(s, "5o", "7o")
    assert names(r1.taken) == ["5e"] and r2.action == "lay" and r2.credits == ()
    ultima = [e for e in s.events if e.kind == "ultima"]
    assert len(ultima) == 1 and ultima[0].side == A and set(ultima[0].cards) == set(cards("2b 7o"))
    assert src(s, A, "last_card") == src(s, B, "last_card") == 0  # L4


def test_U1_ultima_scores_no_points_of_its_own():
    s = position(["5o", "7o"], "2b 5e", deal="last", last_capturer=B, counts=(12, 24))
    play(s, "5o", "7o")
    # A: 12 + 5o 5e + Ultima 2b 7o = 16 cards; B 24 cards: S1 only.
    assert [len(x) for x in s.captured] == [16, 24]
    assert s.hand_points() == (0, 4) and src(s, B, "cards") == 4


# ---------------------------------------------------------------- L: the dealer's last card


def test_L1_E6a_rey_that_captures():
    s = position(["", "12e"], "3o 12c", deal="last", last_laid="3o", last_capturer=A)
    (r,) = play(s, "12e")
    assert r.action == "capture" and r.hit == 0 and not r.missa
    assert r.credits == ((B, 10, "last_card"),)
    assert c("3o") in s.captured[B]  # Ultima


def test_L1_E6b_derba_missa_and_rey():
    s = position(["12c", "12e"], "", deal="last", last_capturer=B)
    r1, r2 = play(s, "12c", "12e")
    assert r1.action == "lay" and r2.action == "derba"
    assert r2.credits == ((B, 1, "derba"), (B, 1, "missa"), (B, 10, "last_card"))
    assert sum(p for _, p, _ in r2.credits) == 12


def test_L2_E6c_rey_that_captures_nothing():
    s = position(["", "12e"], "3o", deal="last", last_capturer=A)
    (r,) = play(s, "12e")
    assert r.action == "lay" and r.credits == ((A, 10, "last_card"),)
    ultima = next(e for e in s.events if e.kind == "ultima")
    assert ultima.side == A and set(ultima.cards) == set(cards("3o 12e"))


def test_L3_E6d_as_capturing():
    s = position(["", "1e"], "1c 2o", deal="last", last_capturer=A)
    (r,) = play(s, "1e")
    assert (A, 10, "last_card") in r.credits and src(s, B, "last_card") == 0


def test_L3_E6e_as_laid():
    s = position(["", "1e"], "5o", deal="last", last_capturer=A)
    (r,) = play(s, "1e")
    assert r.action == "lay" and r.credits == ((A, 10, "last_card"),)


def test_L3_as_rehit_still_gives_the_others_ten():
    # B laid 1o; A's 1c is a Derba (and a Missa); B's last card 1e re-hits.
    s2 = position(["1c", "1e"], "1o", deal="last", last_laid="1o", last_capturer=B)
    r1, r2 = play(s2, "1c", "1e")
    assert r1.action == "derba" and r1.missa
    assert r2.action == "rehit" and r2.last_card
    assert r2.credits == ((B, 1, "derba"), (A, 10, "last_card"))


def test_L4_other_values_score_nothing():
    s = position(["", "11e"], "5o", deal="last", last_capturer=A)
    (r,) = play(s, "11e")
    assert r.credits == ()


@pytest.mark.parametrize("chain, b_expected, a_expected", [("flat", 11, 1), ("tiers", 15, 0)])
def test_L5_E6f_rey_rehit_stacks_with_the_chain(chain, b_expected, a_expected):
    s = position(
        ["12c", "12e"], "12o 4b", deal="last", last_laid="12o", last_capturer=A, derba_chain=chain
    )
    r1, r2 = play(s, "12c", "12e")
    assert r1.action == "derba" and r1.credits == ((A, 1, "derba"),)
    assert r2.action == "rehit"
    assert src(s, B, "derba") + src(s, B, "last_card") == b_expected
    assert src(s, A, "derba") == a_expected
    ultima = next(e for e in s.events if e.kind == "ultima")
    assert ultima.side == B and ultima.cards == (c("4b"),)


def test_L5_E6g_three_players_each_other_side():
    s = position(["", "", "1o"], "5c", players=3, deal="last", last_capturer=A)
    (r,) = play(s, "1o")
    assert r.credits == ((A, 10, "last_card"), (B, 10, "last_card"))


def test_L5_E6g_teams_other_team_once():
    s = position(["", "", "", "12o"], "5c", players=4, teams="on", deal="last", last_capturer=0)
    assert s.current_player() == 3
    (r,) = play(s, "12o")
    assert r.credits == ((0, 10, "last_card"),)
    assert s.hand_points()[0] >= 10 and src(s, 1, "last_card") == 0


def test_L_only_the_last_card_of_the_hand_is_judged():
    s = position(["5o", "1e"], "7c", last_capturer=A, deal=0)
    _, r = play(s, "5o", "1e")  # the dealer's last card of a deal, not of the hand
    assert not r.last_card and r.credits == ()


# ---------------------------------------------------------------- A: announcements


def test_A2_holdings_rondas_and_tringlas():
    assert holding_announcements(cards("5o 5c 12o 12b")) == [("ronda", 4), ("ronda", 9)]
    assert holding_announcements(cards("3o 3c 3e 7b")) == [("tringla", 2)]
    assert holding_announcements(cards("3o 3c 3e 3b")) == [("tringla", 2)]
    assert holding_announcements(cards("1o")) == []
    assert holding_announcements(cards("6o 6c")) == [("ronda", 5)]
    assert holding_announcements(cards("1o 2o 3o 4o")) == []
    assert holding_counts(cards("5o 5c 12o 12b")) == (2, 0)
    assert holding_counts(cards("3o 3c 3e 3b")) == (0, 1)


def _first_deal_state(players, holdings, dealer=None, **opts):
    dealer = players - 1 if dealer is None else dealer
    deck = deck_for(players, dealer, [holdings])
    return HandState(RondaOptions(players=players, **opts), dealer, deck)


@pytest.mark.parametrize("conflict, expected", [("text", (1, 0)), ("highest_takes_all", (3, 0))])
def test_A4_A5_E7a_rondas_of_one_value_cancel(conflict, expected):
    s = _first_deal_state(2, ["5o 5c 12o 12b", "5e 5b 3o 7c"], announce_conflict=conflict)
    assert s.hand_points() == expected
    assert [(a.player, a.kind, a.value) for a in s.announcements] == [
        (A, "ronda", 4),
        (A, "ronda", 9),
        (B, "ronda", 4),
    ]


@pytest.mark.parametrize(
    "conflict, expected", [("text", (0, 5, 2)), ("highest_takes_all", (12, 0, 0))]
)
def test_A4_A5_E7b_tringlas_of_several_sides(conflict, expected):
    s = _first_deal_state(
        3, ["4o 4c 4e 1b", "2o 2c 2e 7b", "6o 6c 10o 10c"], announce_conflict=conflict
    )
    assert s.hand_points() == expected
    if conflict == "highest_takes_all":
        assert s.points_by_source(A)["tringla"] == 10 and s.points_by_source(A)["ronda"] == 2


@pytest.mark.parametrize(
    "conflict, expected", [("text", (0, 0, 1)), ("highest_takes_all", (0, 0, 0))]
)
def test_A4_A5_E7c_exact_tie_between_sides(conflict, expected):
    s = _first_deal_state(
        3, ["12o 12c 3o 4o", "12e 12b 6o 7o", "5o 5c 1o 2o"], announce_conflict=conflict
    )
    assert s.hand_points() == expected


@pytest.mark.parametrize("conflict, expected", [("text", (2, 1)), ("highest_takes_all", (3, 0))])
def test_A4_A5_E7d_partners_rondas_of_one_value(conflict, expected):
    # seats: A1 0, B1 1, A2 2, B2 3
    s = _first_deal_state(
        4,
        ["7o 7c 2b 3b", "2o 2c 6o 10o", "7e 7b 4o 5o", "1o 3o 11o 12o"],
        teams="on",
        announce_conflict=conflict,
    )
    assert s.hand_points() == expected


def test_A2_A4_E7e_four_of_a_value_is_one_tringla_and_partners_tringlas_all_score():
    s = _first_deal_state(2, ["3o 3c 3e 3b", "1o 2o 4o 5o"])
    assert s.hand_points() == (5, 0)
    assert [(a.kind, a.value) for a in s.announcements] == [("tringla", 2)]
    t = _first_deal_state(
        4, ["3o 3c 3e 1b", "1o 2o 4o 5o", "6o 6c 6e 7b", "10o 11o 12o 2c"], teams="on"
    )
    assert t.hand_points() == (10, 0)


def test_A4b_lowest_tringla_only_when_sides_differ():
    opts = RondaOptions(players=4, teams="on")
    made = [
        Announcement(0, 0, "tringla", 5),
        Announcement(0, 1, "tringla", 2),
        Announcement(0, 2, "tringla", 1),
        Announcement(0, 0, "ronda", 9),
    ]
    # the single lowest Tringla (value index 1) scores; Rondas are unaffected
    assert resolve_announcements(made, opts) == [(0, 5, "tringla"), (0, 1, "ronda")]


def test_A3_tringla_beats_ronda_in_highest_takes_all():
    opts = RondaOptions(players=3, announce_conflict="highest_takes_all")
    made = [
        Announcement(0, 0, "ronda", 9),
        Announcement(0, 1, "tringla", 0),
        Announcement(0, 2, "ronda", 3),
    ]
    assert resolve_announcements(made, opts) == [
        (1, 1, "ronda"),
        (1, 5, "tringla"),
        (1, 1, "ronda"),
    ]


@pytest.mark.parametrize("announce, later", [("first_deal", 0), ("every_deal", 1)])
def test_A1_first_deal_or_every_deal(announce, later):
    deals = [["1o 2o 3o 4o", "1c 2c 3c 4c"], ["5o 5c 6o 7o", "10o 11o 12o 1e"]]
    deck = deck_for(2, 1, deals)
    s = HandState(RondaOptions(announce=announce), 1, deck)
    assert s.announcements == []  # no pair at the first deal
    for _ in range(8):
        s.apply(s.legal_actions()[0])
    assert s.deal_index == 1
    assert src(s, A, "ronda") == later
    assert len([a for a in s.announcements if a.deal == 1]) == later
    obs = s.observation(B)
    assert obs["announcements"] == tuple(s.announcements)  # A1: public


def test_A1_two_card_deal_can_announce_but_one_card_deal_cannot():
    # 4 players, every_deal: the third deal gives 2 cards; a pair there is a Ronda.
    deals = [
        ["1o 2o 3o 4o", "1c 2c 3c 4c", "1e 2e 3e 4e", "1b 2b 3b 4b"],
        ["5o 6o 7o 10o", "5c 6c 7c 10c", "5e 6e 7e 10e", "5b 6b 7b 10b"],
        ["11o 11c", "11e 12o", "11b 12c", "12e 12b"],
    ]
    s = HandState(RondaOptions(players=4, announce="every_deal"), 3, deck_for(4, 3, deals))
    while s.deal_index < 2:
        s.apply(s.legal_actions()[0])
    assert [(a.player, a.kind, card_value(4 * a.value)) for a in s.announcements] == [
        (0, "ronda", 11),
        (3, "ronda", 12),
    ]
    # 3 players' last deal is a single card
    assert DEAL_SIZES[3][-1] == 1 and holding_announcements(cards("5o")) == []


def test_A_no_announcements_in_classic_mode():
    s = _first_deal_state(2, ["5o 5c 12o 12b", "5e 5b 3o 7c"], mode="classic")
    assert s.announcements == [] and s.hand_points() == (0, 0)


# ---------------------------------------------------------------- S: scoring and the match


@pytest.mark.parametrize(
    "players, teams, counts, expected",
    [
        (2, "off", (23, 17), (3, 0)),
        (3, "off", (15, 13, 12), (2, 0, 0)),
        (4, "off", (12, 10, 9, 9), (2, 0, 0, 0)),
        (4, "on", (25, 15), (5, 0)),
    ],
)
def test_S1_E8_card_points_beyond_the_share(players, teams, counts, expected):
    # The dealer's last card 5c takes the 5o; the 7b then goes to him by Ultima.
    hands = [""] * players
    hands[-1] = "5c"
    final = list(counts)
    final[RondaOptions(players=players, teams=teams).side_of(players - 1)] -= 3  # 5c 5o 7b
    s = position(
        hands,
        "5o 7b",
        players=players,
        teams=teams,
        deal="last",
        last_capturer=0,
        counts=tuple(final),
    )
    play(s, "5c")
    assert tuple(len(x) for x in s.captured) == counts
    assert tuple(src(s, side, "cards") for side in range(len(counts))) == expected


def test_S2_scores_carry_over_between_hands():
    opts = RondaOptions(target=41)
    rng = random.Random(7)
    decks = []
    for _ in range(3):
        d = list(range(40))
        rng.shuffle(d)
        decks.append(d)
    m = MatchState(opts, 0, decks)
    first = m.hand
    while m.hand is first:
        m.apply(m.legal_actions()[0])
    assert not m.is_terminal() and max(first.scores()) < 41  # one hand never reaches 41
    assert m.hand.start_scores == first.scores()
    assert m.scores() == tuple(
        a + b for a, b in zip(first.scores(), m.hand.hand_points(), strict=True)
    )


def test_S3_order_of_credits_in_the_log():
    # E3 variant: X5a close, then the capture, then Missa.
    s = position(["7o 5c", "7c 7e 2b"], "5o 10c", last_capturer=A)
    _, _, _, r = play(s, "7c", "7o", "7e", "5c")
    assert [e.kind for e in r.events] == ["close", "capture", "points"]
    # A lays 12c; B's last card 12e: Derba, dealer's last card; after the play X5c,
    # Ultima (7o to B), S1.
    s = position(["12c", "12e"], "7o", deal="last", last_capturer=A, counts=(11, 26))
    play(s, "12c")
    n = len(s.events)
    play(s, "12e")
    kinds = [(e.kind, e.source or e.rule) for e in s.events[n:]]
    assert kinds == [
        ("derba", ""),
        ("points", "derba"),
        ("points", "last_card"),
        ("close", "X5c"),
        ("ultima", ""),
        ("points", "cards"),
    ]


def _last_play_match(start, counts_before, **opts):
    """2 players, last round, B (dealer) takes 3o with 3c and gets 6o by Ultima."""
    s = position(
        ["", "3c"],
        "3o 6o",
        deal="last",
        last_capturer=A,
        counts=counts_before,
        start_scores=start,
        **opts,
    )
    return MatchState(s.options, s.dealer, lambda i: list(range(40)), hand=s)


def test_S4_E8_end_of_hand_tie_plays_another_hand():
    # A 11 (reached during the hand), B 9; B captures 22 cards: S1 makes 11-11.
    m = _last_play_match((11, 9), (18, 19), target=11)
    m.apply(c("3c"))
    assert m.hand_index == 1 and not m.is_terminal()
    assert m.finished_hands[0].scores() == (11, 11)
    assert m.hand.start_scores == (11, 11) and m.hand.dealer == 0  # D3


def test_S4_highest_total_wins_when_the_target_is_reached():
    m = _last_play_match((11, 9), (17, 20), target=11)
    m.apply(c("3c"))  # B 23 cards: +3 -> 12 against 11
    assert m.is_terminal() and m.winner == B and m.returns() == (0.0, 1.0)
    assert m.current_player() == TERMINAL and m.legal_actions() == []


def test_S4_end_of_hand_ignores_the_target_during_the_hand():
    s = position(["3o", "3e 6b"], "2o 5c", last_capturer=A, start_scores=(20, 0))
    m = MatchState(s.options, s.dealer, lambda i: list(range(40)), hand=s)
    m.apply(c("3e"))
    m.apply(c("3o"))  # Derba: A 21 during the hand
    assert m.scores()[A] == 21 and not m.is_terminal()


def test_S5_E8_immediate_tie_at_the_top_goes_on():
    # Three players on A 1, B 1, C 5: C's last card is a laid As: A 11, B 11, tied;
    # S1 (A 15 cards, B 13, C 12) makes A 13: A wins.
    s = position(
        ["", "", "1c"],
        "5o",
        players=3,
        deal="last",
        last_capturer=A,
        counts=(13, 13, 12),
        start_scores=(1, 1, 5),
        target=11,
        target_check="immediate",
    )
    m = MatchState(s.options, s.dealer, lambda i: list(range(40)), hand=s)
    m.apply(c("1c"))
    assert m.check_points == [("play", (11, 11, 5)), ("end", (13, 11, 5))]
    assert m.is_terminal() and m.winner == A and m.returns() == (1.0, 0.0, 0.0)


def test_S5_immediate_derba_reaching_the_target_ends_the_match_under_tiers():
    s = position(
        ["3o 4b", "3e 3c 6b"],
        "2o 5c",
        last_capturer=A,
        start_scores=(20, 0),
        target=21,
        target_check="immediate",
        derba_chain="tiers",
    )
    m = MatchState(s.options, s.dealer, lambda i: list(range(40)), hand=s)
    m.apply(c("3e"))
    m.apply(c("3o"))
    assert m.is_terminal() and m.winner == A and m.scores() == (21, 0)
    assert not m.hand.is_terminal()  # the hand is cut short
    with pytest.raises(UsageError):
        m.apply(c("3c"))
    # end_of_hand: the re-hit comes and cancels the Derba point (X7)
    s2 = position(
        ["3o 4b", "3e 3c 6b"],
        "2o 5c",
        last_capturer=A,
        start_scores=(20, 0),
        target=21,
        derba_chain="tiers",
    )
    m2 = MatchState(s2.options, s2.dealer, lambda i: list(range(40)), hand=s2)
    for name in ("3e", "3o", "3c"):
        m2.apply(c(name))
    assert not m2.is_terminal() and m2.scores() == (20, 5)


def test_S5_immediate_check_after_the_announcements():
    deck = deck_for(2, 1, [["5o 5c 1o 2o", "3o 4o 6o 7o"]])
    opts = RondaOptions(target=21, target_check="immediate")
    m = MatchState(opts, 1, [deck], start_scores=(20, 0))
    assert m.is_terminal() and m.winner == A and m.check_points == [("deal", (21, 0))]
    m2 = MatchState(RondaOptions(target=21), 1, [deck], start_scores=(20, 0))
    assert not m2.is_terminal()  # end_of_hand: no check before the end of the hand


def test_S4_S5_target_winner_rule():
    assert target_winner((10, 20), 21) is None
    assert target_winner((21, 20), 21) == 0
    assert target_winner((22, 22, 3), 21) is None
    assert target_winner((25, 22, 30), 21) == 2


def test_S4_matches_to_the_target_end():
    for target in (11, 21):
        for check in ("end_of_hand", "immediate"):
            opts = RondaOptions(target=target, target_check=check)
            rng = random.Random(target)

            def deck(_, rng=rng):
                d = list(range(40))
                rng.shuffle(d)
                return d

            m = MatchState(opts, 0, deck)
            while not m.is_terminal():
                m.apply(m.legal_actions()[0])
            top = max(m.scores())
            assert top >= target and m.scores().count(top) == 1
            assert m.scores()[m.winner] == top


# ---------------------------------------------------------------- C: classic mode


def test_C1_classic_plays_alike_and_scores_nothing():
    rng = random.Random(11)
    for _ in range(20):
        deck = list(range(40))
        rng.shuffle(deck)
        seed = rng.random()
        runs = []
        for mode in ("points", "classic"):
            s = play_hand(
                RondaOptions(mode=mode),
                0,
                deck,
                ["random", "random"],
                [random.Random(seed), random.Random(seed + 1)],
            )
            runs.append(s)
        p, k = runs
        assert [(r.card, r.action, r.taken, r.hit, r.missa) for r in p.records] == [
            (r.card, r.action, r.taken, r.hit, r.missa) for r in k.records
        ]
        assert k.hand_points() == (0, 0) and k.announcements == []
        assert [sorted(x) for x in p.captured] == [sorted(x) for x in k.captured]


def test_C2_hand_winner_strictly_most_cards():
    s = position(["", "5c"], "5o 7b", deal="last", last_capturer=A, counts=(19, 18), mode="classic")
    play(s, "5c")  # B: 18 + 5c 5o + Ultima 7b = 21
    assert [len(x) for x in s.captured] == [19, 21]
    assert s.hand_winner() == B and s.returns() == (0, 1)
    t = position(["", "5c"], "5o 7b", deal="last", last_capturer=A, counts=(20, 17), mode="classic")
    play(t, "5c")
    assert [len(x) for x in t.captured] == [20, 20]
    assert t.hand_winner() is None and t.returns() == (0, 0)


def test_C3_classic_match_first_to_hands_to_win():
    opts = RondaOptions(players=3, mode="classic", hands_to_win=2, target=11)
    rng = random.Random(5)

    def deck(_):
        d = list(range(40))
        rng.shuffle(d)
        return d

    m = MatchState(opts, 0, deck)
    while not m.is_terminal():
        m.apply(m.legal_actions()[-1])
    winners = [h.hand_winner() for h in m.finished_hands]
    assert m.hands_won[m.winner] == 2 and max(m.hands_won) == 2
    assert sum(m.hands_won) == len([w for w in winners if w is not None])
    assert winners[-1] == m.winner and all(h.hand_points() == (0, 0, 0) for h in m.finished_hands)


def test_C3_classic_one_hand_by_default():
    opts = RondaOptions(mode="classic")
    rng = random.Random(9)
    m = MatchState(opts, 0, lambda _: rng.sample(range(40), 40))
    while not m.is_terminal():
        m.apply(m.legal_actions()[0])
    assert m.finished_hands[-1].hand_winner() == m.winner
    assert all(h.hand_winner() is None for h in m.finished_hands[:-1])


# ---------------------------------------------------------------- I: information


def test_I1_observation_holds_the_public_state():
    deck = deck_for(3, 2, [["6o 1c 2c 3c", "1e 2e 4e 5e", "7o 7c 10o 11o"]], face_up="6c")
    s = HandState(RondaOptions(players=3), 2, deck)
    play(s, "1c")
    obs = s.observation(B)
    assert obs["seat"] == B and obs["dealer"] == 2 and obs["turn"] == B
    assert obs["hand"] == tuple(sorted(cards("1e 2e 4e 5e")))
    assert obs["hand_sizes"] == (3, 4, 4) and obs["stock_size"] == 27
    assert obs["face_up"] == c("6c") and obs["table"] == tuple(sorted(cards("6c 1c")))
    assert obs["plays"] == ((A, c("1c"), 0),) and obs["previous_laid"] == c("1c")
    assert obs["announcements"] == tuple(s.announcements)
    assert len(unseen_cards(obs)) == 3 + 4 + 27


def test_I2_I3_observation_hides_other_hands_and_stock_order():
    rng = random.Random(21)
    for trial in range(30):
        deck = list(range(40))
        rng.shuffle(deck)
        n = 3 if trial % 2 else 2
        s = HandState(RondaOptions(players=n), 0, deck)
        # play into the second deal (announce=first_deal: no constraint any more)
        while s.deal_index < 1:
            s.apply(s.legal_actions()[0])
        for _ in range(rng.randrange(n - 1)):  # not the dealer: the next hand is not empty
            s.apply(s.legal_actions()[0])
        me = s.current_player()
        other = (me + 1) % n
        t = s.clone()
        # swap a card of another hand with a stock card, then shuffle the stock
        i = rng.randrange(len(t.hands[other]))
        j = rng.randrange(len(t.stock))
        t.hands[other][i], t.stock[j] = t.stock[j], t.hands[other][i]
        rng.shuffle(t.stock)
        if n == 3 and t.hands[(me + 2) % n]:
            third = (me + 2) % n
            t.hands[other][0], t.hands[third][0] = t.hands[third][0], t.hands[other][0]
        assert t.hands[other] != s.hands[other]
        assert s.observation(me) == t.observation(me)
        assert greedy_policy(s.observation(me)) == greedy_policy(t.observation(me))


# ---------------------------------------------------------------- Q: policies


def test_Q1_value_of_a_stretch():
    s = position(["6e", "4c"], "4o 6c 7b 10e 12o", last_capturer=B)
    before = s.clone()
    play(s, "6e")
    assert stretch_value(before, s, A) == 4 and stretch_value(before, s, B) == 0
    s = position(["3o", "3e 6b"], "2o 5c", last_capturer=A)
    play(s, "3e")
    before = s.clone()
    play(s, "3o")
    assert stretch_value(before, s, A) == 102  # Derba +1, pile of 2 counted for A
    assert stretch_value(before, s, B) == -100


def test_Q1_value_tiers_rehit_and_announcements_left_out():
    s = position(
        ["7o 7b", "7c 7e 2b"],
        "5o 10c",
        last_capturer=A,
        derba_chain="tiers",
        points=[{"ronda": 1}, {}],
    )
    play(s, "7c", "7o")
    before = s.clone()
    play(s, "7e")
    assert stretch_value(before, s, B) == 100 * (5 - (-1)) + 4
    assert stretch_value(before, s, A) == 100 * (-1 - 5) - 3


def test_Q1_derba_risk_hypergeometric():
    s = position(["5o 2o", "6c 7c"], "3b", last_capturer=B, deal=1)
    obs = s.observation(A)
    by_card = {card: (v, r) for card, v, r in greedy_scores(obs)}
    v5, r5 = by_card[c("5o")]
    v2, _ = by_card[c("2o")]
    unseen = unseen_cards(obs)
    U = len(unseen)
    u = sum(1 for x in unseen if x // 4 == c("5o") // 4)
    h = 2
    assert r5 == pytest.approx(1 - math.comb(U - u, h) / math.comb(U, h))
    assert v5 == 0 and v2 == 0


def test_Q1_derba_risk_zero_cases():
    # capture without Derba, last play of the hand, chain closed by X5b
    s = position(["4e", "2b"], "4c 5o", last_capturer=B)
    assert greedy_scores(s.observation(A))[0][2] == 0.0
    s = position(["", "11e"], "5o", deal="last", last_capturer=A)
    assert greedy_scores(s.observation(B))[0][2] == 0.0
    s = position(["7o 7b", "7c 7e 2b"], "5o 10c", last_capturer=A)
    play(s, "7c", "7o", "7e")
    risks = {card: r for card, _, r in greedy_scores(s.observation(A))}
    assert risks[c("7b")] == 0.0


def test_Q1_derba_risk_uses_the_next_players_hand_size_at_his_next_play():
    # B (dealer) lays the last card of deal 0: A's next play comes after the next deal (4).
    s = position(["", "5e"], "3b", deal=0, last_capturer=A)
    obs = s.observation(B)
    ((_, _, risk),) = greedy_scores(obs)
    unseen = unseen_cards(obs)
    u = sum(1 for x in unseen if x // 4 == c("5e") // 4)
    assert risk == pytest.approx(1 - math.comb(len(unseen) - u, 4) / math.comb(len(unseen), 4))


def test_Q1_derba_risk_one_when_announcements_prove_it():
    ann = (Announcement(0, B, "ronda", c("5o") // 4),)
    s = position(["5o 2o", "6c 7c"], "3b", last_capturer=B, deal=0, announcements=ann)
    risks = {card: r for card, _, r in greedy_scores(s.observation(A))}
    assert risks[c("5o")] == 1.0
    # once B has played both of his 5s (recorded in the plays) the proof is gone
    plays = ((B, c("5c"), 0), (B, c("5e"), 0))
    s = position(["5o 2o", "6c 7c"], "3b", last_capturer=B, deal=0, announcements=ann, plays=plays)
    risks = {card: r for card, _, r in greedy_scores(s.observation(A))}
    assert risks[c("5o")] < 1.0


def test_Q2_random_maps_one_uniform_to_a_card():
    s = position(["5o 2o 7b 12c", "6c 7c 1e 3e"], "3b", last_capturer=B)
    obs = s.observation(A)
    hand = obs["hand"]
    assert random_policy(obs, 0.0) == hand[0]
    assert random_policy(obs, 0.49) == hand[1] and random_policy(obs, 0.5) == hand[2]
    assert random_policy(obs, 0.999999) == hand[3]
    counts = {x: 0 for x in hand}
    rng = random.Random(1)
    for _ in range(4000):
        counts[random_policy(obs, rng)] += 1
    assert all(800 < k < 1200 for k in counts.values())


def test_Q3_greedy_highest_value_first():
    s = position(["6e 4e", "4c 2b"], "4o 6c 7b 10e 12o", last_capturer=B)
    assert greedy_policy(s.observation(A)) == c("6e")  # 4 cards beat 2 (4e 4o)


def test_Q3_greedy_prefers_a_derba():
    s = position(["11c 2o 5o", "11o 5e 6e"], "", last_capturer=B)
    play(s, "2o", "11o")
    assert greedy_policy(s.observation(A)) == c("11c")


def test_Q3_greedy_ties_go_to_lower_derba_risk_then_card_order():
    # Both lays score V = 0. The other 6s are seen (captured by A), not the 5s.
    s = position(["5o 6o", "1c 2c"], "3b", last_capturer=B, captured=["6c 6e 6b", ""])
    obs = s.observation(A)
    scores = {card: (v, r) for card, v, r in greedy_scores(obs)}
    assert scores[c("6o")] == (0, 0.0) and scores[c("5o")][0] == 0 and scores[c("5o")][1] > 0
    assert greedy_policy(obs) == c("6o")
    # equal values and risks: card order
    s = position(["6o 5o", "1c 2c"], "3b", last_capturer=B)
    obs = s.observation(A)
    (_, v1, r1), (_, v2, r2) = greedy_scores(obs)
    assert (v1, r1) == (v2, r2) and greedy_policy(obs) == c("5o")


def _lookahead_position():
    # Last deal, two cards each: the unseen cards are exactly B's hand.
    return position(["4o 7o", "3c 11e"], "3o 7c", deal="last", last_capturer=B)


def test_Q4_lookahead_sees_the_reply_greedy_does_not():
    s = _lookahead_position()
    obs = s.observation(A)
    assert greedy_policy(obs) == c("7o")  # captures 2 cards, leaves B a Missa
    assert lookahead_policy(obs, random.Random(1), depth=1, samples=4) == c("4o")


def test_Q5_rollout_plays_greedy_to_the_end():
    s = _lookahead_position()
    obs = s.observation(A)
    assert rollout_policy(obs, random.Random(1), k=2) == c("4o")


def test_Q1_consistent_samples_match_the_announcements():
    deck = deck_for(2, 1, [["5o 5c 1o 2o", "3o 3c 3e 7o"]])
    s = HandState(RondaOptions(), 1, deck)
    obs = s.observation(A)
    rng = random.Random(4)
    for _ in range(20):
        hidden, stock = consistent_sample(obs, rng)
        assert holding_announcements(hidden[B]) == [("tringla", 2)]
        assert len(stock) == 32 and len(set(stock) | set(hidden[B])) == 36
    # B plays 3o: his holding as dealt still has his Tringla
    play(s, "1o", "3o")
    obs = s.observation(A)
    for _ in range(10):
        hidden, _ = consistent_sample(obs, rng)
        assert holding_announcements(hidden[B] + [c("3o")]) == [("tringla", 2)]


def test_Q1_consistent_samples_are_uniform_like_plain_rejection():
    # 3 players, first deal: B announced a Ronda of 5, C announced nothing. The
    # two-stage sampler must give the same law as shuffling everything and
    # rejecting inconsistent deals; compare how often C holds a 5 and B a Rey.
    deck = deck_for(3, 2, [["1o 2o 3o 4o", "5o 5c 6o 7o", "10o 11o 12o 1c"]])
    s = HandState(RondaOptions(players=3), 2, deck)
    obs = s.observation(A)
    unseen = unseen_cards(obs)
    rng = random.Random(12)

    def stats(hidden):
        return (any(x // 4 == 4 for x in hidden[C]), any(x // 4 == 9 for x in hidden[B]))

    fast = [stats(consistent_sample(obs, rng)[0]) for _ in range(1000)]
    slow = []
    while len(slow) < 1000:
        d = rng.sample(unseen, len(unseen))
        hidden = {B: d[:4], C: d[4:8]}
        if holding_announcements(hidden[B]) == [("ronda", 4)] and not holding_announcements(
            hidden[C]
        ):
            slow.append(stats(hidden))
    for k in range(2):
        f = sum(x[k] for x in fast) / 1000
        g = sum(x[k] for x in slow) / 1000
        assert abs(f - g) < 0.05, (k, f, g)


def test_Q6_each_player_has_his_own_policy():
    rng = random.Random(8)
    deck = rng.sample(range(40), 40)
    specs = ["greedy", "random", "lookahead:1", "rollout:1"]
    rngs = [random.Random(k) for k in range(4)]
    s = play_hand(RondaOptions(players=4, teams="on"), 1, deck, specs, rngs)
    assert s.is_terminal() and sorted(x for side in s.captured for x in side) == list(range(40))
    # deterministic given the streams
    t = play_hand(
        RondaOptions(players=4, teams="on"), 1, deck, specs, [random.Random(k) for k in range(4)]
    )
    assert [r.card for r in s.records] == [r.card for r in t.records]
    # greedy seats play exactly what greedy_policy gives from their observation
    u = HandState(RondaOptions(players=4, teams="on"), 1, deck)
    for r in s.records:
        if r.player == 0:
            assert r.card == greedy_policy(u.observation(0))
        u.apply(r.card)


def test_D3_first_dealer_is_drawn_by_the_caller():
    rng = random.Random(2)
    seen = {draw_first_dealer(rng, 3) for _ in range(200)}
    assert seen == {0, 1, 2}
    with pytest.raises(UsageError):
        draw_first_dealer(rng, 5)


def test_U1_accessors_hands_table_and_ultima():
    s = position(["5o", "7o"], "2b 5e", deal="last", last_capturer=B)
    assert s.hand(A) == (c("5o"),) and s.table_cards() == cards("2b 5e") and s.ultima() is None
    play(s, "5o", "7o")
    assert s.ultima() == (A, tuple(sorted(cards("2b 7o"))))
    assert set(cards("5o 5e 2b 7o")) <= set(s.captured_cards(A))


def test_Q6_parse_policy_specs():
    assert parse_policy("greedy") == ("greedy", None)
    assert parse_policy("lookahead") == ("lookahead", 1)
    assert parse_policy("lookahead:3") == ("lookahead", 3)
    assert parse_policy("rollout") == ("rollout", 32)
    for bad in ("rollout:0", "smart", "greedy:2", "lookahead:x"):
        with pytest.raises(UsageError):
            parse_policy(bad)


# ---------------------------------------------------------------- counters


def test_counters_rondas_and_tringlas_per_dealt_hand():
    deals = [["5o 5c 12o 12b", "3o 3c 3e 3b"], ["1o 1c 2o 2c", "6o 6c 6e 7o"]]
    deck = deck_for(2, 1, deals)
    s = HandState(RondaOptions(mode="classic"), 1, deck)
    for _ in range(8):
        s.apply(s.legal_actions()[0])
    assert s.holding_counters() == [(0, A, 2, 0), (0, B, 0, 1), (1, A, 2, 0), (1, B, 0, 1)]


# ---------------------------------------------------------------- invariants


CONFIGS = [(2, "off"), (3, "off"), (4, "off"), (4, "on")]
VARIANTS = [
    {},
    {"derba_chain": "tiers", "announce_conflict": "highest_takes_all", "announce": "every_deal"},
    {"mode": "classic"},
    {"derba_chain": "tiers", "announce": "every_deal"},
]


def _check_hand(s: HandState) -> None:
    opts = s.options
    everything = [x for side in s.captured for x in side]
    assert sorted(everything) == list(range(40))  # every card in exactly one pile
    for side in range(opts.n_sides):
        pts = s.points_by_source(side)
        assert set(pts) == set(SOURCES)
        assert sum(pts.values()) == s.hand_points()[side]
        if opts.scoring:
            assert pts["cards"] == max(0, len(s.captured[side]) - opts.share)
            assert pts["derba"] >= 0 and pts["last_card"] % 10 == 0
            missas = sum(1 for r in s.records if r.missa and opts.side_of(r.player) == side)
            assert pts["missa"] == missas
            if opts.derba_chain == "flat":
                hits = sum(1 for r in s.records if r.hit and opts.side_of(r.player) == side)
                assert pts["derba"] == hits
        else:
            assert sum(pts.values()) == 0
    assert any(r.action != "lay" for r in s.records)  # P4: at least one capture
    assert s.records[-1].player == s.dealer and s.records[-1].last_card


@pytest.mark.parametrize("players, teams", CONFIGS)
def test_invariants_over_many_random_and_greedy_hands(players, teams):
    """2,000 full hands per seating (1,800 random, 200 greedy), cycling over VARIANTS."""
    rng = random.Random(players * 10 + (teams == "on"))
    n_random, n_greedy = 1800, 200
    for i in range(n_random + n_greedy):
        opts = RondaOptions(players=players, teams=teams, **VARIANTS[i % len(VARIANTS)])
        deck = list(range(40))
        rng.shuffle(deck)
        s = HandState(opts, rng.randrange(players), deck)
        greedy = i >= n_random
        while not s.is_terminal():
            p = s.current_player()
            obs = s.observation(p)
            card = greedy_policy(obs) if greedy else random_policy(obs, rng.random())
            r = s.apply(card)
            if r.action == "lay":
                assert all(x // 4 != card // 4 for x in obs["table"])  # P4
            held = sum(map(len, s.hands)) + len(s.stock) + len(s.table) + len(s.pile)
            assert held + sum(map(len, s.captured)) == 40
            if opts.derba_chain == "tiers":  # X7: never below the value before the chain
                assert all(pts["derba"] >= 0 for pts in s.points)
        _check_hand(s)


def test_P4_impossible_positions_are_refused():
    with pytest.raises(UsageError, match="P4"):
        position(["5o", "2b"], "4o 4c")
    with pytest.raises(UsageError, match="X3"):
        position(["5o", "2b"], "4o", pile="7c 7o", pile_hitter=A)
    with pytest.raises(UsageError, match="round of play"):
        position(["5o", "2b 3b 4b"], "4o")
    with pytest.raises(UsageError, match="X1"):
        position(["5o", "2b"], "4o", last_laid="7c")
