"""The network guard: internet sockets are refused before any packet; configured servers
are allowed; every command and the desktop app install it first, and so does the test
suite (tests/conftest.py); no model hub library is installed; a record full of URLs causes
no network attempt; and the application works with no network at all (`unshare -rn`)."""

from __future__ import annotations

import importlib
import json
import os
import shutil
import socket
import subprocess
import sys
import textwrap
import urllib.error
import urllib.request
from pathlib import Path

import pytest

from concord import netguard, paths
from concord.cli import main
from concord.llm.scripted import ScriptedRuntime
from concord.netguard import parse_server
from concord.pipeline import PanelSettings, run_panel
from concord.records import load_record
from concord.services import Services
from tests.fake_agents import BriefWriter
from tests.llm.fake_llama_server import loopback_works

REPO = Path(__file__).resolve().parents[2]
CHILD_TIMEOUT = 120


def run_child(code: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    """`code` in a fresh interpreter, to see the guard from its installation on (in the
    test process it is already installed, and an audit hook cannot be removed)."""
    full_env = {**os.environ, **(env or {})}
    return subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code)],
        capture_output=True,
        text=True,
        timeout=CHILD_TIMEOUT,
        env=full_env,
    )


def test_internet_connection_is_refused_before_any_packet():
    # A second hook, installed after the guard, raises if it is ever reached: so even a
    # broken guard cannot let this connection leave the machine.
    result = run_child(
        """
        import socket, sys
        from concord.netguard import install_network_guard
        install_network_guard()
        reached = []
        def tripwire(event, args):
            if event == "socket.connect":
                reached.append(args[1])
                raise RuntimeError("tripwire: the guard let a connection through")
        sys.addaudithook(tripwire)
        for family, address in ((socket.AF_INET, ("93.184.216.34", 80)),
                                (socket.AF_INET6, ("2606:2800:220:1::1", 443))):
            s = socket.socket(family, socket.SOCK_STREAM)
            try:
                s.connect(address)
                print("CONNECTED", address)
            except PermissionError as exc:
                print("REFUSED", "network guard" in str(exc))
            finally:
                s.close()
        try:
            socket.getaddrinfo("evil.example", 80)
            print("RESOLVED")
        except PermissionError:
            print("LOOKUP REFUSED")
        print("reached", reached)
    """,
        env={"CONCORD_LLAMA_SERVERS": ""},
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.split("\n")[:4] == [
        "REFUSED True",
        "REFUSED True",
        "LOOKUP REFUSED",
        "reached []",
    ], result.stdout


def test_the_whole_test_suite_runs_behind_the_guard():
    assert netguard.guard_installed()
    for family, address in (
        (socket.AF_INET, ("93.184.216.34", 80)),
        (socket.AF_INET6, ("2606:2800:220:1::1", 443)),
    ):
        with (
            socket.socket(family, socket.SOCK_STREAM) as s,
            pytest.raises(PermissionError, match="network guard"),
        ):
            s.connect(address)
    with pytest.raises(urllib.error.URLError, match="network guard"):
        urllib.request.urlopen("http://example.org/", timeout=5)  # the lookup is refused
    with pytest.raises(PermissionError, match="network guard"):  # loopback too, unless listed
        socket.create_connection(("127.0.0.1", 9), timeout=5)


def test_every_command_installs_the_guard_first():
    result = run_child(
        """
        import socket
        from concord import netguard
        from concord.cli import main
        assert not netguard.guard_installed()
        code = main(["cases", "--json"])
        s = socket.socket()
        try:
            s.connect(("93.184.216.34", 80))
        except PermissionError:
            print("REFUSED", code, netguard.guard_installed())
    """,
        env={"CONCORD_LLAMA_SERVERS": ""},
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.split()[-3:] == ["REFUSED", "0", "True"], result.stdout


def test_the_desktop_app_installs_the_guard_before_qt_starts():
    pytest.importorskip("PySide6")
    result = run_child(
        """
        from concord import netguard
        from concord.ui import app
        def stop_here():
            print("GUARD", netguard.guard_installed())
            raise SystemExit(0)
        app._check_qt_binding = stop_here
        app.run_app()
    """,
        env={"CONCORD_LLAMA_SERVERS": "", "QT_QPA_PLATFORM": "offscreen"},
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "GUARD True"


needs_loopback = pytest.mark.skipif(
    not loopback_works(), reason="loopback is down (a namespace without `ip link set lo up`)"
)


@needs_loopback
def test_configured_loopback_server_is_allowed_and_nothing_else(concord_home: Path):
    (concord_home / "servers.json").write_text(json.dumps({"servers": []}))
    result = run_child(
        """
        import os, socket
        configured, other = socket.socket(), socket.socket()
        for s in (configured, other):
            s.bind(("127.0.0.1", 0)); s.listen(1)
        port = configured.getsockname()[1]
        with open(os.path.join(os.environ["CONCORD_HOME"], "servers.json"), "w") as f:
            f.write('{"servers": ["http://127.0.0.1:%d"]}' % port)
        from concord.netguard import install_network_guard, is_allowed_url
        url = "http://127.0.0.1:%d" % port
        install_network_guard()  # the file alone allows nothing: any user can write it
        print("FILE-ALONE", is_allowed_url(url))
        install_network_guard(signed=[url])  # the admin-signed list, which the file narrows
        install_network_guard(signed=[url])  # idempotent
        for listener in (configured, other):
            c = socket.socket()
            try:
                c.connect(listener.getsockname()); print("CONNECTED")
            except PermissionError:
                print("REFUSED")
            finally:
                c.close()
        u = socket.socket(socket.AF_UNIX)
        try:
            u.connect("/nonexistent/concord.sock")
        except FileNotFoundError:
            print("UNIX ALLOWED")
    """,
        env={"CONCORD_LLAMA_SERVERS": ""},
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.split() == [
        "FILE-ALONE", "False", "CONNECTED", "REFUSED", "UNIX", "ALLOWED"
    ], result.stdout  # fmt: skip


@needs_loopback
def test_environment_servers_are_allowed():
    result = run_child("""
        import socket
        listener = socket.socket(); listener.bind(("127.0.0.1", 0)); listener.listen(1)
        import os
        os.environ["CONCORD_LLAMA_SERVERS"] = "http://localhost:%d" % listener.getsockname()[1]
        from concord.netguard import config_error, install_network_guard, is_allowed_url
        url = os.environ["CONCORD_LLAMA_SERVERS"]
        install_network_guard()  # the variable alone allows nothing
        print("ALONE", is_allowed_url(url), config_error() is not None)
        install_network_guard(signed=[url, "http://localhost:2"])  # narrowed to the variable's
        socket.create_connection(listener.getsockname(), timeout=5).close()
        print("OK", is_allowed_url(url), is_allowed_url("http://localhost:1"),
              is_allowed_url("http://localhost:2"))
    """)
    assert result.returncode == 0, result.stderr
    assert result.stdout.split() == ["ALONE", "False", "True", "OK", "True", "False", "False"]


@needs_loopback
def test_server_names_are_looked_up_when_needed_not_at_start_up():
    """Every command installs the guard: a configured server name is resolved only when a
    connection needs its address, so a slow hospital DNS delays no other command."""
    result = run_child("""
        import os, socket
        listener = socket.socket(); listener.bind(("127.0.0.1", 0)); listener.listen(1)
        other = socket.socket(); other.bind(("127.0.0.1", 0)); other.listen(1)
        port = listener.getsockname()[1]
        real, lookups = socket.getaddrinfo, []
        def fake(host, *args, **kw):
            lookups.append(host)
            return real("127.0.0.1" if host == "llm-a.hospital.example" else host, *args, **kw)
        socket.getaddrinfo = fake
        os.environ["CONCORD_LLAMA_SERVERS"] = "http://llm-a.hospital.example:%d" % port
        from concord.netguard import install_network_guard
        install_network_guard(signed=[os.environ["CONCORD_LLAMA_SERVERS"]])
        print("AT-START", len(lookups))
        socket.create_connection(("llm-a.hospital.example", port), timeout=5).close()
        print("CONNECTED", lookups.count("llm-a.hospital.example") >= 1)
        try:
            socket.create_connection(other.getsockname(), timeout=5).close(); print("OPEN")
        except PermissionError:
            print("REFUSED")
    """)
    assert result.returncode == 0, result.stderr
    assert result.stdout.split() == ["AT-START", "0", "CONNECTED", "True", "REFUSED"]


def test_server_addresses_are_parsed_strictly():
    assert parse_server("http://10.1.2.3:8080/v1") == ("10.1.2.3", 8080)
    assert parse_server("gpu1.hospital.lan:8000") == ("gpu1.hospital.lan", 8000)
    assert parse_server("https://gpu1") == ("gpu1", 443)
    from concord.errors import InputError

    for bad in ("", "ftp://x:1", "http://:80", "http://h:notaport"):
        with pytest.raises(InputError):
            parse_server(bad)


@pytest.mark.parametrize("name", ["huggingface_hub", "transformers"])
def test_model_hub_libraries_are_not_installed(name: str):
    assert importlib.util.find_spec(name) is None
    with pytest.raises(ModuleNotFoundError):
        importlib.import_module(name)


# -- a record full of URLs -------------------------------------------------------------

_recording: list[list[tuple[str, str]]] = []
NETWORK_EVENTS = (
    "socket.",
    "urllib.Request",
    "http.client.",
    "ftplib.",
    "smtplib.",
    "webbrowser.open",
    "imaplib.",
    "poplib.",
    "nntplib.",
    "telnetlib.",
)
LOCAL_ONLY = frozenset({"socket.gethostname"})  # the kernel's name (the audit trail's workstation)


def _recorder(event: str, args: tuple) -> None:
    if _recording and event.startswith(NETWORK_EVENTS) and event not in LOCAL_ONLY:
        _recording[-1].append((event, repr(args)[:200]))


sys.addaudithook(_recorder)  # records only while a test has pushed a list

URL_RECORD = """Pre-operative clinic. Results at http://evil.example/x?patient=123 and
https://198.51.100.7:8443/labs; scanned letter file:///etc/passwd and \\\\server\\share\\k.pdf.
Potassium 6.3 mmol/L on the morning bloods; see ftp://files.example/ecg.
Creatinine 210 umol/L, eGFR 22. Referral: mailto:renal@hospital.example
"""


def test_a_record_containing_urls_causes_no_network_attempt(tmp_path: Path, capsys):
    record_file = tmp_path / "urls.txt"
    record_file.write_text(URL_RECORD)
    evidence = tmp_path / "ev.jsonl"
    evidence.write_text(
        "\n".join(
            json.dumps(
                {
                    "source_id": "urls.txt",
                    "locator": "L1",
                    "extract_text": text,
                    "tag": "LABS",
                    "comment": "see http://evil.example/comment",
                }
            )
            for text in ("http://evil.example/x?patient=123", "file:///etc/passwd")
        )
        + "\n"
    )
    events: list[tuple[str, str]] = []
    _recording.append(events)
    try:
        assert main(["import", str(record_file)]) == 0
        assert main(["screen", str(record_file), "--json"]) == 0
        assert main(["verify-extracts", str(record_file), str(evidence), "--json"]) == 0
        svc = Services()
        record = load_record(record_file)
        runtime = ScriptedRuntime(BriefWriter(consult=["renal"]))
        case = list(
            run_panel(
                record,
                runtime,
                profiles=svc.profiles,
                screen=svc.screen,
                lexicon=svc.lexicon,
                config=svc.config,
                settings=PanelSettings(judges=1),
            )
        )[-1].case
        assert case is not None
        svc.repo.save_case(case, "tester")
        svc.close()
    finally:
        _recording.pop()
    out = capsys.readouterr().out
    assert "evil.example" in out  # the URL really went through the commands
    assert any("evil.example" in r.prefix for r in runtime.requests)
    assert events == [], events


# -- no network at all -----------------------------------------------------------------


def _unshare_ok() -> str | None:
    if not sys.platform.startswith("linux") or shutil.which("unshare") is None:
        return "unshare is not available"
    probe = subprocess.run(["unshare", "-rn", "true"], capture_output=True, text=True)
    if probe.returncode != 0:
        return f"unshare -rn is not permitted here: {probe.stderr.strip()}"
    return None


@pytest.mark.skipif(_unshare_ok() is not None, reason=str(_unshare_ok()))
def test_screen_and_tests_run_in_a_namespace_without_network(concord_home: Path):
    demo = paths.resources_dir() / "demo" / "03_ckd_hyperkalaemia.json"
    check = subprocess.run(
        [
            "unshare",
            "-rn",
            sys.executable,
            "-c",
            "import socket; s = socket.socket(); s.settimeout(2); "
            "print(s.connect_ex(('93.184.216.34', 80)))",
        ],
        capture_output=True,
        text=True,
        timeout=CHILD_TIMEOUT,
    )
    assert check.stdout.strip() not in ("", "0"), "the namespace still has a network"
    screen = subprocess.run(
        ["unshare", "-rn", sys.executable, "-m", "concord", "screen", str(demo), "--json"],
        capture_output=True,
        text=True,
        timeout=CHILD_TIMEOUT,
    )
    assert screen.returncode == 0, screen.stderr
    gates = json.loads(screen.stdout)["records"][0]["gates"]
    assert any(g["status"] == "triggered" for g in gates)
    # The loopback is brought up when `ip` can (it is still only this namespace's own
    # loopback), so the tests that talk to a loopback server run too.
    lo_up = "ip link set lo up 2>/dev/null; " if shutil.which("ip") else ""
    pytest_cmd = (
        f"{lo_up}exec {sys.executable} -m pytest -q -p no:cacheprovider "
        f"{REPO / 'tests' / 'netguard'} -k 'not namespace'"
    )
    suite = subprocess.run(
        ["unshare", "-rn", "sh", "-c", pytest_cmd],
        capture_output=True,
        text=True,
        timeout=CHILD_TIMEOUT * 3,
        cwd=REPO,
    )
    assert suite.returncode == 0, suite.stdout[-2000:] + suite.stderr[-2000:]
    assert " passed" in suite.stdout and " failed" not in suite.stdout
