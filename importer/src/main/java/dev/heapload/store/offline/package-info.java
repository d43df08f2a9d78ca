/**
 * The offline import of a snapshot's graph: the only code of heapload written against Neo4j's internal API, for
 * <b>Neo4j 5.26</b> (the LTS line in the parent pom; see {@link dev.heapload.store.offline.OfflineImporter#NEO4J_VERSION}).
 *
 * <p>{@link dev.heapload.store.offline.OfflineImporter} is the one entry point from outside: it runs the record
 * storage engine's parallel importer stage by stage on a {@link dev.heapload.store.GraphInput} and has
 * {@link dev.heapload.store.offline.OfflineSchema} write the constraint and the property index into its stores before
 * they close. Both use classes of {@code org.neo4j.internal.batchimport}, {@code org.neo4j.kernel.impl.store} and the
 * schema store that change between Neo4j versions; an upgrade of Neo4j starts here (and with the embedded DBMS's two
 * internal settings in {@code dev.heapload.store.embedded.EmbeddedDbms}).
 */
package dev.heapload.store.offline;
