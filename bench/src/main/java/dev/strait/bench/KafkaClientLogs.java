package dev.strait.bench;

/**
 * Quiets the Kafka client loggers whose warnings are expected in a bench (a probe that connects before a broker
 * listens, a producer that retries while a leader is dead), unless the command line set their level.
 */
final class KafkaClientLogs {
    private KafkaClientLogs() {}

    /** Errors only from each of {@code loggers} (names under {@code org.apache.kafka.clients}). */
    static void errorsOnly(String... loggers) {
        for (String logger : loggers) {
            String key = "org.slf4j.simpleLogger.log.org.apache.kafka.clients." + logger;
            if (System.getProperty(key) == null) {
                System.setProperty(key, "error");
            }
        }
    }
}
