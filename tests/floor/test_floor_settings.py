"""A table's [floor] section, the broker URL, table ids and the acknowledgement's payload."""
from __future__ import annotations

import pytest

from controller.config import ConfigError, load
from controller.floor.broker import BrokerError, parse_broker
from controller.floor.topics import Ack, PayloadError, parse_status, parse_table_topic, row_topic, table_id_problem


def _load(tmp_path, text):
    path = tmp_path / "table.toml"
    path.write_text('[camera]\nsource = "none"\n[display]\nport = "none"\n' + text)
    return load(path)


def test_a_table_with_a_broker_and_an_id_publishes_with_its_login(tmp_path):
    (tmp_path / "secret").write_text("s3cret\n")
    (tmp_path / "secret").chmod(0o640)
    config = _load(tmp_path, '[floor]\nbroker = "mqtt://floor.local:1884"\ntable_id = "craps-3"\n'
                             'username = "craps-3"\npassword_file = "secret"\n')
    link = config.floor
    assert (link.table_id, link.broker.host, link.broker.port, link.broker.tls) == ("craps-3", "floor.local", 1884, False)
    assert (link.broker.username, link.broker.password) == ("craps-3", "s3cret")


def test_no_broker_means_no_floor():
    assert load(None).floor is None


@pytest.mark.parametrize("text, key, words", [
    ('broker = "http://x:1"\ntable_id = "a"\n', "floor.broker", "mqtt:// or mqtts://"),
    ('broker = "mqtt://x:1"\n', "floor.table_id", "must name this table"),
    ('broker = "mqtt://x:1"\ntable_id = "a/b"\n', "floor.table_id", "letters, digits"),
    ('broker = "mqtt://x:1"\ntable_id = "+"\n', "floor.table_id", "letters, digits"),
    ('table_id = "a"\n', "floor.table_id", "needs floor.broker"),
    ('broker = "mqtt://x:1"\ntable_id = "a"\nusername = "a"\npassword_file = "nope"\n', "floor.password_file", "no such file"),
    ('broker = "mqtt://x:1"\ntable_id = "a"\ncafile = "ca.pem"\n', "floor.cafile", "no such file"),
    ('broker = 5\n', "floor.broker", "must be a string"),
    ('port = 1\n', "floor.port", "unknown key"),
])
def test_each_mistake_in_floor_is_named_by_its_key(tmp_path, text, key, words):
    with pytest.raises(ConfigError) as caught:
        _load(tmp_path, "[floor]\n" + text)
    assert any(k == key and words in m for k, m in caught.value.problems), caught.value.problems


def test_broker_urls():
    assert parse_broker("mqtts://h").port == 8883 and parse_broker("mqtts://h").tls
    login = parse_broker("mqtt://demo:p%40ss@h:1999")
    assert (login.username, login.password, login.port) == ("demo", "p@ss", 1999)
    assert "p@ss" not in login.url and "demo@" in login.url
    for bad in ("mqtt://", "mqtt://h:0", "mqtt://h/x", "tcp://h", "mqtt://:p@h"):
        with pytest.raises(BrokerError):
            parse_broker(bad)


def test_topics_and_acknowledgements_round_trip():
    journal = "ab" * 32
    where = parse_table_topic(row_topic("craps-3", journal))
    assert (where.table, where.kind, where.journal) == ("craps-3", "row", journal)
    for bad in ("dicetable/table/craps-3/row/xyz", "dicetable/floor/ack/x", "other/table/a/status"):
        with pytest.raises(PayloadError):
            parse_table_topic(bad)
    ack = Ack(journal, 12, "cd" * 32, resend=True)
    assert Ack.parse(ack.payload()) == ack
    for bad in (b"{", b'{"journal": "x", "seq": 1}', b'{"journal": "' + journal.encode() + b'", "seq": -1}'):
        with pytest.raises(PayloadError):
            Ack.parse(bad)
    assert table_id_problem("demo-craps") is None and table_id_problem("-x") is not None


@pytest.mark.parametrize("payload", [b"[" * 100_000, b'{"a":' * 50_000 + b"1" + b"}" * 50_000,
                                     b'{"seq": NaN, "head": "x"}', b'{"rolls": Infinity}', b'{"seq": 1e999}'])
def test_a_status_or_acknowledgement_too_deep_or_not_finite_is_refused_not_raised(payload):
    """What one table may publish on its own status topic must not stop the floor's store (a
    RecursionError is no ValueError), nor put into it a number JSON cannot write back out."""
    with pytest.raises(PayloadError):
        parse_status(payload)
    with pytest.raises(PayloadError):
        Ack.parse(payload)


def test_the_floor_page_makes_the_floor_pages_users_file_readable_by_the_floor_service():
    """A users file root makes gets the group `dicetable` by default: the floor's unit runs as another."""
    from pathlib import Path

    repo = Path(__file__).resolve().parents[2]
    unit = (repo / "systemd" / "dicetable-floor.service").read_text()
    (group,) = [line.split("=", 1)[1].strip() for line in unit.splitlines() if line.startswith("Group=")]
    readme = (repo / "docs" / "floor.md").read_text().splitlines()
    (command,) = [line for line in readme if "dicetable user --users /etc/dicetable/floor-users add" in line]
    assert f"--group {group}" in command
    # and its broker password file, which the floor refuses when other users may read it
    (made,) = [line for line in readme if line.startswith("sudo install") and "/etc/dicetable/floor-password" in line]
    assert f"-m 0640 -g {group} " in made


def test_an_empty_broker_password_file_is_refused_at_the_start_not_by_the_broker_later(tmp_path, capsys):
    from controller.cli import main

    (tmp_path / "password").write_text("\n")
    (tmp_path / "password").chmod(0o600)
    with pytest.raises(ConfigError) as caught:
        _load(tmp_path, '[floor]\nbroker = "mqtt://x:1"\ntable_id = "a"\nusername = "a"\npassword_file = "password"\n')
    assert any("password" in m and "empty" in m for _, m in caught.value.problems), caught.value.problems
    assert main(["floor", "--db", str(tmp_path / "floor.sqlite3"), "--broker", "mqtt://127.0.0.1:1", "--username",
                 "floor", "--password-file", str(tmp_path / "password"), "--listen", "none"]) == 2
    assert "empty" in capsys.readouterr().err


@pytest.mark.parametrize("mode, why", [(0o644, "other users may read or write it"), (0o604, "other users may"),
                                       (0o660, "its group may write it")])
def test_a_broker_password_file_others_may_read_or_its_group_change_is_refused_naming_the_fix(tmp_path, mode, why):
    """The console's users file's rule: the service's group reads the password, only root writes it."""
    secret = tmp_path / "secret"
    secret.write_text("s3cret\n")
    secret.chmod(mode)
    with pytest.raises(BrokerError, match=f"{why}.*\\(mode {mode:04o}\\): chmod 0640 {secret}"):
        parse_broker("mqtt://x:1", username="a", password_file=secret)
    for private in (0o640, 0o600):
        secret.chmod(private)
        assert parse_broker("mqtt://x:1", username="a", password_file=secret).password == "s3cret"
