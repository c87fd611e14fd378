"""The floor says it listens only once the broker has acknowledged its subscriptions: a message
that is not retained, sent between the connection and the acknowledgement, would pass it by."""
from __future__ import annotations

import logging
from types import SimpleNamespace
from typing import Any

from controller.floor.broker import parse_broker
from controller.floor.service import FloorService
from controller.floor.topics import FLOOR_SUBSCRIPTIONS


class QuietClient:
    """A paho client that connects nowhere: the test plays the broker's answers through its callbacks."""

    def __init__(self) -> None:
        self.subscribed: list[Any] = []
        self.on_connect = self.on_disconnect = self.on_message = self.on_subscribe = self.on_connect_fail = None

    def subscribe(self, topics: Any) -> tuple[int, int]:
        self.subscribed.append(topics)
        return 0, 41 + len(self.subscribed)

    def publish(self, *args: Any, **kwargs: Any) -> Any:
        return SimpleNamespace(rc=0, mid=0, wait_for_publish=lambda *a: None, is_published=lambda: True)

    def __getattr__(self, name: str) -> Any:  # connect_async, loop_start, disconnect, ...: nothing to do
        return lambda *args, **kwargs: None


OK = SimpleNamespace(is_failure=False)
REFUSED = SimpleNamespace(is_failure=True)


def _floor(tmp_path) -> tuple[FloorService, QuietClient]:
    client = QuietClient()
    floor = FloorService(tmp_path / "floor.sqlite3", parse_broker("mqtt://floor:pw@127.0.0.1:1883"),
                         client_factory=lambda *args: client).start()
    return floor, client


def test_listening_waits_for_the_acknowledgement_of_every_subscription(tmp_path):
    floor, client = _floor(tmp_path)
    try:
        client.on_connect(client, None, None, OK, None)
        assert floor.wait_connected(0) and not floor.wait_listening(0)
        assert [topic for topic, qos in client.subscribed[0]] == list(FLOOR_SUBSCRIPTIONS)
        client.on_subscribe(client, None, 1, [OK] * len(FLOOR_SUBSCRIPTIONS), None)  # another request's
        assert not floor.wait_listening(0)
        client.on_subscribe(client, None, 42, [OK] * len(FLOOR_SUBSCRIPTIONS), None)
        assert floor.wait_listening(0)
        client.on_disconnect(client, None, None, OK, None)
        assert not floor.wait_listening(0)  # a new connection subscribes again
    finally:
        floor.stop()


def test_subscriptions_the_broker_refuses_are_said_and_never_listened_on(tmp_path, caplog):
    caplog.set_level(logging.ERROR)
    floor, client = _floor(tmp_path)
    try:
        client.on_connect(client, None, None, OK, None)
        client.on_subscribe(client, None, 42, [OK, REFUSED, OK], None)
        assert not floor.wait_listening(0)
        assert "refused the floor's subscriptions" in caplog.text
    finally:
        floor.stop()
