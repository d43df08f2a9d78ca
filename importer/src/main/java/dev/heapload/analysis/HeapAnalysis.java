package dev.heapload.analysis;

/**
 * What the VM's GC would keep, why, and how much: results of the analysis pass over one
 * {@link dev.heapload.model.HeapSnapshot}, one entry per object id.
 *
 * <ul>
 *   <li>{@code reachable[o]}: reached from a GC root over strong references (weak references and
 *       ephemeron values whose key is not otherwise reachable do not count).</li>
 *   <li>{@code distance[o]}: strong hops from the nearest root (roots are 0), {@code -1} when unreachable.</li>
 *   <li>{@code retainedBy[o]}: the reference id (into the snapshot's references) that is the last hop of
 *       the object's retention path (the first shortest strong path from a root, roots in dump order,
 *       references in dump order); {@code -1} for roots and unreachable objects.</li>
 *   <li>{@code rootOf[o]}: index into {@code snapshot.roots()} of the root the retention path starts at,
 *       {@code -1} when unreachable.</li>
 *   <li>{@code immediateDominator[o]}: object id of the immediate dominator in the dominator tree of the
 *       strong reachable graph, {@code -1} when the super-root (the set of all roots) dominates it or the
 *       object is unreachable.</li>
 *   <li>{@code retainedSize[o]}: bytes freed if {@code o} became unreachable (its shallow size plus
 *       the shallow sizes of all objects it dominates); 0 for unreachable objects.</li>
 * </ul>
 *
 * @param reachable          per object
 * @param distance           per object, hops
 * @param retainedBy         per object, reference id or -1
 * @param rootOf             per object, root index or -1
 * @param immediateDominator per object, object id or -1
 * @param retainedSize       per object, bytes
 */
public record HeapAnalysis(boolean[] reachable, int[] distance, int[] retainedBy, int[] rootOf,
                           int[] immediateDominator, long[] retainedSize) {
}
