"""A report (:func:`controller.pit.report.report`) as a person reads it: aligned lines, money in
dollars, ratios in per cent. The table's ``journal report`` and the floor's ``floor report`` print
these same lines for the same rows."""
from __future__ import annotations

from typing import Any

from controller.pit.honesty import FACES
from messages import money

KINDS = {"hand_entry": "hand entry", "correction": "correction", "void": "void"}


def dollars(cents: Any) -> str:
    """Cents as every command writes money (:func:`messages.money.dollars`); None as ``-``."""
    return money.dollars(cents) if isinstance(cents, int) else "-"


def percent(value: Any) -> str:
    return "-" if value is None else f"{value * 100:.2f} %"


def _table(rows: list[list[str]]) -> list[str]:
    """Rows of cells, each column as wide as its widest cell (the first left, the others right)."""
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
    return ["  " + "  ".join(cell.ljust(w) if i == 0 else cell.rjust(w) for i, (cell, w) in enumerate(zip(row, widths)))
            for row in rows]


def _numbers(found: dict[str, Any]) -> list[str]:
    """The money lines of a range or a shift."""
    lines = [f"  rolls {found['rolls']}, decisions {found['decisions']}, handle {dollars(found['handle_cents'])}, "
             f"drop {dollars(found['drop_cents'])}, win {dollars(found['win_cents'])}, hold {percent(found['hold'])}"]
    if found["per_seat"]:
        lines += _table([["seat", "handle", "win", "hold", "drop"]] + [
            [seat, dollars(s["handle_cents"]), dollars(s["win_cents"]), percent(s["hold"]), dollars(s["drop_cents"])]
            for seat, s in found["per_seat"].items()])
    return lines


def report_lines(found: dict[str, Any]) -> list[str]:
    """The whole report: the range, the money by seat, payouts, overrides, the camera, the shifts
    and the dice."""
    lines = [f"table {found['table'] or '(not named)'} ({found['game'] or '?'}): rows {found['first_seq']} to "
             f"{found['last_seq']} ({found['rows']}), {found['since']} to {found['until']}"]
    lines += _numbers(found)
    if found["largest_payouts"]:
        lines.append("largest payouts:")
        lines += [f"  #{p['seq']} seat {p['seat']} {p['bet']}{'' if p['number'] is None else ' ' + str(p['number'])}: "
                  f"paid {dollars(p['paid'])} on {dollars(p['amount'])} ({dollars(p['payout_cents'])} won)"
                  f"{', frame ' + p['frame'] if p['frame'] else ''}" for p in found["largest_payouts"]]
    overrides = found["overrides"]
    counted = ", ".join(f"{KINDS[k]} {n}" for k in KINDS if (n := sum(1 for o in overrides if o["kind"] == k)))
    lines.append(f"overrides: {len(overrides)}" + (f" ({counted})" if counted else ""))
    lines += [f"  #{o['seq']} {KINDS.get(o['kind'], o['kind'])} by {o['user'] or 'the panel'}"
              f"{', frame ' + o['frame'] if o['frame'] else ''}" for o in overrides[-10:]]
    if len(overrides) > 10:
        lines.append(f"  (the last 10 of {len(overrides)}: --json lists them all)")
    camera = found["camera"]
    lines.append("camera: reads " + ", ".join(f"{k} {v}" for k, v in camera["reads"].items())
                 + "; rolls settled by " + ", ".join(f"{k} {v}" for k, v in camera["settled_by"].items())
                 + f" (camera alone {percent(camera['read_rate'])})")
    for span in found["shifts"]:
        lines += shift_lines(span)
    lines += dice_lines(found["dice"])
    return lines


def shift_lines(span: dict[str, Any]) -> list[str]:
    """One shift: who opened and closed it, its bank's arithmetic, its numbers."""
    opened, closed = span["opened"], span["closed"]
    lines = [f"shift opened #{opened['seq']} {opened['ts']} by {opened['by'] or '?'}"
             + (f", closed #{closed['seq']} {closed['ts']} by {closed['by'] or '?'}" if closed else " (open)")]
    lines.append(f"  opening {dollars(span['opening_cents'])} + fills {dollars(span['fills_cents'])} - credits "
                 f"{dollars(span['credits_cents'])} + win {dollars(span['win_cents'])} - chips sold "
                 f"{dollars(span['drop_cents'])} = expected {dollars(span['expected_cents'])}"
                 + (f"; counted {dollars(span['closing_cents'])}, variance {dollars(span['variance_cents'])}"
                    if span["closing_cents"] is not None else ""))
    waiting = [s for s in span["slips"] if s["countersigned_by"] is None]
    if waiting:
        lines.append("  waiting for a countersign: " + ", ".join(
            f"{s['kind']} {s['slip']} {dollars(s['amount'])} by {s['user']}" for s in waiting))
    return lines + _numbers(span)


def dice_lines(dice: dict[str, Any]) -> list[str]:
    """The dice's honesty over the range, the last shift and the dice set in play."""
    lines = []
    for scope, name in (("range", "these rows"), ("shift", "the last shift"), ("set", "the dice set")):
        watch = dice.get(scope)
        if watch is None:
            continue
        title = f"dice over {name}" + (f" {watch['set']!r}" if watch.get("set") else "")
        if not watch["rolls"]:
            lines.append(f"{title}: no roll")
            continue
        faces = " ".join(f"{face}:{count}" for face, count in zip(FACES, watch["faces"]))
        cusum = watch["cusum"]
        alarm = watch["alarm"]
        lines.append(f"{title}: {watch['rolls']} rolls, faces {faces} (expected {watch['expected']:.1f} each); "
                     f"chi-square {watch['chi_square']:.2f} ({watch['df']} df), p = {watch['p_value']:.4f}")
        lines.append(f"  sequential test: peak {cusum['peak']:.2f} (face {cusum['face']}) of {cusum['threshold']:.2f}: "
                     + (f"ALARM at row {alarm['seq']}, face {alarm['face']} after {alarm['rolls']} rolls: the dice or "
                        "the camera look biased" if alarm else "no alarm"))
    return lines
