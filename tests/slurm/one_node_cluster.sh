#!/usr/bin/env bash
# A one-node SLURM cluster in a folder of its own, for the SLURM engine's test (tst_sweep_slurm):
# its own munged (key, socket), slurmctld and slurmd (ports, spool, state, logs, PID files), the node
# named by `hostname -s`. Needs root (SlurmUser root), Debian's slurm-wlm and munge; no systemd.
#   one_node_cluster.sh start DIR   writes DIR/slurm.conf, starts the daemons, waits for the node
#                                   to be idle; prints `export SLURM_CONF=DIR/slurm.conf`
#   one_node_cluster.sh stop DIR    stops the daemons by their PID files
# Exit 77 (with the reason on stderr) only where a cluster cannot be had here: not root, a tool of
# slurm-wlm or munge missing. With both there, a daemon that does not start or a node that never
# becomes idle is a broken set-up: exit 1, with the daemons' logs on stderr (the folder may be
# temporary and gone by the time anyone looks).
set -euo pipefail

mode=${1:?usage: one_node_cluster.sh start|stop DIR}
dir=${2:?usage: one_node_cluster.sh start|stop DIR}

skip() {
  echo "one_node_cluster: $*" >&2
  exit 77
}

# fail REASON: stops what started, then prints the reason and the end of each daemon's log.
fail() {
  stop
  echo "one_node_cluster: $*" >&2
  local log
  for log in munged.log slurmctld.log slurmd.log; do
    if [ -s "$dir/$log" ]; then
      echo "--- $dir/$log (its last 40 lines)" >&2
      tail -n 40 "$dir/$log" >&2
    else
      echo "--- $dir/$log: none (the daemon wrote nothing)" >&2
    fi
  done
  exit 1
}

stop() {
  local name pid
  for name in slurmd slurmctld munged; do
    [ -f "$dir/$name.pid" ] || continue
    pid=$(cat "$dir/$name.pid" 2>/dev/null || true)
    [ -n "$pid" ] && kill "$pid" 2>/dev/null || true
    for _ in $(seq 50); do
      kill -0 "$pid" 2>/dev/null || break
      sleep 0.1
    done
    kill -9 "$pid" 2>/dev/null || true
    rm -f "$dir/$name.pid"
  done
}

# A free TCP port on the loopback (the kernel picks it), so two clusters never collide.
free_port() {
  python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

start() {
  [ "$(id -u)" -eq 0 ] || skip "needs root (SlurmUser root)"
  local tool
  for tool in munged mungekey slurmctld slurmd sbatch squeue scancel scontrol sinfo; do
    command -v "$tool" >/dev/null 2>&1 || PATH=$PATH:/usr/sbin command -v "$tool" >/dev/null 2>&1 ||
      skip "$tool is missing (apt-get install slurm-wlm munge)"
  done
  export PATH=$PATH:/usr/sbin
  mkdir -p "$dir"/{state,spool,munge}
  chmod 700 "$dir" "$dir/munge"
  local host cpus memory ctld_port slurmd_port
  host=$(hostname -s)
  cpus=$(nproc)
  memory=$(awk '/MemTotal/ { print int($2 / 1024 / 2) }' /proc/meminfo)
  ctld_port=$(free_port)
  slurmd_port=$(free_port)

  mungekey --create --keyfile="$dir/munge/munge.key" --force 2>/dev/null ||
    dd if=/dev/urandom of="$dir/munge/munge.key" bs=1024 count=1 status=none
  chmod 600 "$dir/munge/munge.key"
  munged --key-file="$dir/munge/munge.key" --socket="$dir/munge/munge.socket" \
    --pid-file="$dir/munged.pid" --log-file="$dir/munged.log" --seed-file="$dir/munge/munge.seed" --force ||
    fail "munged did not start"

  cat >"$dir/slurm.conf" <<CONF
ClusterName=mlpwbtest
SlurmctldHost=$host
SlurmUser=root
SlurmdUser=root
SlurmctldPort=$ctld_port
SlurmdPort=$slurmd_port
AuthType=auth/munge
AuthInfo=socket=$dir/munge/munge.socket
CredType=cred/munge
StateSaveLocation=$dir/state
SlurmdSpoolDir=$dir/spool
SlurmctldPidFile=$dir/slurmctld.pid
SlurmdPidFile=$dir/slurmd.pid
SlurmctldLogFile=$dir/slurmctld.log
SlurmdLogFile=$dir/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
SchedulerType=sched/backfill
AccountingStorageType=accounting_storage/none
JobAcctGatherType=jobacct_gather/none
JobCompType=jobcomp/none
MpiDefault=none
ReturnToService=2
SlurmctldTimeout=30
SlurmdTimeout=30
KillWait=10
MinJobAge=30
MaxArraySize=10001
NodeName=$host CPUs=$cpus RealMemory=$memory State=UNKNOWN
PartitionName=test Nodes=$host Default=YES MaxTime=INFINITE State=UP
CONF
  export SLURM_CONF=$dir/slurm.conf
  slurmctld -f "$SLURM_CONF" -i || fail "slurmctld did not start"
  slurmd -f "$SLURM_CONF" || fail "slurmd did not start"
  local state=""
  for _ in $(seq 300); do
    state=$(sinfo -h -n "$host" -o %t 2>/dev/null || true)
    [ "$state" = idle ] && break
    sleep 0.2
  done
  [ "$state" = idle ] || fail "the node did not become idle in 60 s (state '${state:-none}')"
  echo "export SLURM_CONF=$SLURM_CONF"
}

case "$mode" in
  start) start ;;
  stop) stop ;;
  *) echo "usage: one_node_cluster.sh start|stop DIR" >&2; exit 2 ;;
esac
