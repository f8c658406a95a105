"""Refuse internet sockets: the application talks to no network except the llama.cpp
servers an administrator configured.

`install_network_guard()` adds a `sys.addaudithook` hook (it cannot be removed, so it is
installed once per process and later calls only extend the allow-list). The hook sees every
Python-level socket operation before it happens:

- `socket.connect` / `socket.sendto` / `socket.sendmsg` on an AF_INET or AF_INET6 socket
  raise PermissionError unless the destination (host, port) is a configured server. This
  includes loopback: 127.0.0.1 is allowed only when a configured server lives there.
- `socket.getaddrinfo` / `socket.gethostbyname` raise PermissionError for a host name that
  is not a configured server's, so not even a DNS query leaves the machine. Numeric
  addresses, `localhost` and no host at all resolve locally and are let through (a later
  connect is still checked).
- AF_UNIX sockets are allowed: they are local inter-process pipes (multiprocessing, the
  isolated model process), never network traffic.

What the hook cannot see: sockets opened by native code (llama.cpp, Qt) without going
through Python's `socket` module. Concord's native libraries open none; the installed
application is also run under `unshare -rn` (no network at all) in the test suite.

Which servers: the list an admin signed (`concord settings set llama_servers URL,URL
--admin ADMIN`, kept in the audit chain: `concord.accounts.settings`), which the front end
reads and passes as `signed`. `CONCORD_LLAMA_SERVERS` (comma-separated URLs) and
`CONCORD_HOME/servers.json` (`{"servers": ["http://10.1.2.3:8080", ...]}`) can only narrow
it: any user can set a variable or write a file in the data folder, so a URL they name that
the admin did not sign is refused (`config_error` says which), never allowed.
"""

from __future__ import annotations

import ipaddress
import json
import os
import socket
import sys
import threading
from collections.abc import Iterable
from pathlib import Path
from urllib.parse import urlsplit

from concord.errors import InputError
from concord.paths import concord_home

SERVERS_ENV = "CONCORD_LLAMA_SERVERS"
SERVERS_FILE = "servers.json"
DEFAULT_HTTP_PORT = 80
DEFAULT_HTTPS_PORT = 443
REFUSED = "network access refused by Concord's network guard"
_INET = (socket.AF_INET, socket.AF_INET6)
_LOCAL_NAMES = frozenset({"localhost", "localhost.localdomain", "ip6-localhost"})


class _Guard:
    def __init__(self) -> None:
        self.installed = False
        self.config_error: InputError | None = None
        self.endpoints: set[tuple[str, int]] = set()  # (host or address, port)
        self.hosts: set[str] = set()  # names and addresses that may be resolved
        self.unresolved: set[tuple[str, int]] = set()  # allowed names not yet looked up
        self.lock = threading.Lock()


_guard = _Guard()


def parse_server(url: str) -> tuple[str, int]:
    """(host, port) of `http://host:port[/...]` or `host:port`; InputError otherwise."""
    text = url.strip()
    if not text:
        raise InputError("empty server address")
    parts = urlsplit(text if "://" in text else f"http://{text}")
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise InputError("a server must be http://HOST:PORT", subject=url)
    try:
        port = parts.port
    except ValueError as exc:
        raise InputError(f"bad port: {exc}", subject=url) from exc
    if port is None:
        port = DEFAULT_HTTPS_PORT if parts.scheme == "https" else DEFAULT_HTTP_PORT
    return parts.hostname.lower(), port


def _normal_host(host: str) -> str:
    host = host.strip("[]").lower()
    try:
        return str(ipaddress.ip_address(host.split("%", 1)[0]))
    except ValueError:
        return host


def _same_server(url: str) -> tuple[str, int]:
    host, port = parse_server(url)
    return _normal_host(host), port


def configured_servers(home: Path | None = None) -> list[str]:
    """Server URLs named in the environment, then servers.json: a narrowing of the signed
    list (see the module doc), not an allow-list of its own."""
    urls = [u.strip() for u in os.environ.get(SERVERS_ENV, "").split(",") if u.strip()]
    path = (home if home is not None else concord_home(create=False)) / SERVERS_FILE
    if path.is_file():
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
            listed = data["servers"] if isinstance(data, dict) else data
            if not isinstance(listed, list) or not all(isinstance(u, str) for u in listed):
                raise ValueError('expected {"servers": ["http://host:port", ...]}')
        except (OSError, ValueError, KeyError) as exc:
            raise InputError(f"invalid server list: {exc}", subject=path) from exc
        urls += listed
    return list(dict.fromkeys(urls))


def allow(urls: Iterable[str]) -> None:
    """Add servers to the allow-list (whether or not the hook is installed yet)."""
    _allow(urls)


def _allow(urls: Iterable[str]) -> None:
    for url in urls:
        host, port = parse_server(url)
        names = {_normal_host(host)}
        if names & _LOCAL_NAMES:
            names |= {"127.0.0.1", "::1"}
        elif not _is_address(host):
            # Looked up only when a connection needs it (`_resolve_allowed_names`), not at
            # start-up: every command installs the guard, and a slow DNS must not delay them.
            with _guard.lock:
                _guard.unresolved.add((_normal_host(host), port))
        with _guard.lock:
            _guard.hosts |= names
            _guard.endpoints |= {(n, port) for n in names}


def _resolve_allowed_names() -> None:
    """Add the addresses of the allowed server names (a name that does not resolve stays
    allowed by name). The lookups pass the hook because the names are allowed."""
    with _guard.lock:
        pending, _guard.unresolved = _guard.unresolved, set()
    for host, port in pending:
        try:
            infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
        except OSError:
            infos = []
        addresses = {_normal_host(str(info[4][0])) for info in infos}
        with _guard.lock:
            _guard.hosts |= addresses
            _guard.endpoints |= {(a, port) for a in addresses}


def _is_address(host: str) -> bool:
    try:
        ipaddress.ip_address(host.strip("[]").split("%", 1)[0])
    except ValueError:
        return False
    return True


def is_allowed(host: str, port: int) -> bool:
    return (_normal_host(host), int(port)) in _guard.endpoints


def is_allowed_url(url: str) -> bool:
    host, port = parse_server(url)
    return is_allowed(host, port)


def _check_destination(sock: object, address: object) -> None:
    family = getattr(sock, "family", None)
    if family not in _INET:
        return  # AF_UNIX and friends: local only
    if isinstance(address, tuple) and len(address) >= 2:
        host, port = str(address[0]), int(address[1])
        if is_allowed(host, port):
            return
        if _guard.unresolved:
            _resolve_allowed_names()
            if is_allowed(host, port):
                return
    raise PermissionError(
        f"{REFUSED}: connection to {address!r} (not a configured llama.cpp server)"
    )


def _check_lookup(host: object) -> None:
    if host is None:
        return
    text = host.decode("idna") if isinstance(host, bytes) else str(host)
    name = _normal_host(text)
    if not name or name in _LOCAL_NAMES or _is_address(name) or name in _guard.hosts:
        return
    raise PermissionError(f"{REFUSED}: name lookup of {text!r} (not a configured server)")


def _hook(event: str, args: tuple) -> None:
    if not event.startswith("socket."):
        return
    if event == "socket.connect" or event == "socket.sendto":
        _check_destination(args[0], args[1])
    elif event == "socket.sendmsg":
        if len(args) > 1 and args[1] is not None:
            _check_destination(args[0], args[1])
    elif event in ("socket.getaddrinfo", "socket.gethostbyname", "socket.gethostbyname_ex"):
        _check_lookup(args[0])


def install_network_guard(
    allowed: Iterable[str] = (),
    *,
    home: Path | None = None,
    signed: Iterable[str] | None = None,
) -> None:
    """Install the audit hook (once per process), then allow `allowed` (code that starts
    its own loopback server) and the servers of the admin-signed list `signed`, narrowed to
    those CONCORD_LLAMA_SERVERS or servers.json name when either names any. Calling it
    again only extends the allow-list: the hook cannot be removed.

    Never raises for a bad configuration: the guard fails closed (nothing unsigned is
    allowed) and `config_error()` tells the command that needs servers what was wrong."""
    with _guard.lock:
        first = not _guard.installed
        _guard.installed = True
    if first:
        sys.addaudithook(_hook)
    _guard.config_error = None
    _allow(list(allowed))
    signed_list = list(signed or ())
    try:
        named = configured_servers(home)
    except InputError as exc:
        named = []
        _guard.config_error = exc
    try:
        signed_keys = {_same_server(u) for u in signed_list}
    except InputError as exc:
        _guard.config_error = exc
        return
    if named:
        unsigned = []
        for url in named:
            try:
                key = _same_server(url)
            except InputError as exc:
                _guard.config_error = exc
                continue
            if key in signed_keys:
                _allow([url])
            else:
                unsigned.append(url)
        if unsigned:
            _guard.config_error = InputError(
                f"not on the admin-signed server list ({', '.join(unsigned)}): "
                "CONCORD_LLAMA_SERVERS and servers.json can only narrow it; an admin adds "
                "servers with 'concord settings set llama_servers URL,URL --admin ADMIN'"
            )
    else:
        _allow(signed_list)


def config_error() -> InputError | None:
    """The problem with the administrator's server list, if reading it failed."""
    return _guard.config_error


def guard_installed() -> bool:
    return _guard.installed
