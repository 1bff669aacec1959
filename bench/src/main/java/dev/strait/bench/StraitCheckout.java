package dev.strait.bench;

import java.nio.file.Path;
import picocli.CommandLine.Option;

/**
 * The {@code --repo} flag of the modes that run Strait's real mirror through its {@code bin/mirror-maker} script
 * (a picocli mixin). bin/bench passes its own checkout, so users seldom set it.
 */
final class StraitCheckout {
    @Option(
            names = "--repo",
            paramLabel = "DIR",
            description = "The Strait checkout whose bin/mirror-maker runs (bin/bench passes its own).")
    Path repo = Path.of(".");

    /** The checkout as the modes keep it: absolute, so the script's path does not depend on the working directory. */
    Path path() {
        return repo.toAbsolutePath().normalize();
    }
}
