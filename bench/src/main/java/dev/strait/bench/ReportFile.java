package dev.strait.bench;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.jspecify.annotations.Nullable;
import picocli.CommandLine.Option;

/**
 * The {@code --output} flag of the modes that print a Markdown report (a picocli mixin), and the writing of that copy,
 * so that every mode's file ends the same way.
 */
final class ReportFile {
    @Option(names = "--output", paramLabel = "FILE.md", description = "Also write the report here.")
    @Nullable
    Path path;

    /**
     * Writes {@code report} and a final newline to {@code file}.
     *
     * @return false when no file was asked for ({@code file} null)
     */
    static boolean write(@Nullable Path file, String report) throws IOException {
        if (file == null) {
            return false;
        }
        Files.writeString(file, report + "\n", StandardCharsets.UTF_8);
        return true;
    }
}
