// name: trend-categories
// description: Objects and bytes of every memory category of every snapshot in the store, in load order.
// columns: snapshot, loadedAt, category, name, objects, bytes, vmBytes, reachableBytes
//
// One row per snapshot and memory category: snapshots in load order (as in the trend query), categories by id.
// A category the snapshot records (Category node) but holds no objects of has objects 0 and bytes 0; a category
// of objects without a Category node has vmBytes and name null. bytes: the sum of shallow sizes; vmBytes: the
// VM's own count (Category.bytes). VMs without memory categories: one row per snapshot with category null.
// Reads the Snapshot, Category and Stats nodes only; a snapshot loaded without analysis has no Stats nodes and
// shows only its Category nodes.
MATCH (s:Snapshot)
WITH s ORDER BY coalesce(s.loadOrder, -1), s.loadedAt, s.id
WITH collect(s) AS snapshots
UNWIND range(0, size(snapshots) - 1) AS i
WITH i, snapshots[i] AS s
CALL (s) {
  MATCH (s)-[:HAS_STATS]->(st:Stats)
  RETURN st.category AS category, st.objects AS objects, st.bytes AS bytes, st.reachableBytes AS reachableBytes
  UNION ALL
  MATCH (s)-[:HAS_CATEGORY]->(c:Category)
  RETURN c.id AS category, 0 AS objects, 0 AS bytes, 0 AS reachableBytes
}
WITH i, s, category, sum(objects) AS objects, sum(bytes) AS bytes, sum(reachableBytes) AS reachableBytes
OPTIONAL MATCH (s)-[:HAS_CATEGORY]->(c:Category {id: category})
RETURN s.id AS snapshot, toString(s.loadedAt) AS loadedAt, category, c.name AS name, objects, bytes,
       c.bytes AS vmBytes, reachableBytes
ORDER BY i, category
