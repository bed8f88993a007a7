#!/usr/bin/env bash
# Re-create the stored ns-2 traces of the trace twins (needs ns-2: Debian's ns2).
set -euo pipefail
cd "$(dirname "$0")"
grep -v '^#' twins.txt | while read -r name agent cc limit duration script; do
    [ -n "$name" ] || continue
    ns "${script:-single_flow}.tcl" "$agent" "$limit" "$duration" "$name.ns2.tr" > /dev/null
    gzip -n -9 -f "$name.ns2.tr"
    echo "$name: $(zcat "$name.ns2.tr.gz" | wc -l) events"
done
