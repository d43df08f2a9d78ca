// name: summary
// description: Objects, bytes, reachable and unreachable bytes of one snapshot: in total, by type and by memory category.
// param: snapshot string
// columns: by, key, objects, bytes, reachableBytes, unreachableBytes
//
// One row 'all', then one row per type (key: the type), then one per memory category (key: "ID name").
// bytes are shallow sizes; reachableBytes counts objects an exported root reaches over strong references.
CALL {
  MATCH (o:Object {snapshot: $snapshot})
  RETURN 0 AS ord, 'all' AS by, '' AS key, count(o) AS objects, sum(o.size) AS bytes,
         sum(CASE WHEN o.reachable THEN o.size ELSE 0 END) AS reachableBytes
  UNION ALL
  MATCH (o:Object {snapshot: $snapshot})
  RETURN 1 AS ord, 'type' AS by, o.type AS key, count(o) AS objects, sum(o.size) AS bytes,
         sum(CASE WHEN o.reachable THEN o.size ELSE 0 END) AS reachableBytes
  UNION ALL
  MATCH (o:Object {snapshot: $snapshot})
  WITH o.category AS category, count(o) AS objects, sum(o.size) AS bytes,
       sum(CASE WHEN o.reachable THEN o.size ELSE 0 END) AS reachableBytes
  OPTIONAL MATCH (:Snapshot {id: $snapshot})-[:HAS_CATEGORY]->(c:Category {id: category})
  RETURN 2 AS ord, 'category' AS by, trim(coalesce(toString(category), '-') + ' ' + coalesce(c.name, '')) AS key,
         objects, bytes, reachableBytes
}
RETURN by, key, objects, bytes, reachableBytes, bytes - reachableBytes AS unreachableBytes
ORDER BY ord, bytes DESC, key
