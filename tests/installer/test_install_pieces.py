"""The cheap pieces of the offline installer. (Building a real bundle takes minutes and
hundreds of MB: it is done by hand, see installer/README.md.)"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
INSTALLER = REPO / "installer"
SCRIPTS = ("build_bundle.sh", "install.sh", "uninstall.sh")

pytestmark = pytest.mark.skipif(shutil.which("bash") is None, reason="needs bash")


def bash(
    script: str,
    *,
    env: dict[str, str] | None = None,
    cwd: Path | None = None,
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        ["bash", "-c", script],
        capture_output=True,
        text=True,
        timeout=60,
        env={**os.environ, **(env or {})},
        cwd=cwd,
    )


def library(body: str, **kw) -> subprocess.CompletedProcess[str]:
    """Run `body` with install.sh's functions defined (and main not run)."""
    return bash(f'CONCORD_INSTALL_LIB=1 source "{INSTALLER / "install.sh"}"\n{body}', **kw)


@pytest.mark.parametrize("name", SCRIPTS)
def test_scripts_parse(name: str):
    result = subprocess.run(["bash", "-n", str(INSTALLER / name)], capture_output=True, text=True)
    assert result.returncode == 0, result.stderr


def fake_bundle(tmp_path: Path) -> Path:
    bundle = tmp_path / "bundle"
    (bundle / "wheels").mkdir(parents=True)
    (bundle / "wheels" / "concord-0.1.0-py3-none-any.whl").write_bytes(b"PK not really")
    (bundle / "BUNDLE.txt").write_text("test bundle\n")
    sums = subprocess.run(
        "find . -type f | sed 's|^./||' | sort | xargs sha256sum",
        shell=True,
        cwd=bundle,
        capture_output=True,
        text=True,
        check=True,
    )
    (bundle / "SHA256SUMS").write_text(sums.stdout)
    return bundle


def test_bundle_checksums_are_verified(tmp_path: Path):
    bundle = fake_bundle(tmp_path)
    assert library(f'verify_bundle "{bundle}"').returncode == 0
    (bundle / "wheels" / "concord-0.1.0-py3-none-any.whl").write_bytes(b"PK altered")
    result = library(f'verify_bundle "{bundle}"')
    assert result.returncode == 1
    assert "checksum mismatch" in result.stderr and "concord-0.1.0" in result.stderr


def test_a_missing_file_or_checksum_list_is_refused(tmp_path: Path):
    bundle = fake_bundle(tmp_path)
    (bundle / "BUNDLE.txt").unlink()
    assert library(f'verify_bundle "{bundle}"').returncode == 1
    (bundle / "SHA256SUMS").unlink()
    result = library(f'verify_bundle "{bundle}"')
    assert result.returncode == 1 and "SHA256SUMS is missing" in result.stderr


def test_install_refuses_a_damaged_bundle_before_touching_anything(tmp_path: Path):
    bundle = fake_bundle(tmp_path)
    shutil.copy(INSTALLER / "install.sh", bundle / "install.sh")  # not in SHA256SUMS
    (bundle / "BUNDLE.txt").write_text("altered\n")
    prefix = tmp_path / "prefix"
    result = bash(
        f'bash "{bundle / "install.sh"}" --prefix "{prefix}" --home "{tmp_path / "h"}"',
        env={"PYTHON": sys.executable},
    )
    assert result.returncode == 1 and "checksum mismatch" in result.stderr
    assert not prefix.exists() and not (tmp_path / "h").exists()


def test_pip_is_offline_and_ignores_the_machine_configuration(tmp_path: Path):
    fake_python = tmp_path / "python"
    fake_python.write_text('#!/bin/sh\necho "cfg=$PIP_CONFIG_FILE noindex=$PIP_NO_INDEX $*"\n')
    fake_python.chmod(0o755)
    fake_python.write_text(
        '#!/bin/sh\necho "cfg=$PIP_CONFIG_FILE noindex=$PIP_NO_INDEX links=$PIP_FIND_LINKS $*"\n'
    )
    result = library(
        f'bundle=/b; offline_pip "{fake_python}" -q "concord[model]"',
        env={"PIP_FIND_LINKS": "/opt/wheels", "PIP_INDEX_URL": "http://x/simple"},
    )
    assert result.returncode == 0, result.stderr
    line = result.stdout.strip()
    assert line.startswith(
        "cfg=/dev/null noindex=1 links= -m pip install --no-index --find-links /b/wheels"
    ), line


def test_desktop_launcher(tmp_path: Path):
    target = tmp_path / "apps" / "concord.desktop"
    result = library(
        f'CONCORD_VERSION=9.9 render_desktop "{INSTALLER / "concord.desktop.in"}" '
        f'"/opt/my concord/concord" "{target}"'
    )
    assert result.returncode == 0, result.stderr
    text = target.read_text()
    assert "@" not in text
    entries = dict(line.split("=", 1) for line in text.splitlines() if "=" in line)
    assert text.startswith("[Desktop Entry]\n")
    assert entries["Type"] == "Application" and entries["Name"] == "Concord"
    assert entries["Exec"] == '"/opt/my concord/concord" gui'
    assert entries["Terminal"] == "false"
    if shutil.which("desktop-file-validate"):
        check = subprocess.run(
            ["desktop-file-validate", str(target)], capture_output=True, text=True
        )
        assert check.returncode == 0, check.stdout + check.stderr


def test_desktop_launcher_keeps_a_path_with_sed_characters(tmp_path: Path):
    # "|", "&" and "\" end or rewrite a sed substitution; the path must come through whole
    target = tmp_path / "concord.desktop"
    path = "/opt/a|b & c\\d/concord"
    result = library(f'render_desktop "{INSTALLER / "concord.desktop.in"}" \'{path}\' "{target}"')
    assert result.returncode == 0, result.stderr
    entries = dict(line.split("=", 1) for line in target.read_text().splitlines() if "=" in line)
    assert entries["Exec"] == f'"{path}" gui'
    assert entries["TryExec"] == path


def test_wrapper_pins_concord_home(tmp_path: Path):
    prefix = tmp_path / "prefix"
    (prefix / "venv" / "bin").mkdir(parents=True)
    fake = prefix / "venv" / "bin" / "concord"
    fake.write_text('#!/bin/sh\necho "home=$CONCORD_HOME args=$*"\n')
    fake.chmod(0o755)
    assert library(f'write_wrapper "{prefix}" "{tmp_path / "data"}"').returncode == 0
    env = {k: v for k, v in os.environ.items() if k != "CONCORD_HOME"}
    out = subprocess.run(
        [str(prefix / "concord"), "demo", "--json"],
        capture_output=True,
        text=True,
        env=env,
        check=True,
    ).stdout
    assert out.strip() == f"home={tmp_path / 'data'} args=demo --json"


def installed(tmp_path: Path) -> tuple[Path, Path, Path, dict[str, str]]:
    prefix, home, xdg = tmp_path / "prefix", tmp_path / "data", tmp_path / "xdg"
    (prefix / "venv" / "bin").mkdir(parents=True)
    (prefix / "venv" / "bin" / "python").write_text("")
    (prefix / "venv" / "bin" / "python").chmod(0o755)
    (prefix / "concord").write_text("#!/bin/sh\n")
    (prefix / "CONCORD_HOME").write_text(f"{home}\n")
    home.mkdir(exist_ok=True)
    (home / "concord.sqlite").write_bytes(b"the cases")
    (xdg / "applications").mkdir(parents=True, exist_ok=True)
    (xdg / "applications" / "concord.desktop").write_text(f"Exec={prefix}/concord gui\n")
    return prefix, home, xdg, {"XDG_DATA_HOME": str(xdg)}


def test_uninstall_keeps_the_data(tmp_path: Path):
    prefix, home, xdg, env = installed(tmp_path)
    result = bash(f'bash "{INSTALLER / "uninstall.sh"}" --prefix "{prefix}"', env=env)
    assert result.returncode == 0, result.stderr
    assert not prefix.exists() and not (xdg / "applications" / "concord.desktop").exists()
    assert (home / "concord.sqlite").read_bytes() == b"the cases"
    assert "data kept" in result.stderr


def test_uninstall_purges_data_only_when_confirmed(tmp_path: Path):
    prefix, home, _, env = installed(tmp_path)
    script = f'bash "{INSTALLER / "uninstall.sh"}" --prefix "{prefix}" --purge-data'
    refused = bash(script + " </dev/null", env=env)
    assert refused.returncode == 1 and "--yes" in refused.stderr
    assert (home / "concord.sqlite").exists()
    prefix, home, _, env = installed(tmp_path)
    assert bash(script + " --yes", env=env).returncode == 0
    assert not home.exists()


def test_bundle_is_never_built_inside_the_repository():
    result = bash(
        f'bash "{INSTALLER / "build_bundle.sh"}" --out "{REPO / "bundle-here"}"',
        env={"PYTHON": sys.executable},
    )
    assert result.returncode == 2 and "outside the repository" in result.stderr
    assert not (REPO / "bundle-here").exists()


# -- the X libraries a real display needs ---------------------------------------------------

X11_LIST = INSTALLER / "x11-libraries.txt"


def x11_entries() -> list[tuple[str, str]]:
    lines = [line.split() for line in X11_LIST.read_text().splitlines()]
    return [(parts[0], parts[1]) for parts in lines if parts and not parts[0].startswith("#")]


def fake_tools(tmp_path: Path, present: list[str], uid: int) -> dict[str, str]:
    """PATH with an ldconfig that knows only `present`, an id that says `uid`, and a dpkg
    that records its arguments."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    listing = "".join(f"\t{so} (libc6,x86-64) => /usr/lib/{so}\\n" for so in present)
    for name, body in {
        "ldconfig": f'printf "{listing}"',
        "id": f"echo {uid}",
        "dpkg": f'echo "$@" > "{tmp_path / "dpkg-args"}"',
    }.items():
        tool = bin_dir / name
        tool.write_text(f"#!/bin/sh\n{body}\n")
        tool.chmod(0o755)
    return {"PATH": f"{bin_dir}:{os.environ['PATH']}"}


def test_the_x11_list_names_what_the_qt_xcb_plugin_needs():
    entries = x11_entries()
    packages = {package for _, package in entries}
    # what `concord gui` aborted without on a real display (issue 14)
    assert {"libxcb-cursor0", "libxcb-icccm4", "libxcb-keysyms1"} <= packages
    assert all(so.startswith("lib") and ".so." in so for so, _ in entries)
    for script in ("dev.sh", "build_bundle.sh", "install.sh"):
        assert "x11-libraries.txt" in (INSTALLER / script).read_text(), script


def test_missing_x11_libraries_are_found(tmp_path: Path):
    entries = x11_entries()
    present = [so for so, _ in entries if so != "libxcb-icccm.so.4"]
    result = library(
        f'x11_packages_missing "{X11_LIST}"', env=fake_tools(tmp_path, present, uid=1000)
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.split() == ["libxcb-icccm4"]


def test_root_installs_the_bundled_x11_packages(tmp_path: Path):
    bundle = tmp_path / "bundle"
    (bundle / "debs").mkdir(parents=True)
    shutil.copy(X11_LIST, bundle / "x11-libraries.txt")
    deb = bundle / "debs" / "libxcb-keysyms1_0.4.0-1_amd64.deb"
    deb.write_bytes(b"!<arch>\n")
    present = [so for so, _ in x11_entries() if so != "libxcb-keysyms.so.1"]
    env = fake_tools(tmp_path, present, uid=0)
    result = library(f'install_x11_libraries "{bundle}"', env=env)
    assert result.returncode == 0, result.stderr
    assert (tmp_path / "dpkg-args").read_text().split() == ["-i", str(deb)]


def test_without_root_the_command_to_run_is_printed(tmp_path: Path):
    bundle = tmp_path / "bundle"
    (bundle / "debs").mkdir(parents=True)
    shutil.copy(X11_LIST, bundle / "x11-libraries.txt")
    deb = bundle / "debs" / "libxcb-cursor0_0.1.4-1_amd64.deb"
    deb.write_bytes(b"!<arch>\n")
    present = [so for so, _ in x11_entries() if so != "libxcb-cursor.so.0"]
    env = fake_tools(tmp_path, present, uid=1000)
    result = library(f'install_x11_libraries "{bundle}"', env=env)
    assert result.returncode == 0, result.stderr
    assert f"dpkg -i {deb}" in result.stderr and "libxcb-cursor0" in result.stderr
    assert not (tmp_path / "dpkg-args").exists()
