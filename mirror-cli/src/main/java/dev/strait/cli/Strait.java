package dev.strait.cli;

import dev.strait.cli.failover.FailbackCommand;
import dev.strait.cli.failover.FailoverCommand;
import picocli.CommandLine;
import picocli.CommandLine.Command;

/** {@code bin/strait}: the one front door; each Strait program is a subcommand. */
@Command(
        name = "strait",
        mixinStandardHelpOptions = true,
        versionProvider = Version.class,
        description = "Strait: lossless Kafka topic mirroring.",
        footer = {
            "",
            "Benchmarks: strait bench [lag | broker | cluster | metadata | sync | failover | nemesis] [flags] (runs bin/bench; see its header for flags)."
        },
        subcommands = {
            MirrorCommand.class,
            LagMonitorCommand.class,
            CanaryCommand.class,
            BrokerCommand.class,
            ClusterCommand.class,
            FailoverCommand.class,
            FailbackCommand.class,
            DemoCommand.class,
            CommandLine.HelpCommand.class
        })
public final class Strait implements Runnable {
    @SuppressWarnings("NullAway.Init") // picocli injects the spec when it builds the command line
    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @Override
    public void run() {
        throw new CommandLine.ParameterException(spec.commandLine(), "a command is required (e.g. 'mirror')");
    }

    public static void main(String[] args) {
        System.exit(Cli.execute(new Strait(), args));
    }
}
