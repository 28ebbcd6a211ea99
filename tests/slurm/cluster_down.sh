#!/usr/bin/env bash
# Stop the daemons cluster_up.sh started, by the pids in their pid files (never by name),
# and take its configuration out of /etc/slurm again: while a slurm.conf names a
# controller that is down, every SLURM client call, and so every snakemake command
# (the SLURM plugin asks `scontrol show config` when it loads), waits 10 s for it.
set -u
source "$(dirname "$0")/common.sh"

status=0
if [ -s "$state/started" ]; then
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
fi

if ! alive "$state/slurmctld.pid" && head -n 1 "$conf_dir/slurm.conf" 2>/dev/null | grep -qxF "$marker"; then
    for name in slurm.conf gres.conf; do
        if [ -e "$conf_dir/$name.before-natcomp" ]; then
            mv "$conf_dir/$name.before-natcomp" "$conf_dir/$name"
        else
            rm -f "$conf_dir/$name"
        fi
    done
fi
exit $status
