package dev.strait.cli;

import picocli.CommandLine;

/** Version text for {@code --version}. */
public final class Version implements CommandLine.IVersionProvider {
    @Override
    public String[] getVersion() {
        String v = Version.class.getPackage().getImplementationVersion();
        return new String[] {
            "strait " + (v == null ? "(development build)" : v) + ", kafka-clients "
                    + org.apache.kafka.common.utils.AppInfoParser.getVersion()
        };
    }
}
