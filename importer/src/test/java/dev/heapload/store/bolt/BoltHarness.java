package dev.heapload.store.bolt;

import java.time.Duration;

import org.neo4j.configuration.connectors.BoltConnectorInternalSettings;
import org.neo4j.harness.Neo4j;
import org.neo4j.harness.Neo4jBuilders;

/** An in-process Neo4j server with Bolt for the remote-store tests (no authentication). */
public final class BoltHarness {

    private BoltHarness() {
    }

    /**
     * Starts a server. The two Bolt shutdown waits are set to zero, else closing it waits 10 s.
     */
    public static Neo4j start() {
        return Neo4jBuilders.newInProcessBuilder()
            .withDisabledServer()
            .withConfig(BoltConnectorInternalSettings.thread_pool_shutdown_wait_time, Duration.ZERO)
            .withConfig(BoltConnectorInternalSettings.connection_shutdown_wait_time, Duration.ZERO)
            .build();
    }
}
