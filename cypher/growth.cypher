// name: growth
// description: Objects present in both snapshots whose shallow size or strong out-degree grew, largest growth first.
// param: baseline string
// param: target string
// param: top integer = 50
// columns: address, type, category, label, sizeBefore, sizeAfter, sizeGrowth, refsBefore, refsAfter, refsGrowth, path
//
// "Present in both": same address, type and memory category (and size, for strings). refs: outgoing REF
// (strong references). Ordered by sizeGrowth, then refsGrowth. path: retention path in the target, root first.
MATCH (t:Object {snapshot: $target})
MATCH (b:Object {snapshot: $baseline, address: t.address})
WHERE b.type = t.type AND coalesce(b.category, -1) = coalesce(t.category, -1)
  AND (t.type <> 'string' OR b.size = t.size)
WITH t, b, COUNT { (b)-[:REF]->() } AS refsBefore, COUNT { (t)-[:REF]->() } AS refsAfter
WHERE t.size > b.size OR refsAfter > refsBefore
WITH t, b, refsBefore, refsAfter
ORDER BY t.size - b.size DESC, refsAfter - refsBefore DESC, t.address
LIMIT $top
OPTIONAL CALL (t) {
  MATCH p = (t)-[:RETAINED_BY*0..]->(r:Object)
  WHERE r.rootName IS NOT NULL
  RETURN [r.rootName] + [rel IN reverse(relationships(p)) | coalesce(rel.name, '[' + rel.kind + ']')] AS path
}
RETURN t.address AS address, t.type AS type, t.category AS category, t.label AS label,
       b.size AS sizeBefore, t.size AS sizeAfter, t.size - b.size AS sizeGrowth,
       refsBefore, refsAfter, refsAfter - refsBefore AS refsGrowth, path
ORDER BY sizeGrowth DESC, refsGrowth DESC, address
