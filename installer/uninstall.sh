#!/usr/bin/env bash
# Removes the Concord application; KEEPS the data (database, keys, models in CONCORD_HOME)
# unless --purge-data is given.
#
#   bash uninstall.sh [--prefix DIR] [--purge-data [--yes]]
set -euo pipefail

die() { echo "uninstall: $*" >&2; exit 1; }

prefix=""
purge=0
yes=0
while [ $# -gt 0 ]; do
  case "$1" in
    --prefix) prefix="$2"; shift 2 ;;
    --purge-data) purge=1; shift ;;
    --yes) yes=1; shift ;;
    -h|--help) sed -n '2,6p' "$0"; exit 0 ;;
    *) die "unknown option $1" ;;
  esac
done
if [ -z "$prefix" ]; then
  if [ "$(id -u)" = 0 ]; then prefix=/opt/concord; else prefix="$HOME/.local/opt/concord"; fi
fi
[ -x "$prefix/venv/bin/python" ] || [ -f "$prefix/concord" ] \
  || die "no Concord installation in $prefix"

home=""
[ -f "$prefix/CONCORD_HOME" ] && home="$(cat "$prefix/CONCORD_HOME")"

launcher="${XDG_DATA_HOME:-$HOME/.local/share}/applications/concord.desktop"
if [ -f "$launcher" ] && grep -q "$prefix/concord" "$launcher"; then
  rm -f "$launcher"
fi
rm -rf "$prefix/venv" "$prefix/concord" "$prefix/BUNDLE.txt" "$prefix/CONCORD_HOME"
rmdir "$prefix" 2>/dev/null || true
echo "removed the application from $prefix" >&2

if [ "$purge" = 1 ]; then
  [ -n "$home" ] || die "data folder unknown (no $prefix/CONCORD_HOME); remove it by hand"
  if [ "$yes" != 1 ]; then
    [ -t 0 ] || die "--purge-data deletes $home (database, keys, models): add --yes"
    read -r -p "Delete ALL Concord data in $home (database, signing keys, models)? [y/N] " a
    [ "$a" = y ] || [ "$a" = Y ] || { echo "data kept in $home" >&2; exit 0; }
  fi
  rm -rf "$home"
  echo "deleted the data in $home" >&2
elif [ -n "$home" ]; then
  echo "data kept in $home (database, keys, models); --purge-data removes it" >&2
fi
