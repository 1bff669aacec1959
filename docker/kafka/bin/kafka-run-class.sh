#!/usr/bin/env bash
# kafka-run-class.sh CLASS [ARGS]: runs a main class of the image's Kafka jars (/opt/kafka/libs).
#   KAFKA_HEAP_OPTS             default -Xmx1G -Xms1G for the broker, -Xmx256M for the tools
#   KAFKA_JVM_PERFORMANCE_OPTS  default G1, as Kafka's own scripts
#   KAFKA_LOG4J_OPTS            default: the broker logs INFO to stdout, the tools WARN to stderr
#   KAFKA_OPTS, KAFKA_JMX_OPTS  added as they are
set -euo pipefail
if [ "$#" -lt 1 ]; then
  echo "usage: kafka-run-class.sh CLASS [ARGS]" >&2
  exit 2
fi
home="${KAFKA_HOME:-/opt/kafka}"
if [ "$1" = "kafka.Kafka" ]; then
  heap="${KAFKA_HEAP_OPTS:--Xmx1G -Xms1G}"
  log4j="${KAFKA_LOG4J_OPTS:--Dlog4j2.configurationFile=$home/config/log4j2.properties}"
else
  heap="${KAFKA_HEAP_OPTS:--Xmx256M}"
  log4j="${KAFKA_LOG4J_OPTS:--Dlog4j2.configurationFile=$home/config/tools-log4j2.properties}"
fi
perf="${KAFKA_JVM_PERFORMANCE_OPTS:--server -XX:+UseG1GC -XX:MaxGCPauseMillis=20 -XX:InitiatingHeapOccupancyPercent=35 -XX:+ExplicitGCInvokesConcurrent -XX:MaxInlineLevel=15 -Djava.awt.headless=true}"
# The option lists are split into words on purpose.
# shellcheck disable=SC2086
exec "${JAVA_HOME:+$JAVA_HOME/bin/}java" $heap $perf $log4j ${KAFKA_JMX_OPTS:-} ${KAFKA_OPTS:-} -cp "$home/libs/*" "$@"
