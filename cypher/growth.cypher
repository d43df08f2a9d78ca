// name: growth
// description: Objects present in both snapshots whose shallow size or strong out-degree grew, largest growth first.
// param: baseline string
// param: target string
// param: top integer = 50
// columns: address, type, category, label, sizeBefore, sizeAfter, sizeGrowth, refsBefore, refsAfter, refsGrowth, path
//
// "Present in both": same address, type and memory category (and size, for strings). refs: outgoing REF
// (strong references). Ordered by sizeGrowth, then refsGrowth. path: retention path in the target, root first
// (names as in largest-retainers; as data: g.pathNames, g.pathKinds, g.pathKeyTypes, g.pathTypes).
// Reads the pair's GREW relationships (the 1000 largest growths, ranked at load time, each with the object's
// retention path in the target, precomputed): top is at most 1000.
MATCH (:Diff {baseline: $baseline, target: $target})-[g:GREW]->(t:Object)
WHERE g.rank <= $top
RETURN t.address AS address, t.type AS type, t.category AS category, t.label AS label,
       g.sizeBefore AS sizeBefore, t.size AS sizeAfter, t.size - g.sizeBefore AS sizeGrowth,
       g.refsBefore AS refsBefore, g.refsAfter AS refsAfter, g.refsAfter - g.refsBefore AS refsGrowth, g.path AS path
ORDER BY sizeGrowth DESC, refsGrowth DESC, address
