#!/usr/bin/env bash
# Builds llama.cpp's own `llama-server` from the llama.cpp sources that the installed
# llama-cpp-python was compiled from (its sdist, from the same package index pip uses), with
# cmake, once: the binary is cached per llama-cpp-python version and reused on every later run.
#
#   bash installer/build_llama_server.sh [PYTHON]
#
# PYTHON is the interpreter whose llama-cpp-python version is matched (default .venv's);
# LLAMA_CPP_PYTHON_VERSION names the version instead (the offline bundle's build).
# Prints the binary's path on stdout (progress goes to stderr). The cache is
# $CONCORD_BUILD_CACHE (default ~/.cache/concord)/llama-server-<version>/llama-server.
# Needs cmake and a C++ compiler, as the llama-cpp-python build itself does. The server's web
# UI is not built and never downloaded (LLAMA_BUILD_UI=OFF, LLAMA_USE_PREBUILT_UI=OFF): only
# the HTTP API is needed. About 6-8 minutes on 2 cores, the first time only.
set -euo pipefail
cd "$(dirname "$0")/.."

py="${1:-${CONCORD_VENV:-.venv}/bin/python}"
version="${LLAMA_CPP_PYTHON_VERSION:-$("$py" -c 'import importlib.metadata as m; print(m.version("llama-cpp-python"))')}"
cache="${CONCORD_BUILD_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/concord}/llama-server-$version"
binary="$cache/llama-server"

if [ -x "$binary" ] && "$binary" --version >/dev/null 2>&1; then
  echo "$binary"
  exit 0
fi

command -v cmake >/dev/null 2>&1 || { echo "build_llama_server: cmake is needed" >&2; exit 1; }
command -v c++ >/dev/null 2>&1 || { echo "build_llama_server: a C++ compiler is needed" >&2; exit 1; }

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
echo "llama-server: building from the llama-cpp-python $version sources (first time only)" >&2
"$py" -m pip download -q --no-deps --no-binary :all: -d "$work" "llama-cpp-python==$version" >&2
tar -C "$work" -xzf "$work"/llama_cpp_python-"$version".tar.gz
src="$work/llama_cpp_python-$version/vendor/llama.cpp"
[ -f "$src/tools/server/CMakeLists.txt" ] || {
  echo "build_llama_server: no llama.cpp server sources in llama-cpp-python $version" >&2
  exit 1
}
generator=()
command -v ninja >/dev/null 2>&1 && generator=(-G Ninja)
cmake -S "$src" -B "$work/build" "${generator[@]}" -DCMAKE_BUILD_TYPE=Release \
  -DBUILD_SHARED_LIBS=OFF -DLLAMA_BUILD_SERVER=ON -DLLAMA_BUILD_TOOLS=ON \
  -DLLAMA_BUILD_TESTS=OFF -DLLAMA_BUILD_EXAMPLES=OFF -DLLAMA_BUILD_APP=OFF \
  -DLLAMA_BUILD_UI=OFF -DLLAMA_USE_PREBUILT_UI=OFF -DLLAMA_OPENSSL=OFF -DLLAMA_CURL=OFF \
  ${CMAKE_ARGS:-} >&2
cmake --build "$work/build" --target llama-server -j "$(nproc 2>/dev/null || echo 2)" >&2
mkdir -p "$cache"
cp "$work/build/bin/llama-server" "$cache/llama-server.tmp"
mv "$cache/llama-server.tmp" "$binary"  # atomic: a half-copied binary is never found
"$binary" --version >&2
echo "$binary"
