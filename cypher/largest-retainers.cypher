// name: largest-retainers
// description: The objects with the largest retained size (bytes freed if they became unreachable), with their retention path.
// param: snapshot string
// param: top integer = 20
// columns: address, type, label, size, retainedSize, path
//
// path: names from the root to the object: the root's name, then per hop the reference's name or [kind] (a string
// key that is empty or starts with [ or " in double quotes). The relationship also holds the path as data:
// t.pathNames, t.pathKinds, t.pathKeyTypes, t.pathTypes (one element per hop, see leak-groups).
// Reads the snapshot's TOP_RETAINER relationships (the 1000 largest, ranked at load time, each with its path):
// top is at most 1000. The path is the walk of `why-alive`, precomputed: walking it in Cypher reads every
// incoming reference of every object on it.
MATCH (:Snapshot {id: $snapshot})-[t:TOP_RETAINER]->(o:Object)
WHERE t.rank <= $top
RETURN o.address AS address, o.type AS type, o.label AS label, o.size AS size, o.retainedSize AS retainedSize,
       t.path AS path
ORDER BY retainedSize DESC, address
