// Bolt write shapes (not a test): measures the server's CPU seconds per row of the Cypher shapes a
// Bolt writer can use, on synthetic Object nodes and REF relationships shaped like a Luau snapshot's (10 node
// properties, 3.65 references per object, 4 label sets), interleaved, against a running Neo4j 5 server whose process
// id is given (its CPU time is read from /proc). Variants (comma-separated; a name may combine the words):
//   maps       a list of maps per batch, SET n = r.p, relationships by elementId() (heapload's first Bolt writer)
//   cols       one list per property, keys named in CREATE, relationships by id() (heapload's Bolt writer now)
//   colseid    cols, but ids returned and sought as elementId()
//   colsnoidx  cols with a label that has no index (the cost of maintaining object_snapshot_address)
//   colsfloor  cols without properties (the floor of the statement shape)
// Run: java -cp "cli/target/lib/*" bench/BoltWriteShapes.java PORT SERVER_PID NODES BATCH ROUNDS VARIANTS
// (user neo4j, password from NEO4J_PASSWORD; start the server as bench/bolt.sh does). Prints per variant and round the wall
// time and the server's CPU seconds of the node and relationship phases; the first round includes JIT warm-up.
import org.neo4j.driver.*;
import java.util.*;
import java.nio.file.*;

public class BoltWriteShapes {
    static Driver driver; static int serverPid;
    static double cpu() throws Exception {
        String[] f = Files.readString(Path.of("/proc/" + serverPid + "/stat")).split("\\) ")[1].split(" ");
        return (Long.parseLong(f[11]) + Long.parseLong(f[12])) / 100.0;
    }
    static final String[] LABELS = {"Object:Table", "Object:String", "Object:Function", "Object:Userdata"};
    static int N, R, B;
    static Random rnd;
    // synthetic rows
    static String[] lab; static Map<String,Object>[] nodeProps; static int[] rs, re; static Map<String,Object>[] relProps;
    static final String[] NODE_KEYS = {"snapshot","address","type","size","category","label","reachable","distance","retainedSize","dominator"};
    static final String[] REL_KEYS = {"kind","name","keyType","retention"};

    @SuppressWarnings("unchecked")
    static void gen() {
        rnd = new Random(42);
        lab = new String[N]; nodeProps = new Map[N];
        for (int i = 0; i < N; i++) {
            int l = rnd.nextInt(20); lab[i] = LABELS[l < 10 ? 0 : l < 16 ? 1 : l < 19 ? 2 : 3];
            Map<String,Object> p = new HashMap<>();
            p.put("address", "0x5574b8" + Long.toHexString(0x89d5e0L + i * 40L));
            p.put("type", lab[i].substring(7).toLowerCase());
            p.put("size", (long) (16 + rnd.nextInt(300)));
            p.put("category", (long) rnd.nextInt(5));
            if (rnd.nextInt(3) == 0) p.put("label", "name" + rnd.nextInt(100000));
            p.put("reachable", rnd.nextInt(10) != 0);
            p.put("distance", (long) rnd.nextInt(30));
            p.put("retainedSize", (long) rnd.nextInt(100000));
            if (rnd.nextBoolean()) p.put("dominator", "0x5574b8" + Long.toHexString(0x89d5e0L + rnd.nextInt(N) * 40L));
            nodeProps[i] = p;
        }
        rs = new int[R]; re = new int[R]; relProps = new Map[R];
        for (int k = 0; k < R; k++) {
            rs[k] = rnd.nextInt(N); re[k] = rnd.nextInt(20) == 0 ? rnd.nextInt(50) : rnd.nextInt(N);
            Map<String,Object> p = new HashMap<>();
            String[] kinds = {"key","value","array","metatable"};
            p.put("kind", kinds[rnd.nextInt(4)]);
            if (rnd.nextBoolean()) { p.put("name", "field" + rnd.nextInt(1000)); p.put("keyType", "string"); }
            if (rnd.nextInt(4) == 0) p.put("retention", true);
            relProps[k] = p;
        }
    }

    static String snap;
    static long[] nodeIds; static String[] nodeEids;

    static void nodes(String variant) {
        nodeIds = new long[N]; nodeEids = new String[N];
        for (int from = 0; from < N; from += B) {
            int to = Math.min(N, from + B);
            try (Session s = driver.session()) {
                final int f = from;
                s.executeWrite(tx -> {
                    Map<String, List<Integer>> by = new LinkedHashMap<>();
                    for (int i = f; i < to; i++) by.computeIfAbsent(variant.contains("noidx") ? lab[i].replace("Object:", "Objx:") : lab[i], k -> new ArrayList<>()).add(i);
                    for (var e : by.entrySet()) {
                        List<Integer> idx = e.getValue();
                        if (variant.startsWith("maps")) {
                            List<Map<String,Object>> rows = new ArrayList<>();
                            for (int i : idx) { Map<String,Object> p = new HashMap<>(nodeProps[i]); p.put("snapshot", snap); rows.add(Map.of("i", (long) i, "p", p)); }
                            String q = "UNWIND $rows AS r CREATE (n:" + e.getKey() + ") SET n = r.p RETURN collect(r.i) AS i, collect(elementId(n)) AS e";
                            org.neo4j.driver.Record rec = tx.run(q, Map.of("rows", rows)).single();
                            List<Object> is = rec.get("i").asList(), es = rec.get("e").asList();
                            for (int k = 0; k < is.size(); k++) nodeEids[(int)(long)(Long) is.get(k)] = (String) es.get(k);
                        } else {
                            Map<String,Object> params = new HashMap<>();
                            for (String key : NODE_KEYS) {
                                if (key.equals("snapshot")) continue;
                                List<Object> col = new ArrayList<>(idx.size());
                                for (int i : idx) col.add(nodeProps[i].get(key));
                                params.put(key, col);
                            }
                            params.put("snapshot", snap);
                            StringBuilder q = new StringBuilder("UNWIND range(0, size($address) - 1) AS i CREATE (n:" + e.getKey() + " {snapshot: $snapshot");
                            if (!variant.contains("floor")) for (String key : NODE_KEYS) if (!key.equals("snapshot")) q.append(", ").append(key).append(": $").append(key).append("[i]");
                            q.append("}) RETURN collect(").append(variant.contains("eid") ? "elementId(n)" : "id(n)").append(") AS ids");
                            List<Object> ids = tx.run(q.toString(), params).single().get("ids").asList();
                            for (int k = 0; k < ids.size(); k++) {
                                if (variant.contains("eid")) nodeEids[idx.get(k)] = (String) ids.get(k); else nodeIds[idx.get(k)] = (Long) ids.get(k);
                            }
                        }
                    }
                    return null;
                });
            }
        }
    }

    static void rels(String variant) {
        for (int from = 0; from < R; from += B) {
            int to = Math.min(R, from + B);
            final int f = from;
            try (Session s = driver.session()) {
                s.executeWrite(tx -> {
                    if (variant.startsWith("maps")) {
                        List<Map<String,Object>> rows = new ArrayList<>();
                        for (int k = f; k < to; k++) rows.add(Map.of("s", nodeEids[rs[k]], "e", nodeEids[re[k]], "p", relProps[k]));
                        tx.run("UNWIND $rows AS r MATCH (a) WHERE elementId(a) = r.s MATCH (b) WHERE elementId(b) = r.e "
                            + "CREATE (a)-[x:REF]->(b) SET x = r.p RETURN count(x) AS n", Map.of("rows", rows)).consume();
                    } else {
                        boolean eid = variant.contains("eid");
                        Map<String,Object> params = new HashMap<>();
                        List<Object> ss = new ArrayList<>(), ee = new ArrayList<>();
                        for (int k = f; k < to; k++) { ss.add(eid ? nodeEids[rs[k]] : (Object) nodeIds[rs[k]]); ee.add(eid ? nodeEids[re[k]] : (Object) nodeIds[re[k]]); }
                        params.put("s", ss); params.put("e", ee);
                        for (String key : REL_KEYS) { List<Object> col = new ArrayList<>(); for (int k = f; k < to; k++) col.add(relProps[k].get(key)); params.put(key, col); }
                        String fn = eid ? "elementId" : "id";
                        StringBuilder q = new StringBuilder("UNWIND range(0, size($s) - 1) AS i MATCH (a) WHERE " + fn + "(a) = $s[i] MATCH (b) WHERE " + fn + "(b) = $e[i] CREATE (a)-[x:REF {");
                        boolean first = true;
                        if (!variant.contains("floor")) for (String key : REL_KEYS) { q.append(first ? "" : ", ").append(key).append(": $").append(key).append("[i]"); first = false; }
                        q.append("}]->(b) RETURN count(x) AS n");
                        tx.run(q.toString(), params).consume();
                    }
                    return null;
                });
            }
        }
    }

    static void purge() {
        while (true) {
            try (Session s = driver.session()) {
                long n = s.executeWrite(tx -> tx.run("MATCH (o) WHERE (o:Object OR o:Objx) AND o.snapshot = $id AND o.address IS NOT NULL WITH o LIMIT 20000 DETACH DELETE o RETURN count(*) AS n", Map.of("id", snap)).single().get(0).asLong());
                if (n == 0) break;
            }
        }
    }

    public static void main(String[] a) throws Exception {
        int port = Integer.parseInt(a[0]); serverPid = Integer.parseInt(a[1]);
        N = Integer.parseInt(a[2]); R = (int) (N * 3.65); B = Integer.parseInt(a[3]);
        int rounds = Integer.parseInt(a[4]);
        String[] variants = a[5].split(",");
        driver = GraphDatabase.driver("bolt://127.0.0.1:" + port, AuthTokens.basic("neo4j", System.getenv("NEO4J_PASSWORD")), Config.builder().withLogging(Logging.none()).build());
        try (Session s = driver.session()) {
            s.run("CREATE INDEX object_snapshot_address IF NOT EXISTS FOR (o:Object) ON (o.snapshot, o.address)").consume();
        }
        gen();
        int seq = 0;
        for (int round = 0; round < rounds; round++) {
            for (String v : variants) {
                snap = "s" + (seq++);
                double c0 = cpu(); long t0 = System.nanoTime();
                nodes(v);
                double c1 = cpu(); long t1 = System.nanoTime();
                rels(v);
                double c2 = cpu(); long t2 = System.nanoTime();
                System.out.printf("%-14s B=%6d nodes %6.1f s cpu %6.1f s (%6.0f rows/cpu-s) rels %6.1f s cpu %6.1f s (%6.0f rows/cpu-s) total %7.0f rows/cpu-s  load %s%n",
                    v, B, (t1-t0)/1e9, c1-c0, N/(c1-c0), (t2-t1)/1e9, c2-c1, R/(c2-c1), (N+R)/(c2-c0), Files.readString(Path.of("/proc/loadavg")).substring(0,14));
                purge();
            }
        }
        driver.close();
    }
}
