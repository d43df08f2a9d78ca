// name: why-alive
// description: Why one object is alive: its retention path from a root, then its dominator chain up to the top.
// param: snapshot string
// param: address string
// columns: chain, step, address, type, label, via, size, retainedSize
//
// chain 'retention': step 0 is the root, via the root's name; each later step is the object the previous one
// references, via that reference's name or [kind]; the last step is the object itself. Absent when the object
// is unreachable. chain 'dominator': step 0 is the object, then its immediate dominator, and so on up to an
// object the super-root dominates. An address no object of the snapshot has is refused before the query runs
// (heapload query: one line, exit 1).
MATCH (:Snapshot {id: $snapshot})
MATCH (o:Object {snapshot: $snapshot, address: $address})
CALL (o) {
  MATCH p = (r:Object)-[:REF*0.. {retention: true}]->(o)
  WHERE r.rootName IS NOT NULL
  WITH nodes(p) AS ns, relationships(p) AS rels
  UNWIND range(0, size(ns) - 1) AS i
  RETURN 0 AS ord, 'retention' AS chain, i AS step, ns[i] AS n,
         CASE WHEN i = 0 THEN 'root ' + ns[0].rootName
              ELSE coalesce(rels[i - 1].name, '[' + rels[i - 1].kind + ']') END AS via
  UNION ALL
  // every dominator of o lies on its retention path: walk the path from o towards the root, keeping each
  // node whose address is the `dominator` of the last node kept
  OPTIONAL MATCH p = (r:Object)-[:REF*0.. {retention: true}]->(o)
  WHERE r.rootName IS NOT NULL
  WITH o, CASE WHEN p IS NULL THEN [o] ELSE reverse(nodes(p)) END AS path
  WITH reduce(kept = [o], n IN tail(path) |
              CASE WHEN n.address = last(kept).dominator THEN kept + n ELSE kept END) AS ns
  UNWIND range(0, size(ns) - 1) AS i
  RETURN 1 AS ord, 'dominator' AS chain, i AS step, ns[i] AS n, null AS via
}
RETURN chain, step, n.address AS address, n.type AS type, n.label AS label, via, n.size AS size,
       n.retainedSize AS retainedSize
ORDER BY ord, step
