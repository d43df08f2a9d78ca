// name: type-histogram-diff
// description: Per VM type, objects and bytes in a baseline and a target snapshot, the difference, and the target's new objects.
// param: baseline string
// param: target string
// columns: type, baselineObjects, targetObjects, deltaObjects, baselineBytes, targetBytes, deltaBytes, newObjects, newBytes
//
// new: no object of the baseline has the same address, type and memory category (and, for strings, size).
// Ordered by deltaBytes, largest growth first.
CALL {
  MATCH (:Snapshot {id: $baseline})-[:HAS_STATS]->(st:Stats)
  RETURN st.type AS type, sum(st.objects) AS baselineObjects, sum(st.bytes) AS baselineBytes,
         0 AS targetObjects, 0 AS targetBytes, 0 AS newObjects, 0 AS newBytes
  UNION ALL
  MATCH (:Snapshot {id: $target})-[:HAS_STATS]->(st:Stats)
  RETURN st.type AS type, 0 AS baselineObjects, 0 AS baselineBytes,
         sum(st.objects) AS targetObjects, sum(st.bytes) AS targetBytes, 0 AS newObjects, 0 AS newBytes
  UNION ALL
  MATCH (:Diff {baseline: $baseline, target: $target})-[:HAS_NEW_OBJECTS]->(n:NewObjects)
  RETURN n.type AS type, 0 AS baselineObjects, 0 AS baselineBytes, 0 AS targetObjects, 0 AS targetBytes,
         sum(n.objects) AS newObjects, sum(n.bytes) AS newBytes
}
WITH type, sum(baselineObjects) AS baselineObjects, sum(targetObjects) AS targetObjects,
     sum(baselineBytes) AS baselineBytes, sum(targetBytes) AS targetBytes,
     sum(newObjects) AS newObjects, sum(newBytes) AS newBytes
RETURN type, baselineObjects, targetObjects, targetObjects - baselineObjects AS deltaObjects,
       baselineBytes, targetBytes, targetBytes - baselineBytes AS deltaBytes, newObjects, newBytes
ORDER BY deltaBytes DESC, type
