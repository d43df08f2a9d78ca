package dev.heapload.browser;

import javax.ws.rs.GET;
import javax.ws.rs.Path;
import javax.ws.rs.core.Response;

/**
 * The documents {@code heapload serve} adds to Neo4j's own HTTP server, mounted at {@value BrowserSetup#MOUNT} as a
 * Neo4j unmanaged extension ({@code server.unmanaged_extension_classes}; JAX-RS, Jersey scans this package): the
 * page that opens Neo4j Browser logged in, the guide Browser plays on connect, and the graph style it loads. Their
 * content is made by {@link BrowserSetup} for the store being served; 404 while nothing is served.
 */
@Path("/")
public final class BrowserResources {

    /** The page that opens Browser: {@code /heapload/browser}, the password (if any) in the URL's fragment. */
    @GET
    @Path("browser")
    public Response browser() {
        return document(BrowserSetup.Document.OPEN_PAGE);
    }

    /** The guide ({@code :play http://localhost:HTTP/heapload/guide.html}). */
    @GET
    @Path("guide.html")
    public Response guide() {
        return document(BrowserSetup.Document.GUIDE);
    }

    /** The graph style ({@code :style http://localhost:HTTP/heapload/style.grass}). */
    @GET
    @Path("style.grass")
    public Response style() {
        return document(BrowserSetup.Document.STYLE);
    }

    private static Response document(BrowserSetup.Document which) {
        BrowserSetup setup = BrowserSetup.current();
        if (setup == null) {
            return Response.status(Response.Status.NOT_FOUND).build();
        }
        return Response.ok(setup.text(which), which.mediaType)
            .header("Cache-Control", "no-store")
            .header("X-Content-Type-Options", "nosniff")
            .header("Referrer-Policy", "no-referrer")
            .build();
    }
}
