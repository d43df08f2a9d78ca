// name: weak-only
// description: Objects reachable only through weak references (unreachable, but a reachable object points to them weakly): collectable, not leaks.
// param: snapshot string
// param: top integer = 100
// columns: address, type, category, label, size, weakHolders, holderAddress, holderType, via
//
// One row per such object, largest first; holder*/via describe one of its reachable weak holders
// (lowest address) and the weak reference's name or [kind]. Such objects carry the label :WeakOnly (set at load time).
MATCH (:Snapshot {id: $snapshot})
MATCH (o:WeakOnly {snapshot: $snapshot})<-[w:WEAK_REF]-(h:Object)
WHERE h.reachable
WITH o, h, w ORDER BY h.address
WITH o, count(h) AS weakHolders, collect({h: h, w: w})[0] AS first
RETURN o.address AS address, o.type AS type, o.category AS category, o.label AS label, o.size AS size,
       weakHolders, first.h.address AS holderAddress, first.h.type AS holderType,
       coalesce(first.w.name, '[' + first.w.kind + ']') AS via
ORDER BY size DESC, address
LIMIT $top
