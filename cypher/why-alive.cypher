// name: why-alive
// description: Why one object is alive: its retention path from a root, then its dominator chain up to the top.
// param: snapshot string
// param: address string
// columns: chain, step, address, type, label, via, size, retainedSize
//
// chain 'retention': step 0 is the root, via the root's name; each later step is the object the previous one
// references, via that reference's name or [kind] (a string key that is empty or starts with [ or " in double
// quotes, so the string key "[1]" never reads like the number key [1]; a stack slot: then ' in frame F', the frame
// holding it); the last step is the object itself. Absent when the object
// is unreachable. chain 'dominator': step 0 is the object, then its immediate dominator, and so on up to an
// object the super-root dominates. An address no object of the snapshot has is refused before the query runs
// (heapload query: one line, exit 1).
MATCH (s:Snapshot {id: $snapshot})
MATCH (o:Object {snapshot: $snapshot, address: $address})
// The retention path is the walk along flagged REFs from a root to o (one flagged REF into each object: the walk
// is unique). shortestPath finds it breadth-first from the snapshot's roots; a variable-length MATCH would build
// its list of relationships one nested layer per hop, which Neo4j reads recursively (a StackOverflowError on
// paths of some 10,000 hops and more).
OPTIONAL MATCH (s)-[:ROOT]->(r:Object) WHERE r.rootName IS NOT NULL
OPTIONAL MATCH p = shortestPath((r)-[:REF*0..]->(o)) WHERE all(x IN relationships(p) WHERE x.retention)
WITH o, p ORDER BY length(p)
WITH o, head(collect(p)) AS p
CALL (o, p) {
  WITH p WHERE p IS NOT NULL
  WITH nodes(p) AS ns, relationships(p) AS rels
  UNWIND range(0, size(ns) - 1) AS i
  RETURN 0 AS ord, 'retention' AS chain, i AS step, ns[i] AS n,
         CASE WHEN i = 0 THEN 'root ' + ns[0].rootName
              ELSE CASE WHEN rels[i - 1].name IS NULL THEN '[' + rels[i - 1].kind + ']'
                        WHEN rels[i - 1].keyType = 'string' AND (rels[i - 1].name = '' OR rels[i - 1].name STARTS WITH '['
                                                               OR rels[i - 1].name STARTS WITH '"')
                             THEN '"' + rels[i - 1].name + '"'
                        ELSE rels[i - 1].name END
                   + CASE WHEN rels[i - 1].frame IS NULL THEN '' ELSE ' in frame ' + rels[i - 1].frame END END AS via
  UNION ALL
  // every dominator of o lies on its retention path: walk the path from o towards the root, keeping each
  // node whose address is the `dominator` of the last node kept. (`kept + n` also adds a nested layer: the list
  // is copied flat, `[x IN kept | x]`, every 256 nodes kept, so no read of it recurses deeper than that.)
  WITH o, CASE WHEN p IS NULL THEN [o] ELSE reverse(nodes(p)) END AS path
  WITH reduce(kept = [o], n IN tail(path) |
              CASE WHEN n.address = last(kept).dominator
                   THEN CASE WHEN size(kept) % 256 = 0 THEN [x IN kept | x] + n ELSE kept + n END
                   ELSE kept END) AS ns
  UNWIND range(0, size(ns) - 1) AS i
  RETURN 1 AS ord, 'dominator' AS chain, i AS step, ns[i] AS n, null AS via
}
RETURN chain, step, n.address AS address, n.type AS type, n.label AS label, via, n.size AS size,
       n.retainedSize AS retainedSize
ORDER BY ord, step
