#!/usr/bin/env bash
# Exploring figures on the 2.4M-object entity-system-large pair: wall time and peak RSS of
#   heapload query paths (the leak group's example head) and heapload export --devtools (after).
# Usage: bench/explore.sh [STORE_DIR]   (loads the pair into STORE_DIR first when it has no snapshots)
set -euo pipefail
cd "$(dirname "$0")/.."
db="${1:-/tmp/heapload-bench-explore}"
pair=../shared/testdata/luau-large/entity-system-large
if [ ! -f "$db/catalog.properties" ]; then
  HEAPLOAD_XMX=3g ./heapload --db "$db" --no-progress "$pair/before.json.gz" "$pair/after.json.gz" >/dev/null
fi
example="$(./heapload query leak-groups -p baseline=before -p target=after --db "$db" --format json \
  | python3 -c 'import json,sys; print(json.load(sys.stdin)[0]["example"])')"
echo "example head: $example"
for i in 1 2; do
  /usr/bin/time -f "paths: %e s wall, %M KiB peak RSS" ./heapload query paths -p snapshot=after \
    -p "address=$example" --db "$db" >/dev/null
done
out="$(mktemp -d)"
/usr/bin/time -f "export --devtools: %e s wall, %M KiB peak RSS" ./heapload export --devtools "$out/after.heapsnapshot" \
  after --db "$db"
rm -rf "$out"
