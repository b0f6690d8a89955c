#!/usr/bin/env bash
# Installs BuildGrid (a Remote Execution API server: CAS, ByteStream, ActionCache) from PyPI into a
# cached virtualenv, for the shared-remote-cache end-to-end test (tests/e2e/reapi.py starts it).
# Idempotent: a finished install is reused. Prints where `bgd` is. Edits nothing outside its
# directory; pip ignores every pip configuration file (PIP_CONFIG_FILE=/dev/null).
#
#   ORACLE_GATE_BUILDGRID_DIR      where to install (default ~/.cache/oracle-gate-buildgrid)
#   ORACLE_GATE_BUILDGRID_PYTHON   a CPython >= 3.13 (BuildGrid 0.9.1 requires it); default: found
#                                  on PATH or under pyenv
set -euo pipefail

version=0.9.1
root="${ORACLE_GATE_BUILDGRID_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/oracle-gate-buildgrid}"
venv="$root/buildgrid-$version"
link="$root/bgd"   # the stable name tests/e2e/reapi.py looks for
say() { echo "install-buildgrid: $*"; }
die() { echo "install-buildgrid: $*" >&2; exit 1; }

if [ -f "$venv/ready" ] && [ -x "$venv/bin/bgd" ]; then
  ln -sfn "$venv/bin/bgd" "$link"
  say "BuildGrid $version already installed: $link"
  exit 0
fi

is_py313() { "$1" -c 'import sys; sys.exit(sys.version_info < (3, 13))' >/dev/null 2>&1; }
find_python() {
  local candidate pyenv_root
  if [ -n "${ORACLE_GATE_BUILDGRID_PYTHON:-}" ]; then echo "$ORACLE_GATE_BUILDGRID_PYTHON"; return 0; fi
  for candidate in python3.13 python3.14 python3; do
    command -v "$candidate" >/dev/null 2>&1 && is_py313 "$candidate" && { command -v "$candidate"; return 0; }
  done
  pyenv_root="$( (pyenv root 2>/dev/null) || echo "${PYENV_ROOT:-$HOME/.pyenv}")"
  for candidate in "$pyenv_root"/versions/3.1[3-9]*/bin/python3; do
    [ -x "$candidate" ] && is_py313 "$candidate" && { echo "$candidate"; return 0; }
  done
  return 1
}

python="$(find_python)" || die "BuildGrid $version needs CPython >= 3.13: none on PATH or under pyenv (set ORACLE_GATE_BUILDGRID_PYTHON)"
start=$(date +%s)
mkdir -p "$root"
exec 9>"$root/.lock"
command -v flock >/dev/null 2>&1 && flock 9
if [ ! -f "$venv/ready" ]; then
  say "installing BuildGrid $version with $python into $venv"
  pip_env=(env PIP_CONFIG_FILE=/dev/null PIP_DISABLE_PIP_VERSION_CHECK=1)
  [ -z "${PIP_CERT:-}" ] && [ -f /etc/ssl/certs/ca-certificates.crt ] && pip_env+=(PIP_CERT=/etc/ssl/certs/ca-certificates.crt)
  log="$root/install-$version.log"
  for attempt in 1 2; do
    rm -rf "$venv"
    if "$python" -m venv "$venv" >"$log" 2>&1 \
       && "${pip_env[@]}" "$venv/bin/pip" install --quiet --retries 5 "buildgrid==$version" >>"$log" 2>&1; then
      break
    fi
    [ "$attempt" = 2 ] && die "could not install buildgrid==$version: $(grep -m1 -E '^ERROR' "$log" || tail -n 1 "$log") (details: $log)"
    say "install failed ($(grep -m1 -E '^ERROR' "$log" || tail -n 1 "$log")); retrying in 5 s"
    sleep 5
  done
  "$venv/bin/bgd" --help >/dev/null 2>&1 || die "bgd does not start (details: $log)"
  touch "$venv/ready"
fi
ln -sfn "$venv/bin/bgd" "$link"
say "BuildGrid $version ready in $(( $(date +%s) - start ))s: $link"
