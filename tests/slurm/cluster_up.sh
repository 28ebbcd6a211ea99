#!/usr/bin/env bash
# Start a single-node SLURM cluster on this machine for the workflow tests (Debian, root).
#
# Partitions `cpu` (default) and `gpu` share the one node; the node declares NATCOMP_FAKE_GPUS
# fake GPU devices so that GPU-declaring rules are scheduled as on a real cluster (PyTorch
# still computes on the CPU). No accounting database: clients query job state with squeue,
# so finished jobs stay visible for MinJobAge seconds.
#
# Daemons this script starts are listed (pid files) in $NATCOMP_SLURM_STATE/started;
# cluster_down.sh stops exactly those. Daemons already running are used, never restarted.
# The configuration goes to /etc/slurm (any other set-up's is kept aside and restored by
# cluster_down.sh).
set -euo pipefail
source "$(dirname "$0")/common.sh"

fake_gpus=${NATCOMP_FAKE_GPUS:-2}
node=$(hostname -s)
cpus=$(nproc)
# Leave a tenth of the memory to the operating system and the submitting Snakemake.
mem_mb=$(awk '/^MemTotal:/ {print int($2 / 1024 * 0.9)}' /proc/meminfo)

fail() { echo "cluster_up.sh: $*" >&2; exit 1; }
retry() {  # retry CMD... for up to 60 s
    local i
    for i in $(seq 120); do "$@" >/dev/null 2>&1 && return 0; sleep 0.5; done
    fail "timed out waiting for: $*"
}
start() {  # start PIDFILE CMD...: run a daemon unless running; remember what we started
    local pidfile=$1; shift
    if alive "$pidfile"; then return 0; fi
    "$@"
    retry alive "$pidfile"
    echo "$pidfile" >> "$state/started"
}

[ "$(id -u)" = 0 ] || fail "must run as root (it installs Debian packages and starts daemons)"
command -v apt-get >/dev/null || fail "needs apt-get (Debian) to install SLURM"

missing=""
for package in munge slurmctld slurmd slurm-client; do
    dpkg -s "$package" >/dev/null 2>&1 || missing="$missing $package"
done
if [ -n "$missing" ]; then
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $missing >/dev/null
fi

mkdir -p "$state"
: >> "$state/started"

# munge authenticates every SLURM message.
if [ ! -s /etc/munge/munge.key ]; then
    mungekey --create
    chown munge:munge /etc/munge/munge.key
    chmod 600 /etc/munge/munge.key
fi
install -d -o munge -g munge /run/munge
start /run/munge/munged.pid runuser -u munge -- /usr/sbin/munged
retry bash -c 'munge -n | unmunge'

gres_types="" node_gres=""
if [ "$fake_gpus" -gt 0 ]; then
    for i in $(seq 0 $((fake_gpus - 1))); do
        # A character device like /dev/null: enough for slurmd to count it as a GPU.
        [ -e "/dev/natcomp-fakegpu$i" ] || mknod -m 666 "/dev/natcomp-fakegpu$i" c 1 3
    done
    gres_types="GresTypes=gpu"
    node_gres="Gres=gpu:$fake_gpus"
    echo "NodeName=$node Name=gpu File=/dev/natcomp-fakegpu[0-$((fake_gpus - 1))]" > "$state/gres.conf"
else
    : > "$state/gres.conf"
fi

install -d "$state/ctld" "$state/slurmd" "$state/log"
cat > "$state/slurm.conf" <<CONF
$marker
ClusterName=natcomp
SlurmctldHost=$node(127.0.0.1)
SlurmUser=root
AuthType=auth/munge
CredType=cred/munge
StateSaveLocation=$state/ctld
SlurmdSpoolDir=$state/slurmd
SlurmctldPidFile=$state/slurmctld.pid
SlurmdPidFile=$state/slurmd.pid
SlurmctldLogFile=$state/log/slurmctld.log
SlurmdLogFile=$state/log/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core_Memory
SchedulerType=sched/backfill
MpiDefault=none
ReturnToService=2
AccountingStorageType=accounting_storage/none
JobAcctGatherType=jobacct_gather/none
JobCompType=jobcomp/none
MinJobAge=300
InactiveLimit=0
KillWait=5
Waittime=0
$gres_types
NodeName=$node NodeAddr=127.0.0.1 CPUs=$cpus RealMemory=$mem_mb $node_gres State=UNKNOWN
PartitionName=cpu Nodes=ALL Default=YES MaxTime=INFINITE State=UP
PartitionName=gpu Nodes=ALL MaxTime=INFINITE State=UP
CONF

if ! alive "$state/slurmctld.pid" && scontrol ping 2>/dev/null | grep -q UP; then
    fail "another slurmctld is running on this machine; stop it first (this script only stops what it started)"
fi
for name in slurm.conf gres.conf; do
    if [ -e "$conf_dir/$name" ] && ! cmp -s "$state/$name" "$conf_dir/$name"; then
        for pidfile in "$state/slurmctld.pid" "$state/slurmd.pid"; do
            alive "$pidfile" && fail "the test cluster runs with another configuration; stop it first (tests/slurm/cluster_down.sh)"
        done
        if ! head -n 1 "$conf_dir/slurm.conf" 2>/dev/null | grep -qxF "$marker"; then
            cp "$conf_dir/$name" "$conf_dir/$name.before-natcomp"
        fi
    fi
done
install -m 644 "$state/slurm.conf" "$conf_dir/slurm.conf"
install -m 644 "$state/gres.conf" "$conf_dir/gres.conf"

start "$state/slurmctld.pid" slurmctld
retry scontrol ping
start "$state/slurmd.pid" slurmd
if ! (retry bash -c "sinfo -h -n $node -o %t | grep -Eqx 'idle|mix|alloc'") 2>/dev/null; then
    scontrol update nodename="$node" state=resume
    retry bash -c "sinfo -h -n $node -o %t | grep -Eqx 'idle|mix|alloc'"
fi
sinfo
