#!/usr/bin/env bash
# Stop the daemons cluster_up.sh started, by the pids in their pid files (never by name).
set -u
state=${NATCOMP_SLURM_STATE:-/run/natcomp-slurm}
[ -s "$state/started" ] || exit 0

status=0
# Reverse order: slurmd, then slurmctld, then munged.
for pidfile in $(tac "$state/started"); do
    [ -s "$pidfile" ] || continue
    pid=$(cat "$pidfile")
    if kill -0 "$pid" 2>/dev/null; then
        kill "$pid"
        for _ in $(seq 40); do kill -0 "$pid" 2>/dev/null || break; sleep 0.25; done
        if kill -0 "$pid" 2>/dev/null; then
            echo "cluster_down.sh: pid $pid ($pidfile) ignored TERM; killing it" >&2
            kill -9 "$pid"
            status=1
        fi
    fi
    rm -f "$pidfile"
done
: > "$state/started"
exit $status
