"""A table's Ed25519 key, and the heads it signs for the floor (docs/floor.md, "Signed heads").

Why a key: a table's broker password is on the table and in its configuration's folder; whoever
has it can publish as the table. The chain (plain SHA-256) and the mark (a CRC32) are keyed by
nothing, so a row, a status or a whole journal made up by someone else hashes right too. With a
key that never leaves the table (``table.key`` in its state directory, mode 0600), the table signs
the head of its journal (the last row's seq and hash) with every status, at its clean stop and at
every archive, as certificate transparency's logs sign their tree heads: one signature covers every
row before it, so no row is signed alone and the floor verifies in microseconds.

The floor pins a table's public key on first sight (or ahead: ``dicetable floor enroll``) and
takes a table's word only under it. The public key is beside the private one as ``table.pub``
(PEM), for ``enroll``; it travels in each signed message as 32 bytes in base64.

Run as ``python -m controller.floor.signing STATE_DIR``, it makes the key if there is none and
prints where the public key is (``systemd/install.sh`` does, as the table's user).
"""
from __future__ import annotations

import base64
import binascii
import json
import os
import stat
import sys
from pathlib import Path
from typing import Any, Mapping

KEY_FILE = "table.key"
PUBLIC_FILE = "table.pub"


class SigningError(ValueError):
    """A table's key that cannot be made, read or used; the message names the file and why."""


class TableKey:
    """A table's private key, to sign with; :attr:`public` is its public key in base64."""

    def __init__(self, private: Any):
        from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat

        self._private = private
        self.public = base64.b64encode(private.public_key().public_bytes(Encoding.Raw, PublicFormat.Raw)).decode()

    def sign(self, material: bytes) -> tuple[str, str]:
        """The public key and the signature of ``material``, each in base64."""
        return self.public, base64.b64encode(self._private.sign(material)).decode()


def key_problem(state_dir: Path) -> str | None:
    """Why the key in ``state_dir`` must not be used, or None (no key yet is no problem: it is made)."""
    path = Path(state_dir) / KEY_FILE
    try:
        mode = stat.S_IMODE(path.stat().st_mode)
    except FileNotFoundError:
        return None
    except OSError as exc:
        return f"cannot read the table's key {path}: {exc.strerror or exc}"
    if mode & 0o077:
        return f"the table's key {path} is not private (mode {mode:04o}): chmod 0600 {path}"
    return None


def table_key(state_dir: Path | str, *, make: bool = True) -> TableKey | None:
    """The key in ``state_dir``: made there (mode 0600, with ``table.pub`` beside it) when there is
    none and ``make``; None when there is none and not ``make``. :class:`SigningError` when it
    cannot be read, made, or is not private."""
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
    from cryptography.hazmat.primitives.serialization import load_pem_private_key

    folder = Path(state_dir)
    path = folder / KEY_FILE
    if not path.exists():
        if not make:
            return None
        return TableKey(_make(folder, Ed25519PrivateKey.generate()))
    problem = key_problem(folder)
    if problem:
        raise SigningError(problem)
    try:
        private = load_pem_private_key(path.read_bytes(), password=None)
    except (OSError, ValueError, TypeError) as exc:
        raise SigningError(f"cannot read the table's key {path}: {exc}") from None
    if not isinstance(private, Ed25519PrivateKey):
        raise SigningError(f"the table's key {path} is not an Ed25519 key")
    return TableKey(private)


def _make(folder: Path, private: Any) -> Any:
    """Write ``private`` as ``folder/table.key`` (0600, in one rename) and its public key beside it."""
    from cryptography.hazmat.primitives.serialization import (Encoding, NoEncryption, PrivateFormat,
                                                              PublicFormat)

    try:
        folder.mkdir(parents=True, exist_ok=True)
        partial = folder / f".{KEY_FILE}.part"
        partial.unlink(missing_ok=True)
        fd = os.open(partial, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        with os.fdopen(fd, "wb") as out:
            out.write(private.private_bytes(Encoding.PEM, PrivateFormat.PKCS8, NoEncryption()))
            out.flush()
            os.fsync(out.fileno())
        public = private.public_key().public_bytes(Encoding.PEM, PublicFormat.SubjectPublicKeyInfo)
        (folder / PUBLIC_FILE).write_bytes(public)
        os.replace(partial, folder / KEY_FILE)
    except OSError as exc:
        raise SigningError(f"cannot make the table's key in {folder}: {exc.strerror or exc}") from None
    return private


def read_public(path: Path | str) -> str:
    """The public key in the file ``path`` (``table.pub``'s PEM, or its 32 bytes in base64 on one
    line) in base64; :class:`SigningError` when it holds none."""
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey
    from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat, load_pem_public_key

    try:
        text = Path(path).read_bytes()
    except OSError as exc:
        raise SigningError(f"cannot read {path}: {exc.strerror or exc}") from None
    if b"BEGIN PUBLIC KEY" in text:
        try:
            key = load_pem_public_key(text)
        except ValueError as exc:
            raise SigningError(f"{path} holds no public key: {exc}") from None
        if not isinstance(key, Ed25519PublicKey):
            raise SigningError(f"{path} holds no Ed25519 public key")
        return base64.b64encode(key.public_bytes(Encoding.Raw, PublicFormat.Raw)).decode()
    found = text.decode("ascii", errors="replace").strip()
    if _raw(found) is None:
        raise SigningError(f"{path} holds no Ed25519 public key (a table's table.pub, or its 32 bytes in base64)")
    return found


def _raw(text: Any) -> bytes | None:
    """The 32 bytes of a public key in base64, or None."""
    if not isinstance(text, str):
        return None
    try:
        raw = base64.b64decode(text, validate=True)
    except (binascii.Error, ValueError):
        return None
    return raw if len(raw) == 32 else None


def verify(public: Any, material: bytes, signature: Any) -> bool:
    """Whether ``signature`` (base64) is ``public``'s (base64) of ``material``."""
    from cryptography.exceptions import InvalidSignature
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey

    raw = _raw(public)
    if raw is None or not isinstance(signature, str):
        return False
    try:
        Ed25519PublicKey.from_public_bytes(raw).verify(base64.b64decode(signature, validate=True), material)
    except (InvalidSignature, binascii.Error, ValueError):
        return False
    return True


#: The fields of a status a table signs: the head of its journal, when it said so, and whether it
#: is the last word of a clean stop (``end``).
SIGNED_STATUS = ("journal", "seq", "head", "at", "end")


def status_material(table: str, status: Mapping[str, Any]) -> bytes:
    """What a table signs of ``status`` as table ``table``: its journal's head and the time (the
    floor uses the id of the topic it came on, so a status sent again as another table fails)."""
    signed = {name: status.get(name) for name in SIGNED_STATUS}
    signed["end"] = bool(signed["end"])
    return json.dumps({"signed": "status", "table": table, **signed}, sort_keys=True,
                      separators=(",", ":")).encode()


def main(argv: list[str]) -> int:
    """``python -m controller.floor.signing STATE_DIR``: make the key if there is none; print ``table.pub``'s path."""
    if len(argv) != 1:
        print("usage: python -m controller.floor.signing STATE_DIR", file=sys.stderr)
        return 2
    try:
        table_key(argv[0])
    except SigningError as exc:
        print(f"controller.floor.signing: {exc}", file=sys.stderr)
        return 2
    print(Path(argv[0]) / PUBLIC_FILE)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
