package dev.outbox.boot;

import static org.assertj.core.api.Assertions.assertThat;

import dev.outbox.jdbc.testing.ReadmeSnippets;
import java.io.ByteArrayInputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import javax.xml.parsers.DocumentBuilderFactory;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;
import org.w3c.dom.Document;
import org.w3c.dom.Element;
import org.w3c.dom.Node;
import org.w3c.dom.NodeList;

/**
 * The BOM manages exactly the modules an application may depend on, at the build's version, and every dependency
 * block of README.md and docs/*.md names its dependencies without a version of their own (the BOM import they
 * show gives the outbox's; Spring Boot's gives the rest), each outbox one a module of the BOM.
 */
class BomTest {

    private static final Path ROOT = Path.of("..");
    /** Modules of the build that are not for applications: they are tested or run here only. */
    private static final List<String> NOT_PUBLISHED = List.of("outbox-bom", "outbox-cluster-tests",
            "outbox-docs-tests");
    private static final Pattern XML_BLOCK = Pattern.compile("```xml\\n(.*?)```", Pattern.DOTALL);

    @Test
    void theBomManagesEveryModuleAnApplicationMayUseAtTheBuildsVersion() throws Exception {
        Document build = parse(ROOT.resolve("pom.xml"));
        List<String> published = new ArrayList<>();
        for (String module : texts(build.getDocumentElement(), "module")) {
            if (!module.startsWith("examples/") && !NOT_PUBLISHED.contains(module)) {
                published.add(artifactId(parse(ROOT.resolve(module).resolve("pom.xml"))));
            }
        }
        Document bom = parse(ROOT.resolve("outbox-bom/pom.xml"));
        Element bomProject = bom.getDocumentElement();

        assertThat(child(bomProject, "parent")).as("an imported BOM brings its parent's managed versions").isNull();
        assertThat(child(bomProject, "version").getTextContent())
                .isEqualTo(child(build.getDocumentElement(), "version").getTextContent());
        List<String> managed = new ArrayList<>();
        NodeList dependencies = bomProject.getElementsByTagName("dependency");
        for (int i = 0; i < dependencies.getLength(); i++) {
            Element dependency = (Element) dependencies.item(i);
            assertThat(child(dependency, "groupId").getTextContent()).isEqualTo("dev.outbox");
            assertThat(child(dependency, "version").getTextContent()).isEqualTo("${project.version}");
            managed.add(child(dependency, "artifactId").getTextContent());
        }
        assertThat(managed).containsExactlyInAnyOrderElementsOf(published);
    }

    @Test
    void theDocumentationsDependenciesCarryNoVersionAndItsOutboxModulesAreManagedByTheBom() throws Exception {
        Document bom = parse(ROOT.resolve("outbox-bom/pom.xml"));
        List<String> managed = texts(bom.getDocumentElement(), "artifactId").stream()
                .filter(id -> !id.equals("outbox-bom")).toList();
        List<String> named = new ArrayList<>();
        for (Map.Entry<String, String> page : ReadmeSnippets.documentation().entrySet()) {
            Matcher blocks = XML_BLOCK.matcher(page.getValue());
            while (blocks.find()) {
                Document block = DocumentBuilderFactory.newInstance().newDocumentBuilder()
                        .parse(new ByteArrayInputStream(("<block>" + blocks.group(1) + "</block>")
                                .getBytes(StandardCharsets.UTF_8)));
                NodeList dependencies = block.getElementsByTagName("dependency");
                for (int i = 0; i < dependencies.getLength(); i++) {
                    Element dependency = (Element) dependencies.item(i);
                    String groupId = child(dependency, "groupId").getTextContent();
                    String artifactId = child(dependency, "artifactId").getTextContent();
                    if (groupId.equals("dev.outbox")) {
                        named.add(artifactId);
                    }
                    if (artifactId.equals("outbox-bom")) {
                        assertThat(child(dependency, "scope").getTextContent()).isEqualTo("import");
                        continue;
                    }
                    if (groupId.equals("dev.outbox")) {
                        assertThat(managed).as("%s names %s", page.getKey(), artifactId).contains(artifactId);
                    }
                    // the outbox's BOM or Spring Boot's gives every version
                    assertThat(child(dependency, "version")).as("%s gives %s a version", page.getKey(), artifactId)
                            .isNull();
                }
            }
        }
        assertThat(named).as("the documentation shows the BOM import and the starters").contains("outbox-bom",
                "outbox-starter-jpa", "outbox-starter-jdbc");
    }

    private static Document parse(Path pom) throws Exception {
        return DocumentBuilderFactory.newInstance().newDocumentBuilder().parse(pom.toFile());
    }

    private static String artifactId(Document pom) {
        return child(pom.getDocumentElement(), "artifactId").getTextContent();
    }

    private static List<String> texts(Element parent, String tag) {
        NodeList nodes = parent.getElementsByTagName(tag);
        List<String> texts = new ArrayList<>();
        for (int i = 0; i < nodes.getLength(); i++) {
            texts.add(nodes.item(i).getTextContent().trim());
        }
        return texts;
    }

    /** The direct child element of that name, or null. */
    private static @Nullable Element child(Element parent, String tag) {
        for (Node node = parent.getFirstChild(); node != null; node = node.getNextSibling()) {
            if (node instanceof Element element && element.getTagName().equals(tag)) {
                return element;
            }
        }
        return null;
    }
}
