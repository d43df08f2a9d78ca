package dev.heapload.explore;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;

import dev.heapload.analysis.HeapAnalyzer;
import dev.heapload.io.DumpReaders;
import dev.heapload.model.HeapSnapshot;
import dev.heapload.model.HeapSnapshotBuilder;
import dev.heapload.model.MemoryCategory;
import dev.heapload.model.Progress;
import dev.heapload.model.SnapshotInfo;
import dev.heapload.queries.QueryFailedException;
import dev.heapload.queries.QueryResult;
import dev.heapload.queries.ResultWriter;

/** The built-in query {@code paths}: golden rows on event-listeners, and a 100,000-hop chain. */
class PathsQueryTest {

    static Path testdata() {
        return Path.of(System.getProperty("heapload.testdata", "../testdata"));
    }

    static HeapSnapshot eventListenersAfter() throws Exception {
        HeapSnapshot s = DumpReaders.read(testdata().resolve("luau/event-listeners/after.json"), "after", Progress.NONE);
        HeapAnalyzer.analyze(s, Progress.NONE);
        return s;
    }

    @Test
    void everyReferrerPathOfAThemeChangedHandlerTable() throws Exception {
        HeapSnapshot s = eventListenersAfter();
        // the Connection of the "Settings 3" dialog in EventBus.ThemeChanged.handlers (event-listeners README): one
        // path from each root that reaches it: registry -> _MODULES -> EventBus -> ThemeChanged -> handlers, and the
        // main thread's globals -> shared.uiRoot.connections.theme (the signal) -> handlers. Its other referrer, the
        // widget's connections table (`theme`), is reachable only through the Connection itself: no path of its own.
        QueryResult r = PathsQuery.run(s, PathsQuery.bind(Map.of("snapshot", "after", "address", "0X56013833B190")), 0);
        String golden = Files.readString(testdata().resolve("golden/paths.event-listeners.csv"), StandardCharsets.UTF_8);
        assertEquals(golden, ResultWriter.csv(r), "golden file testdata/golden/paths.event-listeners.csv");
        // max=1: the shortest only
        QueryResult one = PathsQuery.run(s, PathsQuery.bind(Map.of("snapshot", "after", "address", "56013833b190",
            "max", "1")), 0);
        assertEquals(r.rows().subList(0, 6), one.rows());
        // the widget: its closure's upvalue from both roots; the locale closure (only reachable through the widget)
        // and the weak debugInfo key give no path
        QueryResult widget = PathsQuery.run(s, PathsQuery.bind(Map.of("snapshot", "after", "address", "0x56013833b340")), 0);
        assertEquals(8 + 11, widget.rows().size());
        assertEquals(List.of("root registry", "_MODULES", "EventBus", "ThemeChanged", "handlers", "[array]", "fn",
            "@Widget.luau"), column(widget, "via").subList(0, 8));
    }

    @Test
    void badParametersAreOneLine() throws Exception {
        HeapSnapshot s = eventListenersAfter();
        assertEquals("no object at address '0x1' in snapshot 'after' (give it as largest-retainers or the leak answer "
                + "prints it; any case, with or without 0x)",
            assertThrows(QueryFailedException.class,
                () -> PathsQuery.run(s, PathsQuery.bind(Map.of("snapshot", "after", "address", "0x1")), 0)).getMessage());
        assertEquals("parameter 'max' must be an integer from 1 to 10000, not '0'", assertThrows(QueryFailedException.class,
            () -> PathsQuery.bind(Map.of("snapshot", "after", "address", "0x1", "max", "0"))).getMessage());
        assertEquals("query 'paths' needs -p address=ADDRESS (it takes: snapshot string, address string, max integer = 10)",
            assertThrows(QueryFailedException.class, () -> PathsQuery.bind(Map.of("snapshot", "after"))).getMessage());
    }

    /**
     * Root {@code registry} → n0 → … → n99999 ({@code next}), and registry → b0 → … → b9 → n5 ({@code bypass},
     * then {@code next}): n5 has two referrers (n4, 6 hops from the root, and b9, 11 hops), n99999 one path of
     * 100,000 hops. Nothing may recurse on the path length.
     */
    @Test
    void aHundredThousandHopPathAndTwoReferrers() throws Exception {
        int chain = 100_000;
        HeapSnapshotBuilder b = new HeapSnapshotBuilder();
        int kind = b.kind("value");
        int next = b.name("next");
        int registry = b.defineObject("0x1000", "table", 80, 0, null);
        b.addReference(b.objectId(chain(0)), kind, next, 0);
        b.addReference(b.objectId(bypass(0)), kind, b.name("bypass"), 0);
        for (int i = 0; i < 10; i++) {
            b.defineObject(bypass(i), "table", 48, 0, null);
            b.addReference(b.objectId(i < 9 ? bypass(i + 1) : chain(5)), kind, next, 0);
        }
        for (int i = 0; i < chain; i++) {
            b.defineObject(chain(i), "table", 64, 0, null);
            if (i + 1 < chain) {
                b.addReference(b.objectId(chain(i + 1)), kind, next, 0);
            }
        }
        b.addRoot("registry", registry);
        long total = 80 + 48 * 10 + 64L * chain;
        HeapSnapshot s = b.build(new SnapshotInfo("deep", "luau", "deep.json", null, total,
            Map.of(0, new MemoryCategory(0, "main", total)), List.of()));
        HeapAnalyzer.analyze(s, Progress.NONE);

        QueryResult deep = PathsQuery.run(s, PathsQuery.bind(Map.of("snapshot", "deep", "address", chain(chain - 1))), 0);
        assertEquals(chain + 1, deep.rows().size());
        assertEquals("root registry", column(deep, "via").get(0));
        List<Object> addresses = column(deep, "address");
        for (int i = 0; i < chain; i++) {
            assertEquals(chain(i), addresses.get(1 + i));
        }
        assertEquals(64L, column(deep, "retainedSize").get(chain));

        QueryResult two = PathsQuery.run(s, PathsQuery.bind(Map.of("snapshot", "deep", "address", chain(5))), 0);
        List<String> lines = new ArrayList<>();
        for (List<Object> row : two.rows()) {
            lines.add(row.get(0) + ":" + row.get(2) + ":" + row.get(5));
        }
        List<String> expected = new ArrayList<>(List.of("1:0x1000:root registry"));
        for (int i = 0; i <= 5; i++) {
            expected.add("1:" + chain(i) + ":next");
        }
        expected.add("2:0x1000:root registry");
        expected.add("2:" + bypass(0) + ":bypass");
        for (int i = 1; i < 10; i++) {
            expected.add("2:" + bypass(i) + ":next");
        }
        expected.add("2:" + chain(5) + ":next");
        assertEquals(expected, lines);
    }

    static String chain(int i) {
        return "0x" + Long.toHexString(0x100000L + 64L * i);
    }

    static String bypass(int i) {
        return "0x" + Long.toHexString(0x10000L + 64L * i);
    }

    static List<Object> column(QueryResult r, String name) {
        int c = r.columns().indexOf(name);
        List<Object> out = new ArrayList<>();
        r.rows().forEach(row -> out.add(row.get(c)));
        return out;
    }
}
