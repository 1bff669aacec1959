package dev.strait.docker;

import dev.strait.testkit.RequiresDocker;

/** docker/compose.two-dc.yml: companion brokers in both datacenters (3 nodes in dc1, one in dc2). */
@RequiresDocker(strait = true)
class TwoDatacenterStackIT extends TwoDatacenterStackSuite {
    @Override
    String composeFile() {
        return "compose.two-dc.yml";
    }
}
