// name: type-histogram-diff
// description: Per VM type, objects and bytes in a baseline and a target snapshot, the difference, and the target's new objects.
// param: baseline string
// param: target string
// columns: type, baselineObjects, targetObjects, deltaObjects, baselineBytes, targetBytes, deltaBytes, newObjects, newBytes
//
// new: no object of the baseline has the same address, type and memory category (and, for strings, size).
// Ordered by deltaBytes, largest growth first.
CALL {
  MATCH (b:Object {snapshot: $baseline})
  RETURN b.type AS type, count(b) AS baselineObjects, sum(b.size) AS baselineBytes,
         0 AS targetObjects, 0 AS targetBytes, 0 AS newObjects, 0 AS newBytes
  UNION ALL
  MATCH (t:Object {snapshot: $target})
  WITH t, NOT EXISTS {
      MATCH (b:Object {snapshot: $baseline, address: t.address})
      WHERE b.type = t.type AND coalesce(b.category, -1) = coalesce(t.category, -1)
        AND (t.type <> 'string' OR b.size = t.size) } AS isNew
  RETURN t.type AS type, 0 AS baselineObjects, 0 AS baselineBytes,
         count(t) AS targetObjects, sum(t.size) AS targetBytes,
         count(CASE WHEN isNew THEN 1 END) AS newObjects, sum(CASE WHEN isNew THEN t.size ELSE 0 END) AS newBytes
}
WITH type, sum(baselineObjects) AS baselineObjects, sum(targetObjects) AS targetObjects,
     sum(baselineBytes) AS baselineBytes, sum(targetBytes) AS targetBytes,
     sum(newObjects) AS newObjects, sum(newBytes) AS newBytes
RETURN type, baselineObjects, targetObjects, targetObjects - baselineObjects AS deltaObjects,
       baselineBytes, targetBytes, targetBytes - baselineBytes AS deltaBytes, newObjects, newBytes
ORDER BY deltaBytes DESC, type
