"""The unit's drop-in for a configured console: IP sockets allowed, peers limited to loopback and the
networks of [console]; none without a console; `systemd-analyze verify` takes unit and drop-in alike."""
from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from controller.config import load
from controller.console.unit import dropin, main

ROOT = Path(__file__).resolve().parents[2]


def _config(tmp_path, console: str) -> Path:
    (tmp_path / "cert.pem").write_text("x")
    (tmp_path / "key.pem").write_text("x")
    path = tmp_path / "dicetable.toml"
    path.write_text(f'[camera]\nsource = "none"\n[display]\nport = "none"\n[console]\n{console}\n')
    return path


def test_no_console_no_dropin(tmp_path, capsys):
    path = _config(tmp_path, "")
    assert dropin(load(path)) is None
    assert main([str(path)]) == 0 and capsys.readouterr().out == ""


def test_a_console_on_a_network_allows_ip_from_loopback_and_its_networks_only(tmp_path):
    text = dropin(load(_config(tmp_path, 'listen = "0.0.0.0:8443"\ncertificate = "cert.pem"\nkey = "key.pem"\n'
                                         'networks = ["192.168.1.0/24", "10.0.0.7"]')))
    lines = [line for line in text.splitlines() if not line.startswith("#")]
    assert lines == ["[Service]", "RestrictAddressFamilies=", "RestrictAddressFamilies=AF_UNIX AF_NETLINK AF_INET AF_INET6",
                     "IPAddressAllow=localhost 192.168.1.0/24 10.0.0.7/32", "IPAddressDeny=any"]


def test_a_console_on_loopback_still_needs_ip_sockets_for_loopback_alone(tmp_path):
    text = dropin(load(_config(tmp_path, 'listen = "127.0.0.1:8080"')))
    assert "AF_INET AF_INET6" in text and "IPAddressAllow=localhost\n" in text and "IPAddressDeny=any" in text


def test_a_wrong_configuration_is_exit_2_with_the_key(tmp_path, capsys):
    assert main([str(_config(tmp_path, 'listen = "0.0.0.0:8443"'))]) == 2
    assert "console.listen" in capsys.readouterr().err


def test_unit_and_dropin_verify_without_warnings(tmp_path):
    analyze = shutil.which("systemd-analyze")
    if analyze is None:
        pytest.skip("systemd-analyze is not installed on this machine")
    here = Path(sys.executable).parent
    unit = tmp_path / "dicetable.service"
    unit.write_text((ROOT / "systemd" / "dicetable.service").read_text().replace("/opt/dicetable/.venv/bin/", f"{here}/"))
    (tmp_path / "dicetable.service.d").mkdir()
    conf = tmp_path / "dicetable.service.d" / "console.conf"
    conf.write_text(dropin(load(_config(tmp_path, 'listen = "0.0.0.0:8443"\ncertificate = "cert.pem"\n'
                                                  'key = "key.pem"\nnetworks = ["192.168.1.0/24"]'))))
    done = subprocess.run([analyze, "verify", str(unit)], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0 and done.stderr.strip() == "" and done.stdout.strip() == "", done.stderr + done.stdout
    conf.write_text(conf.read_text() + "IPAddressAllow=not-an-address\n")  # the drop-in is read: a mistake shows
    done = subprocess.run([analyze, "verify", str(unit)], capture_output=True, text=True, timeout=60)
    assert "not-an-address" in done.stderr


def test_install_sh_writes_the_dropin_from_the_configuration():
    script = (ROOT / "systemd" / "install.sh").read_text()
    assert "-m controller.console.unit /etc/dicetable/dicetable.toml" in script and "console.conf" in script


def test_a_table_on_the_floor_may_still_reach_its_broker_through_the_limit(tmp_path):
    """The console's IPAddressDeny=any would otherwise cut the table off from the floor's broker."""
    config = load(_config(tmp_path, 'listen = "127.0.0.1:8080"\n[floor]\nbroker = "mqtt://broker.lan:1883"\n'
                                    'table_id = "t7"'))
    asked = []

    def resolve(host, port, type):
        asked.append(host)
        return [(2, 1, 6, "", ("10.1.2.3", 0)), (10, 1, 6, "", ("fd00::5", 0, 0, 0)), (2, 1, 6, "", ("10.1.2.3", 0))]

    text = dropin(config, resolve)
    assert asked == ["broker.lan"]
    assert "IPAddressAllow=localhost 10.1.2.3/32 fd00::5/128\n" in text and "the floor's broker broker.lan" in text


def test_a_broker_that_does_not_resolve_stops_the_install_with_the_reason(tmp_path, capsys):
    path = _config(tmp_path, 'listen = "127.0.0.1:8080"\n[floor]\nbroker = "mqtt://no-such-host.invalid:1883"\n'
                             'table_id = "t7"')
    assert main([str(path)]) == 2
    assert "the floor's broker cannot be resolved" in capsys.readouterr().err
