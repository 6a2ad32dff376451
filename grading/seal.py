"""Sealed answer keys: which break hides behind each ID, encrypted and authenticated.

A *secret* is a Fernet key (44 URL-safe base64 characters): the instructor's key file from
`diagnose keygen`, or the self-study secret kept in the user's data directory. A scenario's
`answer-key.sealed` is JSON holding the scenario code, the IDs, a fingerprint of the secret (so
"sealed with another key" can be said plainly) and a Fernet token: the assignment encrypted
under a key derived from the secret and the code with HKDF-SHA256. The token carries the code
too, so a key copied from another scenario is refused. Its plaintext is padded to a size that
depends only on the code and the IDs (both public), never on the slugs dealt: a key's size
names no break. Nothing here chooses the assignment.
"""

from __future__ import annotations

import base64
import functools
import hashlib
import json
import os
from enum import StrEnum
from pathlib import Path
from typing import TYPE_CHECKING, Any

from scenarios.catalog import SLUG_MAX
from scenarios.errors import UserError
from scenarios.files import atomic_create, loads_json, read_small, readable_by_others

FORMAT = "diagnose.answer-key/1"
KEY_FILE_MAX = 4096
TAMPERED = "the answer key has been changed or belongs to another scenario"


class SealedBy(StrEnum):
    """Whose secret seals a scenario's answers: `scenario.json`'s "key" and an attempt's "by"."""

    SELF_STUDY = "self-study"  # the player's own (diagnose.home): they grade and reveal it
    INSTRUCTOR = "instructor"  # the instructor's key file: a dealt bundle, graded by them


SEALERS = tuple(SealedBy)  # what a file may say

if TYPE_CHECKING:  # imported where a key is used: opening a scenario to play needs none
    from cryptography.fernet import Fernet


class SealError(UserError):
    """A key or a sealed answer key cannot be used; the message says why, in one line."""


def new_secret() -> bytes:
    from cryptography.fernet import Fernet

    return Fernet.generate_key()


def _check_secret(secret: bytes, where: str) -> bytes:
    secret = secret.strip()
    try:
        raw = base64.urlsafe_b64decode(secret)
    except (ValueError, TypeError):
        raw = b""
    if len(raw) != 32 or len(secret) != 44:
        raise SealError(f"{where}: not a diagnose key (expected the 44-character key that "
                        "`diagnose keygen` writes)")
    return secret


def read_key_file(path: Path) -> bytes:
    """Read a key file, refusing one that others can read (as ssh does) or that is not a key.

    Privacy is checked with POSIX permission bits; on Windows it is not checked (ACLs, which a
    mode does not show, govern access there: keep the key in your own profile folder).
    """
    path = Path(path)
    data = read_small(path, "a key file", KEY_FILE_MAX, error=SealError,
                      missing="no such key file")
    try:
        mode = readable_by_others(path)
    except OSError as err:
        raise SealError(f"{path}: cannot be read ({err.strerror or err})") from None
    if mode is not None:
        raise SealError(f"{path}: permissions {mode} let others read the key; "
                        f"run `chmod 600 {path}`")
    data = data.removeprefix(b"\xef\xbb\xbf")  # a BOM, as Windows editors save UTF-8
    if not data.strip():
        raise SealError(f"{path}: an empty key file, left by a write cut short (a full disk?); "
                        "nothing was ever sealed with it",
                        hint="delete it and make a new key: `diagnose keygen` for an "
                        "instructor key; a self-study key is made again on the next command")
    return _check_secret(data, str(path))


def write_key_file(path: Path, secret: bytes) -> None:
    """Create `path` with mode 0600 holding `secret`, whole or not at all (a full disk leaves
    no file); never overwrite an existing file."""
    path = Path(path)
    secret = _check_secret(secret, "key")
    try:
        atomic_create(path, secret + b"\n", mode=0o600, error=SealError)
    except FileExistsError:
        raise SealError(f"{path}: already exists; a key is never overwritten") from None
    os.chmod(path, 0o600)


def fingerprint(secret: bytes) -> str:
    """A short public name for a secret: equal fingerprints, same key."""
    return hashlib.sha256(b"diagnose key fingerprint\0" + secret.strip()).hexdigest()[:16]


@functools.lru_cache(maxsize=4096)
def derive_key(secret: bytes, purpose: bytes, code: str = "") -> bytes:
    """32 bytes for one use of a secret (`purpose`), bound to a scenario `code`: HKDF-SHA256.

    The answer key's Fernet key and the attempts' HMAC key come from one secret without one
    revealing the other. Remembered per process: a class grading derives each key once."""
    from cryptography.hazmat.primitives import hashes
    from cryptography.hazmat.primitives.kdf.hkdf import HKDF

    return HKDF(algorithm=hashes.SHA256(), length=32, salt=None,
                info=purpose + b"\0" + code.encode("utf-8")).derive(secret.strip())


def scenario_key(secret: bytes, code: str) -> bytes:
    """The Fernet key that opens scenario `code`'s sealed key and no other scenario's.

    An autograder that must open its class's keys carries these, never the secret they come
    from (HKDF is one-way): `unseal_scenario` opens a key with one.
    """
    return base64.urlsafe_b64encode(derive_key(secret, b"diagnose answer key", code))


def _fernet(secret: bytes, code: str) -> Fernet:
    from cryptography.fernet import Fernet

    return Fernet(scenario_key(secret, code))


def _payload(code: str, assignment: dict[str, str]) -> bytes:
    return json.dumps({"code": code, "assignment": assignment}, sort_keys=True).encode("utf-8")


def padded_payload(code: str, assignment: dict[str, str]) -> bytes:
    """The plaintext a key seals: the assignment as JSON, then spaces (JSON ignores them) up
    to a size set by the code and the IDs alone, with room for a slug of SLUG_MAX characters
    per ID (the catalog refuses a longer slug). Keys sealed before the padding hold the same
    JSON without it and open alike."""
    too_long = [slug for slug in assignment.values() if len(json.dumps(slug)) - 2 > SLUG_MAX]
    if too_long:
        raise SealError(f"break slug {too_long[0][:SLUG_MAX]}... is longer than {SLUG_MAX} "
                        "characters: a sealed key has no room for it",
                        hint="shorten the slug in the break's TOML file")
    payload = _payload(code, assignment)
    size = len(_payload(code, dict.fromkeys(assignment, ""))) + SLUG_MAX * len(assignment)
    return payload + b" " * (size - len(payload))


def seal(code: str, assignment: dict[str, str], secret: bytes) -> str:
    """The text of `answer-key.sealed` for `assignment` (ID -> break slug); its size depends
    on the code and the IDs only (`padded_payload`)."""
    secret = _check_secret(secret, "key")
    token = _fernet(secret, code).encrypt(padded_payload(code, assignment)).decode("ascii")
    return json.dumps({"format": FORMAT, "code": code, "ids": sorted(assignment),
                       "fingerprint": fingerprint(secret), "token": token}, indent=2) + "\n"


def sealed_code(text: str) -> str:
    """The scenario code a sealed key claims, without opening it."""
    code: str = _envelope(text)["code"]
    return code


def _envelope(text: str) -> dict[str, Any]:
    try:
        data = loads_json(text)
    except (ValueError, TypeError):
        raise SealError(f"{TAMPERED} (it is not valid JSON)") from None
    if (not isinstance(data, dict) or data.get("format") != FORMAT
            or not all(isinstance(data.get(k), str) for k in ("code", "fingerprint", "token"))
            or not isinstance(data.get("ids"), list)):
        raise SealError(f"{TAMPERED} (fields are missing or of the wrong kind)")
    return data


def unseal(text: str, secret: bytes, code: str | None = None) -> dict[str, str]:
    """Open a sealed key: the assignment ID -> slug, or SealError saying why not."""
    data = _envelope(text)
    secret = _check_secret(secret, "key")
    if code is not None and data["code"] != code:
        raise SealError(f"{TAMPERED} (it is for scenario {data['code']}, not {code})")
    if data["fingerprint"] != fingerprint(secret):
        raise SealError(f"the answer key was sealed with another key (fingerprint "
                        f"{data['fingerprint']}, this key is {fingerprint(secret)})")
    return _open(data, _fernet(secret, data["code"]))


def unseal_scenario(text: str, key: bytes, code: str) -> dict[str, str]:
    """Open scenario `code`'s sealed key with its `scenario_key`, not the secret."""
    data = _envelope(text)
    if data["code"] != code:
        raise SealError(f"{TAMPERED} (it is for scenario {data['code']}, not {code})")
    from cryptography.fernet import Fernet

    try:
        fernet = Fernet(key)
    except (ValueError, TypeError):
        raise SealError("not a scenario key") from None
    return _open(data, fernet)


def _open(data: dict[str, Any], fernet: Fernet) -> dict[str, str]:
    from cryptography.fernet import InvalidToken

    try:
        payload = loads_json(fernet.decrypt(data["token"].encode("ascii")).decode("utf-8"))
    except (InvalidToken, UnicodeError, ValueError):
        raise SealError(TAMPERED) from None
    assignment = payload.get("assignment") if isinstance(payload, dict) else None
    if (payload.get("code") != data["code"] or not isinstance(assignment, dict)
            or sorted(assignment) != sorted(data["ids"])):
        raise SealError(TAMPERED)
    return {k: assignment[k] for k in sorted(assignment)}
