package dev.outbox.docs;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayInputStream;
import java.io.File;
import java.io.IOException;
import java.io.OutputStream;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.jar.Attributes;
import java.util.jar.JarEntry;
import java.util.jar.JarOutputStream;
import java.util.jar.Manifest;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import javax.xml.parsers.DocumentBuilderFactory;
import javax.xml.transform.OutputKeys;
import javax.xml.transform.TransformerFactory;
import javax.xml.transform.dom.DOMSource;
import javax.xml.transform.stream.StreamResult;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;
import org.w3c.dom.Document;
import org.w3c.dom.Element;
import org.w3c.dom.Node;
import org.w3c.dom.NodeList;
import org.xml.sax.SAXException;

/**
 * Every ```xml block of README.md and docs/**&#47;*.md that names an outbox dependency builds as an application's pom:
 * Spring Boot's BOM and the outbox BOM imported as the docs show it, the block's dependencies without versions. The
 * artifacts are the ones this build just packaged (each published module's jar and pom, the parent pom, the BOM), laid
 * out as a Maven repository under target/; Maven runs offline in a child process and must resolve every dependency.
 * A block naming a module the BOM does not manage, or an artifactId that does not exist, fails it.
 */
class DocsDependencySnippetsTest {

    private static final Path ROOT = Path.of("..").toAbsolutePath().normalize();
    private static final Path WORK = Path.of("target", "docs-snippets").toAbsolutePath();
    private static final Pattern XML_BLOCK = Pattern.compile("```xml\\n(.*?)```", Pattern.DOTALL);
    /** Generous: the snippet builds usually take seconds, but share two cores with the rest of the build. */
    private static final long BUILD_DEADLINE_MINUTES = 10;

    @Test
    void everyDependencyBlockOfTheDocsResolvesThroughTheBomAgainstTheBuiltArtifacts() throws Exception {
        Build build = Build.read(ROOT);
        List<Block> blocks = xmlBlocks();
        List<Block> imports = blocks.stream().filter(block -> !block.imports.isEmpty()).toList();
        List<Block> dependencyBlocks = blocks.stream().filter(block -> block.namesAnOutboxModule(build.groupId))
                .toList();
        assertThat(imports).as("a docs block imports the outbox BOM in <dependencyManagement>").isNotEmpty();
        assertThat(dependencyBlocks).as("docs blocks naming %s dependencies", build.groupId).isNotEmpty();

        deleteTree(WORK);
        Path repository = WORK.resolve("repository");
        build.layOut(repository);
        Path localRepository = WORK.resolve("local-repository");
        linkEverythingBut(outerLocalRepository(), localRepository, build.groupId.split("\\."));

        // Each block with the first BOM import the docs show; each import block on its own too.
        Map<String, String> modules = new LinkedHashMap<>();
        for (Block block : dependencyBlocks) {
            modules.put(writeProject(modules.size(), block.where, repository, imports.get(0).imports,
                    block.dependencies), block.where);
        }
        for (Block block : imports) {
            String where = block.where + " (BOM import alone)";
            modules.put(writeProject(modules.size(), where, repository, block.imports, List.of()), where);
        }
        Path aggregator = WORK.resolve("pom.xml");
        Files.writeString(aggregator, aggregatorPom(modules.keySet()));

        Path log = WORK.resolve("build.log");
        int exit = runMaven(aggregator, localRepository, log);
        String output = Files.readString(log);
        String essentials = essentials(output);
        for (Map.Entry<String, String> module : modules.entrySet()) {
            essentials = essentials.replace("docs.snippets:" + module.getKey() + ":1",
                    module.getKey() + " (" + module.getValue() + ")");
        }
        assertThat(exit).as("Maven on the docs' dependency blocks %s exited %d:%n%s", modules.values(), exit,
                essentials).isZero();
        assertThat(output).as("a dependency without its pom in the repository")
                .doesNotContain("is missing, no dependency information available");
        for (Map.Entry<String, String> module : modules.entrySet()) {
            assertThat(output).as("%s was resolved", module.getValue()).contains("@ " + module.getKey() + " ---");
        }
    }

    @Test
    void thisModuleDependsOnEveryPublishedModuleSoTheReactorPackagesThemFirst() throws Exception {
        Build build = Build.read(ROOT);
        Element project = parse(Path.of("pom.xml")).getDocumentElement();
        List<String> dependedOn = new ArrayList<>();
        for (Element dependency : elements(project, "dependency")) {
            if (build.groupId.equals(text(dependency, "groupId"))) {
                dependedOn.add(text(dependency, "artifactId"));
            }
        }
        List<String> needed = new ArrayList<>(build.publishedArtifactIds());
        needed.add(build.bomArtifactId());
        assertThat(dependedOn).as("outbox-docs-tests/pom.xml depends on every published module").containsAll(needed);
    }

    /** The build's published artifacts: the modules whose pom does not set maven.deploy.skip, and the parent. */
    private record Build(String groupId, String version, String parentArtifactId, List<Module> published) {

        static Build read(Path root) throws Exception {
            Element parent = parse(root.resolve("pom.xml")).getDocumentElement();
            List<Module> published = new ArrayList<>();
            for (Element module : elements(parent, "module")) {
                Path directory = root.resolve(module.getTextContent().trim());
                Element pom = parse(directory.resolve("pom.xml")).getDocumentElement();
                Element properties = child(pom, "properties");
                boolean skipped = properties != null && "true".equals(text(properties, "maven.deploy.skip"));
                if (!skipped) {
                    String packaging = text(pom, "packaging");
                    published.add(new Module(required(pom, "artifactId"), directory,
                            packaging == null ? "jar" : packaging));
                }
            }
            return new Build(required(parent, "groupId"), required(parent, "version"),
                    required(parent, "artifactId"), published);
        }

        List<String> publishedArtifactIds() {
            return published.stream().filter(module -> !module.isBom()).map(Module::artifactId).toList();
        }

        String bomArtifactId() {
            return published.stream().filter(Module::isBom).map(Module::artifactId).findFirst()
                    .orElseThrow(() -> new AssertionError("no module of the build is a BOM (packaging pom with a"
                            + " dependencyManagement and no parent)"));
        }

        /** Maven's repository layout: group/artifact/version/artifact-version.(pom|jar). */
        void layOut(Path repository) throws IOException {
            Files.createDirectories(repository);
            copyPom(repository, parentArtifactId, ROOT.resolve("pom.xml"));
            for (Module module : published) {
                copyPom(repository, module.artifactId, module.directory.resolve("pom.xml"));
                if (module.packaging.equals("jar")) {
                    Path jar = artifactDirectory(repository, module.artifactId)
                            .resolve(module.artifactId + "-" + version + ".jar");
                    Path built = module.directory.resolve("target")
                            .resolve(module.artifactId + "-" + version + ".jar");
                    if (Files.exists(built)) {
                        Files.copy(built, jar);
                    } else {
                        // `mvn test` packages nothing: resolution needs the file, not its content
                        jarOf(module.directory.resolve("target").resolve("classes"), jar);
                    }
                }
            }
        }

        private void copyPom(Path repository, String artifactId, Path pom) throws IOException {
            Path directory = artifactDirectory(repository, artifactId);
            Files.createDirectories(directory);
            Files.copy(pom, directory.resolve(artifactId + "-" + version + ".pom"));
        }

        private Path artifactDirectory(Path repository, String artifactId) {
            return repository.resolve(groupId.replace('.', '/')).resolve(artifactId).resolve(version);
        }
    }

    private record Module(String artifactId, Path directory, String packaging) {

        boolean isBom() {
            return packaging.equals("pom") && !directory.equals(ROOT);
        }
    }

    /** One ```xml block: its BOM imports (in a dependencyManagement) and its dependencies outside of one. */
    private record Block(String where, List<String> imports, List<String> dependencies,
            List<String> dependencyGroupIds) {

        boolean namesAnOutboxModule(String groupId) {
            return dependencyGroupIds.contains(groupId);
        }
    }

    private static List<Block> xmlBlocks() throws Exception {
        List<Path> documents = new ArrayList<>();
        documents.add(ROOT.resolve("README.md"));
        Path docs = ROOT.resolve("docs");
        if (Files.isDirectory(docs)) {
            try (Stream<Path> files = Files.walk(docs)) {
                files.filter(file -> file.toString().endsWith(".md")).sorted().forEach(documents::add);
            }
        }
        List<Block> blocks = new ArrayList<>();
        for (Path document : documents) {
            String text = Files.readString(document);
            Matcher matcher = XML_BLOCK.matcher(text);
            while (matcher.find()) {
                int line = 1 + (int) text.substring(0, matcher.start()).chars().filter(c -> c == '\n').count();
                String where = ROOT.relativize(document) + " line " + line;
                blocks.add(block(where, matcher.group(1)));
            }
        }
        return blocks;
    }

    private static Block block(String where, String xml) throws Exception {
        Element root;
        try {
            root = DocumentBuilderFactory.newInstance().newDocumentBuilder()
                    .parse(new ByteArrayInputStream(("<block>" + xml + "</block>").getBytes(StandardCharsets.UTF_8)))
                    .getDocumentElement();
        } catch (SAXException notXml) {
            assertThat(xml).as("%s is not well-formed XML (%s) but holds a <dependency>", where,
                    notXml.getMessage()).doesNotContain("<dependency>");
            return new Block(where, List.of(), List.of(), List.of());
        }
        List<String> imports = new ArrayList<>();
        List<String> dependencies = new ArrayList<>();
        List<String> groupIds = new ArrayList<>();
        for (Element dependency : elements(root, "dependency")) {
            if (hasAncestor(dependency, "dependencyManagement")) {
                imports.add(serialize(dependency));
            } else if (!hasAncestor(dependency, "plugin")) {
                dependencies.add(serialize(dependency));
                groupIds.add(String.valueOf(text(dependency, "groupId")));
            }
        }
        return new Block(where, imports, dependencies, groupIds);
    }

    private String writeProject(int index, String where, Path repository, List<String> imports,
            List<String> dependencies) throws IOException {
        String module = String.format("snippet-%02d", index + 1);
        String pom = """
                <?xml version="1.0" encoding="UTF-8"?>
                <project xmlns="http://maven.apache.org/POM/4.0.0">
                    <modelVersion>4.0.0</modelVersion>
                    <groupId>docs.snippets</groupId>
                    <artifactId>%s</artifactId>
                    <version>1</version>
                    <name>%s</name>
                    <repositories>
                        <repository>
                            <id>outbox-built</id>
                            <url>%s</url>
                        </repository>
                    </repositories>
                    <dependencyManagement>
                        <dependencies>
                            <dependency>
                                <groupId>org.springframework.boot</groupId>
                                <artifactId>spring-boot-dependencies</artifactId>
                                <version>%s</version>
                                <type>pom</type>
                                <scope>import</scope>
                            </dependency>
                %s
                        </dependencies>
                    </dependencyManagement>
                    <dependencies>
                %s
                    </dependencies>
                </project>
                """.formatted(module, where, repository.toUri(), property("outbox.springBootVersion"),
                String.join("\n", imports), String.join("\n", dependencies));
        Path directory = WORK.resolve(module);
        Files.createDirectories(directory);
        Files.writeString(directory.resolve("pom.xml"), pom);
        return module;
    }

    private static String aggregatorPom(Collection<String> modules) {
        return """
                <?xml version="1.0" encoding="UTF-8"?>
                <project xmlns="http://maven.apache.org/POM/4.0.0">
                    <modelVersion>4.0.0</modelVersion>
                    <groupId>docs.snippets</groupId>
                    <artifactId>all</artifactId>
                    <version>1</version>
                    <packaging>pom</packaging>
                    <modules>
                %s
                    </modules>
                </project>
                """.formatted(modules.stream().map(module -> "        <module>" + module + "</module>")
                .collect(Collectors.joining("\n")));
    }

    /**
     * Offline, so nothing but this machine's repositories is used; the file repository stays usable offline
     * (aether.offline.protocols). Empty settings: a mirror of '*' would otherwise stand in for the file repository.
     */
    private static int runMaven(Path aggregator, Path localRepository, Path log) throws Exception {
        Path settings = WORK.resolve("settings.xml");
        Files.writeString(settings, "<settings/>\n");
        List<String> command = new ArrayList<>(List.of(mavenExecutable(), "-o", "-B", "-fae",
                "-s", settings.toString(), "-gs", settings.toString(),
                "-Daether.offline.protocols=file", "-Dmaven.repo.local=" + localRepository,
                "-f", aggregator.toString(),
                "org.apache.maven.plugins:maven-dependency-plugin:" + property("outbox.dependencyPluginVersion")
                        + ":resolve"));
        ProcessBuilder builder = new ProcessBuilder(command).directory(WORK.toFile()).redirectErrorStream(true)
                .redirectOutput(log.toFile());
        builder.environment().put("JAVA_HOME", System.getProperty("java.home"));
        builder.environment().put("MAVEN_SKIP_RC", "true");
        Process maven = builder.start();
        if (!maven.waitFor(BUILD_DEADLINE_MINUTES, TimeUnit.MINUTES)) {
            maven.destroyForcibly();
            throw new AssertionError("Maven on the docs' snippets did not end within " + BUILD_DEADLINE_MINUTES
                    + " minutes: " + command + "\n" + essentials(Files.readString(log)));
        }
        return maven.exitValue();
    }

    /** The build's Maven (surefire passes maven.home), else MAVEN_HOME's, else the one on PATH. */
    private static String mavenExecutable() {
        for (String home : Arrays.asList(System.getProperty("maven.home"), System.getenv("MAVEN_HOME"))) {
            if (home != null && Files.isExecutable(Path.of(home, "bin", "mvn"))) {
                return Path.of(home, "bin", "mvn").toString();
            }
        }
        return "mvn";
    }

    /**
     * A local repository for the snippet builds: links to everything of the build's local repository except the
     * outbox's own group, which then comes from the file repository only (never from an earlier install), and
     * which the snippet builds write here, not into the shared local repository.
     */
    private static void linkEverythingBut(Path outer, Path inner, String[] groupPath) throws IOException {
        Files.createDirectories(inner);
        if (!Files.isDirectory(outer)) {
            return;
        }
        try (Stream<Path> entries = Files.list(outer)) {
            for (Path entry : entries.toList()) {
                String name = entry.getFileName().toString();
                if (!name.equals(groupPath[0])) {
                    Files.createSymbolicLink(inner.resolve(name), entry);
                } else if (groupPath.length > 1) {
                    linkEverythingBut(entry, inner.resolve(name), Arrays.copyOfRange(groupPath, 1, groupPath.length));
                }
            }
        }
    }

    private static Path outerLocalRepository() {
        String configured = System.getProperty("outbox.localRepository");
        return configured != null && !configured.isBlank() && !configured.startsWith("${")
                ? Path.of(configured)
                : Path.of(System.getProperty("user.home"), ".m2", "repository");
    }

    private static String property(String name) {
        String value = System.getProperty(name);
        assertThat(value).as("system property %s (set by this module's surefire configuration)", name)
                .isNotBlank().doesNotStartWith("${");
        return value;
    }

    /** The errors and the reactor summary: which snippet failed, and why. */
    private static String essentials(String output) {
        return output.lines()
                .filter(line -> line.startsWith("[ERROR]") || line.contains(" SUCCESS [")
                        || line.contains(" FAILURE [") || line.contains(" SKIPPED") || line.contains("is missing"))
                .limit(80).collect(Collectors.joining("\n"));
    }

    /** A jar of the directory's files (none when it does not exist). */
    private static void jarOf(Path classes, Path jar) throws IOException {
        Manifest manifest = new Manifest();
        manifest.getMainAttributes().put(Attributes.Name.MANIFEST_VERSION, "1.0");
        try (OutputStream file = Files.newOutputStream(jar);
                JarOutputStream out = new JarOutputStream(file, manifest)) {
            if (!Files.isDirectory(classes)) {
                return;
            }
            try (Stream<Path> files = Files.walk(classes)) {
                for (Path path : files.filter(Files::isRegularFile).toList()) {
                    String name = classes.relativize(path).toString().replace(File.separatorChar, '/');
                    out.putNextEntry(new JarEntry(name));
                    Files.copy(path, out);
                    out.closeEntry();
                }
            }
        }
    }

    /** Deletes the tree without following links: the local repository's links point into the shared one. */
    private static void deleteTree(Path root) throws IOException {
        if (!Files.exists(root, LinkOption.NOFOLLOW_LINKS)) {
            return;
        }
        Files.walkFileTree(root, new SimpleFileVisitor<>() {
            @Override
            public FileVisitResult visitFile(Path file, BasicFileAttributes attributes) throws IOException {
                Files.delete(file);
                return FileVisitResult.CONTINUE;
            }

            @Override
            public FileVisitResult postVisitDirectory(Path directory, @Nullable IOException failure)
                    throws IOException {
                Files.delete(directory);
                return FileVisitResult.CONTINUE;
            }
        });
    }

    private static Document parse(Path pom) throws Exception {
        return DocumentBuilderFactory.newInstance().newDocumentBuilder().parse(pom.toFile());
    }

    private static String serialize(Element element) throws Exception {
        StringWriter out = new StringWriter();
        var transformer = TransformerFactory.newInstance().newTransformer();
        transformer.setOutputProperty(OutputKeys.OMIT_XML_DECLARATION, "yes");
        transformer.transform(new DOMSource(element), new StreamResult(out));
        return out.toString();
    }

    private static List<Element> elements(Element parent, String tag) {
        NodeList nodes = parent.getElementsByTagName(tag);
        List<Element> elements = new ArrayList<>();
        for (int i = 0; i < nodes.getLength(); i++) {
            elements.add((Element) nodes.item(i));
        }
        return elements;
    }

    private static boolean hasAncestor(Element element, String tag) {
        for (Node node = element.getParentNode(); node instanceof Element ancestor; node = node.getParentNode()) {
            if (ancestor.getTagName().equals(tag)) {
                return true;
            }
        }
        return false;
    }

    /** The trimmed text of the direct child element of that name, or null. */
    private static @Nullable String text(Element parent, String tag) {
        Element child = child(parent, tag);
        return child == null ? null : child.getTextContent().trim();
    }

    private static String required(Element parent, String tag) {
        String text = text(parent, tag);
        if (text == null) {
            throw new AssertionError("<" + parent.getTagName() + "> has no <" + tag + ">");
        }
        return text;
    }

    private static @Nullable Element child(Element parent, String tag) {
        for (Node node = parent.getFirstChild(); node != null; node = node.getNextSibling()) {
            if (node instanceof Element element && element.getTagName().equals(tag)) {
                return element;
            }
        }
        return null;
    }
}
