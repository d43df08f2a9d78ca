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
// retained size, as "type address retainedSize".
CALL {
  MATCH (o:Object {snapshot: $snapshot})
  WITH o, CASE WHEN $baseline = '' THEN false ELSE NOT EXISTS {
      MATCH (b:Object {snapshot: $baseline, address: o.address})
      WHERE b.type = o.type AND coalesce(b.category, -1) = coalesce(o.category, -1)
        AND (o.type <> 'string' OR b.size = o.size) } END AS isNew
  RETURN o.category AS category, count(o) AS objects, sum(o.size) AS bytes, 0 AS baselineObjects, 0 AS baselineBytes,
         count(CASE WHEN isNew THEN 1 END) AS newObjects, sum(CASE WHEN isNew THEN o.size ELSE 0 END) AS newBytes
  UNION ALL
  MATCH (b:Object {snapshot: $baseline})
  RETURN b.category AS category, 0 AS objects, 0 AS bytes, count(b) AS baselineObjects, sum(b.size) AS baselineBytes,
         0 AS newObjects, 0 AS newBytes
}
WITH category, sum(objects) AS objects, sum(bytes) AS bytes, sum(baselineObjects) AS baselineObjects,
     sum(baselineBytes) AS baselineBytes, sum(newObjects) AS newObjects, sum(newBytes) AS newBytes
OPTIONAL MATCH (:Snapshot {id: $snapshot})-[:HAS_CATEGORY]->(c:Category {id: category})
OPTIONAL MATCH (:Snapshot {id: $baseline})-[:HAS_CATEGORY]->(bc:Category {id: category})
CALL (category) {
  MATCH (o:Object {snapshot: $snapshot})
  WHERE o.reachable AND coalesce(o.category, -1) = coalesce(category, -1)
  WITH o ORDER BY o.retainedSize DESC, o.address LIMIT $top
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
