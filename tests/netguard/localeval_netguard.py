"""A network guard for the test suite and every Python process it starts.

Once `install()` has run, opening a network connection (TCP or UDP, any address family but
AF_UNIX, which local tooling uses) or resolving a host name other than the loopback raises
`NetworkAccessBlocked`, and the attempt is recorded: in `ATTEMPTS`, and in the file named by
``$LOCALEVAL_NETGUARD_LOG`` when set, so that an attempt a library swallows (falling back to a
cache, say) is still caught when the suite ends. `sitecustomize.py` beside this file installs
it in subprocesses, whose ``PYTHONPATH`` the test suite points here.
"""

from __future__ import annotations

import os
import socket
from typing import Any

__all__ = ["ATTEMPTS", "LOG_ENV", "NetworkAccessBlocked", "install", "installed", "logged_attempts"]

LOG_ENV = "LOCALEVAL_NETGUARD_LOG"
ATTEMPTS: list[str] = []
_LOCAL_NAMES = {None, "", "localhost", "127.0.0.1", "::1", b"localhost", b"127.0.0.1", b"::1"}
_original: dict[str, Any] = {}


class NetworkAccessBlocked(AssertionError):
    """An AssertionError, not an OSError: code that handles being offline must not swallow it."""


def _refuse(what: str) -> None:
    ATTEMPTS.append(what)
    log = os.environ.get(LOG_ENV)
    if log:
        with open(log, "a", encoding="utf-8") as handle:
            handle.write(f"pid {os.getpid()}: {what}\n")
    raise NetworkAccessBlocked(f"network access attempted: {what}")


def _is_unix(sock: socket.socket) -> bool:
    return getattr(socket, "AF_UNIX", None) is not None and sock.family == socket.AF_UNIX


def _guard_method(name: str):
    original = getattr(socket.socket, name)

    def guarded(self: socket.socket, *args: Any, **kwargs: Any) -> Any:
        if not _is_unix(self):
            _refuse(f"socket.{name}{args!r}")
        return original(self, *args, **kwargs)

    guarded.__name__ = name
    return original, guarded


def _guard_resolver(name: str):
    original = getattr(socket, name)

    def guarded(host: Any = None, *args: Any, **kwargs: Any) -> Any:
        if host not in _LOCAL_NAMES:
            _refuse(f"socket.{name}({host!r})")
        return original(host, *args, **kwargs)

    guarded.__name__ = name
    return original, guarded


def install() -> None:
    """Block network access in this process (idempotent)."""
    if _original:
        return
    for name in ("connect", "connect_ex", "sendto", "sendmsg"):
        _original[name], guarded = _guard_method(name)
        setattr(socket.socket, name, guarded)
    for name in ("getaddrinfo", "gethostbyname", "gethostbyname_ex"):
        _original[name], guarded = _guard_resolver(name)
        setattr(socket, name, guarded)


def installed() -> bool:
    return bool(_original) and socket.socket.connect is not _original["connect"]


def logged_attempts() -> list[str]:
    """Attempts recorded in ``$LOCALEVAL_NETGUARD_LOG`` (by this process or any other)."""
    log = os.environ.get(LOG_ENV)
    if not log or not os.path.exists(log):
        return []
    with open(log, encoding="utf-8") as handle:
        return handle.read().splitlines()
