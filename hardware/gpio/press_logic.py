"""Debounce and long press as pure logic over (time, level) samples.

Why not gpiozero's ``bounce_time``: its mock pins ignore it, so it cannot be
tested, and it only suppresses edges for a while after the first one, so a
single spike of noise on a long cable still counts as a press. Here a level
counts only once it has *held* for ``settle_s`` (stable-time debounce), and the
classification into short and long presses runs on the debounced level.

Nothing here reads a clock or a pin: callers pass the time of every sample and
call ``poll(t)`` when ``deadline`` has passed (``hardware.gpio.buttons`` does that
with a thread; tests do it with a fake clock).
"""
from __future__ import annotations

from enum import Enum


class Debouncer:
    """Stable-time debounce of one binary input.

    ``sample(t, level)`` records a raw level seen at time ``t``; the debounced
    level changes to it once it has been seen without interruption for
    ``settle_s``. The starting level is taken as already stable, so a button held
    down while the program starts does not produce a press.
    """

    def __init__(self, settle_s: float, initial: bool = False) -> None:
        if settle_s < 0:
            raise ValueError(f"settle time must be >= 0, not {settle_s}")
        self._settle_s = settle_s
        self._stable = initial
        self._candidate = initial
        self._candidate_since = 0.0
        self.changed_at: float | None = None

    @property
    def level(self) -> bool:
        """The debounced level."""
        return self._stable

    @property
    def deadline(self) -> float | None:
        """When a pending change will be accepted if no other edge comes first (None: nothing pending)."""
        if self._candidate == self._stable:
            return None
        return self._candidate_since + self._settle_s

    def sample(self, t: float, level: bool) -> bool | None:
        """Record the raw ``level`` at time ``t``; return the new debounced level if it changed now.

        A change that had already held ``settle_s`` before this edge is accepted first, even if
        nobody polled in between (a late poll must not lose a press)."""
        settled = self.poll(t)
        if level != self._candidate:
            self._candidate = level
            self._candidate_since = t
        return settled if settled is not None else self.poll(t)

    def poll(self, t: float) -> bool | None:
        """Return the new debounced level if a pending change has held long enough by ``t``.

        The change is dated ``changed_at``: when it had held ``settle_s``, even if
        ``poll`` comes later.
        """
        deadline = self.deadline
        if deadline is not None and t >= deadline:
            self._stable = self._candidate
            self.changed_at = deadline
            return self._stable
        return None


class Press(Enum):
    """What one push of a button turned out to be."""

    SHORT = "short"
    LONG = "long"
    #: held too long for a push and let go too soon for a hold: neither (see PressClassifier);
    #: the buttons report it as ``ButtonEvent.UNCLEAR``, which the table refuses
    UNCLEAR = "unclear"
    #: a push too soon after the last one of the same button (see RepeatGuard): part of that
    #: push, so it means nothing; reported so that the buttons can log it
    REPEATED = "repeated"


#: A button with a long meaning: a release after this share of the hold time is no push.
SHORT_SHARE = 0.5


class PressClassifier:
    """Tells short presses from long ones on a debounced button level.

    A button without a long meaning (``has_long=False``) reports ``SHORT`` the
    moment it goes down, which is what a dealer expects of "lock" or "void". A
    button with one reports ``LONG`` as soon as it has been held ``hold_s`` (the
    dealer sees the effect without letting go), ``SHORT`` on a release within
    ``SHORT_SHARE`` of that, and ``UNCLEAR`` on a release in between: CONFIRM
    pushed settles an unsure read and CONFIRM held corrects it, so a hold let go
    a moment too soon must not settle the read the dealer meant to correct. A
    long press never also counts as a short one.
    """

    def __init__(self, hold_s: float, has_long: bool) -> None:
        if hold_s <= 0:
            raise ValueError(f"hold time must be > 0, not {hold_s}")
        self._hold_s = hold_s
        self._has_long = has_long
        self._pressed_at: float | None = None
        self._long_reported = False

    @property
    def deadline(self) -> float | None:
        """When a press still held becomes a long press (None: no long press pending)."""
        if not self._has_long or self._pressed_at is None or self._long_reported:
            return None
        return self._pressed_at + self._hold_s

    def press(self, t: float) -> list[Press]:
        """The debounced level went down (pressed) at ``t``."""
        self._pressed_at = t
        self._long_reported = False
        return [] if self._has_long else [Press.SHORT]

    def release(self, t: float) -> list[Press]:
        """The debounced level went up (released) at ``t``."""
        found = self.poll(t)
        if self._has_long and self._pressed_at is not None and not self._long_reported:
            pushed = t - self._pressed_at <= SHORT_SHARE * self._hold_s
            found.append(Press.SHORT if pushed else Press.UNCLEAR)
        self._pressed_at = None
        return found

    def poll(self, t: float) -> list[Press]:
        """Report a long press once the button has been held long enough by ``t``."""
        deadline = self.deadline
        if deadline is not None and t >= deadline:
            self._long_reported = True
            return [Press.LONG]
        return []


class RepeatGuard:
    """Takes a second push of one button that comes within ``hold_off_s`` of the last push it let
    through as part of that push: a double tap, or a contact that bounces for longer than the debounce.

    Why: CONFIRM, VOID and NEXT SHOOTER each move the table one step, and a doubled push moved it
    two. In a hand entry a second CONFIRM accepted the next die at its starting value and settled
    the roll before the dealer had set it; a second VOID after a voided read unlocked the bets with
    the dice still in view; a second NEXT SHOOTER skipped a player. The time is measured from the
    last push let through, so pushes a dealer spaces out always count. ``hold_off_s`` 0 lets every
    push through.
    """

    def __init__(self, hold_off_s: float) -> None:
        if hold_off_s < 0:
            raise ValueError(f"hold-off time must be >= 0, not {hold_off_s}")
        self._hold_off_s = hold_off_s
        self._last: float | None = None

    def admit(self, t: float) -> bool:
        """Whether a push recognised at ``t`` counts (and, if it does, the hold-off starts again)."""
        if self._last is not None and t - self._last < self._hold_off_s:
            return False
        self._last = t
        return True


class ButtonLogic:
    """Debounce, then press classification, then (``repeat_s`` > 0) the double-push hold-off on
    short presses, for one button.

    ``sample`` and ``poll`` return the presses recognised at that moment, in order. The hold-off
    dates each push by its debounced edge, and reports a push it holds off as ``REPEATED``.
    """

    def __init__(self, settle_s: float, hold_s: float, has_long: bool, pressed: bool = False,
                 repeat_s: float = 0.0) -> None:
        self._debouncer = Debouncer(settle_s, initial=pressed)
        self._classifier = PressClassifier(hold_s, has_long)
        self._guard = RepeatGuard(repeat_s)

    @property
    def pressed(self) -> bool:
        """The debounced state of the button."""
        return self._debouncer.level

    @property
    def deadline(self) -> float | None:
        """The next time ``poll`` may have something to report (None: only a new sample can)."""
        pending = [d for d in (self._debouncer.deadline, self._classifier.deadline) if d is not None]
        return min(pending, default=None)

    def sample(self, t: float, pressed: bool) -> list[Press]:
        """Record the raw state of the button (True = pushed) seen at ``t``."""
        found = self.poll(t)  # what had come due before this edge, however late the last poll was
        return found + self._after_debounce(self._debouncer.sample(t, pressed))

    def poll(self, t: float) -> list[Press]:
        """Advance the logic to time ``t`` with no new sample, taking what came due in the
        order it came due: a release that settled before the hold time ends a short press,
        even when this poll comes after the hold time."""
        found: list[Press] = []
        while True:
            due = [(d, order) for order, d in enumerate((self._debouncer.deadline, self._classifier.deadline))
                   if d is not None and d <= t]
            if not due:
                return found
            when, order = min(due)
            if order == 0:
                found += self._after_debounce(self._debouncer.poll(when))
            else:
                found += self._classifier.poll(when)

    def _after_debounce(self, change: bool | None) -> list[Press]:
        if change is None:
            return []
        at = self._debouncer.changed_at
        assert at is not None
        found = self._classifier.press(at) if change else self._classifier.release(at)
        return [Press.REPEATED if press is Press.SHORT and not self._guard.admit(at) else press for press in found]
