// name: new-objects
// description: Objects of the target with no counterpart in the baseline, by type and memory category, with reused addresses.
// param: baseline string
// param: target string
// columns: type, category, objects, bytes, reachableObjects, reachableBytes, reusedAddresses
//
// Identity rule: same address AND same type AND same memory category (AND same size for strings); a new
// object whose address existed in the baseline (held by another object then) counts in reusedAddresses.
// The first row (type 'all', no category) is the total. Reads the pair's Diff and NewObjects nodes (computed at
// load time for every ordered pair of snapshots in the store). No rows: one of the ids is not in the store.
MATCH (d:Diff {baseline: $baseline, target: $target})
OPTIONAL MATCH (d)-[:HAS_NEW_OBJECTS]->(n:NewObjects)
WITH d, collect(n {.type, .category, .objects, .bytes, .reachableObjects, .reachableBytes, .reusedAddresses}) AS rows
UNWIND [{type: 'all', category: null, objects: d.newObjects, bytes: d.newBytes,
         reachableObjects: reduce(s = 0, r IN rows | s + r.reachableObjects),
         reachableBytes: reduce(s = 0, r IN rows | s + r.reachableBytes),
         reusedAddresses: d.reusedAddresses, ord: 0}]
       + [r IN rows | r {.*, ord: 1}] AS row
RETURN row.type AS type, row.category AS category, row.objects AS objects, row.bytes AS bytes,
       row.reachableObjects AS reachableObjects, row.reachableBytes AS reachableBytes,
       row.reusedAddresses AS reusedAddresses
ORDER BY row.ord, bytes DESC, type, category
