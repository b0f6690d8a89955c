"""The mutant payload: how the gate hands one mutant to the sandbox (the recorder ships this module).

A mutant run is the oracle's own pytest process plus one environment variable, `ENV_VAR`: base64 of
zlib of JSON `{"id", "path", "source"}`, the mutated file's whole source. The gate encodes it
(core/ladder/mutants.py, rules/runs.py); the recorder's import hook decodes it (sandbox/plugin.py).
Standard library only.
"""
from __future__ import annotations

import base64
import binascii
import json
import zlib
from typing import Any, Dict

ENV_VAR = "ORACLE_GATE_MUTANT"
# Written by the recorder into the process's extra output (beside the results file) the moment it
# first serves the mutant, holding its id: a session that then ends without results (`os.abort()`,
# a segmentation fault, an exit the mutated code reached) ended with the mutant loaded. The mutant
# ended the oracle's process, which the oracle's run therefore noticed (killed), as PIT counts a
# mutant that crashes the JVM; not an infrastructure error, which is a run that could not happen.
SERVED_RELPATH = "oracle-gate/mutant-served"
MAX_ENV_CHARS = 100 * 1024
MAX_DECODED_BYTES = 16 * 1024 * 1024


class MutantTooLarge(ValueError):
    """A mutant's encoded environment value is over `MAX_ENV_CHARS`: report it as not run."""


def encode_mutant_env(path: str, source: str, mutant_id: str) -> str:
    """The `ORACLE_GATE_MUTANT` value: base64 of zlib of JSON `{"id", "path", "source"}`."""
    _check_payload(path, source, mutant_id)
    payload = json.dumps(
        {"id": mutant_id, "path": path, "source": source},
        sort_keys=True,
        separators=(",", ":"),
    ).encode("ascii")
    value = base64.b64encode(zlib.compress(payload, 9)).decode("ascii")
    if len(value) > MAX_ENV_CHARS:
        raise MutantTooLarge(
            f"mutant {mutant_id} of {path}: {ENV_VAR} would be {len(value)} characters, "
            f"over the {MAX_ENV_CHARS} limit"
        )
    return value


def decode_mutant_env(value: str) -> Dict[str, str]:
    """The inverse of `encode_mutant_env`; a clear `ValueError` for anything else."""
    prefix = f"{ENV_VAR} is not a mutant payload"
    if not isinstance(value, str) or not value:
        raise ValueError(f"{prefix}: empty")
    try:
        packed = base64.b64decode(value.encode("ascii"), validate=True)
    except (UnicodeError, binascii.Error):
        raise ValueError(f"{prefix}: not base64") from None
    try:
        inflater = zlib.decompressobj()
        raw = inflater.decompress(packed, MAX_DECODED_BYTES)
    except zlib.error:
        raise ValueError(f"{prefix}: not zlib data") from None
    if inflater.unconsumed_tail:
        raise ValueError(f"{prefix}: over {MAX_DECODED_BYTES} bytes inflated")
    try:
        data = json.loads(raw.decode("utf-8"))
    except (UnicodeError, ValueError):
        raise ValueError(f"{prefix}: not UTF-8 JSON") from None
    if not isinstance(data, dict) or set(data) != {"id", "path", "source"}:
        raise ValueError(f"{prefix}: expected exactly the keys id, path, source")
    try:
        _check_payload(data["path"], data["source"], data["id"])
    except ValueError as exc:
        raise ValueError(f"{prefix}: {exc}") from None
    return {"id": data["id"], "path": data["path"], "source": data["source"]}


def _check_payload(path: Any, source: Any, mutant_id: Any) -> None:
    if not isinstance(path, str) or not path.endswith(".py") or path.startswith("/"):
        raise ValueError(f"mutant path must be a build-root-relative .py path, got {path!r}")
    if ".." in path.replace("\\", "/").split("/"):
        raise ValueError(f"mutant path must not leave the build root, got {path!r}")
    if not isinstance(source, str):
        raise ValueError("mutant source must be text")
    if not isinstance(mutant_id, str) or not mutant_id:
        raise ValueError("mutant id must be a non-empty string")
