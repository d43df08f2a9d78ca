package dev.heapload.store;

import java.io.IOException;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import org.neo4j.batchimport.api.input.Group;
import org.neo4j.batchimport.api.input.InputEntityVisitor;
import org.neo4j.internal.id.IdSequence;

/**
 * Receives one node or relationship of a {@link GraphInput} chunk at a time and hands it to a {@link Sink} as plain
 * values: input id, labels, or start, end and type, and the properties (string arrays as lists). For writers that
 * do not use the offline importer (Bolt, a transaction on an existing graph).
 */
public final class InputRows implements InputEntityVisitor {
    /** Receives each complete row; the row object is reused after the call returns. */
    public interface Sink {
        void accept(InputRows rows) throws IOException;
    }

    private final Sink sink;
    public long id = -1;
    public long start = -1;
    public long end = -1;
    public String[] labels = new String[0];
    public String type;
    public Map<String, Object> properties = new HashMap<>();

    /** @param sink receives each complete node or relationship */
    public InputRows(Sink sink) {
        this.sink = sink;
    }

    @Override
    public boolean property(String key, Object value) {
        properties.put(key, value instanceof String[] list ? List.of(list) : value);
        return true;
    }

    @Override
    public boolean id(long id) {
        this.id = id;
        return true;
    }

    @Override
    public boolean labels(String[] labels) {
        this.labels = labels;
        return true;
    }

    @Override
    public boolean startId(long id) {
        this.start = id;
        return true;
    }

    @Override
    public boolean endId(long id) {
        this.end = id;
        return true;
    }

    @Override
    public boolean type(String type) {
        this.type = type;
        return true;
    }

    @Override
    public void endOfEntity() throws IOException {
        sink.accept(this);
        reset();
    }

    @Override
    public void reset() {
        id = -1;
        start = -1;
        end = -1;
        labels = new String[0];
        type = null;
        properties = new HashMap<>();
    }

    @Override
    public void close() {
    }

    // GraphInput uses none of these

    @Override
    public boolean propertyId(long nextProp) {
        throw unsupported();
    }

    @Override
    public boolean properties(java.nio.ByteBuffer properties, boolean offloaded) {
        throw unsupported();
    }

    @Override
    public boolean property(int propertyKeyId, Object value) {
        throw unsupported();
    }

    @Override
    public boolean id(Object id, Group group) {
        throw unsupported();
    }

    @Override
    public boolean id(Object id, Group group, IdSequence idSequence) {
        throw unsupported();
    }

    @Override
    public boolean labelField(long labelField) {
        throw unsupported();
    }

    @Override
    public boolean startId(Object id, Group group) {
        throw unsupported();
    }

    @Override
    public boolean endId(Object id, Group group) {
        throw unsupported();
    }

    @Override
    public boolean type(int type) {
        throw unsupported();
    }

    private static UnsupportedOperationException unsupported() {
        return new UnsupportedOperationException("not used by GraphInput");
    }
}
