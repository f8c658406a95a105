#!/usr/bin/env bash
# Installs Concord from this offline bundle only (pip --no-index --find-links wheels/): no
# network is used or needed. Run it from the unpacked bundle:
#
#   bash install.sh [--prefix DIR] [--home DIR] [--admin NAME] [--no-desktop] [--python PY]
#
#   --prefix DIR   where the application's virtual environment goes
#                  (default: /opt/concord as root, else ~/.local/opt/concord)
#   --home DIR     CONCORD_HOME: database, keys, registered models
#                  (default: $CONCORD_HOME, else the platform's user data folder)
#   --admin NAME   the first admin user (default: $CONCORD_ADMIN, else the login name)
#   --no-desktop   do not add the desktop launcher
#
# Steps: verify SHA256SUMS; install the X libraries a real display needs from debs/ (as
# root; otherwise print the dpkg command); create (or upgrade) the virtual environment; install
# Concord and the default model package from the bundle; create CONCORD_HOME; register
# and verify the default model; create the admin user if there is none; check the audit
# chain; add a launcher (~/.local/share/applications/concord.desktop). Re-running it
# upgrades in place: the database and keys in CONCORD_HOME are never touched.
set -euo pipefail

bundle="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"

die() { echo "install: $*" >&2; exit 1; }
say() { echo "== $*" >&2; }

default_prefix() {
  if [ "$(id -u)" = 0 ]; then echo /opt/concord; else echo "$HOME/.local/opt/concord"; fi
}

# Verify every file of the bundle against SHA256SUMS (sha256sum, or Python if absent).
verify_bundle() {
  local dir="$1"
  [ -f "$dir/SHA256SUMS" ] || die "$dir/SHA256SUMS is missing: not a complete bundle"
  if command -v sha256sum >/dev/null 2>&1; then
    (cd "$dir" && sha256sum --quiet --strict -c SHA256SUMS) >&2 \
      || die "bundle checksum mismatch (see above): the bundle is damaged or altered"
  else
    "${PY:-python3.11}" - "$dir" <<'EOF' || die "bundle checksum mismatch: damaged or altered"
import hashlib, pathlib, sys
root = pathlib.Path(sys.argv[1]); bad = 0
for line in (root / "SHA256SUMS").read_text().splitlines():
    digest, name = line.split(None, 1)
    path = root / name.lstrip("*")
    if not path.is_file() or hashlib.sha256(path.read_bytes()).hexdigest() != digest:
        print(f"{name}: FAILED", file=sys.stderr); bad = 1
sys.exit(bad)
EOF
  fi
}

# Write the launcher from the template: @EXEC@ and @VERSION@ replaced. The path is escaped
# for sed (a "|", "&" or "\" in it would otherwise end or rewrite the expression); the
# template quotes it in Exec= (the desktop entry spec's quoting) and TryExec= takes it as is.
render_desktop() {
  local template="$1" exec_path="$2" target="$3" escaped
  escaped=$(printf '%s' "$exec_path" | sed -e 's/[\\|&]/\\&/g')
  mkdir -p "$(dirname "$target")"
  sed -e "s|@EXEC@|$escaped|g" -e "s|@VERSION@|${CONCORD_VERSION:-}|g" "$template" > "$target"
  chmod 0644 "$target"
}

# The X libraries a real display needs (x11-libraries.txt: "soname package") that this
# machine lacks, one package name per line.
x11_packages_missing() {
  local list="$1" soname package
  while read -r soname package; do
    case "$soname" in ''|\#*) continue ;; esac
    ldconfig -p 2>/dev/null | grep -qF "$soname (" || echo "$package"
  done < "$list"
}

# Install the missing X libraries from the bundle's debs/ (as root), or say exactly what
# to run: without them `concord gui` aborts on a real display (offscreen and the CLI work).
install_x11_libraries() {
  local dir="$1" package deb
  local missing=() debs=()
  [ -f "$dir/x11-libraries.txt" ] || return 0
  mapfile -t missing < <(x11_packages_missing "$dir/x11-libraries.txt")
  [ "${#missing[@]}" -gt 0 ] || return 0
  for package in "${missing[@]}"; do
    for deb in "$dir"/debs/"${package}"_*.deb; do
      [ -f "$deb" ] && debs+=("$deb")
    done
  done
  if [ "${#debs[@]}" -eq 0 ]; then
    say "the desktop needs these system packages, not in this bundle: ${missing[*]}"
  elif [ "$(id -u)" = 0 ] && command -v dpkg >/dev/null 2>&1; then
    say "installing the X libraries a real display needs: ${missing[*]}"
    dpkg -i "${debs[@]}" >&2 || die "dpkg could not install ${debs[*]}"
  else
    say "the desktop needs X libraries this machine lacks (${missing[*]}); as root run:"
    echo "  dpkg -i ${debs[*]}" >&2
  fi
}

# A wrapper that pins CONCORD_HOME, so the launcher and the shell use the same data.
write_wrapper() {
  local prefix="$1" home="$2"
  cat > "$prefix/concord" <<EOF
#!/bin/sh
# Concord, installed from an offline bundle. Data: $home
export CONCORD_HOME="\${CONCORD_HOME:-$home}"
exec "$prefix/venv/bin/concord" "\$@"
EOF
  chmod 0755 "$prefix/concord"
}

# pip from the bundle only: no index, and no configuration file or PIP_* variable of the
# machine (either may name an index or other wheel folders).
offline_pip() {
  local python="$1"; shift
  local unset_pip=()
  local name
  for name in $(compgen -e); do
    case "$name" in PIP_*) unset_pip+=(-u "$name") ;; esac
  done
  env "${unset_pip[@]}" PIP_CONFIG_FILE=/dev/null PIP_NO_INDEX=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1 \
    "$python" -m pip install --no-index --find-links "$bundle/wheels" "$@"
}

main() {
  local prefix="" home="${CONCORD_HOME:-}" admin="${CONCORD_ADMIN:-}" desktop=1
  PY="${PYTHON:-python3.11}"
  while [ $# -gt 0 ]; do
    case "$1" in
      --prefix) prefix="$2"; shift 2 ;;
      --home) home="$2"; shift 2 ;;
      --admin) admin="$2"; shift 2 ;;
      --no-desktop) desktop=0; shift ;;
      --python) PY="$2"; shift 2 ;;
      -h|--help) sed -n '2,19p' "$0"; exit 0 ;;
      *) die "unknown option $1" ;;
    esac
  done
  prefix="${prefix:-$(default_prefix)}"
  admin="${admin:-$(id -un)}"
  command -v "$PY" >/dev/null || die "$PY not found: Concord needs Python 3.11"
  "$PY" -c 'import sys; sys.exit(0 if sys.version_info[:2] == (3, 11) else 1)' \
    || die "$PY is not Python 3.11"

  say "verifying the bundle ($bundle)"
  verify_bundle "$bundle"
  install_x11_libraries "$bundle"

  local upgrade=0
  if [ -x "$prefix/venv/bin/python" ]; then
    upgrade=1
    say "upgrading in place: $prefix"
  else
    say "installing into $prefix"
    mkdir -p "$prefix"
    "$PY" -m venv "$prefix/venv"
  fi
  local vpy="$prefix/venv/bin/python"
  offline_pip "$vpy" -q --upgrade pip
  offline_pip "$vpy" -q --upgrade --upgrade-strategy eager "concord[model]"
  # Same version number, new build: make sure this bundle's Concord is the one installed.
  offline_pip "$vpy" -q --force-reinstall --no-deps "$bundle"/wheels/concord-*.whl

  if [ -z "$home" ]; then
    home="$("$vpy" -c 'from platformdirs import user_data_dir; print(user_data_dir("concord", appauthor=False))')"
  fi
  mkdir -p "$home"
  chmod 0700 "$home"
  write_wrapper "$prefix" "$home"
  local concord="$prefix/concord"

  say "default model: register and verify (CONCORD_HOME=$home)"
  "$concord" models install-default
  "$concord" models verify

  if "$concord" users list --json | "$vpy" -c \
      'import json,sys; sys.exit(0 if any(u["role"] == "admin" for u in json.load(sys.stdin)["users"]) else 1)'; then
    say "an admin user already exists: kept"
  else
    say "creating the first admin user: $admin"
    "$concord" users add "$admin" --role admin
  fi
  "$concord" audit verify

  if [ "$desktop" = 1 ]; then
    local apps="${XDG_DATA_HOME:-$HOME/.local/share}/applications"
    CONCORD_VERSION="$("$vpy" -c 'import concord; print(concord.__version__)')" \
      render_desktop "$bundle/concord.desktop.in" "$concord" "$apps/concord.desktop"
    say "launcher: $apps/concord.desktop"
  fi
  cp "$bundle/BUNDLE.txt" "$prefix/BUNDLE.txt" 2>/dev/null || true
  printf '%s\n' "$home" > "$prefix/CONCORD_HOME"
  if [ "$upgrade" = 1 ]; then say "upgraded; data kept in $home"; else say "installed"; fi
  echo "run: $concord demo   (or: $concord gui)"
}

# `CONCORD_INSTALL_LIB=1 source install.sh` defines the functions only (tests).
if [ "${CONCORD_INSTALL_LIB:-0}" != 1 ]; then
  main "$@"
fi
