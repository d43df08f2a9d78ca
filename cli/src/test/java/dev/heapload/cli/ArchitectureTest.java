package dev.heapload.cli;

import static com.tngtech.archunit.library.Architectures.layeredArchitecture;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Pattern;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import com.tngtech.archunit.base.DescribedPredicate;
import com.tngtech.archunit.core.domain.Dependency;
import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.library.Architectures.LayeredArchitecture;

/**
 * The stages of docs/design/architecture.md depend one way, checked on the compiled main classes of every module
 * (this module's test class path sees them all; run it with {@code -am} so that they are the worktree's own).
 *
 * <p>Stages in dependency order: the heap model (every stage's shared vocabulary: readers fill it, everything after
 * reads it), input ({@code io}), the readers (one package per dump format, none importing another) and capture
 * (where dumps come from), analyses, the store (common, offline import, embedded, Bolt; the two routes never import
 * each other), queries, reports, commands. A class may import its own stage and the stages before it, never one
 * after it. Nothing before the store imports Neo4j at all; Neo4j's internal API (anything but its public
 * {@code graphdb}, {@code dbms.api}, {@code configuration} and driver packages) only
 * {@code dev.heapload.store.offline}.
 *
 * <p>{@link #ALLOWED} lists the edges that break these rules today, each with why it is there; a new one fails the
 * test, and so does an entry whose edge is gone (remove it).
 */
class ArchitectureTest {

    /** An edge kept on purpose: classes named by {@code origin} may depend on classes named by {@code target}. */
    record Allowed(String origin, String target, String why) {
        boolean matches(Dependency d) {
            return Pattern.matches(origin, d.getOriginClass().getName())
                && Pattern.matches(target, d.getTargetClass().getName());
        }
    }

    /** A class name and its nested classes, as a regex. */
    private static String cls(String name) {
        return Pattern.quote(name) + "(\\$.*)?";
    }

    /** Every class of a package and its subpackages, as a regex. */
    private static String pkg(String name) {
        return Pattern.quote(name) + "\\..*";
    }

    /** The known back-edges and Neo4j-internal uses outside store.offline; each entry names one edge. */
    static final List<Allowed> ALLOWED = List.of(
        // input -> readers: format detection and dispatch to the reader of each format live in the input package
        // (move DumpReaders above the readers to remove it)
        new Allowed(cls("dev.heapload.io.DumpReaders"), pkg("dev.heapload.luau"), "format detection in io"),
        new Allowed(cls("dev.heapload.io.DumpReaders"), pkg("dev.heapload.lua"), "format detection in io"),
        new Allowed(cls("dev.heapload.io.DumpReaders"), pkg("dev.heapload.micropython"), "format detection in io"),
        // heap model -> analyses: the .hsnap file form writes and reads the analysis with the model
        new Allowed(cls("dev.heapload.model.HeapSnapshotFile"), cls("dev.heapload.analysis.HeapAnalysis"),
            ".hsnap holds the analysis"),
        // capture -> queries: the capture's error lines escape board output with the query module's SafeText
        new Allowed(cls("dev.heapload.capture.DumpStream"), cls("dev.heapload.queries.SafeText"), "escaping"),
        new Allowed(cls("dev.heapload.capture.RawRepl"), cls("dev.heapload.queries.SafeText"), "escaping"),
        // Neo4j's batch importer input types (org.neo4j.batchimport.api) as the rows of a load, shared by the
        // offline importer, the embedded writer and the Bolt writer
        new Allowed(cls("dev.heapload.store.GraphInput"), pkg("org.neo4j.batchimport.api"), "load rows"),
        new Allowed(cls("dev.heapload.store.InputRows"), pkg("org.neo4j.batchimport.api"), "load rows"),
        new Allowed(cls("dev.heapload.store.InputRows"), pkg("org.neo4j.internal.id"), "load rows: id sequence"),
        new Allowed(cls("dev.heapload.store.bolt.RemoteGraphStore"), pkg("org.neo4j.batchimport.api"),
            "Bolt writer reads the load rows"),
        new Allowed(cls("dev.heapload.store.bolt.RemoteComparisons"), pkg("org.neo4j.batchimport.api"),
            "Bolt writer reads the comparison rows"),
        new Allowed(cls("dev.heapload.store.embedded.EmbeddedGraphWriter"), pkg("org.neo4j.batchimport.api"),
            "embedded writer reads the load rows"),
        // the embedded DBMS: procedure allow-listing and the served store's settings reach into the kernel
        new Allowed(cls("dev.heapload.store.embedded.EmbeddedDbms"), pkg("org.neo4j.kernel"), "procedures"),
        new Allowed(cls("dev.heapload.store.embedded.EmbeddedDbms"), pkg("org.neo4j.internal.kernel"), "procedures"),
        new Allowed(cls("dev.heapload.store.embedded.EmbeddedDbms"), pkg("org.neo4j.common"), "dependency resolver"),
        new Allowed(cls("dev.heapload.store.embedded.EmbeddedDbms"), pkg("org.neo4j.server"), "server settings"),
        new Allowed(cls("dev.heapload.store.embedded.EmbeddedDbms"), pkg("org.neo4j.logging"), "DBMS log"),
        new Allowed(cls("dev.heapload.store.embedded.GraphStore"), pkg("org.neo4j.logging"), "DBMS log"));

    /** Neo4j's public API: what code outside store.offline may import. */
    private static final List<String> NEO4J_PUBLIC = List.of(pkg("org.neo4j.graphdb"), pkg("org.neo4j.dbms.api"),
        pkg("org.neo4j.configuration"), pkg("org.neo4j.driver"));

    /** The packages of the stages before the store. */
    private static final Pattern BEFORE_THE_STORE =
        Pattern.compile("dev\\.heapload\\.(model|io|luau|lua|micropython|capture|analysis)(\\..*)?");

    private static JavaClasses classes;

    @BeforeAll
    static void importClasses() {
        classes = new ClassFileImporter().withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
            .importPackages("dev.heapload");
        // every module's classes are there (a missing module would let its edges pass unseen)
        for (String p : List.of("dev.heapload.io", "dev.heapload.model", "dev.heapload.analysis",
            "dev.heapload.store.offline", "dev.heapload.queries", "dev.heapload.report", "dev.heapload.capture",
            "dev.heapload.cli")) {
            assertEquals(true, classes.containPackage(p), "no classes of " + p + " imported");
        }
    }

    /** The stages and which earlier ones each may import (a stage may always import itself). */
    static LayeredArchitecture stages() {
        LayeredArchitecture stages = layeredArchitecture().consideringOnlyDependenciesInLayers()
            .layer("heap model").definedBy("dev.heapload.model..")
            .layer("input").definedBy("dev.heapload.io..")
            .layer("Luau reader").definedBy("dev.heapload.luau..")
            .layer("Lua reader").definedBy("dev.heapload.lua..")
            .layer("MicroPython reader").definedBy("dev.heapload.micropython..")
            .layer("capture").definedBy("dev.heapload.capture..")
            .layer("analyses").definedBy("dev.heapload.analysis..")
            .layer("store: common").definedBy("dev.heapload.store")
            .layer("store: offline import").definedBy("dev.heapload.store.offline..")
            .layer("store: embedded").definedBy("dev.heapload.store.embedded..")
            .layer("store: Bolt").definedBy("dev.heapload.store.bolt..")
            .layer("queries").definedBy("dev.heapload.queries..", "dev.heapload.explore..", "dev.heapload.browser..")
            .layer("reports").definedBy("dev.heapload.report..", "dev.heapload.export..")
            .layer("commands").definedBy("dev.heapload.cli..")

            .whereLayer("heap model").mayNotAccessAnyLayer()
            .whereLayer("input").mayOnlyAccessLayers("heap model")
            .whereLayer("Luau reader").mayOnlyAccessLayers("heap model", "input")
            .whereLayer("Lua reader").mayOnlyAccessLayers("heap model", "input")
            .whereLayer("MicroPython reader").mayOnlyAccessLayers("heap model", "input")
            .whereLayer("capture").mayOnlyAccessLayers("heap model", "input", "MicroPython reader")
            .whereLayer("analyses").mayOnlyAccessLayers("heap model", "input")
            .whereLayer("store: common").mayOnlyAccessLayers(readersAnd("analyses"))
            .whereLayer("store: offline import").mayOnlyAccessLayers(readersAnd("analyses", "store: common"))
            .whereLayer("store: embedded").mayOnlyAccessLayers(readersAnd("analyses", "store: common",
                "store: offline import"))
            .whereLayer("store: Bolt").mayOnlyAccessLayers(readersAnd("analyses", "store: common"))
            .whereLayer("queries").mayOnlyAccessLayers(readersAnd("analyses", "store: common",
                "store: offline import", "store: embedded", "store: Bolt"))
            .whereLayer("reports").mayOnlyAccessLayers(readersAnd("analyses", "store: common",
                "store: offline import", "store: embedded", "store: Bolt", "queries"));
        for (Allowed a : ALLOWED) {
            stages = stages.ignoreDependency(named(a.origin()), named(a.target()));
        }
        return stages;
    }

    /** The stages up to the readers and capture, plus {@code more}. */
    private static String[] readersAnd(String... more) {
        List<String> layers = new ArrayList<>(List.of("heap model", "input", "Luau reader", "Lua reader",
            "MicroPython reader", "capture"));
        layers.addAll(List.of(more));
        return layers.toArray(String[]::new);
    }

    private static DescribedPredicate<JavaClass> named(String regex) {
        return DescribedPredicate.describe("named " + regex, c -> Pattern.matches(regex, c.getName()));
    }

    @Test
    void stagesDependOneWay() {
        stages().check(classes);
    }

    @Test
    void nothingBeforeTheStoreImportsNeo4j() {
        Set<String> found = new TreeSet<>();
        for (JavaClass c : classes) {
            if (!BEFORE_THE_STORE.matcher(c.getPackageName()).matches()) {
                continue;
            }
            for (Dependency d : c.getDirectDependenciesFromSelf()) {
                if (d.getTargetClass().getName().startsWith("org.neo4j.") && !allowed(d)) {
                    found.add(d.getDescription());
                }
            }
        }
        assertEquals(Set.of(), found, "Neo4j used before the store");
    }

    @Test
    void neo4jInternalApiOnlyInStoreOffline() {
        Set<String> found = new TreeSet<>();
        for (JavaClass c : classes) {
            if (c.getPackageName().startsWith("dev.heapload.store.offline")) {
                continue;
            }
            for (Dependency d : c.getDirectDependenciesFromSelf()) {
                String target = d.getTargetClass().getName();
                if (target.startsWith("org.neo4j.") && NEO4J_PUBLIC.stream().noneMatch(p -> Pattern.matches(p, target))
                    && !allowed(d)) {
                    found.add(d.getDescription());
                }
            }
        }
        assertEquals(Set.of(), found, "Neo4j's internal API outside dev.heapload.store.offline");
    }

    /** Each allowed edge still exists: one that was fixed leaves the list, so that it cannot come back unseen. */
    @Test
    void everyAllowedEdgeStillExists() {
        List<Allowed> unused = new ArrayList<>(ALLOWED);
        for (JavaClass c : classes) {
            for (Dependency d : c.getDirectDependenciesFromSelf()) {
                unused.removeIf(a -> a.matches(d));
            }
        }
        assertEquals(List.of(), unused, "allowed edges that no longer exist: remove them from ALLOWED");
    }

    private static boolean allowed(Dependency d) {
        return ALLOWED.stream().anyMatch(a -> a.matches(d));
    }
}
