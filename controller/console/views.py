"""The table as the console's pages show it: plain JSON from the table's state and its records (pure).

- :func:`bet_rows` -- what is on the layout, one row per stake (``{seat, bet, number, on, amount}``),
  with its name, the space it is drawn on, and whether the rules let it be taken down.
- :func:`actions` -- which of the dealer's presses the table would take now, and why not.
- :func:`pay_list` -- what the dealer pays and takes after a roll, seat by seat, from the rules
  engine's ``settle`` effects ("seat C: place 6 wins, pay $7.00").
- :func:`roll_json` -- one settled roll with the read behind it (frame, each die's box) and its pay list.
- :func:`table_json` -- ``GET /api/state``; :func:`board_json` -- the public board's part of it.
"""
from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from controller import rules
from controller.console.layouts import space_of
from controller.console.names import BACKED, bet_name
from messages.money import dollars
from controller.table import Phase, TableState, step, view_for

#: The fields of a read event the pages draw (the frame, each die's box and value, the verdict).
READ_FIELDS = ("status", "dice", "confidence", "frame", "boxes", "size", "reason", "ms", "at_rest")
#: The dealer's presses the console offers (``manual`` without dice: a hand entry begins).
PRESSES = ("lock", "confirm", "void", "manual", "next_shooter")
def bet_rows(state: TableState) -> list[dict[str, Any]]:
    """Every stake on the layout (odds right after the bet they back), with its ``name``, its
    ``space`` id, and whether the rules engine would let it be taken down now (``removable``;
    else ``stays``: the engine's reason and paragraph, as for a come bet moved to its point)."""
    rows = []
    for b in rules.open_bets(state.rules):
        stays = _stays(state.rules, b)
        rows.append({"seat": b.seat, "bet": b.bet, "number": b.number, "on": b.on, "amount": b.amount,
                     "space": space_of(state.game, b.bet, b.number, b.on), "name": bet_name(b.bet, b.number, b.on),
                     "removable": stays is None, "stays": stays})
    return rows


def _stays(game: rules.GameState, bet: rules.OpenBet) -> dict[str, Any] | None:
    """Why the rules keep ``bet`` on the layout (``{reason, rule}``), or None when it may come down:
    the engine is asked, so the page offers no take-down the engine would refuse."""
    try:
        rules.apply(game, rules.Remove(bet.seat, bet.bet, bet.number, bet.on))
    except rules.BetRejected as no:
        return {"reason": no.reason, "rule": no.rule}
    return None


def actions(state: TableState) -> dict[str, dict[str, Any]]:
    """Each of the dealer's presses (:data:`PRESSES`) as the table would judge it now: ``{"can":
    true}``, or ``{"can": false, "why": reason}``. The table's own step is asked (it is pure), so
    the page offers what the table would take, refused at the same moments as the panel."""
    judged = {}
    for press in PRESSES:
        tried = step(state, {"event": press})
        judged[press] = {"can": True} if tried.accepted else {"can": False, "why": tried.effects[0].get("reason")}
    return judged


def settlement_line(effect: Mapping[str, Any], on: str | None = None) -> dict[str, Any]:
    """One ``settle`` effect as the dealer acts on it: ``pay`` the win (the stake comes back with
    it), ``take`` a lost stake, or ``return`` a push. ``on``: for odds, the flat bet they back
    (a ``settle`` effect does not say; :func:`pay_list` knows it from the line before)."""
    amount, paid, result = int(effect["amount"]), int(effect["paid"]), str(effect["result"])
    name = bet_name(str(effect["bet"]), effect.get("number"), on)
    seat = str(effect["seat"])
    line: dict[str, Any] = {"seat": seat, "bet": effect["bet"], "number": effect.get("number"), "amount": amount,
                            "result": result, "paid": paid, "pay": 0, "take": 0, "return": 0}
    if result == "win":
        line["pay"] = paid - amount
        line["text"] = f"seat {seat}: {name} wins, pay {dollars(paid - amount)}"
        line["note"] = f"the {dollars(amount)} stake comes back with it"
    elif result == "lose":
        line["take"] = amount
        line["text"] = f"seat {seat}: {name} loses, take {dollars(amount)}"
    else:
        line["return"] = amount
        line["text"] = f"seat {seat}: {name} pushes, return {dollars(amount)}"
    return line


def pay_list(settlements: Iterable[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """The settlements of one roll grouped by seat, in the order the engine settled them. Odds
    are settled right after the flat bet they back, and named after it ("come 6 odds")."""
    seats: dict[str, dict[str, Any]] = {}
    backed: dict[str, Mapping[str, Any]] = {}
    for effect in settlements:
        seat = str(effect["seat"])
        flat = backed.get(seat)
        on = None
        if effect["bet"] == "odds" and flat is not None and flat["bet"] in BACKED:
            on = str(flat["bet"])
        elif effect["bet"] != "odds":
            backed[seat] = effect
        line = settlement_line(effect, on)
        group = seats.setdefault(line["seat"], {"seat": line["seat"], "lines": [], "pay": 0, "take": 0, "return": 0})
        group["lines"].append(line)
        for key in ("pay", "take", "return"):
            group[key] += line[key]
    return list(seats.values())


def read_json(read: Mapping[str, Any] | None) -> dict[str, Any] | None:
    """What the pages draw of a ``read`` event (its frame, boxes and verdict), or None."""
    if read is None:
        return None
    return {key: read.get(key) for key in READ_FIELDS if key in read} | {"seq": read.get("seq")}


def roll_json(*, seq: int, number: int | None, ts: str | None, dice: Sequence[int], source: str, by: str | None,
              read: Mapping[str, Any] | None, settlements: Sequence[Mapping[str, Any]],
              actions: Sequence[Mapping[str, Any]] = ()) -> dict[str, Any]:
    """One settled roll: its dice, on what authority (``source``), the read behind it and its pay list.
    ``number`` is the roll's own (the table's first roll is 1: what the dealer calls it); ``seq``
    the journal row of the ``roll`` effect (the pay list's ticks are kept by it)."""
    return {
        "number": number,
        "seq": seq,
        "ts": ts,
        "dice": list(dice),
        "total": sum(dice),
        "source": source,
        "by": by,
        "read": read_json(read),
        "pay": pay_list(settlements),
        "users": sorted({str(a["user"]) for a in actions if a.get("user")}),
    }


def table_json(state: TableState, *, display: str, last_rolls: Sequence[Mapping[str, Any]],
               read: Mapping[str, Any] | None) -> dict[str, Any]:
    """``GET /api/state``: the table being dealt.

    ``display`` is the LED display's word (``open``, ``locked``, ``confirm``...); ``last_rolls``
    are the recent rolls, newest first (:func:`roll_json`); ``read`` the read the table holds for
    the roll under way (drawn while the dealer rules on it)."""
    view = view_for(state)
    entry = state.entry
    pending = state.pending
    bets = bet_rows(state)
    return {
        "game": state.game,
        "phase": state.phase.value,
        "display": display,
        "locked": state.phase is not Phase.BETTING,
        "point": view.point,
        "shooter": view.shooter,
        "roller": view.roller,
        "rolls": state.rolls,
        "dice": list(view.dice),
        "dice_count": state.dice_count,
        "history": [list(r) for r in state.history],
        "bets": bets,
        "staked": sum(b["amount"] for b in bets),
        "seats": list(state.rules.config.seats),
        "pending": None if pending is None or state.phase is not Phase.PENDING else {
            "status": pending.status, "dice": list(pending.dice), "confidence": pending.confidence,
            "frame": pending.frame, "reason": pending.reason,
            "confirmable": pending.confirmable(state.dice_count)},
        "read": read_json(read) if state.phase in (Phase.PENDING, Phase.MANUAL, Phase.LOCKED) else None,
        "entry": None if entry is None else {"values": list(entry.values), "index": entry.index,
                                             "count": entry.dice_count},
        "voided": state.voided,
        "actions": actions(state),
        "last_rolls": list(last_rolls),
    }


def board_json(state: TableState, last_rolls: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    """The public board: the game, the point (or Bang's dealer's point), the shooter, whether bets
    are open, and the roll history, newest first. No bets, no users, no frames."""
    view = view_for(state)
    return {
        "game": state.game,
        "point": view.point,
        "shooter": view.shooter,
        "roller": view.roller,
        "open": state.phase is Phase.BETTING,
        "rolls": state.rolls,
        "history": [{"dice": list(r["dice"]), "total": r["total"], "by": r.get("by")} for r in last_rolls],
    }
