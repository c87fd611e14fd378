"""The reader's target figures, on a folder whose ``meta.jsonl`` says what each roll is.

A rendered folder knows more of each die than its label: how far it is tilted, whether it rests
on the rail or on another die, touches another, is cut by the frame, how much of it is hidden,
whether a lamp is mirrored on its top face, and its top face's size in pixels. From that,
``eligible`` (a die a reader must read) and ``settleable`` (a roll a reader should settle) are
given per die and per roll. The figures here are those the targets are stated in:

- **eligible dice right**: of the eligible dice, the share whose value the read reports at that
  die, whatever the read's status (an ``uncertain`` read's values are shown to the dealer);
- **settleable rolls ok**: of the settleable rolls, the share read ``ok``;
- **silent misreads**: ``ok`` reads with a wrong, missing or extra die (rolls and dice);
- **refusals**: rolls that must never be ``ok`` (a cocked die: tilted more than
  ``COCKED_DEG`` or resting on the rail or on another die; dice touching; a die cut by the
  frame's edge or outside the landing area) and how many of each were ``ok``;
- **why settleable rolls were not ok**: the reasons the reader gave, counted by kind, which
  says which of its rules keeps the second figure down.

Figures are given per kind of scene and frame size (``rail 640x480``...), and over all.
"""
from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from vision.benchtool.score import tally_reasons
from vision.model import DiceRead, ReadStatus

META_FILE = "meta.jsonl"
#: A die tilted more than this (degrees) is cocked: no face is up.
COCKED_DEG = 8.0
#: The refusal rules, in the order reported.
RULES = ("cocked", "touching", "cut_or_outside")


def load_meta(folder: Path) -> dict[Path, dict[str, Any]]:
    """The records of ``folder/meta.jsonl`` by the resolved path of their image (under
    ``images/`` or beside the file); empty when the folder has none. A line cut short by an
    interrupted writer is skipped."""
    path = folder / META_FILE
    if not path.is_file():
        return {}
    out = {}
    for line in path.read_text(encoding="utf-8").splitlines():
        try:
            record = json.loads(line)
        except json.JSONDecodeError:
            continue
        if not isinstance(record, dict) or "image" not in record:
            continue
        name = str(record["image"])
        image = folder / "images" / name if (folder / "images" / name).exists() else folder / name
        out[image.resolve()] = record
    return out


def half_in_view(die: dict[str, Any]) -> bool:
    """Whether at least half of a rendered die is unhidden and it lies inside the frame: enough of
    it to show a side face, so the leaning check may be trained and measured on it."""
    return bool(die.get("visible", 1.0) >= 0.5 and die.get("in_frame", True))


def cocked(die: dict[str, Any]) -> bool:
    """Whether a rendered die has no face up: tilted more than ``COCKED_DEG``, or resting on the
    rail or on another die."""
    return bool(die.get("tilt_deg", 0.0) > COCKED_DEG or die.get("on_rail") or die.get("on_die"))


def broken_rules(record: dict[str, Any]) -> tuple[str, ...]:
    """The refusal rules a roll falls under (none for a roll that may be ``ok``)."""
    dice = record.get("dice", [])
    found = []
    if any(cocked(d) for d in dice):
        found.append("cocked")
    if any(d.get("touching") for d in dice):
        found.append("touching")
    if any(not d.get("in_frame", True) or d.get("outside", False) for d in dice):
        found.append("cut_or_outside")
    return tuple(found)


def _centre(box: Iterable[float]) -> tuple[float, float, float]:
    x, y, w, h = box
    return x + w / 2, y + h / 2, max(w, h)


def eligible_right(record: dict[str, Any], read: DiceRead) -> tuple[int, int]:
    """How many of the roll's eligible dice there are, and how many of them the read reports
    with their value at their place (centre within half a die), whatever its status."""
    eligible = [d for d in record.get("dice", []) if d.get("eligible")]
    reads = [(*_centre(d.box), d.value) for d in read.dice]
    options = []
    for li, d in enumerate(eligible):
        lx, ly, ls = _centre(d["box"])
        for ri, (rx, ry, rs, _) in enumerate(reads):
            dist = ((lx - rx) ** 2 + (ly - ry) ** 2) ** 0.5
            if dist <= 0.5 * max(ls, rs):
                options.append((dist, li, ri))
    used_l: set[int] = set()
    used_r: set[int] = set()
    right = 0
    for _, li, ri in sorted(options):
        if li in used_l or ri in used_r:
            continue
        used_l.add(li)
        used_r.add(ri)
        right += reads[ri][3] == eligible[li]["value"]
    return len(eligible), right


@dataclass
class Tally:
    """The target figures of one group of rolls, as counts."""

    rolls: int = 0
    eligible_dice: int = 0
    eligible_right: int = 0
    settleable: int = 0
    settleable_ok: int = 0
    silent_rolls: int = 0
    silent_dice: int = 0
    dice: int = 0
    refusals: dict[str, list[int]] = field(default_factory=lambda: {rule: [0, 0] for rule in RULES})
    #: why each settleable roll not read ``ok`` was not: the read's reason, else its status
    not_ok_reasons: list[str] = field(default_factory=list)

    def add(self, record: dict[str, Any], read: DiceRead, silent_dice: int, labelled: int) -> None:
        ok = read.status is ReadStatus.OK
        self.rolls += 1
        self.dice += labelled
        n, right = eligible_right(record, read)
        self.eligible_dice += n
        self.eligible_right += right
        if record.get("settleable"):
            self.settleable += 1
            self.settleable_ok += ok
            if not ok:
                self.not_ok_reasons.append(read.reason or read.status.value)
        self.silent_rolls += silent_dice > 0
        self.silent_dice += silent_dice
        for rule in broken_rules(record):
            self.refusals[rule][0] += 1
            self.refusals[rule][1] += ok

    def to_json(self) -> dict[str, Any]:
        def frac(a: int, b: int) -> float | None:
            return a / b if b else None

        return {
            "rolls": self.rolls,
            "dice": self.dice,
            "eligible_dice": self.eligible_dice,
            "eligible_dice_right": frac(self.eligible_right, self.eligible_dice),
            "settleable_rolls": self.settleable,
            "settleable_rolls_ok": frac(self.settleable_ok, self.settleable),
            "silent_misread_rolls": self.silent_rolls,
            "silent_misread_dice": self.silent_dice,
            "silent_misread_die_rate": frac(self.silent_dice, self.dice),
            "refusals": {rule: {"rolls": n, "read_ok": ok} for rule, (n, ok) in self.refusals.items()},
            "settleable_not_ok_reasons": tally_reasons(self.not_ok_reasons),
        }


def group_of(record: dict[str, Any]) -> str:
    """``kind WxH`` of a record (``rail 640x480``)."""
    size = record.get("size") or ["?", "?"]
    return f"{record.get('kind', '?')} {size[0]}x{size[1]}"


def target_figures(rolls: Iterable[tuple[dict[str, Any], DiceRead, int, int]]) -> dict[str, Any]:
    """The figures of ``(record, read, silently misread dice, labelled dice)`` per group and over all."""
    groups: dict[str, Tally] = {}
    total = Tally()
    for record, read, silent, labelled in rolls:
        groups.setdefault(group_of(record), Tally()).add(record, read, silent, labelled)
        total.add(record, read, silent, labelled)
    return {"groups": {name: t.to_json() for name, t in sorted(groups.items())}, "all": total.to_json()}


def text(figures: dict[str, Any]) -> list[str]:
    """The target figures as report lines."""
    def pct(v: float | None) -> str:
        return "-" if v is None else f"{100 * v:.2f}%"

    lines = ["target figures (meta.jsonl):"]
    for name, f in [*figures["groups"].items(), ("all", figures["all"])]:
        refused = ", ".join(f"{rule} {r['read_ok']} ok of {r['rolls']}" for rule, r in f["refusals"].items())
        lines.append(f"  {name}: eligible dice right {pct(f['eligible_dice_right'])} of {f['eligible_dice']}; "
                     f"settleable rolls ok {pct(f['settleable_rolls_ok'])} of {f['settleable_rolls']}; "
                     f"silent misreads {f['silent_misread_rolls']} rolls, {f['silent_misread_dice']} of "
                     f"{f['dice']} dice; never ok: {refused}")
        if f["settleable_not_ok_reasons"]:
            lines.append("    settleable rolls not ok: " + "; ".join(
                f"{n} x {reason}" for reason, n in f["settleable_not_ok_reasons"].items()))
    return lines
