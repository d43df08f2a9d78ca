package dev.heapload.analysis;

import java.util.ArrayList;
import java.util.List;

import dev.heapload.model.HeapSnapshot;

/**
 * One hop of a retention path, as data: never text to be split again. A path is a list of hops from the root; the
 * store keeps it as parallel lists ({@code pathNames}, {@code pathKinds}, {@code pathKeyTypes}, {@code pathTypes},
 * see {@code GraphSchema}).
 *
 * <p>Hop 0 is the root: {@code name} the root's name, {@code kind} {@value #ROOT_KIND}, {@code keyType}
 * {@code name}, {@code type} the root object's own type. Every later hop is one reference: {@code name} its name
 * ({@code null} when it has none), {@code kind} its kind ({@code value}, {@code upvalue} …), {@code keyType} its
 * key type ({@link HeapSnapshot#keyType}: {@code ""} without a name, {@code name}, {@code string}, {@code number},
 * {@code boolean}, {@code object}, {@code other}) and {@code type} the type of the object holding the reference.
 *
 * <p>Display ({@link #displayName}, {@link #line}): a hop without a name shows its kind in brackets ({@code [array]});
 * a string key that is empty or starts with {@code [} or {@code "} is shown in double quotes, so that it never reads
 * like a non-string key ({@code [1]}, which readers name in brackets) or an unnamed hop; every other name is shown as
 * it is. The display is one-to-one per key type, not escaped: outputs make control characters visible
 * ({@code SafeText}) one hop per line.
 *
 * @param name    the name, or {@code null}
 * @param kind    the reference kind, {@value #ROOT_KIND} for hop 0
 * @param keyType the key type ({@code ""} when {@code name} is null)
 * @param type    the holder's type (hop 0: the root object's type)
 * @param frame   for a stack slot, the frame holding it ({@link HeapSnapshot#referenceFrame}, e.g.
 *                {@code handleRequest (@main.luau:5)}); else {@code null}. Shown after the hop, never part of its name.
 */
public record PathHop(String name, String kind, String keyType, String type, String frame) {

    /** A hop that is no stack slot (no frame). */
    public PathHop(String name, String kind, String keyType, String type) {
        this(name, kind, keyType, type, null);
    }

    /** The kind of hop 0. */
    public static final String ROOT_KIND = "root";

    /** The hop's name as shown (see the class comment): {@code [kind]}, {@code "[1]"}, or the name as it is. */
    public String displayName() {
        return displayName(name, kind, keyType);
    }

    /**
     * The display of a name (the class comment's rule), for callers that hold the parts (a query row).
     *
     * @param name    the name or {@code null}
     * @param kind    the reference kind, shown in brackets when {@code name} is null
     * @param keyType the key type; only {@code string} is ever quoted
     */
    public static String displayName(String name, String kind, String keyType) {
        if (name == null) {
            return "[" + kind + "]";
        }
        if ("string".equals(keyType) && (name.isEmpty() || name.charAt(0) == '[' || name.charAt(0) == '"')) {
            return '"' + name + '"';
        }
        return name;
    }

    /**
     * The leak-trace line: {@code root NAME (TYPE)} for hop 0, {@code NAME in TYPE} for the others, followed by
     * {@code frame F} for a stack slot.
     */
    public String line() {
        if (ROOT_KIND.equals(kind)) {
            return "root " + (name == null ? "?" : name) + " (" + type + ")";
        }
        return displayName() + " in " + type + (frame != null ? " frame " + frame : "");
    }

    /** This hop with its name replaced by the kind (a map's many keys folded into one hop). */
    public PathHop folded() {
        return new PathHop(null, kind, "", type, null);
    }

    /**
     * A path's hop names as data, one per hop ({@code ""} for a hop without a name): the graph's {@code pathNames}
     * (its lists hold no null), and the {@code pathNames} column of the queries that return a path.
     */
    public static List<String> pathNames(List<PathHop> hops) {
        return each(hops, h -> h.name() == null ? "" : h.name());
    }

    /** A path's hop kinds, one per hop ({@value #ROOT_KIND} for the first): the graph's {@code pathKinds}. */
    public static List<String> pathKinds(List<PathHop> hops) {
        return each(hops, PathHop::kind);
    }

    /** A path's key types, one per hop ({@code ""} for a hop without a name): the graph's {@code pathKeyTypes}. */
    public static List<String> pathKeyTypes(List<PathHop> hops) {
        return each(hops, h -> h.name() == null ? "" : h.keyType());
    }

    /** A path's holder types, one per hop (the root object's type for the first): the graph's {@code pathTypes}. */
    public static List<String> pathTypes(List<PathHop> hops) {
        return each(hops, PathHop::type);
    }

    private static List<String> each(List<PathHop> hops, java.util.function.Function<PathHop, String> part) {
        List<String> out = new ArrayList<>(hops.size());
        for (PathHop h : hops) {
            out.add(part.apply(h));
        }
        return out;
    }

    /** Hop 0 of a path: the root {@code rootName} (or {@code null}) holding {@code rootObject}. */
    public static PathHop root(HeapSnapshot s, String rootName, int rootObject) {
        return new PathHop(rootName, ROOT_KIND, rootName == null ? "" : "name", s.type(rootObject));
    }

    /** The hop of reference {@code r}, held by {@code holder}. */
    public static PathHop of(HeapSnapshot s, int r, int holder) {
        return new PathHop(s.referenceName(r), s.referenceKind(r), s.keyType(r), s.type(holder), s.referenceFrame(r));
    }
}
