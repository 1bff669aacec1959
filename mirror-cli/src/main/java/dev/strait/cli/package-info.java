/**
 * The command line: {@link dev.strait.cli.Strait} ({@code bin/strait}, one subcommand per program) and
 * {@link dev.strait.cli.MirrorMakerMain} ({@code bin/mirror-maker}, MirrorMaker 1's flags). Each command, such as
 * {@link dev.strait.cli.MirrorCommand} or {@link dev.strait.cli.LagMonitorCommand}, turns flags and properties
 * files into the other modules' settings, starts their daemons and waits; {@link dev.strait.cli.Cli} maps every
 * outcome to an exit code in one place (2, with one line, for bad input). Commands run on the main thread; the
 * daemons bring their own threads, and a shutdown hook asks them to stop. The demo
 * ({@link dev.strait.cli.DemoCommand}) adds its load, application and lag threads. The only module that sees all
 * the others (broker included); checkstyle still keeps it to kafka-clients' public API. Imported only by
 * {@code cli.failover} and {@code cli.container}; {@link dev.strait.cli.ReferenceDoc} renders
 * {@code docs/reference.md} from these commands.
 */
package dev.strait.cli;
