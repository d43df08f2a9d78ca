package dev.heapload.model;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import dev.heapload.analysis.HeapAnalysis;

class HeapSnapshotFileTest {

    @TempDir
    Path tmp;

    /** A seeded random snapshot: opaque addresses optional, long labels, names from objects, all flags. */
    private static HeapSnapshot random(long seed, int objects, boolean opaque) {
        Random rnd = new Random(seed);
        HeapSnapshotBuilder b = new HeapSnapshotBuilder();
        String[] types = {"table", "string", "function", "userdata", "thread", "upvalue", "proto"};
        String[] addr = new String[objects];
        for (int i = 0; i < objects; i++) {
            addr[i] = opaque ? "obj#" + i : "0x" + Long.toHexString(0x5574b889d000L + 16L * i);
            b.objectId(addr[i]);
        }
        int[] kinds = {b.kind("value"), b.kind("key"), b.kind("upvalue"), b.kind("metatable")};
        for (int i = 0; i < objects; i++) {
            String label = switch (rnd.nextInt(4)) {
                case 0 -> null;
                case 1 -> "";
                case 2 -> "label-" + i + "-ü€𝄞";
                default -> "x".repeat(rnd.nextInt(3) == 0 ? 70_000 : 5);
            };
            b.defineObject(addr[i], types[rnd.nextInt(types.length)], rnd.nextInt(1 << 20), rnd.nextInt(300) - 1, label);
            int refs = rnd.nextInt(5);
            for (int r = 0; r < refs; r++) {
                int name = switch (rnd.nextInt(3)) {
                    case 0 -> HeapSnapshot.NO_NAME;
                    case 1 -> b.name("n" + rnd.nextInt(50));
                    default -> HeapSnapshotBuilder.nameFromObject(rnd.nextInt(objects));
                };
                b.addReference(rnd.nextInt(objects), kinds[rnd.nextInt(kinds.length)], name, rnd.nextInt(4));
            }
        }
        b.addRoot("registry", 0);
        b.addRoot(null, objects - 1);
        List<String> warnings = List.of("one warning", "two ⚠");
        return b.build(new SnapshotInfo("snap " + seed, "luau", "dir/after.json.gz", null, 123_456_789_012L,
            Map.of(0, new MemoryCategory(0, "default", 10), 7, new MemoryCategory(7, null, 1L << 40)), warnings));
    }

    private static HeapAnalysis analysis(int n, long seed) {
        Random rnd = new Random(seed);
        boolean[] reachable = new boolean[n];
        int[] distance = new int[n];
        int[] retainedBy = new int[n];
        int[] rootOf = new int[n];
        int[] idom = new int[n];
        long[] retained = new long[n];
        for (int i = 0; i < n; i++) {
            reachable[i] = rnd.nextBoolean();
            distance[i] = rnd.nextInt(20) - 1;
            retainedBy[i] = rnd.nextInt(100) - 1;
            rootOf[i] = rnd.nextInt(3) - 1;
            idom[i] = rnd.nextInt(n + 1) - 1;
            retained[i] = rnd.nextLong();
        }
        return new HeapAnalysis(reachable, distance, retainedBy, rootOf, idom, retained);
    }

    static void assertSameColumns(HeapSnapshot a, HeapSnapshot b) {
        assertEquals(a.info(), b.info());
        assertEquals(a.typeNames(), b.typeNames());
        assertEquals(a.referenceKinds(), b.referenceKinds());
        assertArrayEquals(a.nameTable(), b.nameTable());
        assertEquals(a.addressFormat(), b.addressFormat());
        assertArrayEquals(a.addressColumn(), b.addressColumn());
        assertArrayEquals(a.opaqueAddressColumn(), b.opaqueAddressColumn());
        assertArrayEquals(a.shallowSizeColumn(), b.shallowSizeColumn());
        assertArrayEquals(a.typeColumn(), b.typeColumn());
        assertArrayEquals(a.categoryColumn(), b.categoryColumn());
        assertArrayEquals(a.labelColumn(), b.labelColumn());
        assertArrayEquals(a.firstReferenceColumn(), b.firstReferenceColumn());
        assertArrayEquals(a.referenceTargetColumn(), b.referenceTargetColumn());
        assertArrayEquals(a.referenceKindColumn(), b.referenceKindColumn());
        assertArrayEquals(a.referenceFlagsColumn(), b.referenceFlagsColumn());
        assertArrayEquals(a.referenceNameColumn(), b.referenceNameColumn());
        assertEquals(a.roots(), b.roots());
        for (int i = 0; i < a.objectCount(); i++) {
            assertEquals(a.address(i), b.address(i));
        }
        for (int r = 0; r < a.referenceCount(); r++) {
            assertEquals(a.referenceName(r), b.referenceName(r));
        }
    }

    @Test
    void roundTripPreservesEveryColumnAndTheAnalysis() throws IOException {
        HeapSnapshot original = random(1, 5_000, false);
        HeapAnalysis analysis = analysis(original.objectCount(), 2);
        original.attachAnalysis(analysis);
        Path file = tmp.resolve("a.hsnap");
        List<String> phases = new ArrayList<>();
        long[] last = {-1};
        HeapSnapshotFile.write(original, file, new Progress() {
            @Override
            public void start(String phase, long total, String unit) {
                phases.add(phase + " " + total + " " + unit);
            }

            @Override
            public void step(long done) {
                last[0] = done;
            }

            @Override
            public void end() {
                phases.add("end");
            }
        });
        assertEquals(List.of("write 5000 objects", "end"), phases);
        assertEquals(5000, last[0]);
        HeapSnapshot copy = HeapSnapshotFile.read(file);
        assertSameColumns(original, copy);
        HeapAnalysis read = copy.analysis();
        assertArrayEquals(analysis.reachable(), read.reachable());
        assertArrayEquals(analysis.distance(), read.distance());
        assertArrayEquals(analysis.retainedBy(), read.retainedBy());
        assertArrayEquals(analysis.rootOf(), read.rootOf());
        assertArrayEquals(analysis.immediateDominator(), read.immediateDominator());
        assertArrayEquals(analysis.retainedSize(), read.retainedSize());
    }

    @Test
    void roundTripOpaqueAddressesWithoutAnalysis() throws IOException {
        HeapSnapshot original = random(3, 300, true);
        Path file = tmp.resolve("b.hsnap");
        HeapSnapshotFile.write(original, file);
        HeapSnapshot copy = HeapSnapshotFile.read(file);
        assertEquals(AddressFormat.OPAQUE, copy.addressFormat());
        assertEquals("obj#7", copy.address(7));
        assertSameColumns(original, copy);
        assertNull(copy.analysis());
    }

    @Test
    void emptySnapshot() throws IOException {
        HeapSnapshot empty = new HeapSnapshotBuilder().build(
            new SnapshotInfo("e", "micropython", null, null, -1, Map.of(), List.of()));
        Path file = tmp.resolve("e.hsnap");
        HeapSnapshotFile.write(empty, file);
        HeapSnapshot copy = HeapSnapshotFile.read(file);
        assertEquals(0, copy.objectCount());
        assertSameColumns(empty, copy);
    }

    @Test
    void rejectsDamagedFiles() throws IOException {
        Path file = tmp.resolve("c.hsnap");
        // version 2 (uncompressed): every changed byte is seen; for version 3 see below
        HeapSnapshotFile.write(random(4, 200, false), file, Progress.NONE, false);
        byte[] bytes = Files.readAllBytes(file);

        Path truncated = tmp.resolve("t.hsnap");
        Files.write(truncated, java.util.Arrays.copyOf(bytes, bytes.length / 2));
        IOException e = assertThrows(IOException.class, () -> HeapSnapshotFile.read(truncated));
        assertTrue(e.getMessage().startsWith(truncated.toString()), e.getMessage());

        Path flipped = tmp.resolve("f.hsnap");
        byte[] copy = bytes.clone();
        copy[bytes.length / 2] ^= 0x10;
        Files.write(flipped, copy);
        assertThrows(IOException.class, () -> HeapSnapshotFile.read(flipped));

        Path notOurs = tmp.resolve("n.hsnap");
        Files.writeString(notOurs, "{\"this is\": \"a json dump, not a snapshot file\"}");
        e = assertThrows(IOException.class, () -> HeapSnapshotFile.read(notOurs));
        assertTrue(e.getMessage().contains("not a heapload snapshot file"), e.getMessage());

        Path future = tmp.resolve("v.hsnap");
        copy = bytes.clone();
        ByteBuffer.wrap(copy).order(ByteOrder.LITTLE_ENDIAN).putInt(4, 99);
        Files.write(future, copy);
        e = assertThrows(IOException.class, () -> HeapSnapshotFile.read(future));
        assertTrue(e.getMessage().contains("version 99"), e.getMessage());
    }

    @Test
    void headerIsMagicThenVersion() throws IOException {
        Path file = tmp.resolve("h.hsnap");
        HeapSnapshotFile.write(random(5, 10, false), file);
        ByteBuffer head = ByteBuffer.allocate(8).order(ByteOrder.LITTLE_ENDIAN);
        try (FileChannel ch = FileChannel.open(file, StandardOpenOption.READ)) {
            ch.read(head, 0);
        }
        assertEquals(HeapSnapshotFile.MAGIC, head.getInt(0));
        assertEquals(HeapSnapshotFile.VERSION, head.getInt(4));
    }

    @Test
    void version3IsTheCompressedBodyOfVersion2AndVersion2StillReads() throws IOException {
        HeapSnapshot original = random(6, 5000, false);
        Path v3 = tmp.resolve("v3.hsnap");
        Path v2 = tmp.resolve("v2.hsnap");
        HeapSnapshotFile.write(original, v3);
        HeapSnapshotFile.write(original, v2, Progress.NONE, false);
        ByteBuffer head = ByteBuffer.wrap(Files.readAllBytes(v2)).order(ByteOrder.LITTLE_ENDIAN);
        assertEquals(2, head.getInt(4));
        assertSameColumns(original, HeapSnapshotFile.read(v2));
        assertSameColumns(original, HeapSnapshotFile.read(v3));
        assertTrue(Files.size(v3) * 2 < Files.size(v2), Files.size(v3) + " vs " + Files.size(v2));

        // a compressed file cut short or with a byte changed inside the stream: one line naming the file
        byte[] bytes = Files.readAllBytes(v3);
        Path cut = tmp.resolve("cut.hsnap");
        Files.write(cut, java.util.Arrays.copyOf(bytes, bytes.length - 100));
        IOException e = assertThrows(IOException.class, () -> HeapSnapshotFile.read(cut));
        assertTrue(e.getMessage().startsWith(cut.toString()), e.getMessage());
        // a changed byte of the stream: a one-line error naming the file, or (a back reference into a run of equal
        // bytes moved within the run) the very same data; never other data and never another exception
        int failures = 0;
        for (int at = 20; at < bytes.length - 8; at += bytes.length / 16) {
            Path flipped = tmp.resolve("flip3-" + at + ".hsnap");
            byte[] copy = bytes.clone();
            copy[at] ^= 0x10;
            Files.write(flipped, copy);
            try {
                assertSameColumns(original, HeapSnapshotFile.read(flipped));
            } catch (IOException x) {
                assertTrue(x.getMessage().startsWith(flipped.toString()), x.getMessage());
                failures++;
            }
        }
        assertTrue(failures >= 8, failures + " of 16 changed bytes seen");
    }
}
