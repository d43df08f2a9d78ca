// name: type-histogram
// description: Objects and bytes per VM type in one snapshot, with the reachable part and the largest retained size.
// param: snapshot string
// columns: type, objects, bytes, reachableObjects, reachableBytes, maxRetainedSize
//
// bytes: shallow sizes. Ordered by bytes, largest first.
MATCH (:Snapshot {id: $snapshot})-[:HAS_STATS]->(st:Stats)
RETURN st.type AS type, sum(st.objects) AS objects, sum(st.bytes) AS bytes,
       sum(st.reachableObjects) AS reachableObjects, sum(st.reachableBytes) AS reachableBytes,
       max(st.maxRetainedSize) AS maxRetainedSize
ORDER BY bytes DESC, type
