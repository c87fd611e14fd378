"""``[console]`` in the configuration and ``dicetable user``: where the console listens, and who logs in."""
from __future__ import annotations

import io
import stat
import sys
from pathlib import Path

import pytest

from controller.cli import main
from controller.config import ConfigError, load
from controller.web.settings import WebSettings
from controller.web.serve import Listen, parse_listen
from controller.web.users import check_password, read_users


def _config(tmp_path, console: str) -> str:
    path = tmp_path / "table.toml"
    path.write_text(f'[table]\nstate_dir = "state"\n[camera]\nsource = "none"\n[display]\nport = "none"\n'
                    f"[console]\n{console}\n")
    return str(path)


def test_a_configured_table_has_no_console_unless_listen_says_where(tmp_path):
    assert load(_config(tmp_path, "")).console.listen is None
    settings = load(_config(tmp_path, 'listen = "127.0.0.1:8081"')).console
    assert settings.listen == Listen("127.0.0.1", 8081) and settings.users == tmp_path / "users"
    assert not settings.tls


def test_off_loopback_the_console_needs_a_certificate_and_key(tmp_path):
    with pytest.raises(ConfigError, match="console.listen: 0.0.0.0:8443 is not loopback: on a network the console "
                                          "serves TLS"):
        load(_config(tmp_path, 'listen = "0.0.0.0:8443"'))
    (tmp_path / "cert.pem").write_text("x")
    (tmp_path / "key.pem").write_text("x")
    settings = load(_config(tmp_path, 'listen = "0.0.0.0:8443"\ncertificate = "cert.pem"\nkey = "key.pem"\n'
                                      'networks = ["192.168.1.0/24"]')).console
    assert settings.tls and settings.certificate == tmp_path / "cert.pem"
    assert [str(n) for n in settings.networks] == ["192.168.1.0/24"]


@pytest.mark.parametrize("console, key, message", [
    ('listen = "8080"', "console.listen", "is not HOST:PORT"),
    ("listen = 8080", "console.listen", 'must be "HOST:PORT"'),
    ('listen = "127.0.0.1:8080"\ncertificate = "cert.pem"', "console.key", "name both the certificate and its key"),
    ('certificate = "missing.pem"\nkey = "missing.pem"', "console.certificate", "no such file"),
    ('networks = "192.168.1.0/24"', "console.networks", "must be a list of networks"),
    ('networks = ["192.168.1.0/33"]', "console.networks", "is not an IP network"),
    ('users = ""', "console.users", "must be a file name"),
    ("port = 8080", "console.port",
     "unknown key (known: listen, users, certificate, key, networks, hosts, trusted_proxies)"),
    ('trusted_proxies = ["nginx"]', "console.trusted_proxies", "is not an IP network"),
    ('trusted_proxies = ["10.0.0.9"]', "console.trusted_proxies", "10.0.0.9/32 may not connect at all"),
    ('hosts = "table7.lan"', "console.hosts", "must be a list of host names"),
    ('hosts = ["https://table7.lan"]', "console.hosts", "is not a host name or address"),
])
def test_each_mistake_in_console_names_its_key(tmp_path, console, key, message):
    with pytest.raises(ConfigError) as raised:
        load(_config(tmp_path, console))
    assert any(k == key and message in m for k, m in raised.value.problems), raised.value.problems


def test_the_names_a_console_answers_to_besides_its_address_are_listed_in_hosts(tmp_path):
    settings = load(_config(tmp_path, 'listen = "127.0.0.1:8080"\nhosts = ["Table7.lan", "192.168.10.7"]')).console
    assert settings.hosts == ("table7.lan", "192.168.10.7")
    assert load(_config(tmp_path, "")).console.hosts == ()


def test_only_the_proxies_named_are_trusted_and_none_by_default(tmp_path):
    assert load(_config(tmp_path, "")).console.trusted_proxies == ()
    settings = load(_config(tmp_path, 'trusted_proxies = ["127.0.0.1", "192.168.1.2"]\n'
                                      'networks = ["192.168.1.0/24"]')).console
    assert [str(n) for n in settings.trusted_proxies] == ["127.0.0.1/32", "192.168.1.2/32"]


def test_the_command_line_address_is_held_to_the_same_rule():
    settings = WebSettings(None, users=Path("users"))
    assert settings.listening_on(parse_listen("127.0.0.1:9000")).listen == Listen("127.0.0.1", 9000)
    assert settings.listening_on(None).listen is None
    with pytest.raises(ValueError, match="is not loopback"):
        settings.listening_on(parse_listen("192.168.1.5:8080"))


def test_run_check_says_when_nobody_can_log_in(tmp_path, capsys):
    config = _config(tmp_path, 'listen = "127.0.0.1:8081"')
    assert main(["run", "--config", config, "--check"]) == 0
    assert "warning: console: no users in" in capsys.readouterr().out
    sys.stdin = io.StringIO("long-enough\n")
    try:
        assert main(["user", "--config", config, "add", "dana", "--role", "dealer"]) == 0
    finally:
        sys.stdin = sys.__stdin__
    capsys.readouterr()
    assert main(["run", "--config", config, "--check"]) == 0
    assert "console" not in capsys.readouterr().out


def test_user_add_list_remove_with_the_location_before_or_after_the_action(tmp_path, capsys, monkeypatch):
    users = tmp_path / "etc" / "users"
    monkeypatch.setattr(sys, "stdin", io.StringIO("first-password\n"))
    assert main(["user", "--users", str(users), "add", "dana", "--role", "dealer"]) == 0
    monkeypatch.setattr(sys, "stdin", io.StringIO("second-password\n"))
    assert main(["user", "add", "pete", "--role", "pit", "--users", str(users)]) == 0
    assert "added dana (dealer) to" in capsys.readouterr().out
    assert stat.S_IMODE(users.stat().st_mode) == 0o640
    assert check_password("second-password", read_users(users)["pete"].password_hash)
    assert main(["user", "list", "--users", str(users)]) == 0
    assert capsys.readouterr().out == "dana dealer\npete pit\n"
    assert main(["user", "--users", str(users), "remove", "dana"]) == 0
    assert main(["user", "--users", str(users), "remove", "dana"]) == 1
    assert "no user dana" in capsys.readouterr().err
    assert list(read_users(users)) == ["pete"]


def test_user_list_of_a_file_without_users_says_so_on_stderr(tmp_path, capsys):
    users = tmp_path / "no-such-users"
    assert main(["user", "list", "--users", str(users)]) == 0
    said = capsys.readouterr()
    assert said.out == "" and f"no users in {users}" in said.err


@pytest.mark.parametrize("argv, message", [
    (["user", "list"], "give --config FILE (the users file beside it) or --users FILE"),
    (["user", "--config", "nowhere.toml", "list"], "nowhere.toml: (file): no such file"),
    (["user", "--users", "u", "add", "dana", "--role", "dealer"], "shorter than 8 characters"),
    (["user", "--users", "u", "add", "da na", "--role", "dealer"], "is not a user name"),
])
def test_user_mistakes_are_one_clear_line_and_change_nothing(argv, message, tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(sys, "stdin", io.StringIO("short\n" if "dana" in argv else "long-enough-password\n"))
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert message in err and err.count("\n") == 1
    assert not (tmp_path / "u").exists()


def test_the_users_file_beside_a_configuration_may_be_named_in_it(tmp_path, capsys, monkeypatch):
    config = _config(tmp_path, 'users = "console-users"')
    monkeypatch.setattr(sys, "stdin", io.StringIO("long-enough\n"))
    assert main(["user", "--config", config, "add", "dana", "--role", "pit"]) == 0
    assert list(read_users(tmp_path / "console-users")) == ["dana"]


def test_run_check_says_when_the_certificate_will_not_load(tmp_path, capsys):
    (tmp_path / "cert.pem").write_text("not a certificate")
    (tmp_path / "key.pem").write_text("not a key")
    config = _config(tmp_path, 'listen = "0.0.0.0:8443"\ncertificate = "cert.pem"\nkey = "key.pem"')
    assert main(["run", "--config", config, "--check"]) == 0
    out = capsys.readouterr().out
    assert "warning: console: cannot load the certificate" in out and "would run without its console" in out


@pytest.mark.parametrize("proxies", ['["0.0.0.0/0"]', '["::/0"]', '["127.0.0.1", "0.0.0.0/0"]'])
@pytest.mark.parametrize("listen", ['listen = "127.0.0.1:8081"\n', ""])
def test_run_check_warns_of_a_trusted_proxy_that_is_every_address_and_still_passes(tmp_path, capsys, proxies, listen):
    config = _config(tmp_path, f"{listen}trusted_proxies = {proxies}")
    assert main(["run", "--config", config, "--check"]) == 0
    out = capsys.readouterr().out
    assert "configuration ok" in out
    (warning,) = [line for line in out.splitlines() if "trusted_proxies" in line]
    assert warning.startswith("warning: console.trusted_proxies: ") and "trusts every peer as a reverse proxy" in warning


def test_a_trusted_proxy_network_is_taken_when_part_of_it_may_connect(tmp_path, capsys):
    config = _config(tmp_path, 'trusted_proxies = ["192.168.0.0/16"]\nnetworks = ["192.168.1.0/24"]')
    assert [str(n) for n in load(config).console.trusted_proxies] == ["192.168.0.0/16"]
    assert main(["run", "--config", config, "--check"]) == 0
    assert "trusted_proxies" not in capsys.readouterr().out
