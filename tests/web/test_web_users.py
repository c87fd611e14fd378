"""The users file: slow hashes, a mode of 0640, mistakes named by line, changes seen without a restart."""
from __future__ import annotations

import os
import stat

import pytest

from controller.web.users import (StaticUsers, User, UsersError, UsersFile, add_user, check_password, format_users,
                                  hash_password, parse_users, read_users, remove_user)


def test_a_hash_checks_its_own_password_only_and_is_salted():
    first, second = hash_password("correct horse"), hash_password("correct horse")
    assert first != second  # a salt of its own each time
    assert first.startswith("scrypt$16384$8$1$")
    assert check_password("correct horse", first) and check_password("correct horse", second)
    assert not check_password("correct hors", first)
    assert not check_password("correct horse", "plain-text")
    assert not check_password("x", "scrypt$3$8$1$AAAA$AAAA")  # N not a power of two: refused, not run


def test_adding_listing_and_removing_users_keeps_the_file_0640(tmp_path):
    path = tmp_path / "users"
    assert add_user(path, "alice", "dealer", "s3cret-pass") is True
    assert add_user(path, "bob", "pit", "another-pass") is True
    assert stat.S_IMODE(path.stat().st_mode) == 0o640
    users = read_users(path)
    assert sorted(users) == ["alice", "bob"] and users["bob"].role == "pit"
    assert check_password("s3cret-pass", users["alice"].password_hash)
    assert "s3cret-pass" not in path.read_text()
    assert add_user(path, "alice", "pit", "changed-pass") is False  # a new role and password, same user
    assert read_users(path)["alice"].role == "pit"
    assert remove_user(path, "alice") is True and remove_user(path, "alice") is False
    assert list(read_users(path)) == ["bob"]
    assert [p.name for p in tmp_path.iterdir()] == ["users"]  # no temporary file left beside it


def test_a_new_file_written_by_root_belongs_to_root_and_the_group_named(tmp_path):
    if os.geteuid() != 0:
        pytest.skip("only root can give a file to another group")
    import grp

    group = grp.getgrgid(os.getgid()).gr_name if os.getgid() else next(g.gr_name for g in grp.getgrall() if g.gr_gid)
    path = tmp_path / "users"
    add_user(path, "alice", "dealer", "s3cret-pass", group=group)
    info = path.stat()
    assert info.st_uid == 0 and info.st_gid == grp.getgrnam(group).gr_gid
    with pytest.raises(UsersError, match="no group 'no-such-group'"):
        add_user(tmp_path / "other", "alice", "dealer", "s3cret-pass", group="no-such-group")


@pytest.mark.parametrize("name, role, password, message", [
    ("al ice", "dealer", "s3cret-pass", "is not a user name"),
    ("", "dealer", "s3cret-pass", "is not a user name"),
    ("alice", "boss", "s3cret-pass", "role 'boss' is not one of dealer, pit"),
    ("alice", "dealer", "short", "shorter than 8"),
])
def test_a_user_that_cannot_be_added_is_refused_and_the_file_is_not_written(tmp_path, name, role, password, message):
    with pytest.raises(UsersError, match=message):
        add_user(tmp_path / "users", name, role, password)
    assert not (tmp_path / "users").exists()


def test_a_file_other_users_may_read_is_refused_with_the_chmod_to_mend_it(tmp_path):
    path = tmp_path / "users"
    add_user(path, "alice", "dealer", "s3cret-pass")
    path.chmod(0o644)
    with pytest.raises(UsersError, match="other users may read or write it .*chmod 0640"):
        read_users(path)
    path.chmod(0o660)
    with pytest.raises(UsersError, match="its group may write it"):
        read_users(path)


@pytest.mark.parametrize("line, message", [
    ("alice dealer", "line 2: expected NAME ROLE PASSWORD-HASH"),
    ("alice chief scrypt$16384$8$1$AAAAAAAAAAAAAAAAAAAAAA==$AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=", "role 'chief'"),
    ("alice dealer md5$abc", "line 2: the password hash of alice is not one this program wrote"),
])
def test_a_mistake_in_the_file_names_its_line(line, message):
    with pytest.raises(UsersError, match=message):
        parse_users(f"# header\n{line}\n", "users")


def test_a_name_listed_twice_is_a_mistake():
    digest = hash_password("whatever-pass")
    with pytest.raises(UsersError, match="line 2: alice is listed twice"):
        parse_users(f"alice dealer {digest}\nalice pit {digest}\n", "users")


def test_the_running_service_sees_users_added_and_removed_without_a_restart(tmp_path):
    path = tmp_path / "users"
    users = UsersFile(path)
    assert users.lookup("alice") is None
    add_user(path, "alice", "dealer", "s3cret-pass")
    assert users.authenticate("alice", "s3cret-pass").role == "dealer"
    assert users.authenticate("alice", "wrong-pass") is None
    remove_user(path, "alice")
    assert users.lookup("alice") is None


def test_a_file_gone_wrong_lets_nobody_in_and_says_why(tmp_path):
    path = tmp_path / "users"
    add_user(path, "alice", "dealer", "s3cret-pass")
    users = UsersFile(path)
    assert users.lookup("alice") is not None
    path.chmod(0o666)
    assert users.lookup("alice") is None and "other users may read" in users.problem
    path.chmod(0o640)
    assert users.lookup("alice") is not None and users.problem is None


def test_static_users_check_passwords_like_the_file():
    users = StaticUsers.with_passwords({"dealer": ("dealer", "dealer"), "pit": ("pit", "pit")})
    assert users.authenticate("dealer", "dealer").role == "dealer"
    assert users.authenticate("dealer", "pit") is None and users.authenticate("nobody", "dealer") is None


def test_the_file_lists_users_by_name_under_a_header_saying_what_it_is():
    text = format_users([User("zoe", "pit", hash_password("x" * 8)), User("al", "dealer", hash_password("y" * 8))])
    lines = text.splitlines()
    assert lines[0].startswith("# dicetable users") and lines[1].startswith("al dealer scrypt$")
    assert sorted(parse_users(text, "users")) == ["al", "zoe"]
