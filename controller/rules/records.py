"""What the engine hands back: settlements, returned stakes, and rejections.

These are the engine's only outputs besides the new state. Their JSON forms
are the `dicetable replay` lines and the journal's effect records, so their
fields are a contract (docs/events.md).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal, Mapping

Result = Literal["win", "lose", "push"]


@dataclass(frozen=True, slots=True)
class Settlement:
    """One bet decided by a roll; it has left the layout.

    ``paid`` is what goes back to the player in cents, the stake included:
    0 on a loss, the stake on a push, stake plus win on a win.
    """

    seat: str
    bet: str
    number: int | None
    amount: int
    result: Result
    paid: int

    def to_json(self) -> dict[str, Any]:
        return {
            "event": "settle",
            "seat": self.seat,
            "bet": self.bet,
            "number": self.number,
            "amount": self.amount,
            "result": self.result,
            "paid": self.paid,
        }


@dataclass(frozen=True, slots=True)
class Returned:
    """A stake handed back because the player took the bet down (a ``remove`` event)."""

    seat: str
    bet: str
    number: int | None
    amount: int

    def to_json(self) -> dict[str, Any]:
        return {
            "event": "returned",
            "seat": self.seat,
            "bet": self.bet,
            "number": self.number,
            "amount": self.amount,
        }


Effect = Settlement | Returned


#: The fields a ``rejected`` line writes itself; an input's fields of these names are not copied.
_OWN_FIELDS = ("event", "refused", "reason", "rule")


class BetRejected(Exception):
    """An event the rules refuse; the state it was applied to is unchanged.

    ``rule`` cites the paragraph that refuses it (e.g. ``"§4620.3(e)(4)"``), or
    is None when the event is not a game event at all (malformed input).
    """

    def __init__(self, reason: str, rule: str | None = None) -> None:
        super().__init__(reason)
        self.reason = reason
        self.rule = rule

    def to_json(self, event: Any = None) -> dict[str, Any]:
        """The ``rejected`` line: the refused event's fields, then reason and rule.

        ``event`` may be a parsed event (anything with ``to_json()``), the raw
        mapping, a raw input line (kept under ``"line"``) or None. The refused
        event's own kind is kept under ``"refused"`` because ``"event"`` now
        says ``"rejected"``. An input's own fields named like the line's
        (``refused``, ``reason``, ``rule``) are left out: the line must come
        out the same however the input's fields were ordered, or a replay of
        the journal (which stores them sorted) would not match it. The input
        row before it keeps them.
        """
        out: dict[str, Any] = {"event": "rejected"}
        if hasattr(event, "to_json"):
            event = event.to_json()
        if isinstance(event, Mapping):
            for key, value in event.items():
                if key == "event":
                    out["refused"] = value
                elif key not in _OWN_FIELDS:
                    out[key] = value
        elif event is not None:
            out["line"] = str(event)
        out["reason"] = self.reason
        out["rule"] = self.rule
        return out

    def __repr__(self) -> str:
        return f"BetRejected({self.reason!r}, {self.rule!r})"


class MalformedEvent(BetRejected):
    """Input that is not a valid event (unknown kind, missing or mistyped field)."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason, None)
