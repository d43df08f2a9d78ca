// name: leak-groups
// description: The new, reachable objects of the target grouped by the retention path of their topmost new ancestor.
// param: baseline string
// param: target string
// columns: objects, newBytes, retainedBytes, heads, headType, path
//
// new: no object of the baseline has the same address, type and memory category (and size, for strings).
// Each new reachable object walks up its RETAINED_BY chain while the parent is new; the last new object is its
// group's head (its parent is old, or it is a root). Heads with the same retention path and type form one group:
// objects and newBytes count every new object under them (shallow bytes), retainedBytes sums the heads' retained
// sizes, heads counts them. path: one line per hop from the root: the root's name and type, then the
// reference's name or [kind] and the type of the object holding it.
MATCH (t:Object {snapshot: $target})
WHERE t.reachable AND NOT EXISTS {
  MATCH (b:Object {snapshot: $baseline, address: t.address})
  WHERE b.type = t.type AND coalesce(b.category, -1) = coalesce(t.category, -1)
    AND (t.type <> 'string' OR b.size = t.size) }
WITH collect(t) AS news
UNWIND news AS h
OPTIONAL MATCH (h)-[:RETAINED_BY]->(parent:Object)
WITH news, h, parent
WHERE parent IS NULL OR NOT parent IN news
MATCH m = (h)<-[:RETAINED_BY*0..]-(member:Object)
WHERE all(n IN nodes(m) WHERE n IN news)
WITH h, count(member) AS objects, sum(member.size) AS newBytes
MATCH p = (h)-[:RETAINED_BY*0..]->(r:Object)
WHERE r.rootName IS NOT NULL
WITH h, objects, newBytes, reverse(nodes(p)) AS ns, reverse(relationships(p)) AS rels
WITH h, objects, newBytes,
     ['root ' + ns[0].rootName + ' (' + ns[0].type + ')']
     + [i IN range(0, size(rels) - 1) | coalesce(rels[i].name, '[' + rels[i].kind + ']') + ' in ' + ns[i].type] AS path
RETURN sum(objects) AS objects, sum(newBytes) AS newBytes, sum(h.retainedSize) AS retainedBytes, count(h) AS heads,
       h.type AS headType, path
ORDER BY newBytes DESC, objects DESC, headType, path
