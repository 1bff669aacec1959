package dev.strait.testkit.nemesis;

import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalInt;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.common.KafkaFuture;
import org.apache.kafka.common.TopicPartition;

/**
 * Applies one {@link Fault} to the cluster and heals it: resolves the fault's roles against what the nodes report
 * now, logs what it does to whom, holds the fault for its duration and undoes it (SIGCONT, links healed, killed
 * nodes restarted). Driven by the run's thread.
 */
final class FaultInjector {
    private final NemesisCluster cluster;
    private final NetNamespaces net;
    private final Admin admin;
    private final WorkloadSpec workload;
    private final EventLog events;
    private final List<String> createdTopics = new ArrayList<>();
    private final Map<FaultKind, Integer> injected = new EnumMap<>(FaultKind.class);
    private int reportedExits;

    FaultInjector(NemesisCluster cluster, NetNamespaces net, Admin admin, WorkloadSpec workload, EventLog events) {
        this.cluster = cluster;
        this.net = net;
        this.admin = admin;
        this.workload = workload;
        this.events = events;
    }

    /** Topics created by the nemesis (the big CreateTopics), to be checked after healing as well. */
    List<String> createdTopics() {
        return List.copyOf(createdTopics);
    }

    Map<FaultKind, Integer> injected() {
        return Map.copyOf(injected);
    }

    void apply(Fault fault) {
        injected.merge(fault.kind(), 1, Integer::sum);
        String tag = "#" + fault.index() + " " + fault.kind().flag();
        switch (fault.kind()) {
            case PAUSE_LEADER, PAUSE_FOLLOWER, PAUSE_CONTROLLER -> {
                int node = switch (fault.kind()) {
                    case PAUSE_LEADER -> leader(fault.partition());
                    case PAUSE_FOLLOWER -> follower(fault.partition(), fault.pick());
                    default -> controller();
                };
                events.log(tag + ": SIGSTOP node " + node + " (pid " + cluster.pid(node) + ") for "
                        + Fault.seconds(fault.durationMs()) + roleNote(fault, node));
                cluster.pause(node);
                hold(fault.durationMs());
                cluster.resume(node);
                events.log(tag + ": SIGCONT node " + node);
            }
            case ISOLATE_LEADER -> {
                int leader = leader(fault.partition());
                OptionalInt controller = cluster.activeController(admin);
                events.log(tag + ": node " + leader + " (leader of p" + fault.partition() + "; active controller "
                        + (controller.isPresent() ? controller.getAsInt() : "unknown") + ") cut from "
                        + others(leader) + " for " + Fault.seconds(fault.durationMs()) + "; clients still reach it");
                net.isolate(leader);
                hold(fault.durationMs());
                net.healAll();
                events.log(tag + ": links healed");
            }
            case CUT_FOLLOWER_FROM_LEADER -> {
                int leader = leader(fault.partition());
                int follower = follower(fault.partition(), fault.pick());
                events.log(tag + ": link " + follower + "-" + leader + " cut (follower " + follower + " of p"
                        + fault.partition() + " from its leader " + leader + ") for "
                        + Fault.seconds(fault.durationMs()));
                net.cut(follower, leader);
                hold(fault.durationMs());
                net.healAll();
                events.log(tag + ": links healed");
            }
            case SPLIT_MINORITY -> {
                int minority = fault.pick();
                events.log(tag + ": minority [" + minority + "] | majority " + others(minority) + " for "
                        + Fault.seconds(fault.durationMs()));
                net.isolate(minority);
                hold(fault.durationMs());
                net.healAll();
                events.log(tag + ": links healed");
            }
            case FLAP -> {
                events.log(tag + ": " + fault.toggles().size() + " link changes over "
                        + Fault.seconds(fault.durationMs()));
                long start = System.nanoTime();
                for (Fault.LinkToggle toggle : fault.toggles()) {
                    sleepUntil(start, toggle.atMs());
                    if (toggle.cut()) {
                        net.cut(toggle.a(), toggle.b());
                    } else {
                        net.heal(toggle.a(), toggle.b());
                    }
                }
                sleepUntil(start, fault.durationMs());
                net.healAll();
                events.log(tag + ": links healed");
            }
            case KILL_LEADER_AND_CONTROLLER -> {
                int leader = leader(fault.partition());
                OptionalInt controller = cluster.activeController(admin);
                Set<Integer> victims = new TreeSet<>();
                victims.add(leader);
                controller.ifPresent(victims::add);
                events.log(tag + ": SIGKILL " + victims + " (leader of p" + fault.partition() + " " + leader
                        + ", active controller " + (controller.isPresent() ? controller.getAsInt() : "unknown")
                        + "), restart after " + Fault.seconds(fault.durationMs()));
                victims.forEach(cluster::kill);
                hold(fault.durationMs());
                victims.forEach(cluster::restart);
                events.log(tag + ": restarted " + victims);
            }
            case KILL_CONTROLLER_DURING_CREATE -> killDuringCreate(fault, tag);
            case ROLLING_RESTART -> rollingRestart(fault, tag);
            case POWER_LOSS_NODE -> {
                int node = fault.pick();
                powerOff(tag, node, "");
                hold(fault.durationMs());
                cluster.restart(node);
                events.log(tag + ": node " + node + " restarted");
            }
            case POWER_LOSS_LONE_LEADER -> loneLeaderPowerLoss(fault, tag);
            case POWER_LOSS_ALL -> powerLossAll(fault, tag);
            case POWER_LOSS_MINORITY -> {
                int minority = fault.pick();
                events.log(tag + ": minority [" + minority + "] | majority " + others(minority) + "; power cut in "
                        + Fault.seconds(fault.delayMs()));
                net.isolate(minority);
                hold(fault.delayMs());
                powerOff(tag, minority, " (cut off)");
                hold(fault.durationMs());
                net.healAll();
                cluster.restart(minority);
                events.log(tag + ": links healed, node " + minority + " restarted");
            }
            default -> throw new IllegalStateException("no injector for " + fault.kind());
        }
        List<String> exits = cluster.unexpectedExits();
        if (exits.size() > reportedExits) {
            for (String exit : exits.subList(reportedExits, exits.size())) {
                events.log(tag + ": " + exit.lines().findFirst().orElse(exit));
            }
            reportedExits = exits.size();
        }
    }

    private void killDuringCreate(Fault fault, String tag) {
        int controller = controller();
        String topic = workload.topic() + "-big-" + fault.index();
        createdTopics.add(topic);
        KafkaFuture<Void> created = admin.createTopics(
                        List.of(new NewTopic(topic, fault.createPartitions(), (short) Math.min(3, cluster.size()))))
                .all();
        long sent = System.nanoTime();
        sleepUntil(sent, fault.delayMs());
        events.log(tag + ": CreateTopics " + topic + " (" + fault.createPartitions()
                + " partitions) sent; SIGKILL of the" + " active controller " + controller + " "
                + (System.nanoTime() - sent) / 1_000_000 + " ms later");
        cluster.kill(controller);
        hold(fault.durationMs());
        cluster.restart(controller);
        String outcome;
        try {
            created.get(30, TimeUnit.SECONDS);
            outcome = "created";
        } catch (java.util.concurrent.ExecutionException e) {
            outcome = "failed: " + e.getCause();
        } catch (java.util.concurrent.TimeoutException e) {
            outcome = "no answer within 30 s";
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted", e);
        }
        events.log(tag + ": node " + controller + " restarted; CreateTopics " + outcome);
    }

    private void powerOff(String tag, int node, String note) {
        long pid = cluster.pid(node);
        LazyDisk.Unsynced lost = cluster.powerOff(node);
        events.log(tag + ": power cut of node " + node + note + " (pid " + pid + " SIGKILLed): its disk lost "
                + lost.bytes() + " unsynced bytes in " + lost.files() + " files");
    }

    /**
     * Cuts only the replication traffic (the client port) between the partition's leader and its followers, keeping
     * the controller port open so the quorum still commits the ISR change; waits (bounded) for the ISR to be the
     * leader alone; cuts the leader's power; heals the links; restarts the leader after the down time. With
     * min.insync.replicas 2 the followers left the ISR below the minimum, so (KIP-966) they are eligible leader
     * replicas and one of them must be elected while the leader is down. Issue 22's first defect schedule.
     */
    private void loneLeaderPowerLoss(Fault fault, String tag) {
        int leader = leader(fault.partition());
        List<Integer> followers =
                cluster.allIds().stream().filter(n -> n != leader).toList();
        events.log(tag + ": replication (port " + cluster.clientPort() + ") cut between leader " + leader + " of p"
                + fault.partition() + " and its followers " + followers + ", controller port open, until the ISR is ["
                + leader + "], at most " + Fault.seconds(fault.delayMs()));
        followers.forEach(f -> net.cutPort(leader, f, cluster.clientPort()));
        long start = System.nanoTime();
        MetadataProbe.PartitionView view = null;
        while ((System.nanoTime() - start) / 1_000_000 < fault.delayMs()) {
            MetadataProbe.PartitionView now = partitionViews().get(fault.partition());
            if (now != null) {
                view = now;
                if (now.leader() == leader && now.isr().equals(Set.of(leader))) {
                    break;
                }
            }
            NemesisCluster.sleep(250);
        }
        boolean alone = view != null && view.leader() == leader && view.isr().equals(Set.of(leader));
        powerOff(
                tag,
                leader,
                " (" + (alone ? "lone leader: " : "NOT a lone leader: ") + "p" + fault.partition() + " " + view
                        + " after " + (System.nanoTime() - start) / 1_000_000 + " ms)");
        net.healAll();
        events.log(tag + ": replication links healed");
        hold(fault.durationMs());
        // Whether an eligible follower took over while the old leader was down, or the partition waited for it.
        events.log(tag + ": p" + fault.partition() + " while node " + leader + " is down: "
                + partitionViews().get(fault.partition()));
        cluster.restart(leader);
        events.log(tag + ": node " + leader + " restarted");
    }

    /**
     * Every node's power cut at once (only with the fsync mode: strait.flush.on.ack, or Kafka's flush of every
     * append): every replica comes back from an unclean shutdown, and the acknowledged records must all be there.
     */
    private void powerLossAll(Fault fault, String tag) {
        Map<Integer, MetadataProbe.PartitionView> before = partitionViews();
        events.log(tag + ": power cut of every node " + cluster.allIds() + "; workload partitions before: " + before);
        for (int node : cluster.allIds()) {
            powerOff(tag, node, "");
        }
        hold(fault.durationMs());
        cluster.allIds().forEach(cluster::restart);
        events.log(tag + ": every node restarted");
        // Every replica came back from an unclean shutdown: what the controller made of the workload partitions.
        long start = System.nanoTime();
        Map<Integer, MetadataProbe.PartitionView> after = Map.of();
        while ((System.nanoTime() - start) / 1_000_000 < 15_000) {
            NemesisCluster.sleep(1_000);
            after = partitionViews();
            if (after.size() == workload.partitions() && after.values().stream().allMatch(v -> v.leader() >= 0)) {
                break;
            }
        }
        events.log(tag + ": workload partitions " + (System.nanoTime() - start) / 1_000_000 + " ms after the restart: "
                + after);
    }

    private void rollingRestart(Fault fault, String tag) {
        for (Fault.RestartStep step : fault.restarts()) {
            int node = step.node();
            long start = System.nanoTime();
            boolean polite = true;
            if (step.sigkill()) {
                cluster.kill(node);
            } else {
                polite = cluster.terminate(node);
            }
            events.log(tag + ": node " + node
                    + (step.sigkill()
                            ? " SIGKILL"
                            : polite ? " stopped by SIGTERM" : " ignored SIGTERM for 60 s, SIGKILL")
                    + "; down " + Fault.seconds(step.downMs()));
            hold(step.downMs());
            cluster.restart(node);
            boolean back = awaitBack(Duration.ofMillis(Schedule.ROLLING_WAIT_PER_NODE_MS * 3));
            events.log(tag + ": node " + node
                    + (back
                            ? " serving, no partition under-replicated"
                            : " NOT back: partitions still under-replicated")
                    + " after "
                    + (System.nanoTime() - start) / 1_000_000 + " ms");
        }
    }

    /**
     * Until the restarted node answers Metadata itself and every node lists all brokers and every workload partition
     * with a full ISR (what an operator's rolling restart waits for: no under-replicated partitions), bounded.
     */
    private boolean awaitBack(Duration timeout) {
        long deadline = System.nanoTime() + timeout.toNanos();
        Set<Integer> all = new TreeSet<>(cluster.allIds());
        while (System.nanoTime() < deadline) {
            boolean back = true;
            for (int id : cluster.allIds()) {
                try {
                    MetadataProbe.NodeView view = MetadataProbe.fetch(
                            id, cluster.host(id), cluster.clientPort(), List.of(workload.topic()), 2_000);
                    back &= view.brokers().equals(all)
                            && view.partitions().size() == workload.partitions()
                            && view.partitions().values().stream().allMatch(v -> v.healthy(all));
                } catch (IOException | RuntimeException e) {
                    back = false;
                }
            }
            if (back) {
                return true;
            }
            NemesisCluster.sleep(250);
        }
        return false;
    }

    private String roleNote(Fault fault, int node) {
        return fault.kind() == FaultKind.PAUSE_CONTROLLER
                ? " (active controller)"
                : " (" + (fault.kind() == FaultKind.PAUSE_LEADER ? "leader" : "follower") + " of p" + fault.partition()
                        + ")" + (fault.longPause() ? ", longer than the session timeout" : "");
    }

    private String others(int node) {
        return cluster.allIds().stream()
                .filter(n -> n != node)
                .map(String::valueOf)
                .collect(Collectors.joining(", ", "[", "]"));
    }

    /** The leader of a workload partition: the one reported with the highest leader epoch by any running node. */
    int leader(int partition) {
        MetadataProbe.PartitionView view = partitionViews().get(partition);
        if (view != null && view.leader() > 0) {
            return view.leader();
        }
        int fallback = 1 + partition % cluster.size();
        events.log("  (p" + partition + " has no leader right now; targeting node " + fallback + ")");
        return fallback;
    }

    int follower(int partition, int pick) {
        MetadataProbe.PartitionView view = partitionViews().get(partition);
        List<Integer> followers = new ArrayList<>();
        if (view != null) {
            for (int r : view.replicas()) {
                if (r != view.leader()) {
                    followers.add(r);
                }
            }
        }
        if (followers.isEmpty()) {
            int leader = leader(partition);
            cluster.allIds().stream().filter(n -> n != leader).forEach(followers::add);
        }
        followers.sort(Integer::compare);
        return followers.get(pick % followers.size());
    }

    int controller() {
        OptionalInt controller = cluster.activeController(admin);
        if (controller.isPresent()) {
            return controller.getAsInt();
        }
        events.log("  (no active controller known right now; targeting node 1)");
        return 1;
    }

    /** Partition views of the workload topic, each from the running node that reports the highest leader epoch. */
    Map<Integer, MetadataProbe.PartitionView> partitionViews() {
        Map<Integer, MetadataProbe.PartitionView> best = new HashMap<>();
        for (int node : cluster.allIds()) {
            if (cluster.state(node) != NemesisCluster.State.RUNNING) {
                continue;
            }
            try {
                MetadataProbe.NodeView view = MetadataProbe.fetch(
                        node, cluster.host(node), cluster.clientPort(), List.of(workload.topic()), 2_000);
                for (Map.Entry<TopicPartition, MetadataProbe.PartitionView> e :
                        view.partitions().entrySet()) {
                    MetadataProbe.PartitionView seen = best.get(e.getKey().partition());
                    if (e.getValue().error() == 0
                            && (seen == null || e.getValue().leaderEpoch() > seen.leaderEpoch())) {
                        best.put(e.getKey().partition(), e.getValue());
                    }
                }
            } catch (IOException | RuntimeException e) {
                // unreachable or paused node: the others answer
            }
        }
        return best;
    }

    private static void hold(long ms) {
        NemesisCluster.sleep(ms);
    }

    private static void sleepUntil(long startNanos, long offsetMs) {
        long wait = offsetMs - (System.nanoTime() - startNanos) / 1_000_000;
        if (wait > 0) {
            NemesisCluster.sleep(wait);
        }
    }
}
