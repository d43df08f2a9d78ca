// name: allocation-sites
// description: The snapshot's objects by allocation site (dumps taken with heapdump.track): objects, bytes, retained bytes and, relative to a baseline, the new ones.
// param: snapshot string
// param: baseline string =
// columns: site, objects, bytes, retainedBytes, newObjects, newBytes
//
// site: "source:line in function" where the object was allocated; null for the objects allocated while the dumper
// was not tracking (all of them in a dump taken without heapdump.track). retainedBytes: the retained sizes of the
// site's objects whose immediate dominator is not an object of the same site (a structure built at one line counts
// once). newObjects, newBytes: the site's objects with no counterpart in the baseline (the identity rule of
// new-objects); null without a baseline. Answered from the stored models (the baseline's objects are not in this
// snapshot's graph); this Cypher, run only where no model can answer (a pruned snapshot, a Bolt server), gives the
// same site, objects, bytes and retainedBytes, and null newObjects and newBytes.
MATCH (:Snapshot {id: $snapshot})
MATCH (o:Object {snapshot: $snapshot})
OPTIONAL MATCH (d:Object {snapshot: $snapshot, address: o.dominator})
WITH o.site AS site, o.size AS size,
     CASE WHEN o.site IS NULL OR d IS NULL OR d.site IS NULL OR d.site <> o.site THEN coalesce(o.retainedSize, 0)
          ELSE 0 END AS retained
WITH site, count(*) AS objects, sum(size) AS bytes, sum(retained) AS retainedBytes
RETURN site, objects, bytes, retainedBytes, null AS newObjects, null AS newBytes
ORDER BY bytes DESC, objects DESC, site IS NULL, site
