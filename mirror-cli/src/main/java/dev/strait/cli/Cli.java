package dev.strait.cli;

import dev.strait.settings.ConfigException;
import java.io.PrintWriter;
import org.jspecify.annotations.Nullable;
import picocli.CommandLine;

/**
 * Runs a picocli command with Strait's exit codes, in one place: 0 success, 1 the program failed while
 * running, 2 bad input (unknown flag, bad value, unreadable or invalid config), reported as one line on stderr.
 */
public final class Cli {
    public static final int OK = 0;
    public static final int FAILED = 1;
    public static final int BAD_INPUT = 2;

    private Cli() {}

    public static int execute(Object command, String[] args) {
        return execute(command, null, args);
    }

    public static int execute(Object command, @Nullable String name, String[] args) {
        CommandLine cl = new CommandLine(command);
        if (name != null) {
            cl.setCommandName(name);
        }
        cl.setParameterExceptionHandler((ex, a) -> {
            PrintWriter err = ex.getCommandLine().getErr();
            err.println(ex.getCommandLine().getCommandName() + ": error: " + ex.getMessage() + " (see --help)");
            err.flush();
            return BAD_INPUT;
        });
        cl.setExecutionExceptionHandler((ex, commandLine, parseResult) -> {
            PrintWriter err = commandLine.getErr();
            if (ex instanceof ConfigException) {
                err.println(commandLine.getCommandName() + ": error: " + ex.getMessage());
                err.flush();
                return BAD_INPUT;
            }
            err.println(commandLine.getCommandName() + ": failed: " + ex.getMessage());
            err.flush();
            return FAILED;
        });
        return cl.execute(args);
    }
}
