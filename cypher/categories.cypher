// name: categories
// description: Objects and bytes per memory category with its name and top retainers; with a baseline, the per-category change.
// param: snapshot string
// param: baseline string =
// param: top integer = 3
// columns: category, name, objects, bytes, vmBytes, baselineObjects, baselineBytes, baselineVmBytes, deltaObjects, deltaBytes, deltaVmBytes, newObjects, newBytes, freedObjects, topRetainers
//
// bytes: sum of the objects' shallow sizes; vmBytes: the VM's own byte count for the category (Category.bytes).
// With -p baseline=ID: the baseline's numbers, the deltas (snapshot minus baseline), newObjects/newBytes (objects
// of the snapshot with no counterpart in the baseline: same address, type and category, and size for strings)
// and freedObjects (baseline objects of the category that are gone: baselineObjects - (objects - newObjects)).
// Without a baseline those columns are null. topRetainers: the category's reachable objects with the largest
// retained size, as "type address retainedSize" (at most 100: ranked per category at load time).
MATCH (s:Snapshot {id: $snapshot})
CALL (s) {
  MATCH (s)-[:HAS_STATS]->(st:Stats)
  RETURN st.category AS category, sum(st.objects) AS objects, sum(st.bytes) AS bytes, 0 AS baselineObjects,
         0 AS baselineBytes, 0 AS newObjects, 0 AS newBytes
  UNION ALL
  MATCH (:Snapshot {id: $baseline})-[:HAS_STATS]->(st:Stats)
  RETURN st.category AS category, 0 AS objects, 0 AS bytes, sum(st.objects) AS baselineObjects,
         sum(st.bytes) AS baselineBytes, 0 AS newObjects, 0 AS newBytes
  UNION ALL
  MATCH (:Diff {baseline: $baseline, target: $snapshot})-[:HAS_NEW_OBJECTS]->(n:NewObjects)
  RETURN n.category AS category, 0 AS objects, 0 AS bytes, 0 AS baselineObjects, 0 AS baselineBytes,
         sum(n.objects) AS newObjects, sum(n.bytes) AS newBytes
}
WITH s, category, sum(objects) AS objects, sum(bytes) AS bytes, sum(baselineObjects) AS baselineObjects,
     sum(baselineBytes) AS baselineBytes, sum(newObjects) AS newObjects, sum(newBytes) AS newBytes
OPTIONAL MATCH (s)-[:HAS_CATEGORY]->(c:Category {id: category})
OPTIONAL MATCH (:Snapshot {id: $baseline})-[:HAS_CATEGORY]->(bc:Category {id: category})
CALL (s, category) {
  OPTIONAL MATCH (s)-[t:CATEGORY_TOP_RETAINER]->(o:Object)
  WHERE coalesce(t.category, -1) = coalesce(category, -1) AND t.rank <= $top
  WITH o ORDER BY t.rank
  RETURN collect(o.type + ' ' + o.address + ' ' + toString(o.retainedSize)) AS topRetainers
}
WITH category, c, bc, objects, bytes, baselineObjects, baselineBytes, newObjects, newBytes, topRetainers,
     $baseline <> '' AS compared
RETURN category, coalesce(c.name, bc.name) AS name, objects, bytes, c.bytes AS vmBytes,
       CASE WHEN compared THEN baselineObjects END AS baselineObjects,
       CASE WHEN compared THEN baselineBytes END AS baselineBytes,
       CASE WHEN compared THEN bc.bytes END AS baselineVmBytes,
       CASE WHEN compared THEN objects - baselineObjects END AS deltaObjects,
       CASE WHEN compared THEN bytes - baselineBytes END AS deltaBytes,
       CASE WHEN compared THEN coalesce(c.bytes, 0) - coalesce(bc.bytes, 0) END AS deltaVmBytes,
       CASE WHEN compared THEN newObjects END AS newObjects,
       CASE WHEN compared THEN newBytes END AS newBytes,
       CASE WHEN compared THEN baselineObjects - (objects - newObjects) END AS freedObjects,
       topRetainers
ORDER BY category
