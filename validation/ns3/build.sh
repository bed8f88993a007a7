#!/usr/bin/env bash
# Compile dumbbell.cc against the ns-3 wheel (validation/peers/install_ns3.sh
# installs it into .venv-ns3); the binary goes to build/ (not committed).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
venv="${NS3_VENV:-$here/../../.venv-ns3}"
ns3="$("$venv/bin/python" -c 'import pathlib, importlib.util as u; print(pathlib.Path(u.find_spec("ns3").submodule_search_locations[0]))')"
mkdir -p "$here/build"
out="$here/build/dumbbell"
# Up to date: newer than the source and linked against this wheel.
if [ "$out" -nt "$here/dumbbell.cc" ] && [ "$(cat "$out.ns3" 2>/dev/null)" = "$ns3" ] && [ -z "${FORCE:-}" ]; then exit 0; fi
libs=""
for m in core network internet traffic-control point-to-point applications stats bridge mpi; do
    [ -e "$ns3/lib64/libns3.44-$m.so" ] && libs="$libs -lns3.44-$m"
done
g++ -std=c++20 -O2 -w "$here/dumbbell.cc" -o "$out" -I"$ns3/include" \
    -Wl,--no-as-needed -L"$ns3/lib64" $libs -Wl,-rpath,"$ns3/lib64"
echo "$ns3" > "$out.ns3"
echo "built $out"
