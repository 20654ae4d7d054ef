#!/bin/sh
# A throwaway PostgreSQL server for the history's tests (docs/testing.md): initdb in a
# temporary directory, the server on a free loopback port, stopped and removed at exit.
#
#   ci/pg-test-server.sh               prints the URL, serves until interrupted
#   ci/pg-test-server.sh -- CMD ARGS   runs CMD with PMC_TEST_PG_URL set to the URL, and
#                                      exits with CMD's status
#
# The URL names the superuser "pmc" with the password "pmc-test" and the database
# "postgres"; connections need the password (scram-sha-256), so that a wrong one is
# refused as on a real server. The server binaries come from PG_BINDIR, else Debian's
# /usr/lib/postgresql/<version>/bin, else PATH; without them it exits 77 (skipped). As
# root, the server runs as the user "postgres" (initdb refuses root).
set -eu

bindir=${PG_BINDIR:-}
if [ -z "$bindir" ]; then
	for d in /usr/lib/postgresql/*/bin; do
		[ -x "$d/initdb" ] && bindir=$d
	done
fi
if [ -z "$bindir" ] && command -v initdb >/dev/null 2>&1; then
	bindir=$(dirname "$(command -v initdb)")
fi
if [ -z "$bindir" ] || [ ! -x "$bindir/initdb" ] || [ ! -x "$bindir/pg_ctl" ]; then
	echo "ci/pg-test-server.sh: no PostgreSQL server binaries (initdb, pg_ctl); ci/install-deps.sh installs them" >&2
	exit 77
fi

as_server() {
	if [ "$(id -u)" -eq 0 ]; then
		runuser -u postgres -- "$@"
	else
		"$@"
	fi
}

dir=$(mktemp -d "${TMPDIR:-/tmp}/pmc-pg.XXXXXX")
started=false
sleeper=
cleanup() {
	[ -z "$sleeper" ] || kill "$sleeper" 2>/dev/null || :
	if $started; then
		as_server "$bindir/pg_ctl" -D "$dir/data" -m immediate -w stop >/dev/null 2>&1 || :
	fi
	rm -rf "$dir"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
[ "$(id -u)" -eq 0 ] && chown postgres "$dir"
chmod 700 "$dir"

printf 'pmc-test\n' >"$dir/pw"
[ "$(id -u)" -eq 0 ] && chown postgres "$dir/pw"
if ! as_server "$bindir/initdb" -D "$dir/data" -U pmc --pwfile="$dir/pw" \
	--auth-local=trust --auth-host=scram-sha-256 -E UTF8 --locale=C >"$dir/initdb.log" 2>&1; then
	echo "ci/pg-test-server.sh: initdb failed:" >&2
	cat "$dir/initdb.log" >&2
	exit 1
fi

# A free port: the kernel picks one, which is closed again before the server binds it; a
# race lost to another program is retried with another port.
for attempt in 1 2 3 4 5; do
	port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
	if as_server "$bindir/pg_ctl" -D "$dir/data" -l "$dir/server.log" -w -t 60 \
		-o "-p $port -k $dir -c listen_addresses=127.0.0.1 -c fsync=off" start >/dev/null 2>&1; then
		started=true
		break
	fi
done
if ! $started; then
	echo "ci/pg-test-server.sh: the server did not start:" >&2
	tail -n 20 "$dir/server.log" >&2
	exit 1
fi

url="postgresql://pmc:pmc-test@127.0.0.1:$port/postgres"
if [ "${1:-}" = "--" ]; then
	shift
	status=0
	PMC_TEST_PG_URL=$url "$@" || status=$?
	exit $status
fi
echo "$url"
# Serve until interrupted; the trap stops the server. The sleep runs in the background:
# a shell runs a trap only after its foreground command ends, and wait returns at once.
while :; do
	sleep 3600 &
	sleeper=$!
	wait $sleeper || :
done
