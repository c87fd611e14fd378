"""The publisher's own timing, with a clock the test turns (the broker's part is in test_floor_broker)."""
from __future__ import annotations

from controller.floor.broker import BrokerSettings
from controller.floor.publisher import STATUS_HEARTBEAT_S, FloorPublisher
from controller.floor.topics import status_topic


class Recorder:
    """A client that only records what it is asked to publish."""

    def __init__(self) -> None:
        self.published: list[tuple[str, bytes]] = []

    def publish(self, topic, payload, qos=0, retain=False):
        self.published.append((topic, payload))


def test_the_status_goes_when_it_changes_and_every_minute_when_it_does_not(tmp_path):
    now = [100.0]
    status = {"phase": "betting"}
    publisher = FloorPublisher(tmp_path, "craps-1", BrokerSettings("127.0.0.1", 1), status=lambda: dict(status),
                               clock=lambda: now[0])
    client = publisher._client = Recorder()
    publisher._journal_id, publisher._head = "ab" * 32, (1, "cd" * 32)

    def sent() -> int:
        return sum(1 for topic, _ in client.published if topic == status_topic("craps-1"))

    publisher._publish_status()
    assert sent() == 1
    now[0] += 1
    publisher._publish_status()
    assert sent() == 1  # nothing changed, heard a second ago
    status["phase"] = "locked"
    publisher._publish_status()
    assert sent() == 2  # a change goes at once
    status["phase"] = "betting"
    now[0] += 0.1
    publisher._publish_status()
    assert sent() == 2  # a second change this soon waits for the next round
    now[0] += 1
    publisher._publish_status()
    assert sent() == 3
    now[0] += STATUS_HEARTBEAT_S + 1
    publisher._publish_status()
    assert sent() == 4  # the heartbeat of a quiet table
