#!/usr/bin/env bash
# A throwaway PostgreSQL server for the real test lane and for trying the scaled setup on one
# machine: Debian's postgresql package, a private cluster on 127.0.0.1:55432 (socket in /tmp),
# user and database "gateway". Idempotent.
#
#   deploy/local/postgres.sh start   install the server if missing (apt-get, as root), initdb once,
#                                    start, create role + database, print DATABASE_URL=...
#   deploy/local/postgres.sh stop    stop the server (fast shutdown)
#   deploy/local/postgres.sh url     print the DATABASE_URL
#
# Environment: PG_PORT (55432), PG_DATA_DIR (/var/tmp/gateway-postgres: outside $HOME because the
# server runs as the postgres user when we are root).
set -euo pipefail

port="${PG_PORT:-55432}"
data="${PG_DATA_DIR:-/var/tmp/gateway-postgres}"
url="postgres://gateway:gateway@127.0.0.1:$port/gateway?sslmode=disable"

log() { echo "postgres.sh: $*" >&2; }

pg_bindir() {
  local d
  d="$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1 || true)"
  if [ -n "$d" ] && [ -x "$d/initdb" ] && [ -x "$d/postgres" ]; then
    echo "$d"
    return 0
  fi
  # Other distributions put the server on PATH.
  if command -v initdb >/dev/null && command -v pg_ctl >/dev/null; then
    dirname "$(command -v pg_ctl)"
    return 0
  fi
  return 1
}

install_server() {
  if pg_bindir >/dev/null; then
    return 0
  fi
  [ "$(id -u)" = 0 ] || { log "PostgreSQL server binaries missing; install the postgresql package"; return 1; }
  log "installing the postgresql package"
  # CI already ran apt-get update; do it here only when the package lists are empty.
  if [ -z "$(ls -A /var/lib/apt/lists 2>/dev/null | grep -v -e lock -e partial || true)" ]; then
    apt-get update -qq >&2
  fi
  # Do not let the package start (and auto-create) its own cluster on 5432.
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends postgresql >&2
  if command -v pg_lsclusters >/dev/null; then
    pg_lsclusters -h 2>/dev/null | while read -r ver name _; do
      pg_ctlcluster "$ver" "$name" stop 2>/dev/null || true
    done
  fi
  pg_bindir >/dev/null || { log "postgresql installed but initdb not found"; return 1; }
}

# as_owner runs a command as the cluster owner: postgres when we are root, else ourselves.
as_owner() {
  if [ "$(id -u)" = 0 ]; then
    runuser -u postgres -- "$@"
  else
    "$@"
  fi
}

port_open() { (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }

owner_name() { if [ "$(id -u)" = 0 ]; then echo postgres; else id -un; fi; }

running() {
  local bin
  bin="$(pg_bindir)" || return 1
  [ -f "$data/PG_VERSION" ] && as_owner "$bin/pg_ctl" -D "$data" status >/dev/null 2>&1
}

psql_admin() {
  as_owner psql -X -q -v ON_ERROR_STOP=1 -h /tmp -p "$port" -U "$(owner_name)" -d postgres "$@"
}

start() {
  install_server
  local bin
  bin="$(pg_bindir)"
  if ! running; then
    if [ ! -f "$data/PG_VERSION" ]; then
      log "initdb in $data"
      mkdir -p "$data"
      if [ "$(id -u)" = 0 ]; then chown postgres:postgres "$data"; fi
      chmod 700 "$data"
      as_owner "$bin/initdb" -D "$data" -U "$(owner_name)" --auth-local=trust --auth-host=scram-sha-256 \
        -E UTF8 --locale=C.UTF-8 >"$data.initdb.log" 2>&1 \
        || as_owner "$bin/initdb" -D "$data" -U "$(owner_name)" --auth-local=trust --auth-host=scram-sha-256 \
             -E UTF8 --locale=C >"$data.initdb.log" 2>&1 \
        || { cat "$data.initdb.log" >&2; log "initdb failed"; return 1; }
    fi
    if port_open "$port"; then
      log "port $port is already in use by another process (set PG_PORT)"
      return 1
    fi
    log "starting on 127.0.0.1:$port (log $data/server.log)"
    # Settings for a test server: durability kept (fsync on) because the tests check crash
    # behaviour of our code, not of the disk; more connections for several processes.
    as_owner "$bin/pg_ctl" -D "$data" -l "$data/server.log" -w -t 60 \
      -o "-c listen_addresses=127.0.0.1 -c port=$port -c unix_socket_directories=/tmp -c max_connections=200 -c shared_buffers=128MB" \
      start >&2 || { tail -n 40 "$data/server.log" >&2 || true; log "start failed"; return 1; }
  else
    log "already running"
  fi
  # Role and database, created once.
  if [ "$(psql_admin -tAc "SELECT 1 FROM pg_roles WHERE rolname='gateway'")" != 1 ]; then
    psql_admin -c "CREATE ROLE gateway LOGIN PASSWORD 'gateway'"
  fi
  if [ "$(psql_admin -tAc "SELECT 1 FROM pg_database WHERE datname='gateway'")" != 1 ]; then
    psql_admin -c "CREATE DATABASE gateway OWNER gateway"
  fi
  echo "DATABASE_URL=$url"
}

stop() {
  local bin
  if ! running; then
    log "not running"
    return 0
  fi
  bin="$(pg_bindir)"
  as_owner "$bin/pg_ctl" -D "$data" -m fast -w stop >&2
  log "stopped"
}

case "${1:-}" in
  start) start ;;
  stop) stop ;;
  url) echo "$url" ;;
  *) echo "usage: $0 {start|stop|url}" >&2; exit 2 ;;
esac
