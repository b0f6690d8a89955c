#!/usr/bin/env bash
# CI-machine preparation: these machines ship a global pip `constraint = ...` (capping torch) that
# makes pex's lockfile/resolve step die inside pip with `assert req.link is not None`. pip reads
# global config even under --isolated, so the only fix is to drop the constraint line. A normal
# developer laptop has no such file; this script is a no-op there.
set -euo pipefail
for conf in "${XDG_CONFIG_DIRS:-/etc/xdg}/pip/pip.conf" /etc/pip.conf; do
  if [ -f "$conf" ] && grep -qE '^[[:space:]]*constraint[[:space:]]*=' "$conf"; then
    if [ -w "$conf" ]; then
      sed -i -E '/^[[:space:]]*constraint[[:space:]]*=/d' "$conf"
      echo "prepare-machine: removed the global pip constraint from $conf"
    else
      echo "prepare-machine: $conf sets a global pip constraint and is not writable; pex resolves may fail" >&2
    fi
  fi
done
