// name: summary
// description: Objects, bytes, reachable and unreachable bytes of one snapshot: in total, by type and by memory category.
// param: snapshot string
// columns: by, key, objects, bytes, reachableBytes, unreachableBytes
//
// One row 'all', then one row per type (key: the type), then one per memory category (key: "ID name").
// bytes are shallow sizes; reachableBytes counts objects an exported root reaches over strong references.
// Reads the snapshot's Stats nodes (per type and category, computed at load time). No rows: no such snapshot.
MATCH (s:Snapshot {id: $snapshot})-[:HAS_STATS]->(st:Stats)
WITH s, collect(st) AS stats
CALL (s, stats) {
  UNWIND stats AS st
  RETURN 0 AS ord, 'all' AS by, '' AS key, sum(st.objects) AS objects, sum(st.bytes) AS bytes,
         sum(st.reachableBytes) AS reachableBytes
  UNION ALL
  UNWIND stats AS st
  RETURN 1 AS ord, 'type' AS by, st.type AS key, sum(st.objects) AS objects, sum(st.bytes) AS bytes,
         sum(st.reachableBytes) AS reachableBytes
  UNION ALL
  UNWIND stats AS st
  WITH s, st.category AS category, sum(st.objects) AS objects, sum(st.bytes) AS bytes,
       sum(st.reachableBytes) AS reachableBytes
  OPTIONAL MATCH (s)-[:HAS_CATEGORY]->(c:Category {id: category})
  RETURN 2 AS ord, 'category' AS by, trim(coalesce(toString(category), '-') + ' ' + coalesce(c.name, '')) AS key,
         objects, bytes, reachableBytes
}
RETURN by, key, objects, bytes, reachableBytes, bytes - reachableBytes AS unreachableBytes
ORDER BY ord, bytes DESC, key
