// name: unreachable
// description: Objects that no exported root reaches over strong references, by type (garbage or unexported roots, never leaks).
// param: snapshot string
// columns: type, objects, bytes, weaklyReferenced
//
// weaklyReferenced: how many of them a reachable object still points to over a weak reference (see weak-only).
MATCH (o:Object {snapshot: $snapshot})
WHERE NOT o.reachable
WITH o, EXISTS { MATCH (h:Object)-[:WEAK_REF]->(o) WHERE h.reachable } AS weak
RETURN o.type AS type, count(o) AS objects, sum(o.size) AS bytes, count(CASE WHEN weak THEN 1 END) AS weaklyReferenced
ORDER BY bytes DESC, type
