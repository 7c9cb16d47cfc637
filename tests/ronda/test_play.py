"""``simcards ronda play``: a person against reference policies, scripted here.

The game is checked against the reference engine played directly: the same seed gives
the same deal (D3, D5) and the same bot streams (I3), so a scripted person's hand must
end exactly as the reference engine ends it with the same decisions.
"""

from __future__ import annotations

import io
import itertools
import random
import re
from collections.abc import Iterable

import pytest
from rich.console import Console
from rich.text import Text

from simcards.core.errors import UsageError
from simcards.ronda import reference as ref
from simcards.ronda.rules import RondaRules
from simcards.ronda.terminal import (
    SeatNames,
    bot_rng,
    describe_play,
    options_of,
    read_choice,
    run_play,
)


def quiet() -> tuple[Console, io.StringIO]:
    buf = io.StringIO()
    return Console(file=buf, width=120, color_system=None), buf


def script(answers: Iterable[str], then: str | None = "1"):
    """An ``ask`` that returns ``answers`` in turn, then ``then`` forever; counts calls."""
    it = itertools.chain(answers, itertools.repeat(then) if then is not None else ())
    calls: list[str] = []
    prompts: list[str] = []

    def ask(prompt: str) -> str:
        prompts.append(prompt)
        try:
            answer = next(it)
        except StopIteration:
            raise EOFError from None
        calls.append(answer)
        return answer

    ask.calls = calls  # type: ignore[attr-defined]
    ask.prompts = prompts  # type: ignore[attr-defined]
    return ask


def replay_hand(rules: RondaRules, policies, seat: int, seed: int, dealer=None):
    """The same hand on the reference engine directly: deck and dealer from
    ``random.Random(seed)``, each bot on its own stream, the person always taking the
    first card of his hand in card order (answer ``1``)."""
    options = options_of(rules)
    rng = random.Random(seed)
    first = ref.draw_first_dealer(rng, options.players) if dealer is None else dealer
    state = ref.HandState(options, first, rng.sample(range(40), 40))
    rngs = {p: bot_rng(seed, p) for p in range(options.players) if p != seat}
    plays = []
    while not state.is_terminal():
        p = state.current_player()
        obs = state.observation(p)
        card = obs["hand"][0] if p == seat else ref.choose(policies[p], obs, rngs[p])
        state.apply(card)
        plays.append((p, ref.card_name(card)))
    return state, plays


def expected_summary(state: ref.HandState) -> dict:
    sides = range(state.n_sides)
    if state.options.scoring:
        pts = state.hand_points()
        winner = pts.index(max(pts)) if pts.count(max(pts)) == 1 else None
    else:
        winner = state.hand_winner()
    return {
        "scores": state.scores(),
        "points_by_source": [state.points_by_source(s) for s in sides],
        "captured": [[ref.card_name(c) for c in state.captured_cards(s)] for s in sides],
        "winner": winner,
    }


@pytest.mark.parametrize(
    ("rules", "policies", "seat", "seed"),
    [
        (RondaRules.make(), ["human", "greedy"], 0, 11),
        (RondaRules.make(), ["lookahead:1", "human"], 1, 12),
        (RondaRules.make(derba_chain="tiers", announce="every_deal"), ["human", "lookahead:1"],
         0, 13),
        (RondaRules.make(players=4, teams="on"), ["greedy", "random", "human", "greedy"], 2, 14),
        (RondaRules.make(players=3, mode="classic"), ["greedy", "human", "random"], 1, 15),
    ],
)
def test_scripted_person_plays_the_hand_the_reference_engine_plays(rules, policies, seat,
                                                                   seed):
    """D3/D5/I3/Q6: a person who always answers ``1`` against greedy or lookahead:1 ends
    the hand exactly as the reference engine does with the same deal and decisions:
    same plays, scores, points by source, captured cards and winner."""
    console, buf = quiet()
    got = run_play(rules, policies, seat=seat, seed=seed, console=console, ask=script([]))
    state, plays = replay_hand(rules, policies, seat, seed)
    assert got["plays"] == plays
    assert got["finished"] and not got["quit"]
    for key, value in expected_summary(state).items():
        assert got[key] == value, key
    assert sorted(c for side in got["captured"] for c in side) == sorted(
        ref.card_name(c) for c in range(40))
    text = buf.getvalue()
    assert "End of the hand" in text and "Winner of the hand" in text


def test_dealer_given_or_drawn_from_the_seed():
    """D3: the first dealer is the caller's when given, else drawn from the seed's stream."""
    console, _ = quiet()
    got = run_play(RondaRules.make(), ["human", "greedy"], seed=5, dealer=0, console=console,
                   ask=script([]))
    _, plays = replay_hand(RondaRules.make(), ["human", "greedy"], 0, 5, dealer=0)
    assert got["dealer"] == 0 and got["plays"] == plays
    drawn = run_play(RondaRules.make(), ["human", "greedy"], seed=5, console=console,
                     ask=script([]))
    assert drawn["dealer"] == ref.draw_first_dealer(random.Random(5), 2)


def test_bad_input_is_refused_in_one_line_and_asked_again():
    """P1: only a card of the hand can be played; each bad answer gets one line saying
    why and the question again; the hand then goes on as if answered well at once."""
    console, buf = quiet()
    ask = script(["", "hello", "0", "9", "2x", "1"])
    got = run_play(RondaRules.make(), ["human", "greedy"], seed=21, console=console, ask=ask)
    assert ask.calls[:6] == ["", "hello", "0", "9", "2x", "1"]
    text = buf.getvalue()
    assert all(p.startswith("Your card (1-4 ") for p in ask.prompts[:6])
    assert "type a card: its number 1-4" in text
    assert "cannot read 'hello'" in text and "cannot read '2x'" in text
    assert "there is no card number 0 in your hand: choose 1-4" in text
    assert "there is no card number 9 in your hand: choose 1-4" in text
    refusals = [line for line in text.splitlines() if line.startswith("cannot read")]
    assert len(refusals) == 2 and all(line.endswith("7o, 10c, 12e)") for line in refusals)
    plain = run_play(RondaRules.make(), ["human", "greedy"], seed=21, console=quiet()[0],
                     ask=script([]))
    assert got["plays"] == plain["plays"] and got["scores"] == plain["scores"]


def test_read_choice_by_number_or_by_name():
    hand = tuple(ref.parse_cards("1o 7o 10c 12e"))
    assert read_choice("2", hand) == ref.parse_card("7o")
    assert read_choice(" 4 ", hand) == ref.parse_card("12e")
    assert read_choice("10c", hand) == ref.parse_card("10c")
    assert read_choice("10C", hand) == ref.parse_card("10c")
    assert read_choice("7 oros", hand) == ref.parse_card("7o")
    assert read_choice("12 de espadas", hand) == ref.parse_card("12e")
    assert read_choice("Rey de Espadas", hand) == ref.parse_card("12e")
    assert read_choice("as oros", hand) == ref.parse_card("1o")
    assert read_choice("sota c", hand) == ref.parse_card("10c")
    assert read_choice("q", hand) is None and read_choice("QUIT", hand) is None
    with pytest.raises(UsageError, match="7c is not in your hand"):
        read_choice("7c", hand)
    with pytest.raises(UsageError, match="no card number 5 in your hand: choose 1-4, or name"):
        read_choice("5", hand)
    with pytest.raises(UsageError, match=r"no card number 9 in your hand: choose 1-4$"):
        read_choice("9", hand)
    with pytest.raises(UsageError, match="cannot read '8o'"):
        read_choice("8o", hand)


def test_a_card_named_by_its_name_is_played():
    """The person may name the card: answering each time with the name of the last
    card of his hand plays it (the board lists the hand; the script reads it)."""
    console, buf = quiet()
    answers: list[str] = []

    def ask(prompt: str) -> str:
        # The last hand row printed: "# card name", e.g. " 3 │ 12e  │ Rey de espadas".
        rows = [line for line in buf.getvalue().splitlines() if "│" in line]
        last = rows[-1].split("│")[1].strip()
        answers.append(last)
        return last

    got = run_play(RondaRules.make(), ["human", "greedy"], seat=0, seed=31, console=console,
                   ask=ask)
    mine = [card for p, card in got["plays"] if p == 0]
    assert mine == answers and len(mine) == 20


def test_q_stops_cleanly():
    """``q`` (or the end of the input) leaves the table: the summary says the hand was
    not finished and holds the plays made so far."""
    console, buf = quiet()
    got = run_play(RondaRules.make(), ["human", "greedy"], seat=0, seed=41, console=console,
                   ask=script(["1", "1", "q"]))
    assert got["quit"] and not got["finished"]
    assert sum(1 for p, _ in got["plays"] if p == 0) == 2
    assert got["winner"] is None
    assert "You leave the table." in buf.getvalue()
    eof = run_play(RondaRules.make(), ["human", "greedy"], seat=0, seed=41, console=console,
                   ask=script(["1"], then=None))
    assert eof["quit"] and sum(1 for p, _ in eof["plays"] if p == 0) == 1


def test_a_match_is_played_to_its_end():
    """S4: with ``match`` the hands follow one another (D3: the deal passes on) until a
    side wins; the winner and totals are the reference MatchState's."""
    rules = RondaRules.make(target=11)
    console, buf = quiet()
    got = run_play(rules, ["human", "greedy"], seed=51, match=True, console=console,
                   ask=script([]))
    options = options_of(rules)
    rng = random.Random(51)
    first = ref.draw_first_dealer(rng, 2)
    decks: list[list[int]] = []

    def deck(i):
        while len(decks) <= i:
            decks.append(rng.sample(range(40), 40))
        return decks[i]

    m = ref.MatchState(options, first, deck)
    bot = bot_rng(51, 1)
    while not m.is_terminal():
        p = m.current_player()
        obs = m.observation(p)
        m.apply(obs["hand"][0] if p == 0 else ref.choose("greedy", obs, bot))
    assert got["finished"] and got["winner"] == m.winner is not None
    assert got["scores"] == m.scores()
    for side in (0, 1):  # S2: the match totals are every hand's points added up
        assert sum(got["match_points_by_source"][side].values()) == m.scores()[side]
    assert len(got["hands"]) == len(m.finished_hands) >= 1
    assert "wins the match" in buf.getvalue()


def test_play_lines_say_what_each_play_did():
    """P2/X1/X4/X5a/M1: the one-line account of a play names the capture, the Derba, the
    re-hit, the pile closed, the Missa and the points, for the person and for a bot."""
    options = ref.RondaOptions()
    names = SeatNames(options, ["human", "greedy"], 0)
    hands = [ref.parse_cards("12o 7o 5c"), ref.parse_cards("7c 7e 2o")]
    table = ref.parse_cards("5o 10c 12c")
    rest = [x for x in range(40) if x not in {*hands[0], *hands[1], *table}]
    s = ref.HandState.from_position(options, 1, hands, table=table, stock=rest[:24],
                                    captured=[rest[24:], []], last_capturer=0)
    lines = [describe_play(s.apply(ref.parse_card(name)), names)
             for name in ("12o", "7c", "7o", "7e", "5c")]
    plain = [Text.from_markup(line).plain for line in lines]
    assert plain[0] == "You play 12o and take 12c"
    assert plain[1] == "Seat 1 (greedy) lays 7c on the table"
    assert plain[2] == ("You play 7o: Derba, taking 7c 10c into a pile in play "
                        "(seat 0 (you) +1 Derba)")
    assert plain[3] == ("Seat 1 (greedy) plays 7e: re-hit (hit 2 of the chain), the pile in "
                        "play moves to seat 1 (seat 1 +1 Derba)")
    assert plain[4] == ("The pile in play (7c 10c 7o 7e) goes to seat 1; You play 5c and take "
                        "5o; Missa: the table is empty (seat 0 (you) +1 Missa)")


def test_the_dealers_last_card_is_told():
    """L1/L3: the last play of the hand says what the dealer's card did."""
    options = ref.RondaOptions()
    names = SeatNames(options, ["greedy", "human"], 1)
    hands = [ref.parse_cards("3o"), ref.parse_cards("12e")]
    table = ref.parse_cards("12c")
    rest = [x for x in range(40) if x not in {*hands[0], *hands[1], *table}]
    s = ref.HandState.from_position(options, 1, hands, table=table,
                                    captured=[rest[:18], rest[18:]], last_capturer=0)
    s.apply(ref.parse_card("3o"))
    line = Text.from_markup(describe_play(s.apply(ref.parse_card("12e")), names)).plain
    assert line == ("You play 12e and take 12c; the dealer's last card is a Rey that captures "
                    "(seat 1 (you) +10 last card)")


def test_bad_arguments_are_refused():
    rules = RondaRules.make()
    console, _ = quiet()
    with pytest.raises(UsageError, match="one entry per player"):
        run_play(rules, ["greedy"], console=console, ask=script([]))
    with pytest.raises(UsageError, match="unknown policy"):
        run_play(rules, ["human", "smart"], console=console, ask=script([]))
    with pytest.raises(UsageError, match="seat=2"):
        run_play(rules, ["human", "greedy"], seat=2, console=console, ask=script([]))
    with pytest.raises(UsageError, match="only seat 0"):
        run_play(rules, ["human", "human"], console=console, ask=script([]))
    with pytest.raises(UsageError, match="dealer=3"):
        run_play(rules, ["human", "greedy"], dealer=3, console=console, ask=script([]))


# ---------------------------------------------------------------- the board


def test_one_card_left_is_asked_for_as_1_not_1_to_1():
    """With one card in hand the prompt and the refusals say ``1``, not ``1-1``; a two-player
    hand has five such moments (D4: five deals of 4, the last card of each)."""
    console, _ = quiet()
    ask = script([])
    run_play(RondaRules.make(), ["human", "greedy"], seed=11, console=console, ask=ask)
    single = [p for p in ask.prompts if p.startswith("Your card (1 or a name such as ")]
    assert len(single) == 5 and len(ask.prompts) == 20
    assert not any("1-1" in p for p in ask.prompts)
    hand = (ref.parse_card("7o"),)
    with pytest.raises(UsageError, match=r"no card number 2 in your hand: choose 1, or name"):
        read_choice("2", hand)
    with pytest.raises(UsageError, match=r"type a card: its number 1 or its name"):
        read_choice("", hand)


def test_team_labels_name_the_partner_and_mark_your_own_team_once():
    """D2: with teams the person's team reads ``team 0 (you and seat 2)``, the other
    ``team 1 (seats 1 and 3)``, and the partner's plays say he is the partner."""
    options = ref.RondaOptions(players=4, teams="on")
    names = SeatNames(options, ["human", "greedy", "lookahead:1", "random"], 0)
    assert names.side(0) == "team 0 (you and seat 2)"
    assert names.side(1) == "team 1 (seats 1 and 3)"
    assert names.player(2) == "Seat 2 (lookahead:1, your partner)"
    assert names.player(1) == "Seat 1 (greedy)" and names.player(0) == "You"
    assert names.verb(2, "lay") == "Seat 2 (lookahead:1, your partner) lays"
    other = SeatNames(options, ["greedy", "random", "greedy", "human"], 3)
    assert other.side(1) == "team 1 (you and seat 1)" and other.side(0) == "team 0 (seats 0 and 2)"
    assert other.player(1) == "Seat 1 (random, your partner)"
    alone = SeatNames(ref.RondaOptions(players=4), ["human"] + ["greedy"] * 3, 0)
    assert alone.side(0) == "seat 0 (you)" and alone.player(2) == "Seat 2 (greedy)"


def test_announcements_stay_on_one_line_under_every_deal():
    """A1 ``every_deal``: the board shows the latest announcing deal's announcements and a
    count of the earlier ones, in one line, instead of a list that grows deal by deal."""
    rules = RondaRules.make(announce="every_deal")
    console, buf = quiet()
    run_play(rules, ["human", "greedy"], seed=1, console=console, ask=script([]))
    state, _ = replay_hand(rules, ["human", "greedy"], 0, 1)
    lines = buf.getvalue().splitlines()
    shown = [i for i, line in enumerate(lines) if line.startswith("Announced at deal ")]
    assert shown and not any(line.startswith("Announcements:") for line in lines)
    counted = set()
    for i in shown:
        deal = int(lines[i].split()[3].rstrip(":")) - 1
        earlier = sum(1 for a in state.announcements if a.deal < deal)
        assert lines[i].endswith(f"({earlier} more at earlier deals)") == (earlier > 0)
        assert len(lines[i]) <= 120 and lines[i + 1].startswith(("Played this deal", "Scores:"))
        counted.add(earlier)
    assert max(counted) >= 2  # the seed announces at several deals


def _history_rows(text: str) -> list[dict[str, list[str]]]:
    """Each board's "Played this deal" rows: seat label -> the cards it played, in order
    (what a card took, in parentheses after it, left out)."""
    boards = []
    for block in text.split("Played this deal (cards taken), in play order:\n")[1:]:
        rows: dict[str, list[str]] = {}
        for line in block.splitlines():
            m = re.fullmatch(r"(you|seat \d|partner \d)\s+(.*?)\s*", line)
            if m is None:
                break
            played = re.sub(r"\s*\([^)]*\)", "", m.group(2))
            rows[m.group(1)] = played.split(", ")
        boards.append(rows)
    return boards


def test_the_board_shows_what_each_seat_played_this_deal():
    """I1: every card played is public; the board lists this deal's plays by seat, with
    what each took, and starts afresh at each deal (D4: 8 plays a deal with two players)."""
    console, buf = quiet()
    got = run_play(RondaRules.make(), ["human", "greedy"], seed=11, console=console,
                   ask=script([]))
    boards = iter(_history_rows(buf.getvalue()))
    for j, (p, _) in enumerate(got["plays"]):
        if p != 0:
            continue
        before = got["plays"][8 * (j // 8):j]
        if not before:  # the person opens the deal: nothing played yet, no list
            continue
        expected: dict[str, list[str]] = {}
        for q, card in before:
            expected.setdefault("you" if q == 0 else f"seat {q}", []).append(card)
        assert next(boards) == expected, j
    assert next(boards, None) is None
    # A capture is listed with what it took: "6b (6e 7o)".
    assert re.search(r"^(you|seat 1) .*\d[oceb] \(\d+[oceb]", buf.getvalue(), re.M)


def test_q_in_a_match_shows_the_match_score():
    """S2/C3: leaving a match says where it stands: the points so far (or, classic, the
    hands won)."""
    console, buf = quiet()
    got = run_play(RondaRules.make(target=11), ["human", "greedy"], seed=51, match=True,
                   console=console, ask=script(["1", "1", "q"]))
    assert got["quit"]
    s0, s1 = got["scores"]
    assert (f"You leave the table. Match score: seat 0 (you) {s0}, seat 1 {s1} (match to 11 "
            "points; hand 1 unfinished)") in buf.getvalue()
    console, buf = quiet()
    got = run_play(RondaRules.make(mode="classic", hands_to_win=2), ["human", "greedy"],
                   seed=52, match=True, console=console, ask=script(["1"] * 21 + ["q"]))
    assert got["quit"] and len(got["hands"]) == 2
    w0, w1 = got["hands_won"]
    assert w0 + w1 == (got["hands"][0]["winner"] is not None)
    assert (f"Hands won: seat 0 (you) {w0}, seat 1 {w1} (first to 2; hand 2 unfinished)"
            in buf.getvalue())


def test_Q12_h_shows_the_advice_for_the_persons_position_and_asks_again():
    """``h`` prints ``ronda advise``'s ranking of the person's hand (from what the person sees,
    its search seeded from the game's seed and the plays so far) and asks for the card again;
    the hand then goes on as without it."""
    from simcards.ronda.api import advice_answer
    from simcards.ronda.terminal import HINT_ITERATIONS, position_fields

    rules = RondaRules.make()
    console, buf = quiet()
    ask = script(["h", "1", "q"])
    got = run_play(rules, ["human", "greedy"], seat=0, seed=41, console=console, ask=ask)
    plain = run_play(rules, ["human", "greedy"], seat=0, seed=41, console=quiet()[0],
                     ask=script(["1", "q"]))
    assert got["plays"] == plain["plays"] and len(ask.prompts) == 3
    text = buf.getvalue()
    assert f"Ronda advice (ismcts:{HINT_ITERATIONS}:0.5 (Q8)" in text
    rng = random.Random(41)  # the game's chance (terminal's docstring): dealer, then the deck
    dealer = ref.draw_first_dealer(rng, 2)
    state = ref.HandState(options_of(rules), dealer, rng.sample(range(40), 40))
    if state.current_player() != 0:
        state.apply(ref.greedy_policy(state.observation(state.current_player())))
    obs = state.observation(0)
    out = advice_answer(rules, position_fields(obs), iterations=HINT_ITERATIONS, c=0.5,
                        budget=None, seed=41 + len(obs["plays"])).data
    assert f"seed {41 + len(obs['plays'])})" in text
    for m in out["moves"]:
        assert f"{m['card']}" in text and f"{m['margin']:+.3f}" in text


def test_D1_the_shared_card_reader_reads_every_card_as_the_reference_names_it() -> None:
    """The terminal reads cards with the core's reader (the one Ronco's advisor uses): every
    card's name reads back to it, as the reference engine's own parser has it."""
    from simcards.ronda.terminal import card_of_text

    for card in range(40):
        assert card_of_text(ref.card_name(card)) == card == ref.parse_card(ref.card_name(card))


def test_Q12_s_saves_the_position_and_advise_reads_it_back_as_the_hint_ranks_it(tmp_path,
                                                                               capsys):
    """In a match to 11, ``s FILE`` writes the person's position (the scores, the deal's
    announcements and plays) as ``ronda advise --position`` reads it, and names the command;
    that command, at the seed it names, ranks the cards as ``h`` then shows them, with the
    same margins and match win probabilities."""
    import json

    from simcards.core.cli import main

    path = tmp_path / "pos.json"
    console, buf = quiet()
    rules = RondaRules.make(target=11)
    got = run_play(rules, ["human", "greedy"], seed=43, match=True, console=console,
                   ask=script([f"s {path}", "h", "1", "q"]))
    assert got["quit"]
    text = buf.getvalue()
    saved = json.loads(path.read_text())
    assert saved == {"seat": 0, "dealer": 0, "hand": "1c 3c 6b 12c", "table": "10c",
                     "pile": "", "previous": "10c", "captured": "; ",
                     "announcements": "1:ronda 10", "deal_plays": "10c", "scores": "0,1"}
    said = re.search(r"the hint's advice: (simcards ronda advise .*)", text).group(1)
    assert said.startswith(f"simcards ronda advise --position {path} --target 11 --seed ")
    assert main(["ronda", "advise", *said.split()[3:], "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    hint = text[text.index("Ronda advice"):]
    rows = [line.split("│")[1:9] for line in hint.splitlines() if line.startswith("│")]
    assert [r[0].strip() for r in rows] == [m["card"] for m in out["moves"]]
    for r, m in zip(rows, out["moves"], strict=True):
        assert r[2].strip() == f"{m['margin']:+.3f}" and r[6].strip() == f"{m['match']:.3f}"


def test_Q12_C3_in_a_classic_match_s_saves_the_hands_won_and_advise_reads_them(tmp_path,
                                                                              capsys):
    """In a classic match to two hands, ``s FILE`` writes the hands won (not scores, C1) and
    names the command with the match's flags; that command (here with a short search) gives
    each card its classic match win probability."""
    import json

    from simcards.core.cli import main

    path = tmp_path / "pos.json"
    console, buf = quiet()
    rules = RondaRules.make(mode="classic", hands_to_win=2)
    got = run_play(rules, ["human", "greedy"], seed=43, match=True, console=console,
                   ask=script([f"s {path}", "1", "q"]))
    assert got["quit"]
    saved = json.loads(path.read_text())
    assert saved["hands_won"] == "0,0" and "scores" not in saved
    said = re.search(r"the hint's advice: (simcards ronda advise .*)", buf.getvalue()).group(1)
    assert said.startswith(f"simcards ronda advise --position {path} --mode classic "
                           "--hands-to-win 2 --seed ")
    assert main(["ronda", "advise", *said.split()[3:], "--iterations", "40", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["position"]["hands_won"] == [0, 0]
    assert "captured cards (C2)" in out["match_method"]
    assert all(0 <= m["match"] <= 1 for m in out["moves"] if m["visits"])
