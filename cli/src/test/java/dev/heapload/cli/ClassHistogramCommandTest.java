package dev.heapload.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.List;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import dev.heapload.analysis.ClassHistogram;
import dev.heapload.store.StoredSnapshots;

/**
 * {@code heapload query class-histogram} on the bundled fixture testdata/lua/classes/lua5.4 (its README: what the
 * program made): the histogram by class of one snapshot and, with a baseline, each class's change, computed from the
 * stored models of a store loaded without a graph; the leak answer names the heads' class.
 */
class ClassHistogramCommandTest {

    @TempDir
    Path tmp;

    static final Path FIXTURE = Path.of(System.getProperty("heapload.testdata", "../testdata"), "lua", "classes", "lua5.4");

    @Test
    void histogramByClassAndItsChange() throws Exception {
        Path db = tmp.resolve("db");
        HeapLoadCommandTest.Run load = HeapLoadCommandTest.run("--no-progress", "--no-graph", "--db", db.toString(),
            FIXTURE.resolve("before.json").toString(), FIXTURE.resolve("after.json").toString());
        assertEquals(0, load.code(), load.err());
        // the first groups: the 3 new Dogs (their name strings and trick tables under them), 4 Points, each Cat
        assertTrue(load.out().contains("group 1: 9 objects, 561 new bytes, 561 retained bytes, 3 table head(s), path:\n"
            + "      root globals (table)\n      zoo in table\n      dogs in table\n      [value] in table\n"
            + "    heads: class Dog\n"), load.out());
        assertTrue(load.out().contains("4 table head(s), path:\n      root globals (table)\n      zoo in table\n"
            + "      points in table\n      [value] in table\n    heads: class Point\n"), load.out());

        HeapLoadCommandTest.Run after = HeapLoadCommandTest.run("query", "class-histogram", "-p", "snapshot=after",
            "--format", "csv", "--db", db.toString());
        assertEquals(0, after.code(), after.err());
        assertEquals("""
            type,class,objects,bytes,reachableObjects,reachableBytes,retainedBytes
            table,metatable {__mode},1,6200,1,6200,6337
            table,Dog,4,416,4,416,748
            table,Point,5,520,5,520,520
            table,Animal,3,264,3,264,438
            table,Cat,2,160,2,160,374
            table,Queue,2,160,2,160,272
            userdata,FILE*,5,160,5,160,160
            table,metatable 0x558a54b6f6d0,1,56,1,56,136
            """, after.out());

        HeapLoadCommandTest.Run change = HeapLoadCommandTest.run("query", "class-histogram", "-p", "snapshot=after",
            "-p", "baseline=before", "--format", "csv", "--db", db.toString());
        assertEquals(0, change.code(), change.err());
        assertEquals("""
            type,class,objects,bytes,retainedBytes,objectsChange,bytesChange,retainedChange,baselineObjects
            table,Dog,4,416,748,3,312,530,1
            table,Cat,2,160,374,2,160,374,0
            table,Point,5,520,520,4,416,364,1
            table,Queue,2,160,272,2,160,272,0
            userdata,FILE*,5,160,160,2,64,64,3
            table,Animal,3,264,438,0,0,0,3
            table,metatable 0x558a54b6f6d0,1,56,136,0,0,0,1
            table,metatable {__mode},1,6200,6337,0,0,0,1
            """, change.out());

        // the histogram is kept in each snapshot's summary: after 'before' is pruned (its model dropped) the change
        // is answered alike
        assertEquals(List.of(
            new ClassHistogram.Row("table", "metatable {__mode}", 1, 6200, 1, 6200, 6337),
            new ClassHistogram.Row("table", "Animal", 3, 264, 3, 264, 438),
            new ClassHistogram.Row("table", "Dog", 1, 104, 1, 104, 218),
            new ClassHistogram.Row("table", "Point", 1, 104, 1, 104, 156),
            new ClassHistogram.Row("table", "metatable 0x558a54b6f6d0", 1, 56, 1, 56, 136),
            new ClassHistogram.Row("userdata", "FILE*", 3, 96, 3, 96, 96)),
            StoredSnapshots.open(db).summary("before").classes());
        HeapLoadCommandTest.Run prune = HeapLoadCommandTest.run("prune", "--keep-last", "1", "--db", db.toString());
        assertEquals(0, prune.code(), prune.err());
        HeapLoadCommandTest.Run pruned = HeapLoadCommandTest.run("query", "class-histogram", "-p", "snapshot=after",
            "-p", "baseline=before", "--format", "csv", "--db", db.toString());
        assertEquals(0, pruned.code(), pruned.err());
        assertEquals(change.out(), pruned.out());

        HeapLoadCommandTest.Run unknown = HeapLoadCommandTest.run("query", "class-histogram", "-p", "snapshot=nope",
            "--db", db.toString());
        assertEquals(1, unknown.code());
        assertEquals("heapload: no snapshot 'nope' in the store (heapload snapshots lists them)\n", unknown.err());
        HeapLoadCommandTest.Run bad = HeapLoadCommandTest.run("query", "class-histogram", "-p", "top=3",
            "--db", db.toString());
        assertEquals(1, bad.code());
        assertEquals("heapload: query 'class-histogram' has no parameter 'top' (it takes: snapshot string, baseline "
            + "string = '')\n", bad.err());
    }
}
