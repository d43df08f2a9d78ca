// name: snapshot
// description: One snapshot's facts: VM, source file, SHA-256, object and reference counts, bytes.
// param: snapshot string
// columns: id, vm, source, sha256, objectCount, referenceCount, totalBytes, objectBytes
//
// totalBytes: the VM's own total (every allocation) when the dump has one, else objectBytes (sum of shallow sizes).
// Reads the Snapshot node only. No rows: no such snapshot.
MATCH (s:Snapshot {id: $snapshot})
RETURN s.id AS id, s.vm AS vm, s.source AS source, s.sha256 AS sha256, s.objectCount AS objectCount,
       s.referenceCount AS referenceCount, s.totalBytes AS totalBytes, s.objectBytes AS objectBytes
