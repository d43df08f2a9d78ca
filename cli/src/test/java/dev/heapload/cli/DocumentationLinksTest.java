package dev.heapload.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import org.junit.jupiter.api.Test;

/**
 * The documentation a user reads holds together: every relative link of {@code README.md} and {@code docs/**.md}
 * names a file or folder that exists, and a {@code #fragment} into a Markdown file names one of its headings (as
 * GitHub makes anchors from headings). The user's pages (README, docs/guide, docs/reference) point at nothing outside
 * the repository, such as the developers' {@code ../shared} folder. The README stays at most 30 KiB.
 */
class DocumentationLinksTest {

    /** {@code [text](target)}, the target without blanks; images too. */
    private static final Pattern LINK = Pattern.compile("\\[[^\\]]*\\]\\(([^)\\s]+)\\)");

    private static final Pattern HEADING = Pattern.compile("^#{1,6}\\s+(.*?)\\s*#*\\s*$");

    static Path repoRoot() {
        return CommandReferenceTest.repoRoot();
    }

    static List<Path> markdownPages() throws IOException {
        Path root = repoRoot();
        List<Path> pages = new ArrayList<>();
        pages.add(root.resolve("README.md"));
        try (Stream<Path> files = Files.walk(root.resolve("docs"))) {
            files.filter(f -> f.toString().endsWith(".md")).sorted().forEach(pages::add);
        }
        return pages;
    }

    @Test
    void everyRelativeLinkResolves() throws IOException {
        List<String> broken = new ArrayList<>();
        Map<Path, Set<String>> anchors = new HashMap<>();
        int checked = 0;
        for (Path page : markdownPages()) {
            for (String target : links(Files.readString(page))) {
                if (target.matches("^[a-zA-Z][a-zA-Z0-9+.-]*:.*")) {
                    continue;   // http:, https:, mailto:
                }
                checked++;
                int hash = target.indexOf('#');
                String file = hash < 0 ? target : target.substring(0, hash);
                String fragment = hash < 0 ? null : target.substring(hash + 1);
                Path resolved = file.isEmpty() ? page : page.getParent().resolve(file).normalize();
                String where = repoRoot().relativize(page) + ": " + target;
                if (!Files.exists(resolved)) {
                    broken.add(where + " (no such file)");
                } else if (fragment != null && resolved.toString().endsWith(".md")
                        && !anchors.computeIfAbsent(resolved, DocumentationLinksTest::headingAnchors).contains(fragment)) {
                    broken.add(where + " (no such heading)");
                }
            }
        }
        assertTrue(checked > 100, "links checked: " + checked);
        assertEquals(List.of(), broken);
    }

    @Test
    void theUsersPagesPointAtNothingOutsideTheRepository() throws IOException {
        List<String> found = new ArrayList<>();
        for (Path page : markdownPages()) {
            String rel = repoRoot().relativize(page).toString().replace('\\', '/');
            if (!(rel.equals("README.md") || rel.startsWith("docs/guide/") || rel.startsWith("docs/reference/"))) {
                continue;
            }
            List<String> lines = Files.readAllLines(page);
            for (int i = 0; i < lines.size(); i++) {
                if (lines.get(i).contains("../shared") || lines.get(i).contains("shared/testdata")
                        || lines.get(i).contains("shared/tools")) {
                    found.add(rel + ":" + (i + 1) + ": " + lines.get(i).strip());
                }
            }
        }
        assertEquals(List.of(), found);
    }

    @Test
    void theReadmeStaysAGuide() throws IOException {
        // the README is a user's guide; tasks, reference and internals live in docs/
        long size = Files.size(repoRoot().resolve("README.md"));
        assertTrue(size <= 30 * 1024, "README.md is " + size + " bytes; move details to docs/guide or docs/reference");
    }

    @Test
    void anchorsAreMadeAsGitHubMakesThem() {
        assertEquals(Set.of("lua-5154-and-luajit", "taking-a-dump", "taking-a-dump-1", "the-commands", "--db-dir"),
            headingAnchors("## Lua 5.1–5.4 and LuaJIT\n# Taking a dump\n```\n# not a heading\n```\n### Taking a dump\n"
                + "## The `commands`\n## --db DIR\n"));
        assertEquals(List.of("b.md#x", "c/"), links("see [a](b.md#x), `[not](x.md)` and [a\ndir](c/)\n```\n[x](y)\n```\n"));
    }

    /** The link targets of a Markdown text, outside code blocks and inline code (a link's text may wrap). */
    static List<String> links(String markdown) {
        StringBuilder prose = new StringBuilder();
        boolean fenced = false;
        for (String line : markdown.split("\n", -1)) {
            if (line.strip().startsWith("```")) {
                fenced = !fenced;
            } else if (!fenced) {
                prose.append(line.replaceAll("`[^`]*`", "``"));
            }
            prose.append('\n');
        }
        List<String> targets = new ArrayList<>();
        Matcher m = LINK.matcher(prose);
        while (m.find()) {
            targets.add(m.group(1));
        }
        return targets;
    }

    private static Set<String> headingAnchors(Path file) {
        try {
            return headingAnchors(Files.readString(file));
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    /**
     * GitHub's anchors of a Markdown text's headings: lower case, every character but letters, digits, {@code -},
     * {@code _} and blanks removed, blanks as {@code -}; a repeated anchor gets {@code -1}, {@code -2}, ….
     */
    static Set<String> headingAnchors(String markdown) {
        Set<String> anchors = new HashSet<>();
        Map<String, Integer> seen = new HashMap<>();
        boolean fenced = false;
        for (String line : markdown.split("\n", -1)) {
            if (line.strip().startsWith("```")) {
                fenced = !fenced;
                continue;
            }
            Matcher m = HEADING.matcher(line);
            if (fenced || !m.matches()) {
                continue;
            }
            StringBuilder slug = new StringBuilder();
            for (int c : m.group(1).toLowerCase(Locale.ROOT).codePoints().toArray()) {
                if (Character.isLetterOrDigit(c) || c == '-' || c == '_') {
                    slug.appendCodePoint(c);
                } else if (c == ' ') {
                    slug.append('-');
                }
            }
            String base = slug.toString();
            int n = seen.merge(base, 1, Integer::sum) - 1;
            anchors.add(n == 0 ? base : base + "-" + n);
        }
        return anchors;
    }
}
