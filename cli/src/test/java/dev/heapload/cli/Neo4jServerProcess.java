package dev.heapload.cli;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.TimeUnit;

/**
 * A Neo4j 5 server in a JVM of its own for tests: Neo4j's community entry point
 * ({@code org.neo4j.server.CommunityEntryPoint}) from the test's class path, a generated {@code neo4j.conf} (Bolt on a
 * free localhost port, HTTP off, authentication on), the password set before the first start by neo4j-admin's
 * {@code dbms set-initial-password} (also a child JVM). {@link #close} kills the process.
 */
final class Neo4jServerProcess implements AutoCloseable {

    final Path home;
    final int port;
    final String password;
    private final Process process;

    private Neo4jServerProcess(Path home, int port, String password, Process process) {
        this.home = home;
        this.port = port;
        this.password = password;
        this.process = process;
    }

    /** Starts a server in {@code home} (created) and waits until its log says it started (at most 3 minutes). */
    static Neo4jServerProcess start(Path home) throws IOException, InterruptedException {
        Path conf = home.resolve("conf");
        Files.createDirectories(conf);
        int port = freePort();
        Files.writeString(conf.resolve("neo4j.conf"), String.join("\n",
            "server.default_listen_address=127.0.0.1",
            "server.bolt.listen_address=127.0.0.1:" + port,
            "server.bolt.advertised_address=127.0.0.1:" + port,
            "server.http.enabled=false",
            "server.https.enabled=false",
            "dbms.security.auth_enabled=true",
            "server.memory.pagecache.size=64m",
            "server.memory.heap.max_size=512m",
            "db.tx_log.rotation.retention_policy=1 files",
            ""), StandardCharsets.UTF_8);
        Neo4jServerProcess server = new Neo4jServerProcess(home, port, "pw-" + UUID.randomUUID(), null);
        List<String> setPassword = java("org.neo4j.cli.AdminTool", "dbms", "set-initial-password", server.password);
        ProcessBuilder admin = new ProcessBuilder(setPassword).redirectErrorStream(true)
            .redirectOutput(home.resolve("set-initial-password.log").toFile());
        admin.environment().put("NEO4J_HOME", home.toString());
        admin.environment().put("NEO4J_CONF", conf.toString());
        Process p = admin.start();
        if (!p.waitFor(10, TimeUnit.MINUTES) || p.exitValue() != 0) {
            p.destroyForcibly();
            throw new IOException("set-initial-password failed: " + Files.readString(home.resolve("set-initial-password.log")));
        }
        Process process = new ProcessBuilder(java("org.neo4j.server.CommunityEntryPoint", "--home-dir=" + home,
            "--config-dir=" + conf)).redirectErrorStream(true).redirectOutput(home.resolve("server.out").toFile()).start();
        Neo4jServerProcess started = new Neo4jServerProcess(home, port, server.password, process);
        Path log = home.resolve("logs").resolve("neo4j.log");
        long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(10); // a hang bound
        while (true) {
            if (Files.exists(log) && Files.readString(log).contains(" Started.")) {
                return started;
            }
            if (!process.isAlive() || System.nanoTime() > deadline) {
                started.close();
                throw new IOException("the Neo4j server did not start: " + Files.readString(home.resolve("server.out")));
            }
            Thread.sleep(200);
        }
    }

    String boltUri() {
        return "bolt://127.0.0.1:" + port;
    }

    String routingUri() {
        return "neo4j://127.0.0.1:" + port;
    }

    private static List<String> java(String main, String... args) {
        List<String> command = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
            "-Xmx512m", ChildHeapLoad.FAST_START,
            "--add-opens=java.base/java.nio=ALL-UNNAMED", "--add-opens=java.base/java.io=ALL-UNNAMED",
            "--add-opens=java.base/sun.nio.ch=ALL-UNNAMED", "--add-opens=java.base/java.lang=ALL-UNNAMED",
            "-Dio.netty.tryReflectionSetAccessible=true",
            "-cp", System.getProperty("java.class.path"), main));
        command.addAll(List.of(args));
        return command;
    }

    static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket()) {
            s.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
            return s.getLocalPort();
        }
    }

    @Override
    public void close() throws InterruptedException {
        if (process != null) {
            process.destroyForcibly();
            process.waitFor(5, TimeUnit.MINUTES);
        }
    }
}
