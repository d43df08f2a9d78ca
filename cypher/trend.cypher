// name: trend
// description: Objects and bytes of every snapshot in the store, in load order, with the change from the previous one; with -p category=N only that memory category.
// param: category integer = -1
// columns: snapshot, loadedAt, vm, category, name, objects, bytes, vmBytes, reachableObjects, reachableBytes, deltaObjects, deltaBytes
//
// One row per snapshot, in load order (Snapshot.loadOrder; snapshots loaded by versions without it first, by
// loadedAt, then id). loadedAt: UTC text. bytes: the sum of the objects' shallow sizes; vmBytes: the VM's own
// count (the snapshot: Snapshot.totalBytes, the VM's total when the dump has one; a category: Category.bytes).
// reachable*: objects an exported root reaches over strong references. deltaObjects/deltaBytes: objects and bytes
// minus those of the previous row (null on the first).
// Without a category (-1, the default): the whole snapshot; category and name are null. With -p category=N:
// that category's objects and bytes (0 in a snapshot without objects in it), its name and VM bytes (null where
// the snapshot has no such category). Objects and reachable counts are null for a snapshot loaded without
// analysis (no Stats nodes). Reads the Snapshot, Category and Stats nodes only, never the objects.
MATCH (s:Snapshot)
WITH s ORDER BY coalesce(s.loadOrder, -1), s.loadedAt, s.id
WITH collect(s) AS snapshots
UNWIND range(0, size(snapshots) - 1) AS i
WITH i, snapshots[i] AS s
CALL (s) {
  OPTIONAL MATCH (s)-[:HAS_STATS]->(st:Stats)
  WHERE $category < 0 OR st.category = $category
  RETURN count(st) AS buckets, sum(st.objects) AS statsObjects, sum(st.bytes) AS statsBytes,
         sum(st.reachableObjects) AS reachableObjects, sum(st.reachableBytes) AS reachableBytes
}
OPTIONAL MATCH (s)-[:HAS_CATEGORY]->(c:Category {id: $category})
WITH i, s, c, EXISTS { (s)-[:HAS_STATS]->(:Stats) } AS analysed, statsObjects, statsBytes, reachableObjects,
     reachableBytes, $category >= 0 AS oneCategory
WITH i, s, oneCategory,
     CASE WHEN oneCategory THEN $category END AS category,
     CASE WHEN oneCategory THEN c.name END AS name,
     CASE WHEN NOT oneCategory THEN s.objectCount WHEN analysed THEN statsObjects END AS objects,
     CASE WHEN NOT oneCategory THEN s.objectBytes WHEN analysed THEN statsBytes END AS bytes,
     CASE WHEN oneCategory THEN c.bytes ELSE s.totalBytes END AS vmBytes,
     CASE WHEN analysed THEN reachableObjects END AS reachableObjects,
     CASE WHEN analysed THEN reachableBytes END AS reachableBytes
ORDER BY i
WITH collect({s: s, category: category, name: name, objects: objects, bytes: bytes, vmBytes: vmBytes,
              reachableObjects: reachableObjects, reachableBytes: reachableBytes}) AS rows
UNWIND range(0, size(rows) - 1) AS i
WITH i, rows[i] AS r, CASE WHEN i > 0 THEN rows[i - 1] END AS previous
RETURN r.s.id AS snapshot, toString(r.s.loadedAt) AS loadedAt, r.s.vm AS vm, r.category AS category,
       r.name AS name, r.objects AS objects, r.bytes AS bytes, r.vmBytes AS vmBytes,
       r.reachableObjects AS reachableObjects, r.reachableBytes AS reachableBytes,
       r.objects - previous.objects AS deltaObjects, r.bytes - previous.bytes AS deltaBytes
ORDER BY i
