package dev.strait.testkit.nemesis;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The nemesis' network: one network namespace per node, each with a veth into a bridge in the host namespace, on a
 * private /24 of the benchmarking range 198.18.0.0/15 that no other interface uses. The harness (the clients) sits
 * on the bridge at {@code .254} and always reaches every node; a link between two nodes is cut by a {@code tc} u32
 * filter on each side that steers packets for the other node into an htb class whose queue holds nothing (pfifo
 * limit 0), so they are dropped silently, as on a broken network, while every other link stays up.
 *
 * <p>Names start with {@code nm} and a run id (namespaces {@code nm<id>n<node>}, bridge {@code nm<id>br}, veths
 * {@code nm<id>h<node>} / {@code nm<id>v<node>}); an owner file under the temp directory holds the creating JVM's
 * pid, so a later run removes what a killed run left behind. Needs root ({@code ip netns}, {@code tc}).
 */
public final class NetNamespaces implements AutoCloseable {
    private static final Logger LOGGER = LoggerFactory.getLogger(NetNamespaces.class);
    private static final Path OWNERS = Path.of(System.getProperty("java.io.tmpdir"), "strait-nemesis-netns");
    private static final Pattern NETNS = Pattern.compile("^(nm[0-9a-z]{5})n(\\d+)\\b.*$");
    private static final Pattern LINK = Pattern.compile("^\\d+: (nm[0-9a-z]{5})(br|h\\d+)[@:].*$");
    private static final int DROP_PRIO_BASE = 100;
    /** Port cuts use prios 1000 + 10 * other node (+0: to its port, +1: from its port), apart from whole links. */
    private static final int PORT_DROP_PRIO_BASE = 1000;

    private final String runId;
    private final int octet;
    private final int nodes;
    private final Set<String> cutLinks = new TreeSet<>();
    /** Links cut on one TCP port only, as {@code a-b}; the port of each is in {@link #cutPorts}. */
    private final Map<String, Integer> cutPorts = new TreeMap<>();

    private final Thread cleanupHook;
    private boolean closed;

    private NetNamespaces(String runId, int octet, int nodes) {
        this.runId = runId;
        this.octet = octet;
        this.nodes = nodes;
        this.cleanupHook = new Thread(this::close, "nemesis-netns-cleanup");
    }

    /** Removes stale namespaces of dead runs, then creates the namespaces, veths, bridge and drop classes. */
    public static NetNamespaces create(int nodes) {
        requireRoot();
        // Runs in other JVMs (the build's two nemesis tests run side by side) choose a free /24 too: the lock keeps
        // the choice and the address that takes it one step, so two runs never share a subnet.
        try {
            Files.createDirectories(OWNERS);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot create the namespace owner directory " + OWNERS, e);
        }
        try (FileChannel lockFile =
                        FileChannel.open(OWNERS.resolve(".lock"), StandardOpenOption.CREATE, StandardOpenOption.WRITE);
                FileLock ignored = lockFile.lock()) {
            return createLocked(nodes);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot lock " + OWNERS.resolve(".lock"), e);
        }
    }

    private static NetNamespaces createLocked(int nodes) {
        removeStale();
        String runId = newRunId();
        int octet = freeOctet();
        NetNamespaces net = new NetNamespaces(runId, octet, nodes);
        try {
            // The owner file comes first: a namespace without one is stale by definition.
            Files.writeString(
                    OWNERS.resolve(runId), Long.toString(ProcessHandle.current().pid()));
            Runtime.getRuntime().addShutdownHook(net.cleanupHook);
            net.setUp();
            LOGGER.info("network namespaces {}n1..{} on 198.18.{}.0/24", runId, nodes, octet);
            return net;
        } catch (IOException e) {
            net.close();
            throw new UncheckedIOException("cannot write the namespace owner file under " + OWNERS, e);
        } catch (RuntimeException | Error e) {
            net.close();
            throw e;
        }
    }

    private static void requireRoot() {
        Shell.Result id = Shell.tryRun("id", "-u");
        if (id.exitCode() != 0 || !id.output().trim().equals("0")) {
            throw new IllegalStateException("the nemesis needs root for network namespaces and tc (running as uid "
                    + id.output().trim() + ")");
        }
        Shell.Result tc = Shell.tryRun("tc", "-V");
        if (tc.exitCode() != 0) {
            throw new IllegalStateException(
                    "the nemesis needs 'ip' and 'tc' (iproute2): " + tc.output().trim());
        }
    }

    private static String newRunId() {
        long mix = ProcessHandle.current().pid() * 0x9E3779B97F4A7C15L ^ System.nanoTime();
        String id = Long.toString(Math.abs(mix % 60_466_176L), 36); // 36^5: five base-36 characters
        return "nm" + "00000".substring(id.length()) + id;
    }

    private static int freeOctet() {
        String addresses = Shell.run("ip", "-o", "-4", "addr", "show");
        long start = System.nanoTime();
        for (int i = 0; i < 254; i++) {
            int octet = 1 + (int) ((start / 1000 + i) % 253);
            if (!addresses.contains("198.18." + octet + ".")) {
                return octet;
            }
        }
        throw new IllegalStateException("no free /24 in 198.18.0.0/16 for the nemesis network");
    }

    /** Deletes the namespaces and links of runs whose owner JVM is gone (or that have no owner file). */
    static void removeStale() {
        Set<String> runs = new TreeSet<>();
        for (String line : Shell.run("ip", "netns", "list").split("\n")) {
            Matcher m = NETNS.matcher(line.trim());
            if (m.matches()) {
                runs.add(m.group(1));
            }
        }
        for (String line : Shell.run("ip", "-o", "link", "show").split("\n")) {
            Matcher m = LINK.matcher(line.trim());
            if (m.matches()) {
                runs.add(m.group(1));
            }
        }
        for (String run : runs) {
            if (ownerAlive(run)) {
                continue;
            }
            LOGGER.warn("removing stale nemesis network {} (its owner is gone)", run);
            removeRun(run);
        }
    }

    private static boolean ownerAlive(String run) {
        try {
            Path owner = OWNERS.resolve(run);
            if (!Files.exists(owner)) {
                return false;
            }
            long pid = Long.parseLong(Files.readString(owner).trim());
            return ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false);
        } catch (IOException | NumberFormatException e) {
            return false;
        }
    }

    private static void removeRun(String run) {
        for (String line : Shell.run("ip", "netns", "list").split("\n")) {
            Matcher m = NETNS.matcher(line.trim());
            if (m.matches() && m.group(1).equals(run)) {
                String ns = run + "n" + m.group(2);
                killProcessesIn(ns);
                Shell.tryRun("ip", "netns", "del", ns);
            }
        }
        for (String line : Shell.run("ip", "-o", "link", "show").split("\n")) {
            Matcher m = LINK.matcher(line.trim());
            if (m.matches() && m.group(1).equals(run)) {
                Shell.tryRun("ip", "link", "del", run + m.group(2));
            }
        }
        try {
            Files.deleteIfExists(OWNERS.resolve(run));
        } catch (IOException ignored) {
            // the owner file of a removed run is only a marker
        }
    }

    /** SIGKILL, by pid, of what still runs in one of our namespaces (a node the harness could not stop). */
    private static void killProcessesIn(String ns) {
        Shell.Result pids = Shell.tryRun("ip", "netns", "pids", ns);
        if (pids.exitCode() != 0) {
            return;
        }
        for (String pid : pids.output().trim().split("\\s+")) {
            if (pid.matches("\\d+")) {
                Shell.tryRun("kill", "-KILL", pid);
            }
        }
    }

    private void setUp() {
        String bridge = runId + "br";
        Shell.run("ip", "link", "add", bridge, "type", "bridge");
        Shell.run("ip", "addr", "add", "198.18." + octet + ".254/24", "dev", bridge);
        Shell.run("ip", "link", "set", bridge, "up");
        for (int node = 1; node <= nodes; node++) {
            String ns = namespace(node);
            String host = runId + "h" + node;
            String inside = device(node);
            Shell.run("ip", "netns", "add", ns);
            Shell.run("ip", "link", "add", host, "type", "veth", "peer", "name", inside);
            Shell.run("ip", "link", "set", inside, "netns", ns);
            Shell.run("ip", "link", "set", host, "master", bridge);
            Shell.run("ip", "link", "set", host, "up");
            Shell.run("ip", "-n", ns, "addr", "add", address(node) + "/24", "dev", inside);
            Shell.run("ip", "-n", ns, "link", "set", inside, "up");
            Shell.run("ip", "-n", ns, "link", "set", "lo", "up");
            // Class 1:1 passes everything (the default); class 1:2 holds a queue of length 0: whatever is sent there
            // is dropped. A cut is one u32 filter steering one destination into 1:2.
            Shell.run("tc", "-n", ns, "qdisc", "add", "dev", inside, "root", "handle", "1:", "htb", "default", "1");
            Shell.run(
                    "tc", "-n", ns, "class", "add", "dev", inside, "parent", "1:", "classid", "1:1", "htb", "rate",
                    "10gbit", "quantum", "60000");
            Shell.run(
                    "tc", "-n", ns, "class", "add", "dev", inside, "parent", "1:", "classid", "1:2", "htb", "rate",
                    "10gbit", "quantum", "60000");
            Shell.run(
                    "tc", "-n", ns, "qdisc", "add", "dev", inside, "parent", "1:2", "handle", "2:", "pfifo", "limit",
                    "0");
        }
    }

    public String runId() {
        return runId;
    }

    public int nodes() {
        return nodes;
    }

    /** The address of a node (1-based) inside its namespace. */
    public String address(int node) {
        checkNode(node);
        return "198.18." + octet + "." + node;
    }

    public String namespace(int node) {
        checkNode(node);
        return runId + "n" + node;
    }

    private String device(int node) {
        return runId + "v" + node;
    }

    /** The prefix that runs a command inside a node's namespace; {@code ip netns exec} execs, so the pid stays. */
    public List<String> execPrefix(int node) {
        return List.of("ip", "netns", "exec", namespace(node));
    }

    /** Drops every packet between nodes {@code a} and {@code b}, both ways; other links and clients are untouched. */
    public synchronized void cut(int a, int b) {
        String link = linkName(a, b);
        if (closed || cutLinks.contains(link)) {
            return;
        }
        dropTo(a, b);
        dropTo(b, a);
        cutLinks.add(link);
    }

    public synchronized void heal(int a, int b) {
        String link = linkName(a, b);
        if (closed || !cutLinks.remove(link)) {
            return;
        }
        Shell.run(
                "tc",
                "-n",
                namespace(a),
                "filter",
                "del",
                "dev",
                device(a),
                "parent",
                "1:",
                "protocol",
                "ip",
                "prio",
                Integer.toString(DROP_PRIO_BASE + b));
        Shell.run(
                "tc",
                "-n",
                namespace(b),
                "filter",
                "del",
                "dev",
                device(b),
                "parent",
                "1:",
                "protocol",
                "ip",
                "prio",
                Integer.toString(DROP_PRIO_BASE + a));
    }

    /**
     * Drops, both ways, only the TCP traffic between nodes {@code a} and {@code b} that goes to or comes from
     * {@code port} on either of them; other ports on the same link stay up. With {@code port} the client port this
     * stops replication between the two (followers fetch from the leader's client port) while the controller quorum
     * (its own port) still talks. One port per link at a time.
     */
    public synchronized void cutPort(int a, int b, int port) {
        String link = linkName(a, b);
        if (closed || cutPorts.containsKey(link)) {
            return;
        }
        dropPort(a, b, port);
        dropPort(b, a, port);
        cutPorts.put(link, port);
    }

    /** Heals a cut made by {@link #cutPort}. */
    public synchronized void healPort(int a, int b) {
        String link = linkName(a, b);
        if (closed || cutPorts.remove(link) == null) {
            return;
        }
        for (int[] side : new int[][] {{a, b}, {b, a}}) {
            for (int offset = 0; offset < 2; offset++) {
                Shell.run(
                        "tc",
                        "-n",
                        namespace(side[0]),
                        "filter",
                        "del",
                        "dev",
                        device(side[0]),
                        "parent",
                        "1:",
                        "protocol",
                        "ip",
                        "prio",
                        Integer.toString(PORT_DROP_PRIO_BASE + 10 * side[1] + offset));
            }
        }
    }

    /** The links cut on one port, as {@code a-b} to the port. */
    public synchronized Map<String, Integer> cutPorts() {
        return Map.copyOf(cutPorts);
    }

    /** Cuts {@code node} from every other node. */
    public synchronized void isolate(int node) {
        for (int other = 1; other <= nodes; other++) {
            if (other != node) {
                cut(node, other);
            }
        }
    }

    public synchronized void healAll() {
        for (String link : new ArrayList<>(cutLinks)) {
            String[] ends = link.split("-");
            heal(Integer.parseInt(ends[0]), Integer.parseInt(ends[1]));
        }
        for (String link : new ArrayList<>(cutPorts.keySet())) {
            String[] ends = link.split("-");
            healPort(Integer.parseInt(ends[0]), Integer.parseInt(ends[1]));
        }
    }

    public synchronized Set<String> cutLinks() {
        return Set.copyOf(cutLinks);
    }

    private void dropTo(int from, int to) {
        Shell.run(
                "tc",
                "-n",
                namespace(from),
                "filter",
                "add",
                "dev",
                device(from),
                "parent",
                "1:",
                "protocol",
                "ip",
                "prio",
                Integer.toString(DROP_PRIO_BASE + to),
                "u32",
                "match",
                "ip",
                "dst",
                address(to) + "/32",
                "flowid",
                "1:2");
    }

    /**
     * On {@code from}'s side: TCP packets to {@code to} for its {@code port} (requests) and from {@code from}'s own
     * {@code port} (answers to {@code to}'s connections) go to the class that drops. The u32 offsets of {@code ip
     * dport}/{@code sport} assume a 20-byte IP header, which is what the nodes send.
     */
    private void dropPort(int from, int to, int port) {
        String[][] matches = {{"dport", "0"}, {"sport", "1"}};
        for (String[] m : matches) {
            Shell.run(
                    "tc",
                    "-n",
                    namespace(from),
                    "filter",
                    "add",
                    "dev",
                    device(from),
                    "parent",
                    "1:",
                    "protocol",
                    "ip",
                    "prio",
                    Integer.toString(PORT_DROP_PRIO_BASE + 10 * to + Integer.parseInt(m[1])),
                    "u32",
                    "match",
                    "ip",
                    "dst",
                    address(to) + "/32",
                    "match",
                    "ip",
                    "protocol",
                    "6",
                    "0xff",
                    "match",
                    "ip",
                    m[0],
                    Integer.toString(port),
                    "0xffff",
                    "flowid",
                    "1:2");
        }
    }

    private String linkName(int a, int b) {
        checkNode(a);
        checkNode(b);
        if (a == b) {
            throw new IllegalArgumentException("a link needs two different nodes, got " + a + " twice");
        }
        return String.format(Locale.ROOT, "%d-%d", Math.min(a, b), Math.max(a, b));
    }

    private void checkNode(int node) {
        if (node < 1 || node > nodes) {
            throw new IllegalArgumentException("node " + node + " is not in 1.." + nodes);
        }
    }

    /** Deletes the namespaces (killing by pid anything still inside), the bridge and the owner file. */
    @Override
    public synchronized void close() {
        if (closed) {
            return;
        }
        closed = true;
        for (int node = 1; node <= nodes; node++) {
            String ns = namespace(node);
            killProcessesIn(ns);
            Shell.tryRun("ip", "netns", "del", ns);
        }
        Shell.tryRun("ip", "link", "del", runId + "br");
        for (int node = 1; node <= nodes; node++) {
            Shell.tryRun("ip", "link", "del", runId + "h" + node); // gone with the namespace, unless setUp broke
        }
        try {
            Files.deleteIfExists(OWNERS.resolve(runId));
        } catch (IOException ignored) {
            // only a marker
        }
        if (Thread.currentThread() != cleanupHook) {
            try {
                Runtime.getRuntime().removeShutdownHook(cleanupHook);
            } catch (IllegalStateException | IllegalArgumentException ignored) {
                // shutting down already, or the hook was never registered
            }
        }
    }
}
