package dev.heapload.report;

import java.io.IOException;
import java.io.OutputStream;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.List;

import com.fasterxml.jackson.core.JsonEncoding;
import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.StreamWriteConstraints;

import dev.heapload.analysis.ReachabilityTree;

/** The JSON form of a reachability tree ({@code heapload tree --json}). */
public final class TreeJson {

    private TreeJson() {
    }

    /**
     * JSON: {@code {"name","size","count","total","totalCount","children":[...]}} nested like the tree,
     * sizes in bytes. Written with an explicit stack (trees can be tens of thousands of levels deep).
     */
    public static void write(ReachabilityTree.Node root, OutputStream os) throws IOException {
        JsonFactory factory = JsonFactory.builder()
            .streamWriteConstraints(StreamWriteConstraints.builder().maxNestingDepth(Integer.MAX_VALUE).build())
            .build();
        try (JsonGenerator g = factory.createGenerator(os, JsonEncoding.UTF8)) {
            g.disable(JsonGenerator.Feature.AUTO_CLOSE_TARGET);
            Deque<Object> stack = new ArrayDeque<>();
            stack.push(root);
            final Object closeArray = new Object();
            while (!stack.isEmpty()) {
                Object item = stack.pop();
                if (item == closeArray) {
                    g.writeEndArray();
                    g.writeEndObject();
                    continue;
                }
                ReachabilityTree.Node n = (ReachabilityTree.Node) item;
                g.writeStartObject();
                g.writeStringField("name", n.name());
                g.writeNumberField("size", n.size());
                g.writeNumberField("count", n.count());
                g.writeNumberField("total", n.total());
                g.writeNumberField("totalCount", n.totalCount());
                g.writeArrayFieldStart("children");
                stack.push(closeArray);
                List<ReachabilityTree.Node> children = n.children();
                for (int i = children.size() - 1; i >= 0; i--) {
                    stack.push(children.get(i));
                }
            }
            g.writeRaw('\n');
        }
    }
}
