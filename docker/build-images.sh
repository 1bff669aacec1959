#!/usr/bin/env bash
# Builds Strait's Docker images on this machine, preparing Docker first when needed:
#
#   docker/build-images.sh [strait] [kafka] [prometheus]        (no argument: all three)
#
# 1. Docker: when no engine answers, installs Debian's docker.io (and docker-compose, mmdebstrap) if they are
#    missing, and starts `dockerd --iptables=false --bridge=none --ip=127.0.0.1` in the background (log:
#    $STRAIT_DOCKERD_LOG, default /var/log/strait-dockerd.log). Installing and starting need root.
# 2. Base images, built once and then reused: where no image registry can be reached, they are made from Debian's
#    packages with mmdebstrap and `docker import`:
#      strait-base/jre:17     Debian bookworm + openjdk-17-jre-headless   (the runtime of both images)
#      strait-base/maven:17   strait-base/jre:17 + openjdk-17-jdk-headless + maven   (the Dockerfile's build stage)
#      strait-prometheus:dev  Debian bookworm + prometheus   ($STRAIT_PROMETHEUS_IMAGE; docker/compose.two-dc.yml's
#                             profile "monitoring": Debian's Prometheus 2 and its classic web UI, run as user prometheus)
#    Each carries a label with the hash of its recipe and is rebuilt only when the recipe changes.
#    STRAIT_BASE_IMAGES=public uses the Dockerfile's defaults (maven:3.9-eclipse-temurin-17, eclipse-temurin:17-jre)
#    from a registry instead.
# 3. strait:dev ($STRAIT_IMAGE) from the repository's Dockerfile. Its Maven stage gets its artifacts from a mirror
#    this script runs on 127.0.0.1 (docker/tools/MavenRepositoryMirror.java: the local repository ~/.m2, then
#    Maven Central for what is missing), through `docker build --network host`.
# 4. strait-kafka:4.1.1 ($STRAIT_KAFKA_IMAGE): Apache Kafka 4.1.1 from its Maven artifacts (docker/kafka/), the
#    stand-in for apache/kafka:4.1.1 in the tests and in docker/compose.two-dc.apache-kafka.yml. Rebuilt only when
#    docker/kafka/ changed.
#
# Other settings: STRAIT_DEBIAN_MIRROR (default http://deb.debian.org), STRAIT_DEBIAN_SUITE (bookworm),
# STRAIT_MAVEN_LOCAL_REPO (default ~/.m2/repository), STRAIT_MAVEN_UPSTREAM (default Maven Central),
# STRAIT_MAVEN_MIRROR_PORT (the mirror's port when free, default 47381),
# STRAIT_DOCKERD_ARGS (replaces the dockerd flags above). Prints how long each step took.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
STRAIT_IMAGE="${STRAIT_IMAGE:-strait:dev}"
STRAIT_KAFKA_IMAGE="${STRAIT_KAFKA_IMAGE:-strait-kafka:4.1.1}"
PROMETHEUS_IMAGE="${STRAIT_PROMETHEUS_IMAGE:-strait-prometheus:dev}"
BASE_IMAGES="${STRAIT_BASE_IMAGES:-local}"
JRE_BASE="strait-base/jre:17"
MAVEN_BASE="strait-base/maven:17"
DEBIAN_MIRROR="${STRAIT_DEBIAN_MIRROR:-http://deb.debian.org}"
DEBIAN_SUITE="${STRAIT_DEBIAN_SUITE:-bookworm}"
DOCKERD_LOG="${STRAIT_DOCKERD_LOG:-/var/log/strait-dockerd.log}"
MAVEN_LOCAL_REPO="${STRAIT_MAVEN_LOCAL_REPO:-$HOME/.m2/repository}"

# Prefixes each line with the time, so a build log shows where the minutes went.
stamp() { while IFS= read -r line; do printf '%(%T)T %s\n' -1 "$line"; done; }
log() { printf 'build-images: %s\n' "$*" >&2; }
die() { printf 'build-images: error: %s\n' "$*" >&2; exit 1; }
timed() {
  local what="$1" start=$SECONDS
  shift
  "$@"
  log "$what: $((SECONDS - start)) s"
}

targets=("$@")
if [ ${#targets[@]} -eq 0 ]; then
  targets=(strait kafka prometheus)
fi
for t in "${targets[@]}"; do
  case "$t" in
    strait | kafka | prometheus) ;;
    *) die "unknown target '$t' (expected: strait, kafka, prometheus)" ;;
  esac
done
case "$BASE_IMAGES" in
  local | public) ;;
  *) die "STRAIT_BASE_IMAGES must be local or public, not '$BASE_IMAGES'" ;;
esac

# ---- 1. Docker ------------------------------------------------------------------------------------------------

install_packages() {
  local missing=()
  command -v dockerd >/dev/null 2>&1 || missing+=(docker.io)
  command -v docker-compose >/dev/null 2>&1 || docker compose version >/dev/null 2>&1 || missing+=(docker-compose)
  if [ "$BASE_IMAGES" = local ]; then
    command -v mmdebstrap >/dev/null 2>&1 || missing+=(mmdebstrap)
  fi
  if [ ${#missing[@]} -eq 0 ]; then
    return
  fi
  if [ "$(id -u)" -ne 0 ] || ! command -v apt-get >/dev/null 2>&1; then
    die "missing ${missing[*]}: install them (Debian: apt-get install ${missing[*]}), or run this script as root"
  fi
  log "installing ${missing[*]}"
  apt-get update -q >&2
  DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends "${missing[@]}" >&2
}

engine_answers() {
  docker version --format '{{.Server.Version}}' >/dev/null 2>&1
}

start_engine() {
  if engine_answers; then
    return
  fi
  if pgrep -x dockerd >/dev/null 2>&1; then
    log "dockerd runs but does not answer yet; waiting"
  else
    [ "$(id -u)" -eq 0 ] || die "no Docker engine answers and starting dockerd needs root"
    # shellcheck disable=SC2086
    local args=(${STRAIT_DOCKERD_ARGS:---iptables=false --bridge=none --ip=127.0.0.1})
    log "starting dockerd ${args[*]} (log: $DOCKERD_LOG)"
    mkdir -p "$(dirname "$DOCKERD_LOG")"
    setsid nohup dockerd "${args[@]}" >>"$DOCKERD_LOG" 2>&1 </dev/null &
  fi
  local deadline=$((SECONDS + 90))
  until engine_answers; do
    if [ $SECONDS -ge $deadline ]; then
      tail -20 "$DOCKERD_LOG" >&2 || true
      die "dockerd did not answer within 90 s (log above: $DOCKERD_LOG)"
    fi
    sleep 1
  done
}

check_client() {
  if engine_answers; then
    return
  fi
  # A client newer than the engine normally negotiates down; if this one does not, Debian's client does.
  if [ -x /usr/bin/docker ] && /usr/bin/docker version >/dev/null 2>&1; then
    die "'$(command -v docker)' cannot talk to the engine, /usr/bin/docker can: put /usr/bin first on PATH"
  fi
  docker version >&2 || true
  die "the docker client cannot talk to the engine"
}

# ---- 2. Base images -------------------------------------------------------------------------------------------

recipe_label() {
  docker image inspect --format '{{ index .Config.Labels "dev.strait.recipe" }}' "$1" 2>/dev/null || true
}

# build_base TAG PACKAGES CHECK [CHANGE...]: Debian $DEBIAN_SUITE with the packages (and their dependencies), without
# manuals, documentation other than copyright files, and locales; security updates included. CHANGEs are more
# `docker import --change` instructions (part of the recipe); CHECK is a command the new image must run.
build_base() {
  local tag="$1" packages="$2" check="$3"
  shift 3
  local changes=("$@")
  local sources=(
    "deb $DEBIAN_MIRROR/debian $DEBIAN_SUITE main"
    "deb $DEBIAN_MIRROR/debian $DEBIAN_SUITE-updates main"
    "deb $DEBIAN_MIRROR/debian-security $DEBIAN_SUITE-security main"
  )
  local options=(
    --variant=apt --include="$packages"
    --dpkgopt='path-exclude=/usr/share/man/*' --dpkgopt='path-exclude=/usr/share/info/*'
    --dpkgopt='path-exclude=/usr/share/doc/*' --dpkgopt='path-include=/usr/share/doc/*/copyright'
    --dpkgopt='path-exclude=/usr/share/locale/*'
    # The JRE's post-install links its manual page there, so the directory must exist.
    --essential-hook='mkdir -p "$1/usr/share/man/man1"'
  )
  local recipe
  local change_args=()
  for c in "${changes[@]}"; do
    change_args+=(--change "$c")
  done
  recipe="$(printf '%s\n' "v1" "${sources[@]}" "${options[@]}" "${changes[@]}" | sha256sum | cut -c1-16)"
  if [ "$(recipe_label "$tag")" = "$recipe" ]; then
    log "$tag: up to date (recipe $recipe)"
    return
  fi
  log "$tag: building from Debian $DEBIAN_SUITE packages ($packages)"
  local tar
  tar="$(mktemp /tmp/strait-base.XXXXXX.tar)"
  if ! mmdebstrap "${options[@]}" "$DEBIAN_SUITE" "$tar" "${sources[@]}" >/tmp/strait-mmdebstrap.log 2>&1; then
    tail -30 /tmp/strait-mmdebstrap.log >&2
    rm -f "$tar"
    die "mmdebstrap failed for $tag (log: /tmp/strait-mmdebstrap.log)"
  fi
  docker import \
    --change 'ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin' \
    --change 'ENV LANG=C.UTF-8' \
    --change "LABEL dev.strait.recipe=$recipe" \
    "${change_args[@]}" \
    "$tar" "$tag" >/dev/null
  rm -f "$tar"
  # shellcheck disable=SC2086
  docker run --rm "$tag" $check >/dev/null 2>&1 || die "$tag: '$check' does not run in the new image"
}

# build_on_jre TAG PACKAGES: the JRE base image plus packages, installed with apt in a build container (host network:
# the default bridge is off), so the packages they share are neither downloaded nor unpacked twice.
build_on_jre() {
  local tag="$1" packages="$2"
  local dockerfile
  dockerfile="$(printf '%s\n' "FROM $JRE_BASE" \
    "RUN apt-get update -q && DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends ${packages//,/ } \\" \
    " && apt-get clean && rm -rf /var/lib/apt/lists/*")"
  local recipe
  recipe="$(printf '%s\n' "$dockerfile" "$(docker image inspect --format '{{.Id}}' "$JRE_BASE")" | sha256sum | cut -c1-16)"
  if [ "$(recipe_label "$tag")" = "$recipe" ]; then
    log "$tag: up to date (recipe $recipe)"
    return
  fi
  log "$tag: $JRE_BASE + $packages"
  if ! printf '%s\n' "$dockerfile" | docker build --force-rm --network host --label "dev.strait.recipe=$recipe" -t "$tag" - \
      >/tmp/strait-base-build.log 2>&1; then
    tail -30 /tmp/strait-base-build.log >&2
    die "building $tag failed (log: /tmp/strait-base-build.log)"
  fi
}

# ---- 3. strait:dev ----------------------------------------------------------------------------------------------

MIRROR_PID=""
stop_mirror() {
  if [ -n "$MIRROR_PID" ]; then
    kill "$MIRROR_PID" 2>/dev/null || true
    wait "$MIRROR_PID" 2>/dev/null || true
    MIRROR_PID=""
  fi
}
trap stop_mirror EXIT

start_mirror() {
  local port_file
  port_file="$(mktemp -u /tmp/strait-maven-mirror.XXXXXX.port)"
  java "$ROOT/docker/tools/MavenRepositoryMirror.java" "$MAVEN_LOCAL_REPO" "$port_file" \
    "${STRAIT_MAVEN_MIRROR_PORT:-47381}" ${STRAIT_MAVEN_UPSTREAM:+"$STRAIT_MAVEN_UPSTREAM"} >/tmp/strait-maven-mirror.log 2>&1 &
  MIRROR_PID=$!
  local deadline=$((SECONDS + 60))
  until [ -s "$port_file" ]; do
    kill -0 "$MIRROR_PID" 2>/dev/null || die "the Maven mirror did not start (log: /tmp/strait-maven-mirror.log)"
    [ $SECONDS -lt $deadline ] || die "the Maven mirror did not start within 60 s"
    sleep 0.2
  done
  MIRROR_URL="http://127.0.0.1:$(cat "$port_file")/"
  rm -f "$port_file"
}

build_strait() {
  local args=(-t "$STRAIT_IMAGE")
  if [ "$BASE_IMAGES" = local ]; then
    args+=(--build-arg "MAVEN_IMAGE=$MAVEN_BASE" --build-arg "RUNTIME_IMAGE=$JRE_BASE")
  fi
  start_mirror
  args+=(--network host --build-arg "MAVEN_MIRROR_URL=$MIRROR_URL")
  log "$STRAIT_IMAGE: docker build ${args[*]} $ROOT"
  if ! docker build --force-rm "${args[@]}" "$ROOT" 2>&1 | stamp >/tmp/strait-image-build.log; then
    tail -40 /tmp/strait-image-build.log >&2
    die "docker build of $STRAIT_IMAGE failed (log: /tmp/strait-image-build.log)"
  fi
  stop_mirror
  log "$STRAIT_IMAGE: $(docker image inspect --format '{{.Size}}' "$STRAIT_IMAGE" | awk '{printf "%.0f MB", $1 / 1000000}')"
}

# ---- 4. strait-kafka:4.1.1 ------------------------------------------------------------------------------------

build_kafka() {
  local dir="$ROOT/docker/kafka" base="$JRE_BASE"
  [ "$BASE_IMAGES" = local ] || base="eclipse-temurin:17-jre"
  local recipe
  recipe="$( (cd "$dir" && find Dockerfile pom.xml bin config -type f -print0 | LC_ALL=C sort -z | xargs -0 sha256sum;
    echo "$base $(docker image inspect --format '{{.Id}}' "$base" 2>/dev/null)") | sha256sum | cut -c1-16)"
  if [ "$(recipe_label "$STRAIT_KAFKA_IMAGE")" = "$recipe" ]; then
    log "$STRAIT_KAFKA_IMAGE: up to date (recipe $recipe)"
    return
  fi
  log "$STRAIT_KAFKA_IMAGE: the Apache Kafka 4.1.1 jars (mvn dependency:copy-dependencies)"
  rm -rf "$dir/target/libs"
  mvn -B -q -Dstyle.color=never -f "$dir/pom.xml" dependency:copy-dependencies >&2
  log "$STRAIT_KAFKA_IMAGE: docker build (base $base)"
  if ! docker build --force-rm -t "$STRAIT_KAFKA_IMAGE" --build-arg "JRE_IMAGE=$base" --label "dev.strait.recipe=$recipe" \
      "$dir" 2>&1 | stamp >/tmp/strait-kafka-image-build.log; then
    tail -40 /tmp/strait-kafka-image-build.log >&2
    die "docker build of $STRAIT_KAFKA_IMAGE failed (log: /tmp/strait-kafka-image-build.log)"
  fi
}

# ---- 5. strait-prometheus:dev -----------------------------------------------------------------------------------

# Debian's package, not a registry's image: its binary defaults to Debian's paths (web UI under /usr/share/prometheus/web,
# data under /var/lib/prometheus/metrics2, owned by the user prometheus its post-install creates), so the image
# only needs the user and the configuration file named.
build_prometheus() {
  if [ "$BASE_IMAGES" != local ]; then
    log "$PROMETHEUS_IMAGE: not built with STRAIT_BASE_IMAGES=$BASE_IMAGES (set PROMETHEUS_IMAGE to a registry's image)"
    return
  fi
  build_base "$PROMETHEUS_IMAGE" prometheus "--version" \
    'USER prometheus' \
    'WORKDIR /var/lib/prometheus' \
    'EXPOSE 9090' \
    'VOLUME /var/lib/prometheus' \
    'ENTRYPOINT ["/usr/bin/prometheus"]' \
    'CMD ["--config.file=/etc/prometheus/prometheus.yml"]'
}

# ---- main -------------------------------------------------------------------------------------------------------

start_all=$SECONDS
timed "docker packages" install_packages
timed "docker engine" start_engine
check_client
if [ "$BASE_IMAGES" = local ]; then
  timed "$JRE_BASE" build_base "$JRE_BASE" openjdk-17-jre-headless "java -version" \
    'ENV JAVA_HOME=/usr/lib/jvm/java-17-openjdk-amd64' 'CMD ["bash"]'
  for t in "${targets[@]}"; do
    if [ "$t" = strait ]; then
      timed "$MAVEN_BASE" build_on_jre "$MAVEN_BASE" openjdk-17-jdk-headless,maven
    fi
  done
fi
for t in "${targets[@]}"; do
  case "$t" in
    strait) timed "$STRAIT_IMAGE" build_strait ;;
    kafka) timed "$STRAIT_KAFKA_IMAGE" build_kafka ;;
    prometheus) timed "$PROMETHEUS_IMAGE" build_prometheus ;;
  esac
done
log "done in $((SECONDS - start_all)) s"
