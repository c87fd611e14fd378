"""The simulated dealer presses mock pins through the real button path; build_devices wires it all."""
from __future__ import annotations

import pytest

from controller.table.manual_entry import EntryStatus, ManualEntry
from messages.devices import ButtonEvent as E
from messages.devices import LightsState
from hardware.gpio import (
    GpioSettings,
    ManualClock,
    PinMap,
    ScriptError,
    SimulatedDealer,
    StopReason,
    build_devices,
)


@pytest.fixture
def table(factory):
    got: list[E] = []
    devices = build_devices(
        PinMap(), GpioSettings(), pin_factory=factory, sink=got.append, clock=ManualClock()
    )
    yield devices, SimulatedDealer(devices.buttons, factory), got
    devices.close()


def test_a_script_gives_its_events_in_order_without_wall_clock_time(table):
    devices, dealer, got = table
    before = devices.buttons.clock()
    dealer.run(["lock", "bouncy confirm", "void", "next_shooter", "hold confirm", "wait 2"])
    assert got == [E.LOCK, E.CONFIRM, E.VOID, E.NEXT_SHOOTER, E.MANUAL]
    assert devices.buttons.clock() - before > 3.5  # the long press and the wait happened on the manual clock


def test_the_manual_step_enters_dice_that_manual_entry_reads_back(table):
    devices, dealer, got = table
    dealer.run(["manual 3 5 6"])
    assert got[0] is E.MANUAL
    entry = ManualEntry.start(3)
    for event in got[1:]:
        entry = entry.apply(event)
    assert entry.status is EntryStatus.DONE
    assert entry.dice == (3, 5, 6)


def test_entering_dice_from_a_suggestion_takes_fewer_presses(table):
    devices, dealer, got = table
    dealer.enter_dice([2, 6], suggestion=[2, 5])
    assert got == [E.MANUAL, E.CONFIRM, E.LOCK, E.CONFIRM]
    entry = ManualEntry.start(2, suggestion=[2, 5])
    for event in got[1:]:
        entry = entry.apply(event)
    assert entry.dice == (2, 6)


@pytest.mark.parametrize("step", ["dance", "hold", "manual 7", "manual x", "wait soon", "push lock now"])
def test_a_bad_step_is_refused_by_name(table, step):
    _, dealer, got = table
    with pytest.raises(ScriptError) as error:
        dealer.step(step)
    assert step.split()[0] in str(error.value)
    assert got == []


@pytest.mark.parametrize("debounce_s, long_press_s", [
    (0.2, 1.0),  # a longer debounce
    (0.05, 0.2),  # the shortest hold allowed (4 x debounce): a push must still end within half of it
])
def test_every_press_is_recognised_at_other_timing_settings(factory, debounce_s, long_press_s):
    devices = build_devices(
        settings=GpioSettings(debounce_s=debounce_s, long_press_s=long_press_s), pin_factory=factory,
        clock=ManualClock(),
    )
    SimulatedDealer(devices.buttons, factory).run(["lock", "confirm", "confirm", "hold confirm"])
    found = [devices.buttons.events.get_nowait() for _ in range(4)]
    assert found == [E.LOCK, E.CONFIRM, E.CONFIRM, E.MANUAL]
    assert devices.buttons.events.empty()
    devices.close()


def test_build_devices_uses_the_pin_map_and_settings(factory):
    pins = PinMap.from_dict({"cage_motor": 16, "light_no_more_bets": 20, "button_lock": 21})
    stops = []
    devices = build_devices(
        pins, GpioSettings(cage_max_run_s=0.1), pin_factory=factory, clock=ManualClock(),
        on_motor_stop=stops.append,
    )
    devices.lights.show(LightsState.craps(bets_locked=True))
    assert factory.pin(20).state == 1
    devices.motor.spin(5)
    assert factory.pin(16).state == 1
    assert devices.motor.wait_stopped(timeout=2.0)
    assert factory.pin(16).state == 0
    assert stops[0].stop_reason is StopReason.MAX_RUN
    SimulatedDealer(devices.buttons, factory).press("lock")
    assert devices.buttons.events.get_nowait() is E.LOCK
    devices.close()
    assert factory.pin(20).state == 0


def test_build_devices_with_the_real_clock_runs_the_button_thread(factory):
    devices = build_devices(settings=GpioSettings(debounce_s=0.01, long_press_s=0.5), pin_factory=factory)
    try:
        dealer = SimulatedDealer(devices.buttons, factory)
        dealer.press_s = dealer.gap_s = 0.03
        dealer.press("void")
        assert devices.buttons.events.get(timeout=2.0) is E.VOID
    finally:
        devices.close()


def test_a_pin_already_taken_leaves_nothing_claimed(factory):
    from gpiozero import LED
    from gpiozero.exc import GPIOPinInUse

    blocker = LED(PinMap().button_void, pin_factory=factory)
    with pytest.raises(GPIOPinInUse):
        build_devices(pin_factory=factory, clock=ManualClock())
    blocker.close()
    build_devices(pin_factory=factory, clock=ManualClock()).close()
