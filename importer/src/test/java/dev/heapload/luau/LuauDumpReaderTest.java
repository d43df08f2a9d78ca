package dev.heapload.luau;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.stream.Stream;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import dev.heapload.model.HeapSnapshot;
import dev.heapload.model.MemoryCategory;
import dev.heapload.model.Progress;

/**
 * Reads every file of shared/testdata/luau (17 cases, 34 files) and checks the result against values
 * computed independently of the Java code. Needs the shared test data: the system property
 * {@code heapload.shared} (set by the parent pom); skipped when it is absent.
 */
class LuauDumpReaderTest {

    private static Path luau;

    @BeforeAll
    static void findData() {
        luau = dev.heapload.testsupport.SharedTestData.require("luau", "Luau reader tests on the shared data");
    }

    record Expected(String file, int objects, long shallowBytes, int references, int weakReferences,
                    long vmTotalBytes, Map<String, Integer> types, List<MemoryCategory> categories) {
        @Override
        public String toString() {
            return file;
        }
    }

    private static Expected expect(String file, int objects, long shallowBytes, int references, int weak,
                                   long vmTotalBytes, Map<String, Integer> types, List<MemoryCategory> categories) {
        return new Expected(file, objects, shallowBytes, references, weak, vmTotalBytes, types, categories);
    }

    private static Map<String, Integer> types(Object... kv) {
        Map<String, Integer> m = new TreeMap<>();
        for (int i = 0; i < kv.length; i += 2) {
            m.put((String) kv[i], (Integer) kv[i + 1]);
        }
        return m;
    }

    private static MemoryCategory cat(int id, String name, long bytes) {
        return new MemoryCategory(id, name, bytes);
    }

    /**
     * Generated once by importer/src/test/scripts/luau_expected.py, which reads the dump files line by
     * line with regular expressions (no JSON parser, no Java): object count, sum of record sizes,
     * addresses inside records, weak references by the spec §8 rule, stats.size and categories
     * (negative printed values + 2^32), per-type counts. The counts agree with each case's README.
     */
    static List<Expected> expected() {
        return List.of(
            expect("closures-timers/after.json", 612, 53951L, 982, 0, 77055L, types("function", 252, "proto", 11, "string", 292, "table", 47, "thread", 3, "upvalue", 7), List.of(cat(0, null, 77055L))),
            expect("closures-timers/before.json", 570, 44584L, 862, 0, 67688L, types("function", 234, "proto", 11, "string", 286, "table", 35, "thread", 3, "upvalue", 1), List.of(cat(0, null, 67688L))),
            expect("coroutine-scheduler/after.json", 611, 54337L, 986, 0, 77409L, types("buffer", 5, "function", 236, "proto", 7, "string", 301, "table", 48, "thread", 8, "upvalue", 6), List.of(cat(0, "main", 77409L))),
            expect("coroutine-scheduler/before.json", 580, 44785L, 869, 0, 67857L, types("function", 231, "proto", 7, "string", 301, "table", 37, "thread", 3, "upvalue", 1), List.of(cat(0, "main", 67857L))),
            expect("coroutine-scheduler-medium/after.json.gz", 36581, 11312001L, 138871, 0, 11335073L, types("buffer", 6000, "function", 6231, "proto", 7, "string", 301, "table", 12038, "thread", 6003, "upvalue", 6001), List.of(cat(0, "main", 11335073L))),
            expect("coroutine-scheduler-medium/before.json", 580, 44785L, 869, 0, 67857L, types("function", 231, "proto", 7, "string", 301, "table", 37, "thread", 3, "upvalue", 1), List.of(cat(0, "main", 67857L))),
            expect("edge-classes/after.json", 563, 40598L, 858, 0, 63950L, types("class", 2, "function", 233, "object", 8, "proto", 2, "string", 281, "table", 33, "thread", 2, "upvalue", 2), List.of(cat(0, "main", 63950L))),
            expect("edge-classes/before.json", 554, 40217L, 843, 0, 63377L, types("class", 2, "function", 233, "object", 2, "proto", 2, "string", 278, "table", 33, "thread", 2, "upvalue", 2), List.of(cat(0, "main", 63377L))),
            expect("edge-stats-overflow/after.json", 520, 2147521283L, 780, 0, 2147544243L, types("buffer", 2, "function", 226, "proto", 1, "string", 261, "table", 28, "thread", 2), List.of(cat(0, "main", 60579L), cat(140, "World.Terrain", 2147483664L))),
            expect("edge-stats-overflow/before.json", 518, 37587L, 778, 0, 60547L, types("function", 226, "proto", 1, "string", 261, "table", 28, "thread", 2), List.of(cat(0, "main", 60547L))),
            expect("edge-unescaped-names/after.json", 544, 40729L, 828, 0, 63817L, types("function", 231, "proto", 1, "string", 276, "table", 34, "thread", 2), List.of(cat(0, "main", 62473L), cat(130, "Plugin \"Inspector\"", 672L), cat(131, "Packages\\Roact", 672L))),
            expect("edge-unescaped-names/before.json", 535, 39105L, 801, 0, 62193L, types("function", 226, "proto", 1, "string", 276, "table", 30, "thread", 2), List.of(cat(0, "main", 62193L))),
            expect("edge-vector-double/after.json", 524, 37589L, 780, 0, 60677L, types("function", 226, "proto", 1, "string", 262, "table", 28, "thread", 2, "vector", 5), List.of(cat(0, "main", 60677L))),
            expect("edge-vector-double/before.json", 521, 37525L, 777, 0, 60517L, types("function", 226, "proto", 1, "string", 262, "table", 28, "thread", 2, "vector", 2), List.of(cat(0, "main", 60517L))),
            expect("entity-system/after.json", 814, 74981L, 1678, 16, 98085L, types("function", 232, "proto", 7, "string", 332, "table", 204, "thread", 2, "upvalue", 2, "userdata", 35), List.of(cat(0, "main", 98085L))),
            expect("entity-system/before.json", 622, 47589L, 974, 0, 70693L, types("function", 232, "proto", 7, "string", 316, "table", 60, "thread", 2, "upvalue", 2, "userdata", 3), List.of(cat(0, "main", 70693L))),
            expect("entity-system-medium/after.json.gz", 72622, 10284483L, 264974, 6000, 10369027L, types("function", 232, "proto", 7, "string", 6316, "table", 54060, "thread", 2, "upvalue", 2, "userdata", 12003), List.of(cat(0, "main", 10369027L))),
            expect("entity-system-medium/before.json", 622, 47589L, 974, 0, 70693L, types("function", 232, "proto", 7, "string", 316, "table", 60, "thread", 2, "upvalue", 2, "userdata", 3), List.of(cat(0, "main", 70693L))),
            expect("event-listeners/after.json", 871, 79118L, 2016, 20, 102286L, types("function", 274, "proto", 11, "string", 369, "table", 213, "thread", 2, "upvalue", 2), List.of(cat(0, "main", 102286L))),
            expect("event-listeners/before.json", 685, 55147L, 1200, 4, 78315L, types("function", 242, "proto", 11, "string", 343, "table", 85, "thread", 2, "upvalue", 2), List.of(cat(0, "main", 78315L))),
            expect("event-listeners-medium/after.json.gz", 46687, 5837894L, 205200, 4004, 5988038L, types("function", 8242, "proto", 11, "string", 6345, "table", 32085, "thread", 2, "upvalue", 2), List.of(cat(0, "main", 5988038L))),
            expect("event-listeners-medium/before.json", 685, 55147L, 1200, 4, 78315L, types("function", 242, "proto", 11, "string", 343, "table", 85, "thread", 2, "upvalue", 2), List.of(cat(0, "main", 78315L))),
            expect("localization-strings/after.json", 656, 63340L, 913, 0, 86300L, types("function", 228, "proto", 3, "string", 385, "table", 37, "thread", 2, "upvalue", 1), List.of(cat(0, "main", 86300L))),
            expect("localization-strings/before.json", 592, 58384L, 849, 0, 81344L, types("function", 228, "proto", 3, "string", 321, "table", 37, "thread", 2, "upvalue", 1), List.of(cat(0, "main", 81344L))),
            expect("memory-categories/after.json", 932, 89422L, 1745, 0, 112430L, types("function", 232, "proto", 7, "string", 443, "table", 240, "thread", 7, "upvalue", 3), List.of(cat(0, "main", 66256L), cat(2, "CoreScripts.PlayerList", 6730L), cat(5, "CoreScripts.Chat", 7639L), cat(128, "Game.Combat", 2944L), cat(129, "Game.ChatLogger", 8986L), cat(200, "Plugin.Profiler", 18364L), cat(255, "Packages.Promise", 1511L))),
            expect("memory-categories/before.json", 735, 65959L, 1223, 0, 88967L, types("function", 232, "proto", 7, "string", 364, "table", 122, "thread", 7, "upvalue", 3), List.of(cat(0, "main", 66256L), cat(2, "CoreScripts.PlayerList", 3448L), cat(5, "CoreScripts.Chat", 5314L), cat(128, "Game.Combat", 2944L), cat(129, "Game.ChatLogger", 3448L), cat(200, "Plugin.Profiler", 6046L), cat(255, "Packages.Promise", 1511L))),
            expect("memory-categories-medium/after.json.gz", 66856, 9050654L, 197449, 0, 9593854L, types("function", 232, "proto", 7, "string", 22431, "table", 44176, "thread", 7, "upvalue", 3), List.of(cat(0, "main", 586448L), cat(2, "CoreScripts.PlayerList", 703602L), cat(5, "CoreScripts.Chat", 7679L), cat(128, "Game.Combat", 2944L), cat(129, "Game.ChatLogger", 16539L), cat(200, "Plugin.Profiler", 8275131L), cat(255, "Packages.Promise", 1511L))),
            expect("memory-categories-medium/before.json.gz", 17236, 2315505L, 50209, 0, 2465489L, types("function", 232, "proto", 7, "string", 5871, "table", 11116, "thread", 7, "upvalue", 3), List.of(cat(0, "main", 193232L), cat(2, "CoreScripts.PlayerList", 187866L), cat(5, "CoreScripts.Chat", 7679L), cat(128, "Game.Combat", 2944L), cat(129, "Game.ChatLogger", 5343L), cat(200, "Plugin.Profiler", 2066914L), cat(255, "Packages.Promise", 1511L))),
            expect("snapshot-from-lua/after.json", 678, 55208L, 1145, 0, 78200L, types("function", 231, "proto", 4, "string", 326, "table", 114, "thread", 3), List.of(cat(0, "main", 78200L))),
            expect("snapshot-from-lua/before.json", 558, 42434L, 865, 0, 65426L, types("function", 231, "proto", 4, "string", 286, "table", 34, "thread", 3), List.of(cat(0, "main", 65426L))),
            expect("undo-history/after.json", 10589, 1804542L, 50907, 0, 1827582L, types("function", 230, "proto", 5, "string", 301, "table", 10051, "thread", 2), List.of(cat(0, "main", 1827582L))),
            expect("undo-history/before.json", 589, 44542L, 907, 0, 67582L, types("function", 230, "proto", 5, "string", 301, "table", 51, "thread", 2), List.of(cat(0, "main", 67582L))),
            expect("weak-caches/after.json", 653, 58930L, 1065, 22, 82018L, types("buffer", 8, "function", 229, "proto", 4, "string", 312, "table", 84, "thread", 2, "userdata", 14), List.of(cat(0, "main", 82018L))),
            expect("weak-caches/before.json", 587, 45484L, 921, 4, 68572L, types("buffer", 2, "function", 229, "proto", 4, "string", 294, "table", 54, "thread", 2, "userdata", 2), List.of(cat(0, "main", 68572L)))
        );
    }

    @Test
    void everyFileOfEveryCaseHasAnExpectation() throws IOException {
        TreeSet<String> files = new TreeSet<>();
        try (Stream<Path> walk = Files.walk(luau, 2)) {
            walk.filter(p -> p.getFileName().toString().matches("(before|after)\\.json(\\.gz)?"))
                .forEach(p -> files.add(luau.relativize(p).toString().replace('\\', '/')));
        }
        TreeSet<String> listed = new TreeSet<>();
        expected().forEach(e -> listed.add(e.file()));
        assertEquals(34, files.size());
        assertEquals(files, listed);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("expected")
    void readsEveryFile(Expected e) throws Exception {
        Path file = luau.resolve(e.file());
        HeapSnapshot s = new LuauDumpReader().read(file, "snap", Progress.NONE);

        Map<String, Integer> types = new TreeMap<>();
        for (int i = 0; i < s.objectCount(); i++) {
            types.merge(s.type(i), 1, Integer::sum);
        }
        assertEquals(e.types(), types, "objects per type");
        assertEquals(e.objects(), s.objectCount(), "objects");
        assertEquals(e.shallowBytes(), s.totalShallowBytes(), "sum of shallow sizes");
        assertEquals(e.references(), s.referenceCount(), "references");
        assertEquals(e.weakReferences(), new Nav(s).weakCount(), "weak references");
        assertEquals(e.vmTotalBytes(), s.info().vmTotalBytes(), "stats.size");
        assertEquals(e.categories(), new ArrayList<>(s.info().categories().values()), "categories");
        long categorySum = 0;
        for (MemoryCategory c : e.categories()) {
            categorySum += c.bytes();
        }
        assertEquals(e.vmTotalBytes(), categorySum, "categories add up to stats.size (spec §6)");

        assertEquals("snap", s.info().id());
        assertEquals("luau", s.info().vm());
        assertEquals(file.toString(), s.info().source());
        assertEquals(HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(Files.readAllBytes(file))),
            s.info().sha256());
        assertEquals(2, s.roots().size());
        assertEquals("mainthread", s.roots().get(0).name());
        assertEquals("registry", s.roots().get(1).name());
        assertEquals(0, s.roots().get(0).object(), "the main thread is the first record (spec §2)");
        assertEquals("thread", s.type(0));
        assertEquals("table", s.type(s.roots().get(1).object()));
    }

    private static HeapSnapshot read(String file) throws IOException {
        return new LuauDumpReader().read(luau.resolve(file), "t", Progress.NONE);
    }

    @Test
    void unescapedNamesAreRecoveredVerbatim() throws IOException {
        HeapSnapshot s = read("edge-unescaped-names/after.json");
        Nav n = new Nav(s);
        assertEquals("caf\u00e9", s.label(n.byAddress("0x55578d583bc0")), "0xE9 read as Latin-1");
        assertEquals("Gr\u00f6\u00dfe\u2192Breite", s.label(n.byAddress("0x55578d583bf8")), "valid UTF-8 kept");
        assertEquals("tab\there", s.label(n.byAddress("0x55578d583c30")));
        assertEquals("C:\\engine\\bindings\\io", s.label(n.byAddress("0x55578d583c68")));
        assertEquals("Instance:WaitForChild(\"Handle\")", s.label(n.byAddress("0x55578d583ca0")));
        assertEquals("Instance:WaitForChild(?Handle?)", s.label(n.byAddress("0x55578d583cd8")), "string data as written");
        assertEquals(new MemoryCategory(130, "Plugin \"Inspector\"", 672), s.info().categories().get(130));
        assertEquals(new MemoryCategory(131, "Packages\\Roact", 672), s.info().categories().get(131));
        assertEquals(List.of(
            // fields, not characters: Instance:WaitForChild("Handle") and Plugin "Inspector" hold
            // two stray quotes each, C:\engine\bindings\io three backslashes and Packages\Roact one
            "invalid JSON repaired (Luau spec §7): 2 field(s) with unescaped quotes inside names (4 quote(s)), kept as"
                + " literal quotes, first at byte 1528",
            "invalid JSON repaired (Luau spec §7): 2 field(s) with literal backslashes (the VM writes no escapes)"
                + " (4 backslash(es)), kept as backslashes, first at byte 1398",
            "invalid JSON repaired (Luau spec §7): 1 field(s) with raw control characters inside strings (1 character(s)),"
                + " first at byte 1302",
            "invalid JSON repaired (Luau spec §7): 1 field(s) with bytes that are not valid UTF-8 (1 byte(s)), read as"
                + " Latin-1 characters, first at byte 1104"), s.info().warnings());
        // the valid before.json needs no repair
        assertEquals(List.of(), read("edge-unescaped-names/before.json").info().warnings());
    }

    @Test
    void experimentalClassRecords() throws IOException {
        HeapSnapshot s = read("edge-classes/after.json");
        Nav n = new Nav(s);
        int particle = n.byAddress("0x561ddad07f00");
        assertEquals("class", s.type(particle));
        assertEquals("Particle", s.label(particle));
        assertEquals(80, s.shallowSize(particle));
        List<String> kinds = new ArrayList<>();
        for (int r : n.refs(particle)) {
            kinds.add(s.referenceKind(r));
        }
        // "super":null; 4 member names; 2 static members; "instancemetatable":null; members-to-offset
        assertEquals(List.of("member-name", "member-name", "member-name", "member-name", "static-member",
            "static-member", "members-to-offset"), kinds);
        assertEquals("0x561ddad07eb0", s.address(s.referenceTarget(n.refs(particle, "static-member").get(0))));
        assertEquals("0x561ddace3b50", s.address(s.referenceTarget(n.refs(particle, "members-to-offset").get(0))));
        int vec2 = n.byAddress("0x561ddad07ff0");
        assertEquals("Vec2", s.label(vec2));
        assertEquals(3, n.refs(vec2, "static-member").size());

        int object = n.byAddress("0x561ddacf35b8");
        assertEquals("object", s.type(object));
        assertNull(s.label(object));
        List<Integer> refs = n.refs(object);
        assertEquals(3, refs.size());
        assertEquals("class", s.referenceKind(refs.get(0)));
        assertEquals(particle, s.referenceTarget(refs.get(0)));
        assertEquals("member", s.referenceKind(refs.get(1)));
        assertEquals("0x561ddacf35e0", s.address(s.referenceTarget(refs.get(1))));
        assertEquals("member", s.referenceKind(refs.get(2)));
        assertEquals(List.of(
            "invalid JSON repaired (Luau spec §7): 2 unquoted class name(s), first at byte 1204",
            "invalid JSON repaired (Luau spec §7): 2 unterminated \"staticmembers\" array(s), first at byte 1360"),
            s.info().warnings());
    }

    @Test
    void doubleVectorRecords() throws IOException {
        HeapSnapshot s = read("edge-vector-double/after.json");
        Nav n = new Nav(s);
        List<Integer> vectors = n.byType("vector");
        assertEquals(5, vectors.size());
        for (int v : vectors) {
            assertEquals(0, s.shallowSize(v));
            assertEquals(-1, s.category(v));
            assertNull(s.label(v));
            assertTrue(n.refs(v).isEmpty());
        }
        int waypoints = n.byAddress("0x559ed0092a10");
        List<String> targets = new ArrayList<>();
        for (int r : n.refs(waypoints, "array")) {
            targets.add(s.address(s.referenceTarget(r)) + " " + s.type(s.referenceTarget(r)));
        }
        assertEquals(List.of("0x559ed009d6c0 vector", "0x559ed009d6a0 vector", "0x559ed009d680 vector"), targets);
        assertEquals(List.of("invalid JSON repaired (Luau spec §7): 5 empty record(s) \"<address>\":,"
            + " (LUA_VECTOR_DOUBLE vectors), read as type vector, size 0, first at byte 26431"), s.info().warnings());
    }

    @Test
    void statsAboveTwoGibAreCorrectedModulo2To32() throws IOException {
        HeapSnapshot s = read("edge-stats-overflow/after.json");
        // printed: "size":-2147423053 and category 140 "size":-2147483632 (int overflow, spec §6)
        assertEquals(-2147423053L + (1L << 32), s.info().vmTotalBytes());
        assertEquals(2147544243L, s.info().vmTotalBytes());
        assertEquals(new MemoryCategory(140, "World.Terrain", 2147483664L), s.info().categories().get(140));
        assertEquals(new MemoryCategory(0, "main", 60579L), s.info().categories().get(0));
        List<Integer> buffers = new Nav(s).byType("buffer");
        assertEquals(2, buffers.size());
        for (int b : buffers) {
            assertEquals(1073741832L, s.shallowSize(b));
            assertEquals(140, s.category(b));
        }
        assertEquals(List.of("stats: 2 byte count(s) printed negative by the VM (32-bit int overflow above 2 GiB,"
            + " spec §6), corrected by adding 2^32 (exact modulo 2^32): stats.size -2147423053 -> 2147544243,"
            + " category 140 -2147483632 -> 2147483664"), s.info().warnings());
    }

    @Test
    void weakTablesOfTheAssetCache() throws IOException {
        HeapSnapshot s = read("weak-caches/after.json");
        Nav n = new Nav(s);
        int cache = n.path(n.root("registry"), "_MODULES", "AssetCache");
        Map<String, int[]> expected = new LinkedHashMap<>();
        // table -> {references, weak key references, weak value references, weak array references}
        expected.put("byUrl", new int[] {16, 0, 0, 0});     // strong
        expected.put("textures", new int[] {17, 0, 8, 0});  // __mode "v": url -> texture; url keys are strings
        expected.put("stats", new int[] {17, 8, 0, 0});     // __mode "k": texture -> {hits,lastUsed}
        expected.put("owners", new int[] {13, 6, 0, 0});    // __mode "k", values strong (no ephemerons)
        expected.put("thumbnails", new int[] {1, 0, 0, 0}); // __mode "kv", empty after the GC
        expected.put("recent", new int[] {1, 0, 0, 0});     // __mode "v", empty array after the GC
        for (Map.Entry<String, int[]> e : expected.entrySet()) {
            int t = n.path(cache, e.getKey());
            int[] weak = new int[3];
            for (int r : n.refs(t)) {
                if (s.isWeak(r)) {
                    weak[List.of("key", "value", "array").indexOf(s.referenceKind(r))]++;
                }
            }
            assertEquals(e.getValue()[0], n.refs(t).size(), e.getKey());
            assertEquals(List.of(e.getValue()[1], e.getValue()[2], e.getValue()[3]), List.of(weak[0], weak[1], weak[2]),
                e.getKey());
        }
        // in "textures" the values (userdata) are weak, the string keys are not; metatable refs never
        int textures = n.path(cache, "textures");
        for (int r : n.refs(textures)) {
            String kind = s.referenceKind(r);
            assertEquals(kind.equals("value"), s.isWeak(r), kind);
            assertEquals(kind.equals("value") ? "userdata" : kind.equals("key") ? "string" : "table",
                s.type(s.referenceTarget(r)));
        }
        // owners[tex] = {texture = tex}: the value is strong although it points back to its weak key
        int owners = n.path(cache, "owners");
        for (int r : n.refs(owners, "value")) {
            assertFalse(s.isWeak(r));
        }
        assertEquals(0, HeapSnapshot.EPHEMERON_VALUE & flagsUnion(s));
    }

    private static int flagsUnion(HeapSnapshot s) {
        int all = 0;
        for (int r = 0; r < s.referenceCount(); r++) {
            all |= s.referenceFlags(r);
        }
        return all;
    }

    @Test
    void weakKeysAndStringValuesOfTheWidgetTables() throws IOException {
        HeapSnapshot s = read("event-listeners/after.json");
        Nav n = new Nav(s);
        int widget = n.path(n.root("registry"), "_MODULES", "Widget");
        int debugInfo = n.path(widget, "debugInfo");   // __mode "k": 20 widgets -> {createdAt, trace}
        assertEquals(20, n.refs(debugInfo, "key").size());
        assertEquals(20, n.weakCount(debugInfo));
        for (int r : n.refs(debugInfo, "key")) {
            assertTrue(s.isWeak(r));
        }
        int titleById = n.path(widget, "titleById");   // __mode "v", array of strings: never weak
        assertEquals(20, n.refs(titleById, "array").size());
        assertEquals(0, n.weakCount(titleById));
    }

    @Test
    void upvalueReferencesAreNamedByTheClosuresProtoSource() throws IOException {
        HeapSnapshot s = read("closures-timers/after.json");
        Nav n = new Nav(s);
        int render = n.byAddress("0x55a550d71a90");
        assertEquals("render", s.label(render));
        assertEquals("@main.luau:33", s.label(s.referenceTarget(n.refs(render, "proto").get(0))));
        List<Integer> upvalues = n.refs(render, "upvalue");
        assertEquals(4, upvalues.size());
        for (int r : upvalues) {
            assertEquals("@main.luau", s.referenceName(r));
        }
        int shared = s.referenceTarget(upvalues.get(3));
        assertEquals("0x55a550d14348", s.address(shared));
        assertEquals("upvalue", s.type(shared));
        assertNull(s.referenceName(n.refs(render, "env").get(0)));
        assertNull(s.referenceName(n.refs(render, "proto").get(0)));
        // upvalue -> its value
        int upvalue = n.byAddress("0x55a550d14500");
        List<Integer> value = n.refs(upvalue, "upvalue-object");
        assertEquals(1, value.size());
        assertEquals("t=6", s.label(s.referenceTarget(value.get(0))));
        // a C closure's upvalues have no name
        for (int f : n.byType("function")) {
            if (n.refs(f, "proto").isEmpty()) {
                for (int r : n.refs(f, "upvalue")) {
                    assertNull(s.referenceName(r));
                }
            }
        }
    }

    @Test
    void stackSlotsAreNamedByStacknames() throws IOException {
        HeapSnapshot s = read("snapshot-from-lua/after.json");
        Nav n = new Nav(s);
        int worker = n.byAddress("0x555d8ab38e20");
        assertEquals("@main.luau:15", s.label(worker));
        List<String> names = new ArrayList<>();
        for (int r : n.refs(worker, "stack")) {
            names.add(s.referenceName(r));
        }
        assertEquals(java.util.Arrays.asList("frame:@main.luau:15:", "label", "ctx", "frame:@main.luau:7:dumpHeap",
            "path", "reason", "header", "frame:host.snapshot", null), names);
        int main = n.byAddress("0x555d8ab38f20");
        names.clear();
        for (int r : n.refs(main, "stack")) {
            names.add(s.referenceName(r));
        }
        assertEquals(java.util.Arrays.asList("frame:@main.luau:1:", "RequestLog", "dumpHeap", "runConsoleCommand",
            "frame:@main.luau:13:runConsoleCommand", "cmd", "path", "args", "worker", "frame:pcall", "frame:resume",
            null), names);
        assertEquals(worker, s.referenceTarget(n.ref(main, "worker")));
        assertEquals("env", s.referenceKind(n.refs(main).get(0)));
        // at debug level 1 local names are null
        HeapSnapshot g1 = read("closures-timers/after.json");
        Nav n1 = new Nav(g1);
        names.clear();
        for (int r : n1.refs(n1.byAddress("0x55a550d37ec0"), "stack")) {
            names.add(g1.referenceName(r));
        }
        assertEquals(java.util.Arrays.asList("frame:@main.luau:14:", null, "frame:yield"), names);
    }

    @Test
    void labels() throws IOException {
        HeapSnapshot s = read("event-listeners/after.json");
        Nav n = new Nav(s);
        assertEquals("@Signal.luau:30", s.label(n.byAddress("0x5601383815b0")));
        assertNull(s.label(0), "the idle main thread has no source");
        assertNull(s.label(n.root("registry")));
        int handlers = n.path(n.root("registry"), "_MODULES", "EventBus", "ThemeChanged", "handlers");
        assertEquals("handlers", s.label(s.referenceTarget(n.ref(n.path(n.root("registry"), "_MODULES", "EventBus",
            "ThemeChanged"), "handlers") - 1)), "the key string of the pair");
        assertEquals(20, n.refs(handlers, "array").size());
    }
}
