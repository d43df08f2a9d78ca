// name: unreachable
// description: Objects that no exported root reaches over strong references, by type (garbage or unexported roots, never leaks).
// param: snapshot string
// columns: type, objects, bytes, weaklyReferenced
//
// weaklyReferenced: how many of them a reachable object still points to over a weak reference (see weak-only).
MATCH (:Snapshot {id: $snapshot})-[:HAS_STATS]->(st:Stats)
WITH st.type AS type, sum(st.objects - st.reachableObjects) AS objects, sum(st.bytes - st.reachableBytes) AS bytes,
     sum(st.weakOnlyObjects) AS weaklyReferenced
WHERE objects > 0
RETURN type, objects, bytes, weaklyReferenced
ORDER BY bytes DESC, type
