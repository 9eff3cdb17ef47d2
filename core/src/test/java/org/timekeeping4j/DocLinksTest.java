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
                    }
                }
            }
        }
        assertThat(followed).as("relative links followed").isGreaterThan(10);
        assertThat(broken).as("links that resolve to nothing in the repository").isEmpty();
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
