package dev.strait.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * Every package of production code, in every module, carries a package-info.java with a Javadoc comment: the map
 * of what the package owns, which threads run it and what it may import (issue 26). A file walk over the source
 * trees of the modules the root pom lists; this module is the one that sees them all.
 */
class PackageInfoTest {
    private static final Pattern MODULE = Pattern.compile("<module>([^<]+)</module>");
    private static final Pattern PACKAGE = Pattern.compile("(?m)^package\\s+([\\w.]+)\\s*;");

    @Test
    void everyMainPackageHasADocumentedPackageInfo() throws IOException {
        Path root = Path.of("..").toAbsolutePath().normalize();
        List<Path> sourceRoots = new ArrayList<>();
        for (String module : modules(root)) {
            Path sources = root.resolve(module).resolve("src/main/java");
            if (Files.isDirectory(sources)) {
                sourceRoots.add(sources);
            }
        }
        assertThat(sourceRoots)
                .as("the walk must see the modules' sources, or it proves nothing (root %s)", root)
                .contains(root.resolve("broker/src/main/java"), root.resolve("mirror-core/src/main/java"));

        List<String> problems = new ArrayList<>();
        int packages = 0;
        for (Path sources : sourceRoots) {
            for (Path dir : packageDirs(sources)) {
                packages++;
                String expected = sources.relativize(dir)
                        .toString()
                        .replace(dir.getFileSystem().getSeparator(), ".");
                Path info = dir.resolve("package-info.java");
                if (!Files.isRegularFile(info)) {
                    problems.add(root.relativize(dir) + ": no package-info.java");
                    continue;
                }
                String text = Files.readString(info, StandardCharsets.UTF_8);
                Matcher declared = PACKAGE.matcher(text);
                if (!declared.find() || !declared.group(1).equals(expected)) {
                    problems.add(root.relativize(info) + ": does not declare package " + expected);
                } else if (!text.substring(0, declared.start()).contains("/**")) {
                    problems.add(root.relativize(info) + ": no Javadoc comment before the package declaration");
                }
            }
        }
        assertThat(packages).as("packages found").isGreaterThan(20);
        assertThat(problems)
                .as("each package says what it owns, which threads run it and what it may import; see "
                        + "broker/src/main/java/dev/strait/broker/raft/package-info.java for the form")
                .isEmpty();
    }

    private static List<String> modules(Path root) throws IOException {
        String pom = Files.readString(root.resolve("pom.xml"), StandardCharsets.UTF_8);
        List<String> modules = new ArrayList<>();
        Matcher m = MODULE.matcher(pom);
        while (m.find()) {
            modules.add(m.group(1).trim());
        }
        return modules;
    }

    /** Directories under {@code sources} that hold at least one Java source file: the packages. */
    private static TreeSet<Path> packageDirs(Path sources) throws IOException {
        TreeSet<Path> dirs = new TreeSet<>();
        try (Stream<Path> files = Files.walk(sources)) {
            files.filter(f -> f.getFileName().toString().endsWith(".java")
                            && !f.getFileName().toString().equals("package-info.java"))
                    .forEach(f -> dirs.add(f.getParent()));
        }
        return dirs;
    }
}
