"""Entering 2 or 3 dice by hand with the buttons: LOCK steps, CONFIRM accepts, VOID cancels."""
from __future__ import annotations

import pytest

from controller.table.manual_entry import EntryStatus, ManualEntry, ManualEntryError
from messages.devices import ButtonEvent as E


def play(entry: ManualEntry, events) -> ManualEntry:
    for event in events:
        entry = entry.apply(event)
    return entry


def test_two_dice_from_scratch():
    entry = ManualEntry.start(2)
    assert entry.values == (1,)
    entry = play(entry, [E.LOCK, E.LOCK, E.CONFIRM])  # 3
    assert (entry.index, entry.values) == (1, (3, 1))
    entry = play(entry, [E.LOCK] * 4 + [E.CONFIRM])  # 5
    assert entry.status is EntryStatus.DONE
    assert entry.dice == (3, 5)
    assert entry.values == (3, 5)


def test_three_dice_stepping_wraps_from_six_to_one():
    entry = play(ManualEntry.start(3), [E.LOCK] * 6 + [E.CONFIRM] + [E.LOCK] * 5 + [E.CONFIRM] + [E.CONFIRM])
    assert entry.dice == (1, 6, 1)


def test_starting_from_the_cameras_suggestion_needs_only_the_corrections():
    entry = ManualEntry.start(3, suggestion=[4, 2, 6])
    assert entry.values == (4,)
    entry = play(entry, [E.CONFIRM, E.LOCK, E.CONFIRM, E.CONFIRM])
    assert entry.dice == (4, 3, 6)


def test_void_cancels_and_then_nothing_more_is_accepted():
    entry = play(ManualEntry.start(2), [E.LOCK, E.CONFIRM, E.VOID])
    assert entry.status is EntryStatus.CANCELLED
    with pytest.raises(ManualEntryError):
        _ = entry.dice
    with pytest.raises(ManualEntryError):
        entry.apply(E.CONFIRM)


@pytest.mark.parametrize("event", [E.NEXT_SHOOTER, E.MANUAL])
def test_buttons_without_meaning_here_are_refused_and_change_nothing(event):
    entry = play(ManualEntry.start(2), [E.LOCK])
    with pytest.raises(ManualEntryError) as error:
        entry.apply(event)
    assert event.value in str(error.value)
    assert entry.values == (2,)


def test_a_finished_entry_refuses_more_presses():
    entry = play(ManualEntry.start(2), [E.CONFIRM, E.CONFIRM])
    with pytest.raises(ManualEntryError):
        entry.apply(E.LOCK)
    assert entry.dice == (1, 1)


@pytest.mark.parametrize(("count", "suggestion"), [(0, None), (2, [1, 7]), (3, [1, 2]), (2, [0, 3])])
def test_a_bad_start_is_refused(count, suggestion):
    with pytest.raises(ValueError):
        ManualEntry.start(count, suggestion)
