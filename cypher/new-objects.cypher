// name: new-objects
// description: Objects of the target with no counterpart in the baseline, by type and memory category, with reused addresses.
// param: baseline string
// param: target string
// columns: type, category, objects, bytes, reachableObjects, reachableBytes, reusedAddresses
//
// Identity rule: same address AND same type AND same memory category (AND same size for strings); a new
// object whose address existed in the baseline (held by another object then) counts in reusedAddresses.
// The first row (type 'all', no category) is the total.
MATCH (t:Object {snapshot: $target})
WHERE NOT EXISTS {
  MATCH (b:Object {snapshot: $baseline, address: t.address})
  WHERE b.type = t.type AND coalesce(b.category, -1) = coalesce(t.category, -1)
    AND (t.type <> 'string' OR b.size = t.size) }
WITH t, EXISTS { MATCH (:Object {snapshot: $baseline, address: t.address}) } AS reused
WITH t.type AS type, t.category AS category, count(t) AS objects, sum(t.size) AS bytes,
     count(CASE WHEN t.reachable THEN 1 END) AS reachableObjects,
     sum(CASE WHEN t.reachable THEN t.size ELSE 0 END) AS reachableBytes,
     count(CASE WHEN reused THEN 1 END) AS reusedAddresses
WITH collect({type: type, category: category, objects: objects, bytes: bytes, reachableObjects: reachableObjects,
              reachableBytes: reachableBytes, reusedAddresses: reusedAddresses}) AS rows
UNWIND [{type: 'all', category: null,
         objects: reduce(s = 0, r IN rows | s + r.objects), bytes: reduce(s = 0, r IN rows | s + r.bytes),
         reachableObjects: reduce(s = 0, r IN rows | s + r.reachableObjects),
         reachableBytes: reduce(s = 0, r IN rows | s + r.reachableBytes),
         reusedAddresses: reduce(s = 0, r IN rows | s + r.reusedAddresses), ord: 0}]
       + [r IN rows | r {.*, ord: 1}] AS row
RETURN row.type AS type, row.category AS category, row.objects AS objects, row.bytes AS bytes,
       row.reachableObjects AS reachableObjects, row.reachableBytes AS reachableBytes,
       row.reusedAddresses AS reusedAddresses
ORDER BY row.ord, bytes DESC, type, category
