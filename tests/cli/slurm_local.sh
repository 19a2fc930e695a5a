# A Slurm cluster of one node, this machine, for the tests: munged, slurmctld and slurmd
# started from Debian's packages (slurm-wlm, munge) with every file under one folder, and
# stopped again. Sourced by cli_test.sh.
#
#   slurm_up DIR    starts them, all state under DIR (a new folder), and exports SLURM_CONF
#                   so that sbatch, squeue, scancel and scontrol talk to this cluster. On
#                   failure it prints why, with the daemon's log, and returns 1.
#   slurm_down      cancels every job, stops the daemons and whatever they started (any
#                   process whose environment names this cluster's SLURM_CONF). Safe to call
#                   twice, and after a slurm_up that failed halfway.
#
# The node has this machine's CPUs; processes are tracked without cgroups
# (proctrack/linuxproc, task/none), and there is no accounting (so sacct has nothing to say).

slurm_dir=
slurm_pids=()
declare -A slurm_pid

slurm_fail() { # message: prints it and the end of each program's log
  echo "slurm_local: $*" >&2
  local name log
  for name in mungekey munged slurmctld slurmd; do
    # A daemon writes to its log file once it has read its configuration; before, only to
    # its standard error.
    log=$slurm_dir/$name.log
    [ "$name" = munged ] && log=$slurm_dir/munge/munged.log
    [ -s "$log" ] || log=$slurm_dir/$name.stderr
    [ -s "$log" ] || continue
    echo "--- last lines of $log:" >&2
    tail -n 15 "$log" >&2
  done
  return 1
}

# Two TCP ports free now on 127.0.0.1.
slurm_free_ports() {
  python3 -c '
import socket
socks = [socket.socket() for _ in range(2)]
for s in socks:
    s.bind(("127.0.0.1", 0))
print(*[s.getsockname()[1] for s in socks])'
}

# Waits up to $1 seconds (of the clock: a client can take seconds to give up on a daemon)
# for the command after it to succeed.
slurm_wait_for() {
  local deadline=$((SECONDS + $1)); shift
  until "$@" >/dev/null 2>&1; do
    [ "$SECONDS" -ge "$deadline" ] && return 1
    sleep 0.2
  done
}

# Whether the node is up and idle; fails at once, saying so, if a daemon has exited.
slurm_node_idle() {
  local name
  for name in slurmctld slurmd; do
    kill -0 "${slurm_pid[$name]}" 2>/dev/null && continue
    wait "${slurm_pid[$name]}"
    slurm_died="$name exited (status $?) while starting"
    return 0
  done
  [ "$(timeout 10 sinfo -h -N -o %T 2>/dev/null)" = idle ]
}

# Whether squeue lists none of the jobs (JOB,JOB...; none given: none at all).
slurm_jobs_gone() { [ -z "$(timeout 10 squeue -h ${1:+-j "$1"} 2>/dev/null)" ]; }

slurm_up() {
  slurm_dir=$1
  local cmd
  for cmd in munged mungekey slurmctld slurmd sbatch squeue scancel scontrol sinfo; do
    command -v "$cmd" >/dev/null ||
      { slurm_fail "$cmd is not installed: tests/install-deps.sh installs slurm-wlm and munge"; return 1; }
  done
  mkdir -p "$slurm_dir/munge" "$slurm_dir/state" "$slurm_dir/spool" || return 1
  chmod 755 "$slurm_dir/munge" # clients reach the socket through it
  mungekey --create --keyfile="$slurm_dir/munge/munge.key" >"$slurm_dir/mungekey.stderr" 2>&1 ||
    { slurm_fail "mungekey could not create a key"; return 1; }
  # -f: munged refuses to run as root without it.
  munged -F -f --socket="$slurm_dir/munge/socket" --key-file="$slurm_dir/munge/munge.key" \
    --pid-file="$slurm_dir/munge/munged.pid" --log-file="$slurm_dir/munge/munged.log" \
    --seed-file="$slurm_dir/munge/seed" >"$slurm_dir/munged.stderr" 2>&1 &
  slurm_pids+=($!)
  slurm_wait_for 10 test -S "$slurm_dir/munge/socket" ||
    { slurm_fail "munged did not start (no socket after 10 s)"; return 1; }

  local ports
  ports=$(slurm_free_ports) || { slurm_fail "no free TCP port"; return 1; }
  set -- $ports
  cat >"$slurm_dir/slurm.conf" <<EOF
ClusterName=gcreplaytest
SlurmctldHost=localhost
SlurmctldPort=$1
SlurmdPort=$2
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$slurm_dir/munge/socket
StateSaveLocation=$slurm_dir/state
SlurmdSpoolDir=$slurm_dir/spool
SlurmctldPidFile=$slurm_dir/slurmctld.pid
SlurmdPidFile=$slurm_dir/slurmd.pid
SlurmctldLogFile=$slurm_dir/slurmctld.log
SlurmdLogFile=$slurm_dir/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
MpiDefault=none
MailProg=/bin/true
ReturnToService=2
KillWait=5
SchedulerParameters=sched_interval=1
SlurmdParameters=config_overrides
NodeName=localhost NodeAddr=127.0.0.1 CPUs=$(nproc) State=UNKNOWN
PartitionName=debug Nodes=ALL Default=YES MaxTime=INFINITE State=UP
EOF
  export SLURM_CONF=$slurm_dir/slurm.conf
  slurmctld -D -f "$SLURM_CONF" >"$slurm_dir/slurmctld.stderr" 2>&1 &
  slurm_pid[slurmctld]=$!
  slurm_pids+=($!)
  slurmd -D -N localhost -f "$SLURM_CONF" >"$slurm_dir/slurmd.stderr" 2>&1 &
  slurm_pid[slurmd]=$!
  slurm_pids+=($!)
  slurm_died=
  slurm_wait_for 30 slurm_node_idle || {
    slurm_fail "the node did not become idle in 30 s (sinfo: $(timeout 10 sinfo -h -N -o '%T %E' 2>&1 | head -1))"
    return 1
  }
  [ -z "$slurm_died" ] || { slurm_fail "$slurm_died"; return 1; }
}

slurm_down() {
  [ -n "$slurm_dir" ] || return 0
  if [ -n "${slurm_pid[slurmctld]:-}" ] && kill -0 "${slurm_pid[slurmctld]}" 2>/dev/null; then
    timeout 10 scancel --quiet --partition=debug >/dev/null 2>&1
    slurm_wait_for 15 slurm_jobs_gone
  fi
  local pid
  for pid in "${slurm_pids[@]}"; do kill "$pid" 2>/dev/null; done
  for pid in "${slurm_pids[@]}"; do
    slurm_wait_for 10 bash -c "! kill -0 $pid" || kill -KILL "$pid" 2>/dev/null
    wait "$pid" 2>/dev/null
  done
  slurm_pids=()
  slurm_pid=()
  # slurmd's step daemons and the jobs' processes outlive slurmd by design: each carries
  # this cluster's SLURM_CONF in its environment.
  local conf="SLURM_CONF=$slurm_dir/slurm.conf" e
  for e in /proc/[0-9]*/environ; do
    pid=${e#/proc/}; pid=${pid%/environ}
    [ "$pid" = $$ ] || [ "$pid" = "$BASHPID" ] && continue
    { tr '\0' '\n' <"$e" | grep -qxF "$conf"; } 2>/dev/null && kill -KILL "$pid" 2>/dev/null
  done
  slurm_dir=
}
