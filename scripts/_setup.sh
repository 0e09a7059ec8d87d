# Sourced by scripts/demo and scripts/test: a virtual environment with reclaim installed,
# and bubblewrap where this machine lets us install it (root on Debian).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
PY="${PYTHON:-python3}"
VENV="${VENV:-.venv}"

as_root() { if [ "$(id -u)" = 0 ]; then "$@"; elif command -v sudo >/dev/null; then sudo -n "$@"; else return 1; fi; }

apt_install() {
  command -v apt-get >/dev/null || return 1
  { as_root apt-get update -qq && as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "$@"; } >/dev/null
}

if [ ! -x "$VENV/bin/python" ]; then
  if ! "$PY" -m venv "$VENV" 2>/dev/null; then
    rm -rf "$VENV"
    echo "python3 -m venv failed; installing python3-venv" >&2
    apt_install python3-venv || { echo "error: install python3-venv, then rerun" >&2; exit 1; }
    "$PY" -m venv "$VENV"
  fi
fi
if [ ! -f "$VENV/.installed" ] || [ pyproject.toml -nt "$VENV/.installed" ]; then
  # the first time, pip downloads reclaim's dependencies: say so, or the terminal sits silent for a minute
  echo "setting up $VENV: installing reclaim and its dependencies with pip (about a minute, once)..." >&2
  start=$SECONDS
  "$VENV/bin/python" -m pip install -q --disable-pip-version-check -e ".[test]"
  touch "$VENV/.installed"
  echo "installed reclaim into $VENV in $((SECONDS - start)) s" >&2
fi
if ! command -v strace >/dev/null; then
  # the exec record: every program a sandbox starts, recorded where the agent cannot reach
  echo "installing strace (apt) for the exec record..." >&2
  apt_install strace || echo "warning: strace could not be installed; trials keep no exec record" >&2
fi
if ! command -v bwrap >/dev/null; then
  echo "installing bubblewrap (apt) for the sandbox..." >&2
  if apt_install bubblewrap; then
    echo "installed bubblewrap: trials run in a real sandbox" >&2
  else
    echo "warning: bubblewrap is not installed and could not be installed here;" \
         "trials will run WITHOUT isolation (sandbox 'process')" >&2
  fi
fi
