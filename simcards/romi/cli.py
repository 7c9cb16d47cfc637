"""``simcards romi ...`` commands. ``melds``: the exact meld solver's answers (V1-V4 of
``seeds/romi.md``) for one hand or a file of hands.

The command only reads its flags, calls :func:`melds_report` (which checks them and computes)
and prints; the same function serves Python callers.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any

import numpy as np
import typer
from rich.console import Console
from rich.table import Table

from simcards.core.cli_options import JsonOpt, emit_json
from simcards.core.errors import UsageError
from simcards.romi import cards as C
from simcards.romi import melds as M
from simcards.romi.rules import RomiRules

app = typer.Typer(help="Römi húngaro, the two-deck rummy with jokers.", no_args_is_help=True)

HandOpt = Annotated[str | None, typer.Option(
    "--hand", help="One hand, e.g. \"Ah 2h 3h 7c 7d 7s X\": rank (A 2..9 T J Q K, 10 also) and "
    "suit (s h d c), either case; X a joker; at most 16 cards (rule D1).")]
FileOpt = Annotated[Path | None, typer.Option(
    "--file", help="A text file with one hand a line (blank lines and lines starting with # "
    "are skipped).")]
AceLowOpt = Annotated[int, typer.Option(
    "--ace-low-value", help="What an As below the 2 in a run is worth for best_value, 1..10 "
    "(rule M6).")]


def _read_hands(hand: str | None, file: Path | None) -> list[list[int]]:
    """The hands to solve as card ids, each checked (one-line errors naming the line)."""
    if (hand is None) == (file is None):
        raise UsageError("give exactly one of --hand and --file")
    if hand is not None:
        return [M._hand_ids(hand)]
    try:
        text = file.read_text()
    except FileNotFoundError:
        raise UsageError(f"--file {file}: no such file") from None
    except (IsADirectoryError, PermissionError, UnicodeDecodeError) as exc:
        raise UsageError(f"--file {file}: cannot be read ({type(exc).__name__})") from None
    out = []
    for number, line in enumerate(text.splitlines(), 1):
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        try:
            out.append(M._hand_ids(line))
        except UsageError as exc:
            raise UsageError(f"--file {file}, line {number}: {exc}") from None
    if not out:
        raise UsageError(f"--file {file} holds no hand")
    return out


def melds_report(hand: str | None = None, file: Path | str | None = None,
                 ace_low_value: int | str = 1) -> dict[str, Any]:
    """V1-V4 for each hand, in order: ``best_value``, ``min_penalty``, ``can_go_out`` and
    ``melds`` (a lay-down reaching ``best_value``, each meld as text with its joker written
    ``X=card``). The three numbers of every hand come from one batch call of the solver."""
    rules = RomiRules.make(ace_low_value=ace_low_value)
    hands = _read_hands(hand, Path(file) if file is not None else None)
    width = max(1, max(len(h) for h in hands))
    batch = np.full((len(hands), width), -1, np.int64)
    for i, h in enumerate(hands):
        batch[i, :len(h)] = h
    answers = M.solve_batch(batch, rules.ace_low_value)
    rows = []
    for h, (value, penalty, out) in zip(hands, answers, strict=True):
        lay = M.melds(h, rules) if value > 0 else []
        rows.append({"hand": C.format_hand(h), "best_value": int(value),
                     "min_penalty": int(penalty), "can_go_out": bool(out),
                     "melds": [_meld_text(m) for m in lay]})
    return {"game": "romi", "command": "melds", "rules": {"ace_low_value": rules.ace_low_value},
            "hands": rows}


def _meld_text(m: M.Meld) -> str:
    return " ".join("X=" + C.kind_text(m.joker_as) if C.is_joker(c) and m.joker_as is not None
                    else C.card_text(c) for c in m.cards)


@app.command()
def melds(hand: HandOpt = None, file: FileOpt = None, ace_low_value: AceLowOpt = 1,
          json: JsonOpt = False) -> None:
    """The exact meld solver (rules V1-V4): best lay-down value, least penalty left, whether
    the hand can go out, and one best lay-down."""
    out = melds_report(hand, file, ace_low_value)
    if json:
        emit_json(out)
        return
    table = Table(title="Römi meld solver (rules V1-V4)")
    for col in ("hand", "best_value", "min_penalty", "can_go_out", "melds"):
        table.add_column(col)
    for r in out["hands"]:
        table.add_row(r["hand"], str(r["best_value"]), str(r["min_penalty"]),
                      "yes" if r["can_go_out"] else "no", " | ".join(r["melds"]) or "-")
    Console().print(table)
