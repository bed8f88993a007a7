#!/usr/bin/env bash
# Install the ns-3.44 wheel (a C++ library with headers) into its own
# virtualenv, .venv-ns3 at the repository's root, and build the ns-3 twin.
# --no-deps: the wheel's Python bindings need cppyy, whose install would
# build cling from source; the C++ program does not need them.
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
venv="${NS3_VENV:-$root/.venv-ns3}"
py="${PYTHON:-python3.11}"
if ! "$venv/bin/python" -c 'import importlib.util as u, sys; sys.exit(u.find_spec("ns3") is None)' 2>/dev/null; then
    "$py" -m venv "$venv"
    "$venv/bin/python" -m pip install --quiet --disable-pip-version-check --no-deps "ns3==3.44.post0"
fi
command -v g++ >/dev/null || { apt-get update && apt-get install -y --no-install-recommends g++; }
NS3_VENV="$venv" "$root/validation/ns3/build.sh"
