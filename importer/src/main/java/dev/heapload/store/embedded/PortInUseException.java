package dev.heapload.store.embedded;

import java.io.IOException;
import java.net.BindException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;

/** {@link GraphStore#serve} could not listen on a port because another process (or connector) has it. */
public final class PortInUseException extends IOException {

    private static final long serialVersionUID = 1L;

    private final int port;

    /**
     * @param port  the port that is taken, or -1 when it could not be told which of the requested ports it is
     * @param cause Neo4j's exception
     */
    PortInUseException(int port, Throwable cause) {
        super(port >= 0 ? "port " + port + " on " + EmbeddedDbms.LOOPBACK + " is already in use"
            : "a port on " + EmbeddedDbms.LOOPBACK + " is already in use", cause);
        this.port = port;
    }

    /** The port that is taken, or -1 when unknown. */
    public int port() {
        return port;
    }

    /**
     * When {@code e} was caused by a {@link BindException}, a {@code PortInUseException} naming which of
     * {@code ports} is taken (the first one that cannot be bound now that the DBMS has stopped); else null.
     */
    static PortInUseException find(Throwable e, int[] ports) {
        for (Throwable t = e; t != null; t = t.getCause() == t ? null : t.getCause()) {
            if (t instanceof BindException) {
                for (int port : ports) {
                    if (!free(port)) {
                        return new PortInUseException(port, e);
                    }
                }
                return new PortInUseException(-1, e);
            }
        }
        return null;
    }

    /** Throws when {@code port} cannot be bound on the loopback address now. */
    static void check(int port) throws PortInUseException {
        if (!free(port)) {
            throw new PortInUseException(port, null);
        }
    }

    private static boolean free(int port) {
        try (ServerSocket probe = new ServerSocket()) {
            probe.bind(new InetSocketAddress(InetAddress.getByName(EmbeddedDbms.LOOPBACK), port));
            return true;
        } catch (IOException e) {
            return false;
        }
    }
}
