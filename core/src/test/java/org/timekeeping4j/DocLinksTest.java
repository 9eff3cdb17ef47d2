package org.timekeeping4j;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * Every relative link of README.md, CONTRIBUTING.md and docs/*.md resolves to a file or directory of the repository
 * (a newcomer found one that did not); links to the web and to anchors of the same page are not followed.
 */
class DocLinksTest {

    /** A markdown link's target: {@code [text](target)} or {@code [text](target "title")}. */
    private static final Pattern LINK = Pattern.compile("\\]\\(([^)\\s]+)(?:\\s+\"[^\"]*\")?\\)");

    @Test
    void everyRelativeLinkInTheDocsShouldResolveInsideTheRepository() throws IOException, URISyntaxException {
        Path repo = repository();
        List<Path> pages = new ArrayList<>(List.of(repo.resolve("README.md"), repo.resolve("CONTRIBUTING.md")));
        try (Stream<Path> docs = Files.list(repo.resolve("docs"))) {
            docs.filter(p -> p.toString().endsWith(".md")).sorted().forEach(pages::add);
        }
        List<String> broken = new ArrayList<>();
        int followed = 0;
        for (Path page : pages) {
            List<String> lines = Files.readAllLines(page);
            boolean fenced = false;
            for (int i = 0; i < lines.size(); i++) {
                if (lines.get(i).startsWith("```")) {
                    fenced = !fenced;
                }
                if (fenced) {
                    continue;
                }
                Matcher m = LINK.matcher(lines.get(i));
                while (m.find()) {
                    String target = m.group(1);
                    if (target.matches("^[a-z]+:.*") || target.startsWith("#")) {
                        continue; // the web, mail, or this page's own anchor
                    }
                    String file = target.replaceFirst("#.*$", "");
                    followed++;
                    Path resolved = page.getParent().resolve(file).normalize();
                    if (!resolved.startsWith(repo) || !Files.exists(resolved)) {
                        broken.add(repo.relativize(page) + ":" + (i + 1) + " links " + target);
                    } else if (target.contains("#") && file.endsWith(".md")
                            && !anchors(resolved).contains(target.substring(target.indexOf('#') + 1))) {
                        broken.add(repo.relativize(page) + ":" + (i + 1) + " links " + target + ": no such heading");
                    }
                }
            }
        }
        assertThat(followed).as("relative links followed").isGreaterThan(10);
        assertThat(broken).as("links that resolve to nothing in the repository").isEmpty();
    }

    /** The anchors a markdown page's headings get (GitHub's: lower case, punctuation dropped, spaces to dashes). */
    private static List<String> anchors(Path page) throws IOException {
        List<String> anchors = new ArrayList<>();
        boolean fenced = false;
        for (String line : Files.readAllLines(page)) {
            fenced ^= line.startsWith("```");
            if (!fenced && line.startsWith("#")) {
                anchors.add(line.replaceFirst("^#+\\s*", "").toLowerCase(java.util.Locale.ROOT)
                        .replaceAll("[^a-z0-9 _-]", "").replace(' ', '-'));
            }
        }
        return anchors;
    }

    @Test
    void theReadmesFirstScreenShouldStartWithTheTwoCommandsAndStayShort() throws Exception {
        List<String> readme = Files.readAllLines(repository().resolve("README.md"));
        assertThat(readme.subList(0, 6)).containsExactly("# timekeeping4j", "", "```", "./tk4j", "mvn -B verify", "```");
        assertThat(readme).as("README.md lines (a newcomer's first screen: the rest belongs in docs/)").hasSizeLessThanOrEqualTo(150);
    }

    private static Path repository() throws URISyntaxException {
        Path p = Path.of(Clocks.class.getProtectionDomain().getCodeSource().getLocation().toURI());
        while (p != null && !Files.isRegularFile(p.resolve("docs/ARCHITECTURE.md"))) {
            p = p.getParent();
        }
        assertThat(p).as("the repository above the classes").isNotNull();
        return p;
    }
}
