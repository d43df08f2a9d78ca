package dev.heapload.report;

import java.io.StringWriter;
import java.util.List;
import java.util.Locale;

import javax.xml.stream.XMLOutputFactory;
import javax.xml.stream.XMLStreamException;
import javax.xml.stream.XMLStreamWriter;

import dev.heapload.queries.SafeText;

/**
 * The JUnit XML form of a {@link LeakReport} (the Ant/Surefire format CI servers read): a {@code <testsuites>} with
 * the suite {@code heapload.leak-groups}, one {@code <testcase>} per leak group (a {@code <failure>} when the group
 * alone breaks a failed gate, {@code <skipped>} when it is a known leak or replaced (churn), else passed; its retention path in
 * {@code <system-out>}), and the suite {@code heapload.gates}, one test case per {@code --fail-on} gate. Written with
 * the JDK's StAX {@link XMLStreamWriter}, which escapes {@code & < > "}; every text first goes through
 * {@link SafeText#xmlText}: control and bidi characters, which XML 1.0 mostly forbids, are shown escaped
 * ({@code \x1b}, <code>&#92;u202e</code>); the retention path keeps one line per hop, a line break inside a name shows
 * as {@code \n}.
 */
public final class ReportJunit {

    private static final XMLOutputFactory FACTORY = XMLOutputFactory.newFactory();

    private ReportJunit() {
    }

    /** The XML document. */
    public static String render(LeakReport r) {
        StringWriter out = new StringWriter();
        try {
            XMLStreamWriter w = FACTORY.createXMLStreamWriter(out);
            write(r, w);
            w.close();
        } catch (XMLStreamException e) {
            throw new IllegalStateException("writing JUnit XML to a string", e);
        }
        return out.toString();
    }

    private static void write(LeakReport r, XMLStreamWriter w) throws XMLStreamException {
        List<LeakReport.Group> groups = r.groups();
        long failures = groups.stream().filter(g -> !g.brokenGates().isEmpty()).count();
        long skipped = groups.stream().filter(g -> g.known() || g.replaced()).count();
        long gateFailures = r.gates().stream().filter(LeakReport.GateResult::failed).count();
        w.writeStartDocument("UTF-8", "1.0");
        w.writeCharacters("\n");
        w.writeStartElement("testsuites");
        attr(w, "name", "heapload report " + r.reportName() + ": " + r.target().id() + " vs " + r.baseline().id());
        attr(w, "tests", groups.size() + r.gates().size());
        attr(w, "failures", failures + gateFailures);
        attr(w, "errors", 0);
        attr(w, "skipped", skipped);
        attr(w, "time", 0);
        String suite = "heapload.leak-groups";
        w.writeCharacters("\n ");
        w.writeStartElement("testsuite");
        attr(w, "name", suite);
        attr(w, "tests", groups.size());
        attr(w, "failures", failures);
        attr(w, "errors", 0);
        attr(w, "skipped", skipped);
        attr(w, "time", 0);
        attr(w, "timestamp", r.generatedAt().replaceFirst("Z$", ""));
        for (LeakReport.Group g : groups) {
            String summary = String.format(Locale.ROOT, "%,d %s head(s), %,d objects, %,d new bytes, %,d retained bytes",
                g.heads(), g.headType(), g.objects(), g.newBytes(), g.retainedBytes())
                + (g.growthSummary() == null ? "" : "; " + g.growthSummary());
            w.writeCharacters("\n  ");
            w.writeStartElement("testcase");
            attr(w, "classname", suite);
            attr(w, "name", "#" + g.rank() + " " + g.name() + " [" + g.fingerprint() + "]");
            attr(w, "time", 0);
            if (g.replaced()) {
                // churn, not a leak: listed, never failed
                w.writeCharacters("\n   ");
                w.writeEmptyElement("skipped");
                attr(w, "message", "replaced, not a leak (churn): " + g.replacedLine());
            } else if (g.known()) {
                w.writeCharacters("\n   ");
                w.writeEmptyElement("skipped");
                attr(w, "message", "known leak (" + g.knownBy() + "): " + summary);
            } else if (!g.brokenGates().isEmpty()) {
                w.writeCharacters("\n   ");
                w.writeStartElement("failure");
                attr(w, "type", "gate");
                attr(w, "message", "breaks " + String.join(", ", g.brokenGates()) + ": " + summary);
                w.writeCharacters(lines(g.path()));
                w.writeEndElement();
            }
            w.writeCharacters("\n   ");
            w.writeStartElement("system-out");
            w.writeCharacters(line(summary + (g.status() == null ? "" : " (" + g.status() + ")")) + "\n" + lines(g.path()));
            w.writeEndElement();
            w.writeCharacters("\n  ");
            w.writeEndElement();
        }
        w.writeCharacters("\n ");
        w.writeEndElement();
        w.writeCharacters("\n ");
        w.writeStartElement("testsuite");
        attr(w, "name", "heapload.gates");
        attr(w, "tests", r.gates().size());
        attr(w, "failures", gateFailures);
        attr(w, "errors", 0);
        attr(w, "skipped", 0);
        attr(w, "time", 0);
        for (LeakReport.GateResult g : r.gates()) {
            w.writeCharacters("\n  ");
            w.writeStartElement("testcase");
            attr(w, "classname", "heapload.gates");
            attr(w, "name", g.expression());
            attr(w, "time", 0);
            if (g.failed()) {
                w.writeEmptyElement("failure");
                attr(w, "type", "gate");
                attr(w, "message", String.format(Locale.ROOT, "%s = %,d", g.metric(), g.actual()));
            }
            w.writeEndElement();
        }
        w.writeCharacters("\n ");
        w.writeEndElement();
        w.writeCharacters("\n");
        w.writeEndElement();
        w.writeCharacters("\n");
        w.writeEndDocument();
    }

    private static void attr(XMLStreamWriter w, String name, String value) throws XMLStreamException {
        w.writeAttribute(name, line(value));
    }

    private static void attr(XMLStreamWriter w, String name, long value) throws XMLStreamException {
        w.writeAttribute(name, Long.toString(value));
    }

    /** One line of XML text: no raw line break or control character. */
    private static String line(String s) {
        return SafeText.xmlText(s, false);
    }

    /** The lines, each made safe by {@link #line}, joined by LF. */
    private static String lines(List<String> lines) {
        return String.join("\n", lines.stream().map(ReportJunit::line).toList());
    }
}
