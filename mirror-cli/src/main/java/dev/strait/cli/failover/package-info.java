/**
 * The {@code strait failover} and {@code strait failback} commands: {@link dev.strait.cli.failover.FailoverCommand}
 * and {@link dev.strait.cli.failover.FailbackCommand} parse the flags and the two clusters' file, run
 * {@code mirror.failover}'s planner or failback, and print the plan as a table or, with {@code --json}, as one
 * document ({@code PlanText}). Kept apart from the daemons' commands because these are one-shot operator actions
 * with a dry run by default. Everything runs on the command's thread (failback's reverse mirror brings its own).
 * Imports {@code cli.Cli} and {@code cli.Version}, {@code mirror.failover}, {@code mirror.config} and
 * {@code mirror.http}'s {@code Json}; only {@link dev.strait.cli.Strait} refers to it.
 */
package dev.strait.cli.failover;
