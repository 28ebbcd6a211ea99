# Shared by cluster_up.sh and cluster_down.sh (sourced, not run).
state=${NATCOMP_SLURM_STATE:-/run/natcomp-slurm}
# The clients (sbatch, squeue, scontrol, and srun inside jobs) read /etc/slurm.
conf_dir=/etc/slurm
marker="# natcomp test cluster (tests/slurm/cluster_up.sh)"

alive() { [ -s "$1" ] && kill -0 "$(cat "$1")" 2>/dev/null; }
