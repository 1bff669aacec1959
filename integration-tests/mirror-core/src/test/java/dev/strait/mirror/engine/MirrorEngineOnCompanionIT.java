package dev.strait.mirror.engine;

import dev.strait.testkit.TestCluster;

/** The engine suite with Strait's companion broker as source and target. */
class MirrorEngineOnCompanionIT extends MirrorEngineSuite {
    MirrorEngineOnCompanionIT() {
        super(TestCluster.Kind.COMPANION);
    }
}
