# Strait in one image: every role (mirror, lag-monitor, canary, broker) from the same image.
#
#   docker build -t strait:dev .
#   docker run --rm strait:dev mirror --help
#   docker run --rm -e STRAIT_CONSUMER_BOOTSTRAP_SERVERS=dc-a:9092 -e STRAIT_CONSUMER_GROUP_ID=dc-b-mirror \
#     -e STRAIT_PRODUCER_BOOTSTRAP_SERVERS=dc-b:9092 -e STRAIT_MIRROR_WHITELIST='orders\..*' -p 9101:9101 strait:dev
#
# Environment variables, healthchecks, volumes and the two-datacenter compose file: docs/operating.md,
# "Running in Docker". No BuildKit-only syntax, so the classic builder (and testcontainers) builds it too.

ARG MAVEN_IMAGE=maven:3.9-eclipse-temurin-17
ARG RUNTIME_IMAGE=eclipse-temurin:17-jre

# ---- Stage 1: build the distribution with Maven -------------------------------------------------------------
FROM ${MAVEN_IMAGE} AS build
WORKDIR /src

# The poms alone first: this dependency layer is rebuilt only when a pom changes, not on every source edit.
# bench/pom.xml is listed in the root pom's modules, so it must be there, but bench itself is not built.
COPY pom.xml ./
COPY testkit/pom.xml testkit/
COPY mirror-core/pom.xml mirror-core/
COPY broker/pom.xml broker/
COPY lag-monitor/pom.xml lag-monitor/
COPY canary/pom.xml canary/
COPY mirror-cli/pom.xml mirror-cli/
COPY bench/pom.xml bench/
RUN mvn -B -q -pl mirror-cli -am dependency:go-offline

COPY testkit/src testkit/src
COPY mirror-core/src mirror-core/src
COPY broker/src broker/src
COPY lag-monitor/src lag-monitor/src
COPY canary/src canary/src
COPY mirror-cli/src mirror-cli/src
# Online: go-offline does not fetch every plugin's run-time dependencies; the rest is small.
RUN mvn -B -DskipTests -pl mirror-cli -am package \
 && mkdir -p /dist/lib \
 && cp mirror-cli/target/lib/*.jar mirror-cli/target/strait-mirror-cli-*.jar /dist/lib/

# ---- Stage 2: the runtime --------------------------------------------------------------------------------------
FROM ${RUNTIME_IMAGE}

LABEL org.opencontainers.image.title="strait" \
      org.opencontainers.image.description="Lossless Kafka topic mirroring: mirror, lag monitor, canary and companion broker"

# A fixed, non-root user (numeric, so Kubernetes' runAsNonRoot can check it); group 0 may write the data
# directory too, for platforms that run the image under an arbitrary user id in group 0.
ARG STRAIT_UID=10001
RUN groupadd --system --gid "${STRAIT_UID}" strait \
 && useradd --system --no-log-init --uid "${STRAIT_UID}" --gid strait --home-dir /opt/strait \
      --shell /usr/sbin/nologin strait \
 && mkdir -p /var/lib/strait \
 && chown "${STRAIT_UID}:0" /var/lib/strait \
 && chmod 0775 /var/lib/strait

ENV STRAIT_HOME=/opt/strait \
    STRAIT_RUN_DIR=/tmp/strait \
    STRAIT_DATA_DIR=/var/lib/strait \
    PATH=/opt/strait/bin:${PATH}

COPY --from=build /dist/lib/ /opt/strait/lib/
COPY config/ /opt/strait/config/
COPY docker/entrypoint.sh /opt/strait/bin/strait
COPY docker/healthcheck.sh /opt/strait/bin/healthcheck

USER ${STRAIT_UID}:${STRAIT_UID}
WORKDIR /opt/strait

# The broker's log directories (default log.dirs=/var/lib/strait/broker). The other roles keep no state here.
VOLUME ["/var/lib/strait"]

# 9092 broker listener, 9101 mirror /metrics + /healthz, 9102 lag monitor, 9103 canary.
EXPOSE 9092 9101 9102 9103

# Probes what the running role serves: /healthz of the mirror's metrics port, of the lag monitor's or the
# canary's http.port, or the broker's listener (the launcher writes the endpoint to $STRAIT_RUN_DIR/health).
HEALTHCHECK --interval=15s --timeout=5s --start-period=60s --retries=3 CMD ["/opt/strait/bin/healthcheck"]

ENTRYPOINT ["/opt/strait/bin/strait"]
CMD ["mirror"]
