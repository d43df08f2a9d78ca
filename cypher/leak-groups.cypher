// name: leak-groups
// description: The new, reachable objects of the target grouped by the retention path of their topmost new ancestor, with each group's net growth and verdict (growing, new, replaced).
// param: baseline string
// param: target string
// columns: objects, newBytes, retainedBytes, heads, headType, path, pathNames, pathKinds, pathKeyTypes, pathTypes, example, verdict, netObjects, netBytes, freedObjects, freedBytes, baselineHeads, freedHeads
//
// new: no object of the baseline has the same address, type and memory category (and size, for strings).
// Each new reachable object walks up its retention path while the parent is new; the last new object is its
// group's head (its parent is old, or it is a root). Heads with the same retention path and type form one group:
// objects and newBytes count every new object under them (shallow bytes), retainedBytes sums the heads' retained
// sizes, heads counts them. path: one line per hop from the root: the root's name and type, then the
// reference's name or [kind] and the type of the object holding it (a string key that is empty or starts with [ or
// " in double quotes). The path as data, one element per hop: pathNames ("" when none), pathKinds (root for the
// first), pathKeyTypes (string, number, boolean, object, other; name for a field or local; "" when no name) and
// pathTypes (the holder's type; the root object's type for the first). Groups are computed at load time for every
// ordered pair of snapshots in the store (LeakGroup nodes).
// Net growth: baselineHeads counts the baseline's objects at the heads' retention path (matched by path key: names,
// a map's keys as [kind], types and categories), freedHeads those of them gone in the target, freedObjects and
// freedBytes the gone objects under them; netObjects = objects - freedObjects, netBytes = newBytes - freedBytes.
// verdict: new (nothing at the path before), growing (netObjects > 0), replaced (the new objects took the place of
// freed ones: churn of a cache, pool or bounded history, not a leak); null in a graph written before verdicts.
// Rank: growing and new groups by netBytes, then netObjects; replaced groups after them by newBytes, then objects;
// then headType, path.
// example: the address of the group's head with the largest retained size (the EXAMPLE relationship), for
// `heapload query why-alive` and `paths` with -p snapshot=TARGET -p address=EXAMPLE.
MATCH (:Diff {baseline: $baseline, target: $target})-[:HAS_LEAK_GROUP]->(g:LeakGroup)
OPTIONAL MATCH (g)-[:EXAMPLE]->(e:Object)
RETURN g.objects AS objects, g.newBytes AS newBytes, g.retainedBytes AS retainedBytes, g.heads AS heads,
       g.headType AS headType, g.path AS path, g.pathNames AS pathNames, g.pathKinds AS pathKinds,
       g.pathKeyTypes AS pathKeyTypes, g.pathTypes AS pathTypes, e.address AS example, g.verdict AS verdict,
       coalesce(g.netObjects, g.objects) AS netObjects, coalesce(g.netBytes, g.newBytes) AS netBytes,
       coalesce(g.freedObjects, 0) AS freedObjects, coalesce(g.freedBytes, 0) AS freedBytes,
       g.baselineHeads AS baselineHeads, coalesce(g.freedHeads, 0) AS freedHeads
ORDER BY g.rank
