package dev.heapload.cli;

import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.io.UncheckedIOException;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.LinkedHashMap;
import java.util.Map;

import picocli.CommandLine;
import picocli.CommandLine.Model.CommandSpec;
import picocli.codegen.docgen.manpage.ManPageGenerator;

/**
 * The command reference in {@code docs/reference/commands/}: one AsciiDoc man page per command and subcommand of
 * {@code heapload}, written by picocli-codegen's {@link ManPageGenerator} from the picocli model of {@link HeapLoad}
 * (the same model {@code --help} prints), plus a {@code README.md} index. Hidden commands are left out. The model is
 * taken without the environment's defaults and without a version, so the pages are the same on every machine and
 * for every build of one source tree. {@link CommandReferenceTest} keeps the committed pages equal to these.
 */
final class CommandReference {

    /** The folder of the pages, relative to the repository root. */
    static final String FOLDER = "docs/reference/commands";

    /** The command that writes the pages again (also printed by {@link CommandReferenceTest} when they are stale). */
    static final String UPDATE_COMMAND = "mvn -q -B test -pl cli -am -Dtest=CommandReferenceTest "
        + "-Dsurefire.failIfNoSpecifiedTests=false -Dheapload.reference.update=true";

    private CommandReference() {
    }

    /**
     * The pages: file name ({@code heapload-query.adoc}, the command's qualified name with blanks as {@code -}) to
     * text with {@code \n} line ends, in the order the commands are declared (breadth-first), then
     * {@code README.md}.
     */
    static Map<String, String> pages() {
        CommandSpec root = new CommandLine(new HeapLoad()).getCommandSpec();
        Map<String, String> pages = new LinkedHashMap<>();
        StringBuilder index = new StringBuilder()
            .append("# Command reference\n\n")
            .append("Generated from heapload's command definitions (the text `heapload COMMAND --help` prints) by ")
            .append("picocli's man page generator: AsciiDoc man pages, one per command. Do not edit them by hand; ")
            .append("after changing a command, write them again from the repository root with\n\n")
            .append("```sh\n").append(UPDATE_COMMAND).append("\n```\n\n")
            .append("(`CommandReferenceTest` fails while they differ from the commands).\n\n")
            .append("| command | what it does |\n|---|---|\n");
        Deque<CommandSpec> queue = new ArrayDeque<>();
        queue.add(root);
        while (!queue.isEmpty()) {
            CommandSpec spec = queue.poll();
            spec.versionProvider(null);
            spec.version(new String[0]);
            String name = spec.qualifiedName("-") + ".adoc";
            StringWriter text = new StringWriter();
            try (PrintWriter out = new PrintWriter(text)) {
                ManPageGenerator.writeSingleManPage(out, spec);
            }
            pages.put(name, text.toString().replace("\r\n", "\n"));
            String[] description = spec.usageMessage().description();
            // description lines are format strings (picocli's help command starts with %n)
            String first = description.length == 0 ? "" : description[0].replace("%n", " ").replace("%%", "%").strip();
            int stop = first.indexOf(". ");
            index.append("| [`").append(spec.qualifiedName(" ")).append("`](").append(name).append(") | ")
                .append((stop < 0 ? first : first.substring(0, stop + 1)).replace("|", "\\|")).append(" |\n");
            for (Map.Entry<String, CommandLine> sub : spec.subcommands().entrySet()) {
                CommandSpec s = sub.getValue().getCommandSpec();
                // a command registered under several names (aliases) is listed once; hidden commands are internal
                if (!s.usageMessage().hidden() && s.name().equals(sub.getKey())) {
                    queue.add(s);
                }
            }
        }
        pages.put("README.md", index.toString());
        return pages;
    }

    /** Writes the pages into {@code args[0]} (default: {@link #FOLDER} under the working directory). */
    public static void main(String[] args) {
        java.nio.file.Path dir = java.nio.file.Path.of(args.length > 0 ? args[0] : FOLDER);
        try {
            java.nio.file.Files.createDirectories(dir);
            for (Map.Entry<String, String> page : pages().entrySet()) {
                java.nio.file.Files.writeString(dir.resolve(page.getKey()), page.getValue());
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
