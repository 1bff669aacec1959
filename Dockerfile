# Strait in one image: every role (mirror, lag-monitor, canary, broker) from the same image.
#
#   docker build -t strait:dev .
#   docker run --rm strait:dev mirror --help
#   docker run --rm -e STRAIT_CONSUMER_BOOTSTRAP_SERVERS=dc1-kafka:9092 -e STRAIT_CONSUMER_GROUP_ID=dc1-to-dc2 \
#     -e STRAIT_PRODUCER_BOOTSTRAP_SERVERS=dc2-kafka:9092 -e STRAIT_MIRROR_WHITELIST='orders\..*' -p 9101:9101 strait:dev
#
# Build arguments:
#   MAVEN_IMAGE       the build stage: a JDK 17 with Maven 3.8 or later (default maven:3.9-eclipse-temurin-17)
#   RUNTIME_IMAGE     the runtime: a JRE 17 on a Debian-like system with bash, groupadd and useradd
#                     (default eclipse-temurin:17-jre)
#   MAVEN_MIRROR_URL  a Maven repository that stands in for every other (a site's Nexus or Artifactory); empty: Maven
#                     Central. docker/build-images.sh passes its local mirror here and builds both base images from
#                     Debian's packages where no registry is reachable.
#   RUNTIME_UID       the runtime user's id (default 10001; not STRAIT_*: the launcher refuses unknown STRAIT_ variables)
#
# Environment variables, healthchecks, volumes and the compose files: docs/operating.md, "Running in Docker".
# No BuildKit-only syntax, so the classic builder builds it too.

ARG MAVEN_IMAGE=maven:3.9-eclipse-temurin-17
ARG RUNTIME_IMAGE=eclipse-temurin:17-jre

# ---- Stage 1: build the distribution with Maven -------------------------------------------------------------
FROM ${MAVEN_IMAGE} AS build
ARG MAVEN_MIRROR_URL=
WORKDIR /src

# Settings that name the mirror, when one is given; otherwise none, and Maven uses Central.
RUN mkdir -p /tmp/maven \
 && if [ -n "$MAVEN_MIRROR_URL" ]; then \
      printf '%s\n' '<settings><mirrors><mirror><id>build-mirror</id><mirrorOf>*</mirrorOf>' \
        "<url>$MAVEN_MIRROR_URL</url></mirror></mirrors></settings>" >/tmp/maven/settings.xml; \
    else \
      printf '%s\n' '<settings/>' >/tmp/maven/settings.xml; \
    fi

# The poms alone first: this dependency layer is rebuilt only when a pom changes, not on every source edit.
# bench/pom.xml, docker/pom.xml and the integration-tests poms are listed in the root pom's modules, so they must be there,
# but none of them is built.
COPY pom.xml ./
COPY .mvn/ .mvn/
COPY build-tools/ build-tools/
COPY time/pom.xml time/
COPY settings/pom.xml settings/
COPY testkit/pom.xml testkit/
COPY mirror-core/pom.xml mirror-core/
COPY broker/pom.xml broker/
COPY lag-monitor/pom.xml lag-monitor/
COPY canary/pom.xml canary/
COPY mirror-cli/pom.xml mirror-cli/
COPY bench/pom.xml bench/
COPY docker/pom.xml docker/
COPY integration-tests/broker/pom.xml integration-tests/broker/
COPY integration-tests/testkit/pom.xml integration-tests/testkit/
COPY integration-tests/mirror-core/pom.xml integration-tests/mirror-core/
COPY integration-tests/lag-monitor/pom.xml integration-tests/lag-monitor/
COPY integration-tests/canary/pom.xml integration-tests/canary/
RUN mvn -B -q -s /tmp/maven/settings.xml -Dmaven.repo.local=/tmp/maven/repository \
      -pl mirror-cli -am dependency:go-offline

COPY time/src time/src
COPY settings/src settings/src
COPY testkit/src testkit/src
COPY mirror-core/src mirror-core/src
COPY broker/src broker/src
COPY lag-monitor/src lag-monitor/src
COPY canary/src canary/src
COPY mirror-cli/src mirror-cli/src
# go-offline does not fetch every plugin's run-time dependencies: this step may still download a few. Tests are
# compiled (the modules share test jars) but not run, and checkstyle and the format check are skipped: `mvn verify`
# does them.
RUN mvn -B -q -s /tmp/maven/settings.xml -Dmaven.repo.local=/tmp/maven/repository \
      -DskipTests -Dcheckstyle.skip=true -Dspotless.check.skip=true -pl mirror-cli -am package \
 && mkdir -p /dist/lib \
 && cp mirror-cli/target/lib/*.jar mirror-cli/target/strait-mirror-cli-*.jar /dist/lib/

# ---- Stage 2: the runtime --------------------------------------------------------------------------------------
FROM ${RUNTIME_IMAGE}

LABEL org.opencontainers.image.title="strait" \
      org.opencontainers.image.description="Lossless Kafka topic mirroring: mirror, lag monitor, canary and companion broker"

# A fixed, non-root user (numeric, so Kubernetes' runAsNonRoot can check it); group 0 may write the data
# directory too, for platforms that run the image under an arbitrary user id in group 0.
ARG RUNTIME_UID=10001
RUN groupadd --system --gid "${RUNTIME_UID}" strait \
 && useradd --system --no-log-init --uid "${RUNTIME_UID}" --gid strait --home-dir /opt/strait \
      --shell /usr/sbin/nologin strait \
 && mkdir -p /var/lib/strait \
 && chown "${RUNTIME_UID}:0" /var/lib/strait \
 && chmod 0775 /var/lib/strait

ENV STRAIT_HOME=/opt/strait \
    STRAIT_RUN_DIR=/tmp/strait \
    STRAIT_DATA_DIR=/var/lib/strait \
    PATH=/opt/strait/bin:${PATH}

COPY --from=build /dist/lib/ /opt/strait/lib/
COPY config/ /opt/strait/config/
COPY docker/entrypoint.sh /opt/strait/bin/strait
COPY docker/healthcheck.sh /opt/strait/bin/healthcheck
RUN chmod 0755 /opt/strait/bin/strait /opt/strait/bin/healthcheck \
 && /opt/strait/bin/strait --version

USER ${RUNTIME_UID}:${RUNTIME_UID}
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
