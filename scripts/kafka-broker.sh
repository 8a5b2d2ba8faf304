#!/usr/bin/env bash
# A real single-node Apache Kafka broker (KRaft, combined broker+controller) from Maven Central
# jars, for machines without a Docker engine. Java 17 and Maven are all it needs.
#
#   scripts/kafka-broker.sh fetch           download the jars once into the cache
#   scripts/kafka-broker.sh start DIR       start a broker with its logs and data in DIR;
#                                           prints its bootstrap address (127.0.0.1:PORT)
#   scripts/kafka-broker.sh stop DIR        stop it (and wait for it to go)
#
# KAFKA_VERSION (default 4.1.1) picks the release; the cache is
# ${XDG_CACHE_HOME:-~/.cache}/custodian/kafka-$KAFKA_VERSION.
set -euo pipefail

KAFKA_VERSION="${KAFKA_VERSION:-4.1.1}"
CACHE="${XDG_CACHE_HOME:-$HOME/.cache}/custodian/kafka-$KAFKA_VERSION"
LIB="$CACHE/lib"

log() { echo "kafka-broker: $*" >&2; }

fetch() {
  if [ -f "$LIB/.complete" ]; then return 0; fi
  command -v java >/dev/null || { log "java not found"; exit 3; }
  command -v mvn >/dev/null || { log "mvn not found"; exit 3; }
  mkdir -p "$CACHE"
  local work; work="$(mktemp -d)"
  # The Maven artifact carries no logging binding (the release tarball adds log4j2's); SLF4J
  # stays on 1.7 to match the log4j-slf4j-impl binding, or the broker logs nothing.
  cat >"$work/pom.xml" <<POM
<project xmlns="http://maven.apache.org/POM/4.0.0">
  <modelVersion>4.0.0</modelVersion>
  <groupId>custodian</groupId><artifactId>kafka-broker</artifactId><version>1</version>
  <packaging>pom</packaging>
  <dependencies>
    <dependency><groupId>org.apache.kafka</groupId><artifactId>kafka_2.13</artifactId><version>$KAFKA_VERSION</version></dependency>
    <dependency><groupId>org.apache.logging.log4j</groupId><artifactId>log4j-api</artifactId><version>2.24.3</version></dependency>
    <dependency><groupId>org.apache.logging.log4j</groupId><artifactId>log4j-core</artifactId><version>2.24.3</version></dependency>
    <dependency><groupId>org.apache.logging.log4j</groupId><artifactId>log4j-slf4j-impl</artifactId><version>2.24.3</version></dependency>
    <dependency><groupId>org.slf4j</groupId><artifactId>slf4j-api</artifactId><version>1.7.36</version></dependency>
  </dependencies>
</project>
POM
  log "fetching org.apache.kafka:kafka_2.13:$KAFKA_VERSION and its dependencies from Maven Central"
  rm -rf "$LIB.tmp"
  (cd "$work" && mvn -q -B org.apache.maven.plugins:maven-dependency-plugin:3.6.1:copy-dependencies \
    -DoutputDirectory="$LIB.tmp" -DincludeScope=runtime >&2)
  rm -rf "$work" "$LIB"
  mv "$LIB.tmp" "$LIB"
  touch "$LIB/.complete"
  log "$(ls "$LIB" | wc -l) jars in $LIB"
}

free_port() {
  node -e 'const s=require("net").createServer();s.listen(0,"127.0.0.1",()=>{console.log(s.address().port);s.close()})'
}

start() {
  local dir="$1"
  fetch
  mkdir -p "$dir/data" "$dir/logs"
  local port controller
  port="$(free_port)"
  controller="$(free_port)"
  while [ "$controller" = "$port" ]; do controller="$(free_port)"; done
  cat >"$dir/server.properties" <<PROPS
process.roles=broker,controller
node.id=1
controller.quorum.voters=1@127.0.0.1:$controller
listeners=PLAINTEXT://127.0.0.1:$port,CONTROLLER://127.0.0.1:$controller
advertised.listeners=PLAINTEXT://127.0.0.1:$port
inter.broker.listener.name=PLAINTEXT
controller.listener.names=CONTROLLER
listener.security.protocol.map=CONTROLLER:PLAINTEXT,PLAINTEXT:PLAINTEXT
log.dirs=$dir/data
num.partitions=1
offsets.topic.replication.factor=1
offsets.topic.num.partitions=1
transaction.state.log.replication.factor=1
transaction.state.log.min.isr=1
share.coordinator.state.topic.replication.factor=1
share.coordinator.state.topic.min.isr=1
group.initial.rebalance.delay.ms=0
PROPS
  cat >"$dir/log4j2.properties" <<'L4J'
status = warn
appender.err.type = Console
appender.err.name = STDERR
appender.err.target = SYSTEM_ERR
appender.err.layout.type = PatternLayout
appender.err.layout.pattern = [%d] %p %m (%c)%n
rootLogger.level = INFO
rootLogger.appenderRef.err.ref = STDERR
logger.kafka.name = kafka
logger.kafka.level = INFO
logger.state.name = state.change.logger
logger.state.level = WARN
L4J
  local jopts=(-Dlog4j2.configurationFile="$dir/log4j2.properties" -Dkafka.logs.dir="$dir/logs")
  # A fixed cluster id (22 characters of base64url, the example of the Kafka docs): the data
  # directory is new for every start.
  java "${jopts[@]}" -cp "$LIB/*" kafka.tools.StorageTool format -t MkU3OEVBNTcwNTJENDM2Qk \
    -c "$dir/server.properties" --ignore-formatted >"$dir/format.log" 2>&1 || { cat "$dir/format.log" >&2; exit 4; }
  nohup java -Xms256m -Xmx512m -XX:+UseG1GC "${jopts[@]}" -cp "$LIB/*" kafka.Kafka "$dir/server.properties" \
    >"$dir/broker.log" 2>&1 &
  echo $! >"$dir/pid"
  local waited=0
  until grep -q 'Kafka Server started' "$dir/broker.log" 2>/dev/null; do
    if ! kill -0 "$(cat "$dir/pid")" 2>/dev/null; then log "the broker exited; its log:"; tail -40 "$dir/broker.log" >&2; exit 5; fi
    if [ "$waited" -ge 120 ]; then log "no 'Kafka Server started' after 120 s"; tail -40 "$dir/broker.log" >&2; stop "$dir"; exit 6; fi
    sleep 1; waited=$((waited + 1))
  done
  log "Apache Kafka $KAFKA_VERSION (KRaft) started in ${waited}s on 127.0.0.1:$port (pid $(cat "$dir/pid"))"
  echo "127.0.0.1:$port" | tee "$dir/brokers"
}

stop() {
  local dir="$1"
  [ -f "$dir/pid" ] || return 0
  local pid; pid="$(cat "$dir/pid")"
  if kill "$pid" 2>/dev/null; then
    for _ in $(seq 1 30); do kill -0 "$pid" 2>/dev/null || break; sleep 1; done
    kill -9 "$pid" 2>/dev/null || true
  fi
  rm -f "$dir/pid"
}

case "${1:-}" in
  fetch) fetch ;;
  start) start "${2:?start needs a directory}" ;;
  stop) stop "${2:?stop needs a directory}" ;;
  *) echo "usage: $0 fetch | start DIR | stop DIR" >&2; exit 2 ;;
esac
