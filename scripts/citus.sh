#!/usr/bin/env bash
# A Citus cluster on this machine for the tests and benchmarks that run Herdbook past one
# database (issue 30, docs/scaling.md): a coordinator and workers, each its own PostgreSQL
# cluster on a local port with shared_preload_libraries = 'citus', a database with the citus
# extension on every node, and the workers registered on the coordinator.
#
#   scripts/citus.sh start     initialise what is missing, start what is stopped, register
#   scripts/citus.sh status    each node up or down, and the coordinator's node list
#   scripts/citus.sh stop      stop every node (the data stays for the next start)
#   scripts/citus.sh destroy   stop, then remove the data directory
#
# Then: HERDBOOK_TEST_DATABASE_URL=postgres://127.0.0.1:9700/test?sslmode=disable
#
# Settings (environment):
#   HERDBOOK_CITUS_DIR      data directory (default /tmp/herdbook-citus)
#   HERDBOOK_CITUS_PORT     coordinator port (default 9700); worker i listens on PORT+i
#   HERDBOOK_CITUS_WORKERS  number of workers (default 2)
#   HERDBOOK_CITUS_DB       database made on every node (default test)
#
# PostgreSQL refuses to run as root: run as root, the servers run as the postgres user (who
# owns the data directory); run as anyone else, they run as that user. The role of the caller
# is made a superuser on every node, so that a URL without a user name connects as in CI.
# Every step is idempotent; start on a running cluster only checks it.
# This is a test cluster: fsync is off (a killed server loses nothing acknowledged, a machine
# crash may lose the cluster) and citus.shard_count is 4, so that the tests' scratch schemas
# stay cheap (Citus's default is 32 shards a table).
set -euo pipefail

dir=${HERDBOOK_CITUS_DIR:-/tmp/herdbook-citus}
port=${HERDBOOK_CITUS_PORT:-9700}
workers=${HERDBOOK_CITUS_WORKERS:-2}
dbname=${HERDBOOK_CITUS_DB:-test}
caller=$(id -un)

say() { printf 'citus: %s\n' "$*"; }
die() { printf 'citus: %s\n' "$*" >&2; exit 1; }

bindir=$( (command -v pg_config >/dev/null && pg_config --bindir) || echo /usr/lib/postgresql/15/bin)
[ -x "$bindir/initdb" ] || die "no PostgreSQL server binaries in $bindir (install postgresql-15)"
pkglibdir=$( (command -v pg_config >/dev/null && pg_config --pkglibdir) || echo /usr/lib/postgresql/15/lib)

# as runs a command as the servers' owner.
if [ "$(id -u)" -eq 0 ]; then
	owner=postgres
	id "$owner" >/dev/null 2>&1 || die "running as root needs a postgres user to run the servers as"
	as() { runuser -u "$owner" -- "$@"; }
else
	owner=$caller
	as() { "$@"; }
fi

# nodes lists name:port, the coordinator first.
nodes() {
	echo "coordinator:$port"
	for i in $(seq 1 "$workers"); do echo "worker$i:$((port + i))"; done
}

psql_at() { # port database sql...
	local p=$1 d=$2
	shift 2
	as "$bindir/psql" -X -q -v ON_ERROR_STOP=1 -h 127.0.0.1 -p "$p" -U postgres -d "$d" -tA "$@"
}

running() { as "$bindir/pg_ctl" -D "$dir/$1" status >/dev/null 2>&1; }

init_node() { # name port
	local name=$1 p=$2 data=$dir/$1
	if [ -f "$data/PG_VERSION" ]; then
		return
	fi
	as "$bindir/initdb" -D "$data" -U postgres --auth=trust -E UTF8 --locale=C.UTF-8 >"$dir/$name.initdb.log" 2>&1 ||
		die "initdb of $name failed; see $dir/$name.initdb.log"
	cat >>"$data/postgresql.conf" <<EOF

# scripts/citus.sh
port = $p
listen_addresses = '127.0.0.1'
unix_socket_directories = '$dir'
shared_preload_libraries = 'citus'
citus.shard_count = 4
citus.enable_statistics_collection = off
max_connections = 300
shared_buffers = 64MB
fsync = off
full_page_writes = off
EOF
	say "initialised $name in $data (port $p)"
}

start_node() { # name port
	local name=$1 p=$2
	if running "$name"; then
		say "$name already running on port $p"
		return
	fi
	if ! as "$bindir/pg_ctl" -D "$dir/$name" -l "$dir/$name.log" -w -t 60 start >/dev/null; then
		tail -n 20 "$dir/$name.log" >&2 || true
		die "$name did not start on port $p; see $dir/$name.log (is the port taken?)"
	fi
	say "started $name on port $p"
}

prepare_node() { # name port: the caller's role, the database, the extension
	local name=$1 p=$2
	if [ "$caller" != postgres ] && [ -z "$(psql_at "$p" postgres -c "SELECT 1 FROM pg_roles WHERE rolname = '$caller'")" ]; then
		psql_at "$p" postgres -c "CREATE ROLE \"$caller\" SUPERUSER LOGIN"
		say "$name: made role $caller (superuser)"
	fi
	if [ -z "$(psql_at "$p" postgres -c "SELECT 1 FROM pg_database WHERE datname = '$dbname'")" ]; then
		psql_at "$p" postgres -c "CREATE DATABASE \"$dbname\""
		say "$name: made database $dbname"
	fi
	if [ -z "$(psql_at "$p" "$dbname" -c "SELECT 1 FROM pg_extension WHERE extname = 'citus'")" ]; then
		psql_at "$p" "$dbname" -c "CREATE EXTENSION citus"
		say "$name: CREATE EXTENSION citus in $dbname"
	fi
}

start() {
	[ -f "$pkglibdir/citus.so" ] || die "Citus is not installed in $pkglibdir: run sh ../shared/citus/install.sh as root"
	mkdir -p "$dir"
	[ "$(id -u)" -eq 0 ] && chown "$owner" "$dir"
	local n name p
	for n in $(nodes); do
		name=${n%%:*} p=${n##*:}
		init_node "$name" "$p"
		start_node "$name" "$p"
		prepare_node "$name" "$p"
	done
	psql_at "$port" "$dbname" -c "SELECT citus_set_coordinator_host('127.0.0.1', $port)" >/dev/null
	for n in $(nodes | tail -n +2); do
		name=${n%%:*} p=${n##*:}
		if [ -z "$(psql_at "$port" "$dbname" -c "SELECT 1 FROM pg_dist_node WHERE nodename = '127.0.0.1' AND nodeport = $p")" ]; then
			psql_at "$port" "$dbname" -c "SELECT citus_add_node('127.0.0.1', $p)" >/dev/null
			say "registered $name (127.0.0.1:$p) on the coordinator"
		fi
	done
	local active
	active=$(psql_at "$port" "$dbname" -c "SELECT count(*) FROM citus_get_active_worker_nodes()")
	[ "$active" -ge "$workers" ] || die "the coordinator sees $active active worker(s), want $workers"
	say "ready: $active worker(s); postgres://127.0.0.1:$port/$dbname?sslmode=disable"
}

stop() {
	local n name
	for n in $(nodes | tac); do
		name=${n%%:*}
		if [ -f "$dir/$name/PG_VERSION" ] && running "$name"; then
			as "$bindir/pg_ctl" -D "$dir/$name" -m fast -w stop >/dev/null || die "could not stop $name"
			say "stopped $name"
		else
			say "$name not running"
		fi
	done
}

status() {
	local n name p down=0
	for n in $(nodes); do
		name=${n%%:*} p=${n##*:}
		if [ -f "$dir/$name/PG_VERSION" ] && running "$name"; then
			say "$name up on port $p"
		else
			say "$name down (port $p)"
			down=1
		fi
	done
	if [ "$down" -eq 0 ]; then
		psql_at "$port" "$dbname" -F ' ' -c "SELECT 'citus: node', nodename || ':' || nodeport, noderole, CASE WHEN isactive THEN 'active' ELSE 'inactive' END FROM pg_dist_node ORDER BY nodeport"
	fi
	return "$down"
}

destroy() {
	stop
	rm -rf "$dir"
	say "removed $dir"
}

case "${1:-}" in
start) start ;;
stop) stop ;;
status) status ;;
destroy) destroy ;;
*) die "usage: scripts/citus.sh start|stop|status|destroy" ;;
esac
