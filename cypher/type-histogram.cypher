// name: type-histogram
// description: Objects and bytes per VM type in one snapshot, with the reachable part and the largest retained size.
// param: snapshot string
// columns: type, objects, bytes, reachableObjects, reachableBytes, maxRetainedSize
//
// bytes: shallow sizes. Ordered by bytes, largest first.
MATCH (o:Object {snapshot: $snapshot})
RETURN o.type AS type, count(o) AS objects, sum(o.size) AS bytes,
       count(CASE WHEN o.reachable THEN 1 END) AS reachableObjects,
       sum(CASE WHEN o.reachable THEN o.size ELSE 0 END) AS reachableBytes,
       max(o.retainedSize) AS maxRetainedSize
ORDER BY bytes DESC, type
