package dev.strait.cli;

import dev.strait.testkit.TestCluster;

/** The mirror-process suite with Strait's companion broker as source and target. */
class MirrorProcessOnCompanionIT extends MirrorProcessSuite {
    MirrorProcessOnCompanionIT() {
        super(TestCluster.Kind.COMPANION);
    }
}
