package dev.strait.cli;

/** {@code bin/mirror-maker}: the mirror under the name and flags that Kafka MirrorMaker 1 users know. */
public final class MirrorMakerMain {
    private MirrorMakerMain() {}

    public static void main(String[] args) {
        System.exit(Cli.execute(new MirrorCommand(), "mirror-maker", args));
    }
}
