package org.timekeeping4j.release;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import javax.xml.parsers.DocumentBuilderFactory;
import org.w3c.dom.Document;
import org.w3c.dom.Element;
import org.w3c.dom.Node;

/**
 * The reactor as its POM files declare it, read with the JDK's DOM parser: the root aggregator (also every
 * module's parent, except the BOM's), its modules, and what each one would deploy.
 */
final class Reactor {

    static final String GROUP_ID = "org.timekeeping4j";

    /** The root of the checkout, passed by surefire (release-check/pom.xml). */
    static final Path ROOT = Path.of(required("tk4j.root")).toAbsolutePath().normalize();
    /** The reactor's version, passed by surefire. */
    static final String VERSION = required("tk4j.version");

    private Reactor() {}

    /** One module's POM, with the root POM as the parent it inherits from (none for the root and the BOM). */
    record Pom(Path dir, Element project, Element parent) {

        String artifactId() {
            return text(project, "artifactId").orElseThrow();
        }

        String packaging() {
            return text(project, "packaging").orElse("jar");
        }

        /** An element's text from this POM, or inherited from the parent POM (as Maven inherits it). */
        Optional<String> inherited(String path) {
            Optional<String> own = text(project, path);
            return own.isPresent() || parent == null ? own : text(parent, path);
        }

        /** A property of this POM or its parent. */
        Optional<String> property(String name) {
            return inherited("properties/" + name);
        }

        boolean isPublished() {
            return !property("maven.deploy.skip").map(Boolean::parseBoolean).orElse(false);
        }

        /** The file name maven-jar-plugin writes, without ".jar". */
        String finalName() {
            return text(project, "build/finalName").orElse(artifactId() + "-" + VERSION);
        }

        Path jar(String classifier) {
            return dir.resolve("target").resolve(finalName() + (classifier.isEmpty() ? "" : "-" + classifier) + ".jar");
        }
    }

    static Pom root() {
        return new Pom(ROOT, read(ROOT.resolve("pom.xml")), null);
    }

    /** Every module the root POM lists outside profiles, in order. */
    static List<Pom> modules() {
        Element root = root().project();
        Element parent = root;
        List<Pom> poms = new ArrayList<>();
        for (Element m : children(child(root, "modules").orElseThrow(), "module")) {
            Path dir = ROOT.resolve(m.getTextContent().trim());
            Element project = read(dir.resolve("pom.xml"));
            boolean hasParent = child(project, "parent").isPresent();
            poms.add(new Pom(dir, project, hasParent ? parent : null));
        }
        return poms;
    }

    static Pom module(String artifactId) {
        return modules().stream().filter(p -> p.artifactId().equals(artifactId)).findFirst().orElseThrow(
                () -> new AssertionError("no module " + artifactId + " in " + ROOT.resolve("pom.xml")));
    }

    static Element read(Path pom) {
        try {
            DocumentBuilderFactory f = DocumentBuilderFactory.newInstance();
            f.setNamespaceAware(false);
            f.setFeature("http://apache.org/xml/features/disallow-doctype-decl", true);
            Document d = f.newDocumentBuilder().parse(Files.newInputStream(pom));
            return d.getDocumentElement();
        } catch (IOException | javax.xml.parsers.ParserConfigurationException | org.xml.sax.SAXException e) {
            throw new AssertionError("cannot read " + pom + ": " + e, e);
        }
    }

    /** The trimmed text at a slash-separated path of child elements, if present and not blank. */
    static Optional<String> text(Element from, String path) {
        Element e = from;
        for (String name : path.split("/")) {
            Optional<Element> c = child(e, name);
            if (c.isEmpty()) {
                return Optional.empty();
            }
            e = c.get();
        }
        String t = e.getTextContent().trim();
        return t.isEmpty() ? Optional.empty() : Optional.of(t);
    }

    static Optional<Element> child(Element parent, String name) {
        List<Element> c = children(parent, name);
        return c.isEmpty() ? Optional.empty() : Optional.of(c.get(0));
    }

    static List<Element> children(Element parent, String name) {
        List<Element> out = new ArrayList<>();
        for (Node n = parent.getFirstChild(); n != null; n = n.getNextSibling()) {
            if (n instanceof Element e && e.getTagName().equals(name)) {
                out.add(e);
            }
        }
        return out;
    }

    private static String required(String property) {
        String v = System.getProperty(property);
        if (v == null || v.isBlank()) {
            throw new IllegalStateException("system property " + property + " is not set: run through Maven "
                    + "(mvn -B -pl release-check -am verify), which passes it");
        }
        return v;
    }
}
