"""Why ``lookahead:1`` loses to ``greedy`` with three players: what it does differently.

The round robin shows one ``lookahead:1`` among ``greedy`` players losing with 3 players while it
wins with 2 and 4. This study looks at the decisions themselves. Hands are played by the slow,
plain reference engine (:mod:`simcards.ronda.reference`, Q3 and Q4 written from the rules
alone), seat 0 playing ``lookahead:1`` and every other seat ``greedy``. At each of seat 0's
decisions before the last deal (the last deal is Q7's, and with 3 players it leaves no choice)
the engine also asks which card ``greedy`` would play. Where the two differ, both cards are
played from the true position, each followed by the other players' ``greedy`` replies until
seat 0 is to play again (one *round* of plays), and the two rounds are compared: what kind of
play each card is (capture, Derba, re-hit, lay: P1-P5, X1-X4), the cards each seat captures
and the points each side scores. Points are the hand's scores without announcements (Q1's dP);
cards are captured cards, an open pile counted for its last hitter (Q1's dK).

The counts run as Monte Carlo chunks (a chunk's Python generator is seeded from its own
stream), so they are the same for any number of workers and resume like every other study.
"""

from __future__ import annotations

import random
from dataclasses import dataclass

import numpy as np

from simcards.core.runner import Batch

ACTIONS = ("capture", "derba", "rehit", "lay")
"""The kinds of play of :class:`simcards.ronda.reference.PlayRecord`, in this order."""
STREAM = "ronda.report.lookahead-replies"
CHUNK = 25
"""Hands per chunk: about a second of the reference engine."""
SEATS = 4
"""Room for the largest table: every per-seat array has 4 entries."""


@dataclass(frozen=True)
class RepliesConfig:
    """The table size of one batch (every seat but seat 0 ``greedy``; the dealer drawn)."""

    players: int


def _snapshot(state, n: int) -> np.ndarray:
    from simcards.ronda import reference as R

    pts = [R.score_without_announcements(state, t) for t in range(n)]
    cards = [state.cards_held(t) for t in range(n)]
    return np.array(pts + cards, np.int64)


def _round(state, card: int, n: int) -> tuple[str, np.ndarray]:
    """Play ``card`` from a copy of ``state``, then the next players' ``greedy`` replies until
    seat 0 is to play again (or the hand ends): the play's kind and the change in every
    side's points and cards."""
    from simcards.ronda import reference as R

    sim = state.clone()
    before = _snapshot(sim, n)
    record = sim.apply(card)
    while not sim.is_terminal() and sim.current_player() != 0:
        sim.apply(R.greedy_policy(sim.observation(sim.current_player())))
    return record.action, _snapshot(sim, n) - before


def replies_chunk(state: np.ndarray, size: int, cfg: RepliesConfig) -> dict[str, np.ndarray]:
    """``size`` hands of the reference engine (runs in a worker): the chunk's sums."""
    from simcards.ronda import reference as R

    n = cfg.players
    rng = random.Random(int.from_bytes(state.tobytes(), "little"))
    opts = R.RondaOptions(players=n)
    kinds = np.zeros((len(ACTIONS), len(ACTIONS)), np.int64)
    # Per kind pair (greedy's, lookahead's): lookahead's round minus greedy's, summed:
    # points of seats 0..3 then cards of seats 0..3.
    diff = np.zeros((len(ACTIONS), len(ACTIONS), 2 * SEATS), np.int64)
    decisions = np.zeros(1, np.int64)
    for _ in range(size):
        deck = list(range(40))
        rng.shuffle(deck)
        hand = R.HandState(opts, rng.randrange(n), deck)
        own = random.Random(rng.getrandbits(64))
        while not hand.is_terminal():
            p = hand.current_player()
            obs = hand.observation(p)
            if p != 0:
                hand.apply(R.greedy_policy(obs))
                continue
            card = R.lookahead_policy(obs, own)
            if len(obs["hand"]) > 1 and not R.in_last_deal(obs):
                decisions[0] += 1
                other = R.greedy_policy(obs)
                if other != card:
                    kind_l, d_l = _round(hand, card, n)
                    kind_g, d_g = _round(hand, other, n)
                    i, j = ACTIONS.index(kind_g), ACTIONS.index(kind_l)
                    kinds[i, j] += 1
                    d = d_l - d_g
                    diff[i, j, :n] += d[:n]
                    diff[i, j, SEATS:SEATS + n] += d[n:]
            hand.apply(card)
    return {"decisions": decisions, "kinds": kinds, "diff": diff}


def batches(seed: int, hands: dict[int, int]) -> list[Batch]:
    """One batch per table size, ``hands[players]`` hands each."""
    return [Batch(replies_chunk, RepliesConfig(n), seed, total, CHUNK, STREAM)
            for n, total in hands.items()]


def summary(players: int, hands: int, s: dict[str, np.ndarray]) -> dict:
    """One table size's counts: decisions, disagreements, and the declined captures (greedy
    captures, Derbas or re-hits where ``lookahead:1`` lays) with the mean change over their
    round, lookahead's card minus greedy's, in cards by seat and points by seat."""
    n = players
    kinds, diff = s["kinds"], s["diff"]
    lay = ACTIONS.index("lay")
    declined = [ACTIONS.index(a) for a in ("capture", "derba", "rehit")]
    count = int(kinds[declined, lay].sum())
    tot = diff[declined, lay].sum(axis=0)
    mean = tot / max(count, 1)
    return {"players": n, "hands": hands, "decisions": int(s["decisions"][0]),
            "disagreements": int(kinds.sum()), "declined": count,
            "declined_cards": [float(x) for x in mean[SEATS:SEATS + n]],
            "declined_points": [float(x) for x in mean[:n]],
            "all_cards": [float(x) for x in diff.sum(axis=(0, 1))[SEATS:SEATS + n]
                          / max(int(kinds.sum()), 1)]}


# ---------------------------------------------------------------- where the points go

SOURCE_HANDS = 40_000
"""Hands per run of the points-by-source comparison (numba engine)."""


def source_batches(seed: int, players: int, hands: int) -> list[Batch]:
    """Two runs of ``simcards ronda hands`` on the same decks and dealers (the same seed and
    stream): seat 0 ``lookahead:1``, then seat 0 ``greedy``, every other seat ``greedy``, the
    dealer drawn each hand (D3)."""
    from simcards.ronda import hands_batch
    from simcards.ronda.policies import KINDS
    from simcards.ronda.rules import RondaRules

    rules = RondaRules.make(players=players)
    out = []
    for first in ("lookahead:1", "greedy"):
        specs = [KINDS.parse(first)] + [KINDS.parse("greedy")] * (players - 1)
        out.append(Batch(hands_batch.hands_chunk,
                         hands_batch.HandConfig.build(rules, specs, None), seed, hands,
                         hands_batch.chunk_size(specs), hands_batch.STREAM))
    return out


def source_rows(hands: int, looked: dict, plain: dict) -> list[dict]:
    """Seat 0's points per hand by source (S2) in the two runs of :func:`source_batches`, and
    the difference with a 95% interval (the runs' intervals combined as if independent: they
    share decks, so the true interval is narrower)."""
    from simcards.ronda.hands_batch import SOURCES, HandsResult

    a = HandsResult(hands, looked).to_dict()
    b = HandsResult(hands, plain).to_dict()
    rows = []
    for name in (*SOURCES, "total"):
        if name == "total":
            va, ca = a["points_mean"][0], a["points_ci"][0]
            vb, cb = b["points_mean"][0], b["points_ci"][0]
        else:
            va, ca = a["points_by_source"][name][0], a["points_by_source_ci"][name][0]
            vb, cb = b["points_by_source"][name][0], b["points_by_source_ci"][name][0]
        half = float(np.hypot((ca[1] - ca[0]) / 2 if ca else 0.0,
                              (cb[1] - cb[0]) / 2 if cb else 0.0))
        rows.append({"source": name, "lookahead": va, "greedy": vb, "diff": va - vb,
                     "diff_lo": va - vb - half, "diff_hi": va - vb + half})
    return rows


# ---------------------------------------------------------------- the page


def _cards(x: float) -> str:
    return f"{x:+.2f}"


def page_lines(tables: list[dict], sources: list[dict], source_hands: int) -> list[str]:
    """The page's section: the counts of :func:`summary` per table size (3 players first)
    and the points by source of :func:`source_rows`."""
    three = next(t for t in tables if t["players"] == 3)
    share = three["disagreements"] / max(three["decisions"], 1)
    declined = three["declined"] / max(three["disagreements"], 1)
    c = three["declined_cards"]
    p = three["declined_points"]
    by = {r["source"]: r for r in sources}
    losses = sorted((r for r in sources if r["source"] != "total" and r["diff_hi"] < 0),
                    key=lambda r: r["diff"])
    gains = sorted((r for r in sources if r["source"] != "total" and r["diff_lo"] > 0),
                   key=lambda r: -r["diff"])

    def listed(rows: list[dict]) -> str:
        return ", ".join(f"`{r['source']}` {r['diff']:+.3f} [{r['diff_lo']:+.3f}, "
                         f"{r['diff_hi']:+.3f}]" for r in rows) or "none measurable"

    total = by["total"]
    cards = by["cards"]
    if cards["diff_hi"] < 0:
        verdict = ("The points by source below show the cost: seat 0 ends the hand with fewer "
                   f"card points (S1), {cards['diff']:+.3f} [{cards['diff_lo']:+.3f}, "
                   f"{cards['diff_hi']:+.3f}] per hand, than it does playing `greedy`.")
    else:
        verdict = ("The points by source below do not show the card points (S1) measurably "
                   "lower for seat 0 at this sample size.")
    lines = [
        "## Why `lookahead:1` loses to `greedy` with three players", "",
        "`lookahead:1` (Q4) weighs each of its cards together with the next player's best "
        "reply to it; the player after that is beyond its horizon. The plain reference engine "
        "(`simcards/ronda/reference.py`) played hands with `lookahead:1` in seat 0 and "
        "`greedy` everywhere else, and at each of seat 0's decisions before the last deal also "
        "asked which card `greedy` would play. Where they differ, both cards were played from "
        "the true position, each followed by the other players' `greedy` replies until seat 0 "
        "was to play again (one round of plays), and the two rounds compared.", "",
        f"With 3 players, in {three['hands']:,} hands, seat 0 made {three['decisions']:,} "
        f"decisions before the last deal and `lookahead:1` played another card than `greedy` "
        f"in {three['disagreements']:,} of them ({share:.0%}). In {three['declined']:,} of "
        f"these ({declined:.0%}) `greedy` would have taken cards from the table and "
        "`lookahead:1` lays a card instead, to keep a capture, Derba or Missa from the next "
        "player's reply. Over the round of plays that follows, such a declined capture leaves "
        f"seat 0 with {_cards(c[0])} cards against `greedy`'s card, the next player with "
        f"{_cards(c[1])} and the third player, whose reply `lookahead:1` never looks at, with "
        f"{_cards(c[2])}; the next player scores {p[1]:+.2f} points and the third "
        f"{p[2]:+.2f}. Q1's V counts a captured card as a hundredth of a point, but S1 pays a "
        "point for each card beyond a side's share (13 of 40 with 3 players) at the end of "
        "the hand. " + verdict, "",
        f"Where seat 0's points go (the numba engine, {source_hands:,} hands with the dealer "
        "drawn, every other seat `greedy`; seat 0 with `lookahead:1` minus seat 0 with "
        f"`greedy` on the same decks): {total['diff']:+.3f} [{total['diff_lo']:+.3f}, "
        f"{total['diff_hi']:+.3f}] points per hand in all; lost: {listed(losses)}; gained: "
        f"{listed(gains)} (points per hand, 95% intervals).", "",
        "| players | hands | decisions before the last deal | `lookahead:1` plays another "
        "card | it lays where `greedy` captures | cards in the round after a declined "
        "capture: seat 0, next player, players after | points in that round: next player, "
        "players after |",
        "|---|---|---|---|---|---|---|"]
    for t in tables:
        n = t["players"]
        cards = t["declined_cards"]
        pts = t["declined_points"]
        after_c = sum(cards[2:]) if n > 2 else None
        after_p = sum(pts[2:]) if n > 2 else None
        after_text = "—" if after_c is None else _cards(after_c)
        after_pts = "—" if after_p is None else f"{after_p:+.2f}"
        lines.append(
            f"| {n} | {t['hands']:,} | {t['decisions']:,} | {t['disagreements']:,} | "
            f"{t['declined']:,} ({t['declined'] / max(t['disagreements'], 1):.0%}) | "
            f"{_cards(cards[0])}, {_cards(cards[1])}, {after_text} | "
            f"{pts[1]:+.2f}, {after_pts} |")
    lines += ["", "With 2 players there is no player after the next: the table left by the "
              "reply comes back to `lookahead:1` itself. Points by source, seat 0, 3 players:",
              "", "| source | with `lookahead:1` | with `greedy` | difference (95% CI) |",
              "|---|---|---|---|"]
    for r in sources:
        lines.append(f"| {r['source']} | {r['lookahead']:.3f} | {r['greedy']:.3f} | "
                     f"{r['diff']:+.3f} [{r['diff_lo']:+.3f}, {r['diff_hi']:+.3f}] |")
    return [*lines, ""]
