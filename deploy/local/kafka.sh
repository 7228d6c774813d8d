#!/usr/bin/env bash
# A single-node Apache Kafka broker (KRaft: controller + broker in one JVM) for the real test lane
# and for trying the scaled setup on one machine. No docker, no tarball: the broker jars come from
# Maven Central through Maven (deploy/local/kafka/pom.xml) and are cached.
#
#   deploy/local/kafka.sh fetch    fetch the jars into $GATEWAY_CACHE/kafka-<ver>/libs (reused if present)
#   deploy/local/kafka.sh start    fetch if needed, format storage once, start, wait until ready,
#                                  print KAFKA_BROKERS=...
#   deploy/local/kafka.sh stop     stop the broker (SIGTERM, then SIGKILL after a grace period)
#   deploy/local/kafka.sh status   exit 0 and print the pid when running
#
# Environment: KAFKA_VERSION (3.9.1), GATEWAY_CACHE (~/.cache/gateway), KAFKA_DATA_DIR
# ($GATEWAY_CACHE/kafka-data), KAFKA_PORT (9092), KAFKA_CONTROLLER_PORT (9093), KAFKA_HEAP (-Xmx512m),
# KAFKA_READY_TIMEOUT seconds (120).
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
version="${KAFKA_VERSION:-3.9.1}"
cache="${GATEWAY_CACHE:-$HOME/.cache/gateway}"
libs="$cache/kafka-$version/libs"
data="${KAFKA_DATA_DIR:-$cache/kafka-data}"
port="${KAFKA_PORT:-9092}"
cport="${KAFKA_CONTROLLER_PORT:-9093}"
heap="${KAFKA_HEAP:--Xmx512m -Xms256m}"
ready_timeout="${KAFKA_READY_TIMEOUT:-120}"
pidfile="$data/kafka.pid"
logfile="$data/kafka.log"
# A fixed cluster id (base64 of 16 bytes, as StorageTool random-uuid prints): the data dir is
# formatted once and a restart reuses it.
cluster_id="R2F0ZXdheUxvY2FsS2Fma2E"

log() { echo "kafka.sh: $*" >&2; }

fetch() {
  if [ -f "$libs/.complete" ]; then
    return 0
  fi
  command -v mvn >/dev/null || { log "mvn not found; install Maven"; return 1; }
  command -v java >/dev/null || { log "java not found; install a JDK 17"; return 1; }
  log "fetching Apache Kafka $version jars from Maven Central into $libs"
  rm -rf "$libs.tmp"
  mkdir -p "$libs.tmp"
  # -B: no colours or progress bars in CI logs.
  mkdir -p "$cache"
  if ! mvn -B -q -Dstyle.color=never -f "$here/kafka/pom.xml" -Dkafka.version="$version" \
      dependency:copy-dependencies -DincludeScope=runtime -DoutputDirectory="$libs.tmp" >"$cache/mvn-fetch.log" 2>&1; then
    sed 's/\x1b\[[0-9;]*m//g' "$cache/mvn-fetch.log" | tail -n 40 >&2
    rm -rf "$libs.tmp"
    log "could not fetch the Kafka jars with Maven (log $cache/mvn-fetch.log)"
    return 1
  fi
  ls "$libs.tmp"/kafka_2.13-*.jar >/dev/null 2>&1 || { log "fetch finished without kafka_2.13 jar"; return 1; }
  rm -rf "$libs"
  mv "$libs.tmp" "$libs"
  touch "$libs/.complete"
}

running_pid() {
  [ -f "$pidfile" ] || return 1
  local pid
  pid="$(cat "$pidfile")"
  [ -n "$pid" ] && kill -0 "$pid" 2>/dev/null || return 1
  echo "$pid"
}

port_open() { (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }

write_config() {
  mkdir -p "$data/logs"
  cat >"$data/server.properties" <<PROPS
process.roles=broker,controller
node.id=1
controller.quorum.voters=1@127.0.0.1:$cport
listeners=PLAINTEXT://127.0.0.1:$port,CONTROLLER://127.0.0.1:$cport
advertised.listeners=PLAINTEXT://127.0.0.1:$port
controller.listener.names=CONTROLLER
listener.security.protocol.map=PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT
inter.broker.listener.name=PLAINTEXT
log.dirs=$data/logs
num.partitions=6
default.replication.factor=1
min.insync.replicas=1
offsets.topic.replication.factor=1
offsets.topic.num.partitions=6
transaction.state.log.replication.factor=1
transaction.state.log.min.isr=1
transaction.state.log.num.partitions=6
group.initial.rebalance.delay.ms=0
auto.create.topics.enable=false
log.segment.bytes=67108864
log.retention.check.interval.ms=300000
num.network.threads=2
num.io.threads=4
PROPS
  cat >"$data/log4j.properties" <<'PROPS'
log4j.rootLogger=INFO, stdout
log4j.appender.stdout=org.apache.log4j.ConsoleAppender
log4j.appender.stdout.layout=org.apache.log4j.PatternLayout
log4j.appender.stdout.layout.ConversionPattern=[%d] %p %m (%c)%n
log4j.logger.kafka=INFO
log4j.logger.org.apache.kafka=INFO
log4j.logger.kafka.request.logger=WARN
log4j.logger.state.change.logger=WARN
PROPS
}

java_run() {
  # shellcheck disable=SC2086 # heap holds several flags on purpose
  java $heap -XX:+UseG1GC -Djava.awt.headless=true \
    -Dlog4j.configuration="file:$data/log4j.properties" -Dkafka.logs.dir="$data" \
    -cp "$libs/*" "$@"
}

start() {
  if pid="$(running_pid)"; then
    log "already running (pid $pid)"
    echo "KAFKA_BROKERS=127.0.0.1:$port"
    return 0
  fi
  fetch
  if port_open "$port" || port_open "$cport"; then
    log "port $port or $cport is already in use by another process"
    return 1
  fi
  write_config
  if [ ! -f "$data/logs/meta.properties" ]; then
    log "formatting storage in $data/logs (cluster id $cluster_id)"
    java_run kafka.tools.StorageTool format -t "$cluster_id" -c "$data/server.properties" --ignore-formatted >"$data/format.log" 2>&1 \
      || { cat "$data/format.log" >&2; log "storage format failed"; return 1; }
  fi
  log "starting broker on 127.0.0.1:$port (log $logfile)"
  : >"$logfile"
  # setsid: the broker survives the caller's process group (CI traps stop it explicitly).
  # shellcheck disable=SC2086
  setsid java $heap -XX:+UseG1GC -Djava.awt.headless=true \
    -Dlog4j.configuration="file:$data/log4j.properties" -Dkafka.logs.dir="$data" \
    -cp "$libs/*" kafka.Kafka "$data/server.properties" >>"$logfile" 2>&1 </dev/null &
  echo $! >"$pidfile"
  local deadline=$((SECONDS + ready_timeout))
  while :; do
    if ! running_pid >/dev/null; then
      log "broker exited during startup; last log lines:"
      tail -n 60 "$logfile" >&2
      return 1
    fi
    # "Kafka Server started" is logged after the broker is unfenced, so metadata requests answer.
    if port_open "$port" && grep -q "Kafka Server started" "$logfile"; then
      break
    fi
    if [ "$SECONDS" -ge "$deadline" ]; then
      log "broker not ready after ${ready_timeout}s; last log lines:"
      tail -n 60 "$logfile" >&2
      stop || true
      return 1
    fi
    sleep 0.5
  done
  log "ready (pid $(cat "$pidfile"))"
  echo "KAFKA_BROKERS=127.0.0.1:$port"
}

stop() {
  local pid
  if ! pid="$(running_pid)"; then
    rm -f "$pidfile"
    log "not running"
    return 0
  fi
  kill -TERM "$pid" 2>/dev/null || true
  for _ in $(seq 1 60); do
    kill -0 "$pid" 2>/dev/null || break
    sleep 0.5
  done
  if kill -0 "$pid" 2>/dev/null; then
    log "still running after 30s; SIGKILL"
    kill -KILL "$pid" 2>/dev/null || true
  fi
  rm -f "$pidfile"
  log "stopped"
}

status() {
  local pid
  if pid="$(running_pid)"; then
    echo "running pid=$pid KAFKA_BROKERS=127.0.0.1:$port"
  else
    echo "not running"
    return 1
  fi
}

case "${1:-}" in
  fetch) fetch ;;
  start) start ;;
  stop) stop ;;
  status) status ;;
  *) echo "usage: $0 {fetch|start|stop|status}" >&2; exit 2 ;;
esac
