"""Keep charts (rule S6): a policy written out as a table a player can read, and played back.

A chart is for one table size. It has one row per *situation* a position can be in, and one
column per card value (the deck's strengths, weakest first): what the position does holding
that card, ``keep`` or ``pass`` (the dealer: ``keep`` or ``cut``). A situation is what the
seat has seen before it acts (R11): its position, the public actions of the earlier positions
(``keep``, ``swap``, ``refused``), and, when the previous position swapped with it, the card it
was dealt (which that position now holds for good, R3). That is everything a built-in policy
reads (S1-S4), so a chart written from one plays exactly like it.

The CSV::

    players,position,seen,dealt,1,2,3,4,5,6,7,10,11,12
    4,0,,,pass,pass,pass,pass,keep,keep,keep,keep,keep,keep
    4,2,keep swap,5,pass,...

Every situation the rules allow is a row (positions, histories and dealt cards; a history with
more refusals than the deck has top cards is left out), so a chart never meets a situation it
does not answer; a cell is empty where the card cannot be held (after a refusal the seat holds
the top rank, R4). Under Poroli the first column is ``poroli``, the Poroli card (C4).

``simcards ronco chart`` writes the chart of any deterministic policy, a user's function
included (:func:`write`), and a picture of the situations that occur most often when the
others play the field; ``chart:FILE.csv`` plays one (:func:`read`). Played back, a chart is a
decision table looked up by the round kernel exactly as ``bayes``'s table is (S4), keyed by
table size, position, history, card and dealt card (:func:`kernel_arrays`).
"""

from __future__ import annotations

import csv
import hashlib
import io
from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

import numpy as np

from simcards.core.errors import UsageError, read_text
from simcards.ronco.codes import BAYES, BAYES_HIST_SPAN
from simcards.ronco.policies import BAYES_TABLE, Policy
from simcards.ronco.rules import RoncoRules

ACTIONS = ("keep", "swap", "refused")
"""The public actions of the history, by their digit (keep 0, swap 1, refused 2; R2-R4)."""
FIXED = ("players", "position", "seen", "dealt")
"""The columns before the cards'."""
POROLI = "poroli"
"""The column of the Poroli card (strength 0, C4)."""


def labels(rules: RoncoRules) -> list[str]:
    """The card columns of ``rules``'s deck: one per strength, weakest first."""
    return [POROLI if s == 0 else str(s) for s in np.flatnonzero(rules.strength_counts)]


def _seen(hist: int, pos: int) -> str:
    digits = []
    for _ in range(pos):
        hist, d = divmod(hist, 3)
        digits.append(ACTIONS[d])
    return " ".join(reversed(digits))


@dataclass(frozen=True)
class Situations:
    """Every situation of a table of ``n`` under ``rules``: per row the position, the history
    (base 3, the latest last), the dealt strength (-1: no swap) and which strengths the seat
    can hold there (``possible``, rows by strength columns)."""

    n: int
    pos: np.ndarray
    hist: np.ndarray
    dealt: np.ndarray
    possible: np.ndarray
    strengths: np.ndarray

    @property
    def size(self) -> int:
        return int(self.pos.shape[0])

    def key(self, r: int) -> tuple[int, int, int]:
        return int(self.pos[r]), int(self.hist[r]), int(self.dealt[r])

    def text(self, r: int) -> str:
        """The situation as a person reads it (errors name it so)."""
        pos, hist, dealt = self.key(r)
        role = "the dealer" if pos == self.n - 1 else f"position {pos}"
        seen = _seen(hist, pos) or "nothing yet"
        return f"{role}, seen {seen}" + (f", dealt {dealt}" if dealt >= 0 else "")


def situations(rules: RoncoRules, n: int) -> Situations:
    """Every situation of a table of ``n`` the rules allow (module docstring)."""
    counts = rules.strength_counts
    strengths = np.flatnonzero(counts)
    top = rules.top
    pos_l, hist_l, dealt_l, poss_l = [], [], [], []
    for pos in range(n):
        for hist in range(3**pos):
            digits = [(hist // 3**(pos - 1 - j)) % 3 for j in range(pos)]
            refusals = digits.count(2)
            if refusals > counts[top]:
                continue
            last = digits[-1] if digits else 0
            dealts = [int(s) for s in strengths if s != top] if last == 1 else [-1]
            for d in dealts:
                row = []
                for s in strengths:
                    if last == 2:  # the seat refused: it holds the top rank (R4)
                        ok = s == top
                    else:
                        ok = (s != top or counts[top] > refusals) and (
                            d != s or counts[s] >= 2)
                    row.append(ok)
                pos_l.append(pos)
                hist_l.append(hist)
                dealt_l.append(d)
                poss_l.append(row)
    return Situations(n, np.array(pos_l, np.int64), np.array(hist_l, np.int64),
                      np.array(dealt_l, np.int64), np.array(poss_l, np.bool_),
                      strengths.astype(np.int64))


def lookup_keys(k: np.ndarray | int, pos: np.ndarray, hist: np.ndarray, card: np.ndarray,
                dealt: np.ndarray) -> np.ndarray:
    """The decision tables' lookup keys, as :func:`simcards.ronco.round_kernel.bayes_key`
    computes them in the kernel."""
    return ((((np.asarray(k) * 21 + pos) * BAYES_HIST_SPAN + hist) * 16 + card) * 16
            + dealt + 1).astype(np.int64)


@dataclass(frozen=True)
class Chart:
    """A chart file as read: its path (what the policy's text shows) and its text (what the
    run keys hold: an edited chart is a new run). The rows are parsed on first use."""

    path: str
    text: str = field(repr=False, compare=False)

    @property
    def digest(self) -> str:
        return hashlib.sha256(self.text.encode()).hexdigest()[:16]

    @cached_property
    def rows(self) -> tuple[list[str], list[list[str]]]:
        """The header and the rows, checked for shape (:func:`read` checks them at once)."""
        reader = csv.reader(io.StringIO(self.text))
        table = [r for r in reader if any(cell.strip() for cell in r)]
        if not table:
            raise UsageError(f"{self.path}: the chart is empty")
        header = [h.strip() for h in table[0]]
        if header[:4] != list(FIXED) or len(header) < 5:
            raise UsageError(f"{self.path}: a chart's columns are {','.join(FIXED)} and one "
                             f"per card value; got {','.join(header[:5])}...")
        for i, r in enumerate(table[1:], start=2):
            if len(r) != len(header):
                raise UsageError(f"{self.path}, line {i}: {len(r)} cells, the header has "
                                 f"{len(header)}")
        return header, [[c.strip() for c in r] for r in table[1:]]

    @cached_property
    def sizes(self) -> list[int]:
        """The table sizes the chart has rows for (one, as ``simcards ronco chart`` writes it;
        a chart for games holds one per table size the game passes through)."""
        out = set()
        for line, r in enumerate(self.rows[1], start=2):
            try:
                out.add(int(r[0]))
                int(r[1])
            except ValueError:
                raise UsageError(f"{self.path}, line {line}: players and position must be "
                                 "integers") from None
        return sorted(out)

    def decisions(self, rules: RoncoRules, n: int) -> tuple[Situations, np.ndarray]:
        """The chart's decision in every situation of a table of ``n`` under ``rules``
        (rows by card columns; True keeps), refused in one line when the chart is for another
        table size or deck, misses a situation, or holds a cell that is not an action."""
        header, rows = self.rows
        want = labels(rules)
        if header[4:] != want:
            raise UsageError(f"{self.path}: the chart's cards are {' '.join(header[4:])}; this "
                             f"deck's are {' '.join(want)} (write the chart with the same "
                             "--deck and --poroli)")
        sit = situations(rules, n)
        index = {sit.key(r): r for r in range(sit.size)}
        by_value = {lab: s for lab, s in zip(want, sit.strengths, strict=True)}
        keep = np.zeros(sit.possible.shape, np.bool_)
        seen = np.zeros(sit.size, np.bool_)
        sizes = self.sizes
        if n not in sizes:
            raise UsageError(f"{self.path}: the chart is for {' and '.join(map(str, sizes))} "
                             f"players, the table has {n}")
        for line, r in enumerate(rows, start=2):
            where = f"{self.path}, line {line}"
            players, pos = int(r[0]), int(r[1])
            if players != n:
                continue  # another table size's row (a chart for games holds several)
            hist = _history(r[2], pos, where)
            dealt = -1
            if r[3]:
                if r[3] not in by_value:
                    raise UsageError(f"{where}: dealt {r[3]!r} is no card of the deck")
                dealt = int(by_value[r[3]])
            at = index.get((pos, hist, dealt))
            if at is None:
                raise UsageError(f"{where}: no such situation at {n} players")
            dealer = pos == n - 1
            for j, cell in enumerate(r[4:]):
                word = cell.lower()
                if not sit.possible[at, j]:
                    if word:
                        raise UsageError(f"{where}: card {want[j]} cannot be held there; "
                                         "leave the cell empty")
                    continue
                if word == "keep":
                    keep[at, j] = True
                elif word != ("cut" if dealer else "pass"):
                    raise UsageError(f"{where}: card {want[j]}: {cell!r} is not keep or "
                                     f"{'cut' if dealer else 'pass'}")
            seen[at] = True
        if not seen.all():
            raise UsageError(f"{self.path}: no row for {sit.text(int(np.flatnonzero(~seen)[0]))}"
                             f" ({int(np.count_nonzero(~seen))} situations missing)")
        return sit, keep

    def kernel_arrays(self, rules: RoncoRules, n: int,
                      positions: Sequence[int]) -> tuple[np.ndarray, np.ndarray]:
        """The chart's rows of ``positions`` as a decision table for the kernels: lookup
        keys (:func:`lookup_keys`) and decisions (1 keep, 0 pass), unsorted."""
        sit, keep = self.decisions(rules, n)
        rows, cols = np.nonzero(sit.possible & np.isin(sit.pos, positions)[:, None])
        keys = lookup_keys(n, sit.pos[rows], sit.hist[rows], sit.strengths[cols],
                           sit.dealt[rows])
        return keys, keep[rows, cols].astype(np.int8)


def _history(text: str, pos: int, where: str) -> int:
    words = text.split()
    if len(words) != pos:
        raise UsageError(f"{where}: position {pos} has seen {pos} actions, the row gives "
                         f"{len(words)}")
    hist = 0
    for w in words:
        if w.lower() not in ACTIONS:
            raise UsageError(f"{where}: {w!r} is not {', '.join(ACTIONS)}")
        hist = hist * 3 + ACTIONS.index(w.lower())
    return hist


def read(path: str) -> Chart:
    """The chart at ``path`` (``chart:FILE.csv``), read and checked for shape; its rows are
    matched to a table when one plays it."""
    chart = Chart(path, read_text(path, path))
    chart.rows  # noqa: B018 (checked now: before any deal)
    return chart


def to_csv(sit: Situations, keep: np.ndarray, rules: RoncoRules) -> str:
    """The chart of ``keep`` (rows by card columns) over ``sit``, as CSV text."""
    out = io.StringIO()
    w = csv.writer(out, lineterminator="\n")
    w.writerow([*FIXED, *labels(rules)])
    names = dict(zip(sit.strengths.tolist(), labels(rules), strict=True))
    for r in range(sit.size):
        pos, hist, dealt = sit.key(r)
        no = "cut" if pos == sit.n - 1 else "pass"
        cells = [("keep" if keep[r, j] else no) if sit.possible[r, j] else ""
                 for j in range(sit.strengths.shape[0])]
        w.writerow([sit.n, pos, _seen(hist, pos), names[dealt] if dealt >= 0 else "", *cells])
    return out.getvalue()


def decisions_of(rules: RoncoRules, n: int, policy: Policy, field: Policy) -> tuple[
        Situations, np.ndarray]:
    """``policy``'s decision in every situation of a table of ``n`` (rows by card columns;
    True keeps), asked of the round kernel's dispatch (:mod:`simcards.ronco.chart_kernel`).
    ``bayes`` replies to ``field`` at the other positions (S4); a user's function is compiled
    (S5); ``random`` has no chart (it decides by chance)."""
    from simcards.ronco.bayes_exact import game_table
    from simcards.ronco.chart_kernel import decide
    from simcards.ronco.kernel_state import Seats
    from simcards.ronco.policies import BAYES_TABLE, CHART_TABLE, UNIFORMS
    from simcards.ronco.users import check_errors, user_seats

    needs = policy.declared.needs
    if UNIFORMS in needs:
        raise UsageError(f"--policy {policy.spec()}: a chart holds one action per situation; "
                         "random decides by chance")
    sit = situations(rules, n)
    table = None
    if BAYES_TABLE in needs:
        table = game_table(rules, n, field).kernel_arrays()
    elif CHART_TABLE in needs:
        table = _sorted(policy.chart.kernel_arrays(rules, n, range(n)))
    seats = Seats.from_policies([policy] * n, table)
    if table is not None:
        seats = seats._replace(kind=np.full(n, BAYES, np.int64))
    users = user_seats([policy.user] * n, rules.kernel, n) if policy.user else None
    rows, cols = np.nonzero(sit.possible)
    keep = np.zeros(rows.shape[0], np.bool_)
    decide(seats, n, sit.pos[rows], sit.hist[rows], sit.strengths[cols], sit.dealt[rows],
           rules.kernel, users, keep)
    if users is not None:
        check_errors(users, [policy.user] * n)
    out = np.zeros(sit.possible.shape, np.bool_)
    out[rows, cols] = keep
    return sit, out


def _sorted(table: tuple[np.ndarray, np.ndarray]) -> tuple[np.ndarray, np.ndarray]:
    order = np.argsort(table[0], kind="stable")
    return table[0][order], table[1][order]


def seat_table(rules: RoncoRules, policies: Sequence[Policy],
               bayes: tuple[np.ndarray, np.ndarray] | None) -> tuple[np.ndarray, np.ndarray]:
    """The one decision table of a round's kernel seats: ``bayes``'s rows (its own position's,
    S4) and each chart seat's rows at its position, sorted by key (a key names the
    position, so the seats' rows never collide)."""
    keys = [] if bayes is None else [bayes[0]]
    vals = [] if bayes is None else [bayes[1]]
    n = len(policies)
    for i, p in enumerate(policies):
        if p.chart is not None:
            k, v = p.chart.kernel_arrays(rules, n, [i])
            keys.append(k)
            vals.append(v)
    return _sorted((np.concatenate(keys), np.concatenate(vals)))


def game_seat_table(rules: RoncoRules, policies: Sequence[Policy]) -> tuple[np.ndarray,
                                                                            np.ndarray]:
    """The decision table of a game's chart seats (S6), by player: every position of every
    table size from the game's players down to 2, since a seat meets them all as players go
    out (G3). The rows know the round only, not the lives, so a chart seat plays its round
    chart in each round. The table is keyed by table size and position, not by player, so
    every chart seat of a game plays one chart, and no ``bayes`` seat sits with them."""
    found = {p.chart for p in policies if p.chart is not None}
    if len(found) > 1:
        raise UsageError("games play one keep chart at a table (every chart seat the same "
                         "file); rounds plays several")
    if any(p.chart is None and BAYES_TABLE in p.declared.needs for p in policies):
        raise UsageError("games cannot seat bayes with a keep chart: both are played from "
                         "one decision table")
    (chart,) = found
    n = len(policies)
    missing = [k for k in range(2, n + 1) if k not in chart.sizes]
    if missing:
        raise UsageError(f"{chart.path}: a chart played in games of {n} players needs rows "
                         f"for every table size from {n} down to 2 (players go out, G3); it "
                         f"has none for {', '.join(map(str, missing))}")
    parts = [chart.kernel_arrays(rules, k, range(k)) for k in range(2, n + 1)]
    return _sorted((np.concatenate([k for k, _ in parts]),
                    np.concatenate([v for _, v in parts])))


MAX_CHART_PLAYERS = 8
"""The largest table a chart is written for: a position sees 3**position histories, so a
chart of 8 players already has some 40,000 rows."""
PICTURE_SHARE = 0.95
"""The picture shows, for each position, the most frequent situations up to this share."""
PICTURE_ROWS = 8
"""... and at most this many situations per position."""


def frequencies(rules: RoncoRules, n: int, field: Policy, sit: Situations) -> np.ndarray:
    """How often each situation (row) and card (column) occurs for a seat at its position
    when the other positions play ``field``: the exact state probabilities of S4's
    computation (each position's add up to 1)."""
    from simcards.ronco.bayes_exact import game_table

    table = game_table(rules, n, field)
    at = table.k == n
    keys = lookup_keys(n, table.pos[at], table.hist[at], table.card[at], table.dealt[at])
    weight = dict(zip(keys.tolist(), table.weight[at].tolist(), strict=True))
    rows, cols = np.nonzero(sit.possible)
    cell = lookup_keys(n, sit.pos[rows], sit.hist[rows], sit.strengths[cols], sit.dealt[rows])
    out = np.zeros(sit.possible.shape)
    out[rows, cols] = [weight.get(k, 0.0) for k in cell.tolist()]
    return out


def draw(sit: Situations, keep: np.ndarray, freq: np.ndarray, rules: RoncoRules,
         title: str) -> Any:
    """The printable picture of a chart: for each position, its most frequent situations
    (:data:`PICTURE_SHARE`, at most :data:`PICTURE_ROWS`), each card keep (green) or pass /
    cut (red), pale where the field never leaves that card there, grey where it cannot be
    held; each row labelled with how often it occurs. The
    matplotlib figure, for :func:`simcards.core.reports.common.save_figure`."""
    import matplotlib.pyplot as plt
    from matplotlib.colors import ListedColormap

    rows: list[int] = []
    for pos in range(sit.n):
        mine = np.flatnonzero(sit.pos == pos)
        share = freq[mine].sum(axis=1)
        order = mine[np.argsort(-share, kind="stable")]
        total, acc = share.sum(), 0.0
        for r in order[:PICTURE_ROWS]:
            if freq[r].sum() <= 0 or (total > 0 and acc >= PICTURE_SHARE * total):
                break
            rows.append(int(r))
            acc += freq[r].sum()
    # 0 cannot be held; 1, 2 pass / keep where it occurs; 3, 4 pass / keep where the field
    # never leads (pale)
    grid = np.where(sit.possible[rows], 1 + keep[rows] + 2 * (freq[rows] <= 0), 0)
    cards = labels(rules)
    fig, ax = plt.subplots(figsize=(1.2 + 0.55 * len(cards), 0.9 + 0.3 * len(rows)))
    ax.imshow(grid, cmap=ListedColormap(["#dddddd", "#e8836f", "#7cc47f", "#f6d6cf",
                                         "#d6ecd7"]), vmin=0, vmax=4, aspect="auto")
    for y, r in enumerate(rows):
        no = "C" if sit.pos[r] == sit.n - 1 else "P"
        for x in range(len(cards)):
            if sit.possible[r, x]:
                ax.text(x, y, "K" if keep[r, x] else no, ha="center", va="center", fontsize=8)
    ax.set_xticks(range(len(cards)), cards)
    ax.xaxis.tick_top()
    ax.set_yticks(range(len(rows)), [f"{sit.text(r)}  ({freq[r].sum():.0%})" for r in rows],
                  fontsize=8)
    for y in range(1, len(rows)):
        if sit.pos[rows[y]] != sit.pos[rows[y - 1]]:
            ax.axhline(y - 0.5, color="black", linewidth=1.2)
    ax.set_title(title + "\nK keep, P pass, C cut; each row: how often a seat meets it; pale: "
                 "a card the others' play never leaves there", fontsize=9)
    fig.tight_layout()
    return fig
