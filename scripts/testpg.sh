#!/usr/bin/env bash
# testpg.sh: ensure a throwaway PostgreSQL cluster for tests and print its URL.
#
# Idempotent: installs PostgreSQL (Debian's package) when initdb is missing,
# initializes a cluster in $ALERTD_TESTPG_DIR (default /tmp/alertd-testpg, or
# /tmp/alertd-testpg-<user> for a non-root user), starts it on 127.0.0.1 on a
# spare port (55432 when free; remembered in the cluster dir), and prints
#   postgres://postgres@127.0.0.1:<port>/postgres?sslmode=disable
# as the last line of stdout. If the cluster already runs it only prints the
# URL. Progress goes to stderr. Tuned for speed, not safety: fsync=off,
# synchronous_commit=off, full_page_writes=off, trust authentication.
#
# PostgreSQL refuses to run as root: as root the cluster belongs to the
# postgres user (runuser); as anyone else it belongs to that user.
# Concurrent runs are serialized with flock.
set -euo pipefail

log() { printf 'testpg: %s\n' "$*" >&2; }
die() { log "error: $*"; exit 1; }

if [ "$(id -u)" = 0 ]; then
	default_dir=/tmp/alertd-testpg
else
	default_dir="/tmp/alertd-testpg-$(id -un)"
fi
DIR="${ALERTD_TESTPG_DIR:-$default_dir}"
DATA="$DIR/data"
PORT_FILE="$DIR/port"
LOG_FILE="$DIR/server.log"
FIRST_PORT=55432

# Serialize concurrent runs (parallel test binaries call this at once).
if command -v flock >/dev/null 2>&1; then
	exec 9>"$DIR.lock" || die "cannot open lock file $DIR.lock"
	flock -w 600 9 || die "timed out waiting for $DIR.lock"
fi

# --- binaries -----------------------------------------------------------------
find_bindir() {
	local d
	if command -v initdb >/dev/null 2>&1 && command -v pg_ctl >/dev/null 2>&1; then
		dirname "$(readlink -f "$(command -v initdb)")"
		return 0
	fi
	# Newest version first.
	for d in $(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -t/ -k4 -n -r); do
		if [ -x "$d/initdb" ] && [ -x "$d/pg_ctl" ]; then
			echo "$d"
			return 0
		fi
	done
	return 1
}

if ! BIN="$(find_bindir)"; then
	log "PostgreSQL not found; installing Debian's postgresql package"
	SUDO=""
	if [ "$(id -u)" != 0 ]; then
		command -v sudo >/dev/null 2>&1 || die "initdb is missing and $(id -un) cannot install packages (no sudo)"
		SUDO="sudo -n"
	fi
	$SUDO apt-get update >&2 || die "apt-get update failed"
	$SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends postgresql >&2 ||
		die "apt-get install postgresql failed"
	BIN="$(find_bindir)" || die "postgresql installed but initdb not found"
fi
log "using $BIN"

# --- who runs the server -------------------------------------------------------
if [ "$(id -u)" = 0 ]; then
	if ! id postgres >/dev/null 2>&1; then
		log "creating system user postgres"
		useradd --system --no-create-home --shell /usr/sbin/nologin postgres ||
			die "cannot create the postgres user"
	fi
	OWNER=postgres
	if command -v runuser >/dev/null 2>&1; then
		as_owner() { runuser -u postgres -- "$@"; }
	else
		as_owner() { su -s /bin/sh postgres -c "$(printf '%q ' "$@")"; }
	fi
else
	OWNER="$(id -un)"
	as_owner() { "$@"; }
fi

mkdir -p "$DIR"
if [ "$(id -u)" = 0 ]; then
	chown -R postgres: "$DIR"
fi
chmod 700 "$DIR"

# --- helpers -------------------------------------------------------------------
port_busy() { (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }

ready() { # ready PORT: the server answers on 127.0.0.1:PORT
	"$BIN/pg_isready" -q -h 127.0.0.1 -p "$1" -U postgres -d postgres -t 2 >/dev/null 2>&1
}

ours() { # ours PORT: the server on PORT serves our data directory
	local d
	d="$("$BIN/psql" -XAtq -h 127.0.0.1 -p "$1" -U postgres -d postgres -c 'SHOW data_directory' 2>/dev/null)" || return 1
	[ "$(readlink -f "$d")" = "$(readlink -f "$DATA")" ]
}

is_our_postmaster() { # is_our_postmaster PID: PID is a live postgres serving $DATA
	local cmd
	cmd="$(tr '\0' ' ' <"/proc/$1/cmdline" 2>/dev/null)" || return 1
	case "$cmd" in *postgres*) ;; *) return 1 ;; esac
	# The postmaster runs in its data directory (pg_ctl restart drops -D).
	[ "$(readlink -f "/proc/$1/cwd" 2>/dev/null)" = "$(readlink -f "$DATA")" ] ||
		case "$cmd" in *"-D $DATA"*) true ;; *) false ;; esac
}

url() { echo "postgres://postgres@127.0.0.1:$1/postgres?sslmode=disable"; }

# --- already running? ----------------------------------------------------------
if [ -f "$PORT_FILE" ]; then
	PORT="$(cat "$PORT_FILE")"
	if ready "$PORT" && ours "$PORT"; then
		log "cluster in $DATA already running on port $PORT"
		url "$PORT"
		exit 0
	fi
fi

# --- initialize ----------------------------------------------------------------
major="$("$BIN/initdb" --version | sed -E 's/.* ([0-9]+)(\.[0-9]+)*.*/\1/')"
if [ -f "$DATA/PG_VERSION" ] && [ "$(cat "$DATA/PG_VERSION")" != "$major" ]; then
	log "cluster in $DATA is from PostgreSQL $(cat "$DATA/PG_VERSION"), not $major: recreating"
	as_owner "$BIN/pg_ctl" -D "$DATA" -m immediate stop >/dev/null 2>&1 || true
	rm -rf "$DATA"
fi
if [ ! -f "$DATA/PG_VERSION" ]; then
	log "initializing a cluster in $DATA"
	rm -rf "$DATA"
	as_owner "$BIN/initdb" -D "$DATA" -U postgres -A trust -E UTF8 --locale=C --no-sync >&2
	cat >>"$DATA/postgresql.conf" <<CONF

# alertd test cluster (scripts/testpg.sh): fast, not durable.
listen_addresses = '127.0.0.1'
unix_socket_directories = '$DIR'
max_connections = 300
fsync = off
synchronous_commit = off
full_page_writes = off
shared_buffers = 128MB
CONF
	cat >"$DATA/pg_hba.conf" <<HBA
# alertd test cluster: trust, local and loopback only.
local all all trust
host  all all 127.0.0.1/32 trust
host  all all ::1/128 trust
HBA
fi

# --- stale or stuck server -------------------------------------------------------
if [ -f "$DATA/postmaster.pid" ]; then
	pid="$(head -n1 "$DATA/postmaster.pid" 2>/dev/null || true)"
	# Ours if that process is a postgres serving $DATA (after a reboot the pid
	# may belong to anything; a zombie has an empty command line).
	if [ -n "$pid" ] && is_our_postmaster "$pid"; then
		# A server of ours is up (or starting) but not answering on the
		# remembered port: give it a moment, else restart it.
		# Line 4 of postmaster.pid is the port the server listens on.
		PORT="$(sed -n 4p "$DATA/postmaster.pid" 2>/dev/null)"
		[ -n "$PORT" ] || PORT="$(cat "$PORT_FILE" 2>/dev/null || echo "$FIRST_PORT")"
		for _ in $(seq 1 20); do
			if ready "$PORT" && ours "$PORT"; then
				log "cluster in $DATA running on port $PORT"
				echo "$PORT" >"$PORT_FILE"
				url "$PORT"
				exit 0
			fi
			sleep 0.5
		done
		log "server $pid does not answer on port $PORT: restarting it"
		as_owner "$BIN/pg_ctl" -D "$DATA" -m fast -w -t 30 stop >&2 ||
			as_owner "$BIN/pg_ctl" -D "$DATA" -m immediate stop >&2 || true
	fi
	if [ -f "$DATA/postmaster.pid" ]; then
		log "removing stale $DATA/postmaster.pid"
		rm -f "$DATA/postmaster.pid"
	fi
fi

# No server of ours runs now: socket lock files left by a dead one would make
# the new one refuse to start.
rm -f "$DIR"/.s.PGSQL.*

# --- port ----------------------------------------------------------------------
PORT=""
if [ -f "$PORT_FILE" ] && ! port_busy "$(cat "$PORT_FILE")"; then
	PORT="$(cat "$PORT_FILE")"
fi
if [ -z "$PORT" ]; then
	for p in $(seq "$FIRST_PORT" $((FIRST_PORT + 200))); do
		if ! port_busy "$p"; then
			PORT="$p"
			break
		fi
	done
fi
[ -n "$PORT" ] || die "no free port in $FIRST_PORT..$((FIRST_PORT + 200))"
echo "$PORT" >"$PORT_FILE"
[ "$(id -u)" = 0 ] && chown postgres: "$PORT_FILE"

# --- start ---------------------------------------------------------------------
log "starting the cluster in $DATA on 127.0.0.1:$PORT as $OWNER"
# 9>&-: the server must not inherit (and so hold) the lock.
if ! as_owner "$BIN/pg_ctl" -D "$DATA" -l "$LOG_FILE" -w -t 60 -o "-p $PORT" start >&2 9>&-; then
	tail -n 20 "$LOG_FILE" >&2 || true
	die "pg_ctl start failed (log: $LOG_FILE)"
fi
for _ in $(seq 1 60); do
	ready "$PORT" && break
	sleep 0.5
done
ready "$PORT" || die "server started but does not answer on 127.0.0.1:$PORT (log: $LOG_FILE)"
url "$PORT"
