"""A session's inputs: a bounded rate, and each ``Idempotency-Key`` done once: the first answer
again to a repeat, a wait for it while it is under way, a refusal for another request."""
from __future__ import annotations

import asyncio

import pytest

from controller.web.inputs import IdempotencyKeys, InputRate, KeyRefused


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def test_a_burst_is_taken_then_inputs_come_at_the_rate():
    clock = Clock()
    rate = InputRate(burst=3, per_second=2, clock=clock)
    assert [rate.take("s") for _ in range(3)] == [0, 0, 0]
    assert rate.take("s") == pytest.approx(0.5)
    assert rate.take("other") == 0  # each session its own
    clock.now += 0.5
    assert rate.take("s") == 0 and rate.take("s") > 0
    clock.now += 60
    assert [rate.take("s") for _ in range(4)][-1] > 0  # refilled to the burst, no further


def run(keys, session, key, body, work, **kwargs):
    return keys.once(session, key, body, work, **kwargs)


def test_a_key_sent_again_gets_the_first_answer_and_does_nothing_again():
    keys: IdempotencyKeys[str] = IdempotencyKeys()
    done: list[int] = []

    async def work() -> str:
        done.append(1)
        return f"answer {len(done)}"

    async def scenario() -> list[str]:
        first = await run(keys, "s", "k1", b"bet", work)
        second = await run(keys, "s", "k1", b"bet", work)
        other_session = await run(keys, "t", "k1", b"bet", work)  # keys are per session
        return [first, second, other_session]

    assert asyncio.run(scenario()) == ["answer 1", "answer 1", "answer 2"] and len(done) == 2


def test_a_key_sent_again_while_the_first_is_under_way_waits_for_its_answer():
    keys: IdempotencyKeys[str] = IdempotencyKeys()
    done: list[int] = []

    async def scenario() -> list[str]:
        release = asyncio.Event()

        async def work() -> str:
            done.append(1)
            await release.wait()
            return "the one answer"

        first = asyncio.ensure_future(run(keys, "s", "k", b"bet", work))
        await asyncio.sleep(0)
        second = asyncio.ensure_future(run(keys, "s", "k", b"bet", work))
        await asyncio.sleep(0.01)
        assert not second.done()
        release.set()
        return list(await asyncio.gather(first, second))

    assert asyncio.run(scenario()) == ["the one answer", "the one answer"] and len(done) == 1


def test_the_same_key_with_another_request_or_a_malformed_key_is_refused():
    keys: IdempotencyKeys[str] = IdempotencyKeys()

    async def work() -> str:
        return "done"

    async def scenario() -> None:
        await run(keys, "s", "k", b"bet A", work)
        with pytest.raises(KeyRefused, match="sent before with another request"):
            await run(keys, "s", "k", b"bet B", work)
        for bad in ("", "x" * 201, "with space", "caf\u00e9"):
            with pytest.raises(KeyRefused, match="1 to 200 visible ASCII"):
                await run(keys, "s", bad, b"bet A", work)

    asyncio.run(scenario())


def test_an_answer_not_kept_or_a_failure_lets_the_key_try_again():
    keys: IdempotencyKeys[str] = IdempotencyKeys()
    tries: list[int] = []

    async def not_taken() -> str:
        tries.append(1)
        return "503"

    async def failing() -> str:
        tries.append(1)
        raise RuntimeError("the journal failed")

    async def scenario() -> None:
        assert await run(keys, "s", "k", b"x", not_taken, keep=lambda a: a != "503") == "503"
        assert await run(keys, "s", "k", b"x", not_taken, keep=lambda a: a != "503") == "503"
        for _ in range(2):
            with pytest.raises(RuntimeError):
                await run(keys, "s", "f", b"x", failing)

    asyncio.run(scenario())
    assert len(tries) == 4


def test_keys_are_bounded_in_number_and_age():
    clock = Clock()
    keys: IdempotencyKeys[int] = IdempotencyKeys(per_session=3, max_age_s=60, clock=clock)
    count = 0

    async def work() -> int:
        nonlocal count
        count += 1
        return count

    async def scenario() -> list[int]:
        for key in ("a", "b", "c", "d"):  # "a" is forgotten, the oldest of four
            await run(keys, "s", key, b"x", work)
        again = [await run(keys, "s", key, b"x", work) for key in ("b", "a")]
        clock.now += 61
        again.append(await run(keys, "s", "b", b"x", work))  # too old: done again
        return again

    assert asyncio.run(scenario()) == [2, 5, 6]
