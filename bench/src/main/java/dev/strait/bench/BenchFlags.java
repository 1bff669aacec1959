package dev.strait.bench;

import java.util.function.Function;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;
import picocli.CommandLine;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Model.OptionSpec;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.ParseResult;

/**
 * Parses a bench main's flags with picocli: {@code flags} is an object whose fields carry picocli's
 * {@code @Option}s (and their defaults). The mains keep their own exit codes (2 for bad input, with a one-line
 * message and the usage on stderr) and print picocli's usage for {@code -h}/{@code --help}.
 */
final class BenchFlags {
    /** The exit code of bad flags, picocli's own. */
    static final int BAD_INPUT = 2;

    private BenchFlags() {}

    /**
     * A main's options: {@code parse} turns the arguments into them (null when help was asked for, an
     * {@link IllegalArgumentException} of one line when they are wrong). Help goes to stdout and gives null, for
     * the main to return; bad flags print the line and the usage on stderr and exit with {@link #BAD_INPUT}.
     *
     * @param mode how the mode is run, e.g. {@code bin/bench sync}
     */
    static <T> @Nullable T parseOrExit(
            String mode, String[] args, Function<String[], T> parse, Supplier<String> usage) {
        try {
            T options = parse.apply(args);
            if (options == null) {
                System.out.println(usage.get());
            }
            return options;
        } catch (IllegalArgumentException e) {
            System.err.println(mode + ": " + e.getMessage());
            System.err.println(usage.get());
            System.exit(BAD_INPUT);
            return null;
        }
    }

    /**
     * Fills {@code flags} from {@code args}.
     *
     * @return false if help was asked for (nothing else is checked then)
     * @throws IllegalArgumentException one line saying what is wrong with the flags
     */
    static boolean parse(Object flags, String[] args) {
        CommandLine command = commandLine(flags);
        try {
            ParseResult result = command.parseArgs(args);
            return !result.isUsageHelpRequested();
        } catch (ParameterException e) {
            String message = e.getMessage() == null ? e.toString() : e.getMessage();
            throw new IllegalArgumentException(message.lines().findFirst().orElse(message));
        }
    }

    /** picocli's usage text for {@code flags}' command, defaults included. */
    static String usage(Object flags) {
        return commandLine(flags).getUsageMessage(CommandLine.Help.Ansi.OFF).stripTrailing();
    }

    /** Every mode's usage looks alike: options in their declared order with their defaults, and -h/--help. */
    private static CommandLine commandLine(Object flags) {
        CommandLine command = new CommandLine(flags);
        command.setUsageHelpWidth(100);
        CommandSpec spec = command.getCommandSpec();
        spec.usageMessage().sortOptions(false).showDefaultValues(true);
        if (spec.options().stream().noneMatch(OptionSpec::usageHelp)) {
            spec.addOption(OptionSpec.builder("-h", "--help")
                    .usageHelp(true)
                    .description("Show this help.")
                    .build());
        }
        return command;
    }
}
