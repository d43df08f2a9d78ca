// Reads a .heapsnapshot with memlab's heap loader (@memlab/core, an implementation of the Chrome DevTools heap
// snapshot format independent of heapload) and prints what heapload's DevToolsExportTest compares:
//   nodes N
//   edges M
//   then one line per node: "ID RETAINED_SIZE" as memlab computes it (dominators from the synthetic root,
//   weak edges not followed).
// Usage: node check.js FILE.heapsnapshot
'use strict';
const path = require('path');
const core = require('@memlab/core');
const TraceFinder = require(path.join(path.dirname(require.resolve('@memlab/core')), 'paths', 'TraceFinder.js')).default;

async function main() {
  const file = process.argv[2];
  core.config.muteConsole = true;
  const snapshot = await core.utils.getSnapshotFromFile(file, {});
  new TraceFinder().calculateAllNodesRetainedSizes(snapshot);
  const out = [];
  out.push('nodes ' + snapshot.nodes.length);
  out.push('edges ' + snapshot.edges.length);
  snapshot.nodes.forEach(node => {
    out.push(node.id + ' ' + node.retainedSize);
  });
  process.stdout.write(out.join('\n') + '\n');
}

main().catch(e => {
  process.stderr.write(String(e && e.stack || e) + '\n');
  process.exit(1);
});
