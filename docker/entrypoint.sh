#!/usr/bin/env bash
# Entrypoint of the Strait image, installed as /opt/strait/bin/strait (and on PATH as `strait`).
#
#   docker run strait:dev <role> [flags]     role: mirror (default), lag-monitor, canary, broker, demo, help
#   docker run strait:dev bash               anything else is run as it is
#
# A role runs dev.strait.cli.container.ContainerMain, which maps STRAIT_CONSUMER_*, STRAIT_PRODUCER_*, STRAIT_MIRROR_*,
# STRAIT_LAG_*, STRAIT_CANARY_* and STRAIT_BROKER_* to properties files and flags (docs/operating.md, "Running in
# Docker"), writes them to STRAIT_RUN_DIR (default /tmp/strait), then runs the command in the same JVM, as PID 1
# when this script is the entrypoint, so SIGTERM reaches the JVM and the mirror flushes and commits before it exits.
# STRAIT_DRY_RUN=1 writes the files and prints the command line instead of running it.
#
# Launcher variables: STRAIT_HOME (default /opt/strait; jars in $STRAIT_HOME/lib), STRAIT_HEAP_OPTS (default
# -Xms128m -Xmx384m -XX:+UseParallelGC), STRAIT_JAVA_OPTS, STRAIT_CLASSPATH (extra jars, e.g. a message handler),
# STRAIT_LOG_LEVEL, STRAIT_KAFKA_LOG_LEVEL, STRAIT_RUN_DIR, STRAIT_DATA_DIR (default /var/lib/strait).
set -euo pipefail

if [ "$#" -eq 0 ]; then
  set -- mirror
fi

case "$1" in
  mirror | lag-monitor | canary | broker | demo | help | -h | --help | -V | --version) ;;
  *) exec "$@" ;;
esac

STRAIT_HOME="${STRAIT_HOME:-/opt/strait}"
if ! compgen -G "$STRAIT_HOME/lib/*.jar" >/dev/null; then
  echo "strait: error: no jars in $STRAIT_HOME/lib (set STRAIT_HOME to the distribution's directory)" >&2
  exit 2
fi
JAVA="${JAVA_HOME:+$JAVA_HOME/bin/}java"
CP="$STRAIT_HOME/lib/*"
if [ -n "${STRAIT_CLASSPATH:-}" ]; then
  CP="$CP:$STRAIT_CLASSPATH"
fi
# The option lists are split into words on purpose.
# shellcheck disable=SC2086
exec "$JAVA" ${STRAIT_HEAP_OPTS:--Xms128m -Xmx384m -XX:+UseParallelGC} ${STRAIT_JAVA_OPTS:-} -cp "$CP" \
  dev.strait.cli.container.ContainerMain "$@"
