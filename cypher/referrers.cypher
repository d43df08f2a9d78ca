// name: referrers
// description: Every object that references one object: strong and weak references, with the reference's kind and name.
// param: snapshot string
// param: address string
// columns: address, type, label, kind, name, weak, retention, distance, size, retainedSize
//
// One row per reference into the object (an object referencing it twice gives two rows). weak: the reference is
// flagged weak (WEAK_REF: a weak table's key or value, a MicroPython weak reference); ephemeron values and Lua 5.1
// weak-key values are REFs with their own flags. retention: this reference is the last hop of the object's
// retention path (why-alive). distance: the referrer's strong hops from the nearest root (-1 unreachable).
// Ordered strong before weak, then by the referrer's distance and address, the reference's kind and name (no name
// last), and a retention reference before another of the same referrer, kind and name: rows equal in all of these
// are equal in every column, so the order is total (the model route, dev.heapload.explore.ReferrersQuery, returns the
// same rows in the same order). Deep-safe: one hop, no paths.
MATCH (o:Object {snapshot: $snapshot, address: $address})
MATCH (r:Object)-[x:REF|WEAK_REF]->(o)
RETURN r.address AS address, r.type AS type, r.label AS label, x.kind AS kind, x.name AS name,
       type(x) = 'WEAK_REF' AS weak, coalesce(x.retention, false) AS retention, r.distance AS distance,
       r.size AS size, r.retainedSize AS retainedSize
ORDER BY weak, CASE WHEN distance < 0 THEN 9223372036854775807 ELSE distance END, address, kind, name,
         retention DESC
