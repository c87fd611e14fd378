"""The bench's target figures on a folder whose meta.jsonl says what each roll is."""
from __future__ import annotations

import json
from pathlib import Path

import cv2
import pytest

from controller.cli import main
from vision.benchtool.targets import broken_rules, eligible_right, target_figures, text
from vision.model import DiceRead, Die, ReadStatus


def die(value: int, x: float, y: float, **facts) -> dict:
    base = {"value": value, "box": [x, y, 40, 40], "tilt_deg": 0.0, "on_rail": False, "on_die": False,
            "touching": False, "visible": 1.0, "lamp_on_top": False, "top_px": 30.0, "in_frame": True,
            "eligible": True}
    return {**base, **facts}


def record(dice: list[dict], kind: str = "rail", settleable: bool = True) -> dict:
    return {"image": "a.jpg", "kind": kind, "size": [640, 480], "seed": 1, "settleable": settleable, "dice": dice}


def read(status: ReadStatus, *dice: tuple[int, float, float]) -> DiceRead:
    return DiceRead(status, tuple(Die(v, 0.9, (int(x), int(y), 40, 40)) for v, x, y in dice))


def test_eligible_dice_count_at_their_place_whatever_the_status():
    rec = record([die(3, 100, 100), die(5, 300, 200), die(2, 500, 300, eligible=False)])
    assert eligible_right(rec, read(ReadStatus.UNCERTAIN, (3, 102, 98), (6, 300, 200), (2, 500, 300))) == (2, 1)
    assert eligible_right(rec, read(ReadStatus.NO_READ)) == (2, 0)
    assert eligible_right(rec, read(ReadStatus.OK, (5, 100, 100), (3, 300, 200))) == (2, 0)  # swapped places


def test_each_refusal_rule_is_named():
    assert broken_rules(record([die(3, 100, 100), die(5, 300, 200)])) == ()
    assert broken_rules(record([die(3, 100, 100, tilt_deg=9.0), die(5, 300, 200)])) == ("cocked",)
    assert broken_rules(record([die(3, 100, 100, on_rail=True), die(5, 300, 200, touching=True)])) == (
        "cocked", "touching")
    assert broken_rules(record([die(3, 100, 100, in_frame=False)])) == ("cut_or_outside",)


def test_figures_are_grouped_by_kind_and_size():
    rolls = [
        (record([die(3, 100, 100), die(5, 300, 200)]), read(ReadStatus.OK, (3, 100, 100), (5, 300, 200)), 0, 2),
        (record([die(3, 100, 100), die(5, 300, 200)]), read(ReadStatus.OK, (3, 100, 100), (6, 300, 200)), 1, 2),
        (record([die(1, 100, 100, touching=True), die(1, 140, 100, touching=True)], settleable=False),
         read(ReadStatus.OK, (1, 100, 100), (1, 140, 100)), 0, 2),
        (record([die(4, 100, 100), die(4, 300, 100), die(2, 200, 300)], kind="cage"), read(ReadStatus.UNCERTAIN), 0, 3),
    ]
    figures = target_figures(rolls)
    rail = figures["groups"]["rail 640x480"]
    assert rail["eligible_dice"] == 4 + 2 and rail["settleable_rolls"] == 2
    assert rail["settleable_rolls_ok"] == 1.0
    assert rail["silent_misread_rolls"] == 1 and rail["silent_misread_dice"] == 1
    assert rail["refusals"]["touching"] == {"rolls": 1, "read_ok": 1}
    cage = figures["groups"]["cage 640x480"]
    assert cage["settleable_rolls_ok"] == 0.0 and cage["eligible_dice_right"] == 0.0
    assert rail["settleable_not_ok_reasons"] == {} and cage["settleable_not_ok_reasons"] == {"uncertain": 1}
    assert figures["all"]["rolls"] == 4


def test_why_settleable_rolls_were_not_ok_is_counted_by_kind_of_reason():
    """Which rule keeps settleable rolls from ``ok``: one count per kind of reason, wherever the die
    was; a roll not ``ok`` without a reason counts under its status; rolls not settleable do not count."""
    def refused(reason: str | None, status: ReadStatus = ReadStatus.UNCERTAIN, settleable: bool = True):
        return (record([die(3, 100, 100), die(5, 300, 200)], settleable=settleable),
                DiceRead(status, (), reason), 0, 2)

    figures = target_figures([
        refused("the die at (120, 80) may be leaning"), refused("the die at (300, 210) may be leaning"),
        refused("found 3 dice, expected 2", ReadStatus.NO_READ), refused(None, ReadStatus.NO_READ),
        refused("dice close together (touching?)", settleable=False),
        (record([die(3, 100, 100), die(5, 300, 200)]), read(ReadStatus.OK, (3, 100, 100), (5, 300, 200)), 0, 2),
    ])["all"]
    assert figures["settleable_not_ok_reasons"] == {
        "the die at (x, y) may be leaning": 2, "found N dice, expected M": 1, "no_read": 1}
    assert any("2 x the die at (x, y) may be leaning" in line for line in text({"groups": {}, "all": figures}))


def test_the_bench_reports_target_figures_when_the_folder_has_meta(tmp_path: Path, draw_table, capsys):
    (tmp_path / "images").mkdir()
    cv2.imwrite(str(tmp_path / "images" / "a.png"), draw_table([(200, 240, 3), (430, 250, 5)], seed=3))
    (tmp_path / "manifest.csv").write_text("image,values\nimages/a.png,3 5\n")
    assert main(["bench", str(tmp_path), "--json", "--report", str(tmp_path / "r")]) == 0
    assert "targets" not in json.loads(capsys.readouterr().out)
    rec = record([die(3, 180, 220), die(5, 410, 230)])
    rec["image"] = "a.png"
    (tmp_path / "meta.jsonl").write_text(json.dumps(rec) + "\n{cut short")
    assert main(["bench", str(tmp_path), "--json", "--report", str(tmp_path / "r")]) == 0
    targets = json.loads(capsys.readouterr().out)["targets"]["all"]
    assert targets["rolls"] == 1 and targets["eligible_dice"] == 2
    assert targets["eligible_dice_right"] == 1.0 and targets["settleable_rolls_ok"] == 1.0
    assert main(["bench", str(tmp_path), "--report", str(tmp_path / "r")]) == 0
    assert "eligible dice right 100.00% of 2" in capsys.readouterr().out


def test_the_bench_can_find_dice_on_a_small_frame_and_read_them_from_the_full_one(tmp_path: Path, draw_table,
                                                                                   capsys, monkeypatch):
    import vision.reader.read as read_module

    seen = []
    real = read_module.find_candidates

    def finding_recorded(frame, nets, size, policy, finding=None):
        seen.append(None if finding is None else finding.shape)
        return real(frame, nets, size, policy, finding)

    monkeypatch.setattr(read_module, "find_candidates", finding_recorded)
    (tmp_path / "images").mkdir()
    cv2.imwrite(str(tmp_path / "images" / "a.png"),
                draw_table([(400, 480, 3), (860, 500, 5)], side=80, size=(960, 1280), seed=3))
    (tmp_path / "manifest.csv").write_text("image,values\nimages/a.png,3 5\n")
    assert main(["bench", str(tmp_path), "--json", "--finding", "640x480", "--report", str(tmp_path / "r")]) == 0
    assert json.loads(capsys.readouterr().out)["per_die_accuracy"] == 1.0
    assert seen == [(480, 640, 3)]
    with pytest.raises(SystemExit) as refused:
        main(["bench", str(tmp_path), "--finding", "640", "--report", str(tmp_path / "r")])
    assert refused.value.code == 2
