package dev.heapload.analysis;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.List;

import org.junit.jupiter.api.Test;

/**
 * The class histogram ({@link ObjectClasses}, {@link ClassHistogram}) on real Luau dumps (shared/testdata/luau): userdata
 * by tag and metatable {@code __type}, tables by their metatable's name. entity-system's README: each goblin has an
 * {@code Enemy} entity table, an engine object (userdata tag 1, metatable {@code __type="Instance"}) and a handle
 * (tag 2, no metatable); 16 goblins leak, Player1 (an {@code Entity}) and the Boss (an {@code Enemy}) were there before.
 */
class ClassHistogramLuauTest {

    /** One line per row: type, class, objects, bytes, reachable objects, reachable bytes, retained bytes. */
    static String render(ClassHistogram h) {
        StringBuilder sb = new StringBuilder();
        for (ClassHistogram.Row r : h.rows()) {
            sb.append(r.type()).append(" | ").append(r.className()).append(" | ").append(r.objects()).append(' ')
                .append(r.bytes()).append(' ').append(r.reachableObjects()).append(' ').append(r.reachableBytes())
                .append(' ').append(r.retainedBytes()).append('\n');
        }
        return sb.toString();
    }

    static ClassHistogram histogram(dev.heapload.model.HeapSnapshot s, HeapAnalysis a) {
        return ClassHistogram.compute(s, a, ObjectClasses.compute(s, a));
    }

    @Test
    void entitySystem() {
        LuauCases.Case c = LuauCases.get("entity-system");
        ClassHistogram before = histogram(c.before, c.beforeAnalysis);
        ClassHistogram after = histogram(c.after, c.analysis);
        assertEquals(LuauCases.lines(
            "table | Entity | 2 352 2 352 3231",
            "table | Enemy | 1 176 1 176 1501",
            "table | _G | 3 144 3 144 384",
            "userdata | Instance (tag 1) | 2 224 2 224 224",
            "table | metatable {__mode} | 2 96 1 48 185",
            "userdata | tag 2 | 1 48 1 48 48"), render(before));
        assertEquals(LuauCases.lines(
            "table | Enemy | 17 5040 17 5040 27677",
            "table | Entity | 2 352 2 352 3199",
            "userdata | Instance (tag 1) | 18 2016 18 2016 2016",
            "userdata | tag 2 | 17 816 17 816 816",
            "table | metatable {__mode} | 2 608 1 560 697",
            "table | _G | 3 144 3 144 384"), render(after));
        List<ClassHistogram.Change> changes = ClassHistogram.compare(before, after);
        // the 16 goblins: 16 Enemy tables, 16 Instance userdata, 16 handles
        assertEquals(List.of("Enemy +16 +4864 +26176", "Instance (tag 1) +16 +1792 +1792", "tag 2 +16 +768 +768"),
            changes.subList(0, 3).stream().map(ch -> ch.className() + " +" + ch.objectsChange() + " +"
                + ch.bytesChange() + " +" + ch.retainedChange()).toList());
    }

    @Test
    void weakCachesTextures() {
        // weak-caches README: textures are lua_newuserdatadtor userdata (tag 128), 12 new ones in after.json
        LuauCases.Case c = LuauCases.get("weak-caches");
        ClassHistogram.Row before = row(histogram(c.before, c.beforeAnalysis), "tag 128");
        ClassHistogram.Row after = row(histogram(c.after, c.analysis), "tag 128");
        assertEquals(new ClassHistogram.Row("userdata", "tag 128", 2, 576, 2, 576, 576), before);
        assertEquals(new ClassHistogram.Row("userdata", "tag 128", 14, 4320, 14, 4320, 4320), after);
    }

    @Test
    void userDefinedClasses() {
        // edge-classes README: Vec2 and Particle classes; one particle (a Particle object holding a Vec2 object) before,
        // 3 more after
        LuauCases.Case c = LuauCases.get("edge-classes");
        ClassHistogram before = histogram(c.before, c.beforeAnalysis);
        ClassHistogram after = histogram(c.after, c.analysis);
        assertEquals(LuauCases.lines(
            "table | _G | 1 48 1 48 160",
            "object | Particle | 1 40 1 40 110",
            "object | Vec2 | 1 40 1 40 40",
            "table | metatable {__mode} | 1 48 0 0 0"), render(before));
        // a Particle retains its Vec2: the classes' retained bytes together count each Vec2 once, under its Particle
        assertEquals(LuauCases.lines(
            "object | Particle | 4 160 4 160 443",
            "object | Vec2 | 4 160 4 160 160",
            "table | _G | 1 48 1 48 160",
            "table | metatable {__mode} | 1 48 0 0 0"), render(after));
    }

    static ClassHistogram.Row row(ClassHistogram h, String className) {
        return h.rows().stream().filter(r -> r.className().equals(className)).findFirst().orElseThrow();
    }
}
