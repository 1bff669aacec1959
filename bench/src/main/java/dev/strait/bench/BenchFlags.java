package dev.strait.bench;

import picocli.CommandLine;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.ParseResult;

/**
 * Parses a bench main's flags with picocli: {@code flags} is an object whose fields carry picocli's
 * {@code @Option}s (and their defaults). The mains keep their own exit codes (2 for bad input, with a one-line
 * message on stderr) and print picocli's usage for {@code -h}/{@code --help}.
 */
final class BenchFlags {

    private BenchFlags() {}

    /**
     * Fills {@code flags} from {@code args}.
     *
     * @return false if help was asked for (nothing else is checked then)
     * @throws IllegalArgumentException one line saying what is wrong with the flags
     */
    static boolean parse(Object flags, String[] args) {
        CommandLine command = new CommandLine(flags);
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
        return new CommandLine(flags).getUsageMessage(CommandLine.Help.Ansi.OFF).stripTrailing();
    }
}
