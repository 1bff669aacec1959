package dev.strait.cli.container;

import java.util.List;

import dev.strait.testkit.Docker;

/** docker/compose.two-dc.yml: companion brokers in both datacenters (3 nodes in dc1, one in dc2). */
class TwoDatacenterStackIT extends TwoDatacenterStackSuite {
    @Override
    String composeFile() {
        return "compose.two-dc.yml";
    }

    @Override
    List<String> images() {
        return List.of(Docker.straitImage());
    }
}
