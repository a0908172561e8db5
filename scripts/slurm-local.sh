#!/usr/bin/env bash
# A single-node Slurm on this machine (Debian or Ubuntu, as root), for the
# Slurm executor's integration test (pipelines/slurm_integration_test.go):
#
#   scripts/slurm-local.sh start    # install (apt-get) what is missing, start munged, slurmctld, slurmd
#   scripts/slurm-local.sh status   # which daemons run; sinfo
#   scripts/slurm-local.sh stop     # stop the three daemons by their pid files
#
# start is idempotent: a running daemon is left alone. It writes
# /etc/slurm/slurm.conf only when there is none or it is one this script
# wrote (a line "# written by mirage scripts/slurm-local.sh"), so a real
# cluster's configuration is never touched. No accounting (slurmdbd,
# sacct): mirage pipeline status reads squeue and the jobs' own state files.
# The node is this host with the CPUs and memory slurmd -C finds; one
# partition, "debug". About 2 s to start when installed (about 15 s more
# to install slurm-wlm and munge).
set -euo pipefail

MARK="# written by mirage scripts/slurm-local.sh"
CONF=/etc/slurm/slurm.conf
RUN=/run/slurm
MUNGE_PID=/run/munge/munged.pid
CTLD_PID=$RUN/slurmctld.pid
SLURMD_PID=$RUN/slurmd.pid
LOG=/var/log/slurm

die() { echo "slurm-local: $*" >&2; exit 1; }
say() { echo "slurm-local: $*" >&2; }

running() { # pidfile: true when its process is alive
	[[ -s $1 ]] && kill -0 "$(cat "$1")" 2>/dev/null
}

install_packages() {
	if command -v slurmctld >/dev/null && command -v slurmd >/dev/null &&
		command -v sbatch >/dev/null && command -v munged >/dev/null; then
		return
	fi
	command -v apt-get >/dev/null || die "slurmctld, slurmd, sbatch or munged missing and no apt-get to install them"
	say "installing slurm-wlm and munge (apt-get)"
	# Keep the packages' init scripts from starting daemons with no
	# configuration: we start them below.
	local policy=/usr/sbin/policy-rc.d made=""
	if [[ ! -e $policy ]]; then
		printf '#!/bin/sh\nexit 101\n' >"$policy" && chmod 755 "$policy" && made=1
	fi
	export DEBIAN_FRONTEND=noninteractive
	local rc=0
	{ apt-get update -qq && apt-get install -y -qq --no-install-recommends slurm-wlm munge >/dev/null; } || rc=$?
	[[ -n $made ]] && rm -f "$policy"
	((rc == 0)) || die "apt-get install slurm-wlm munge failed (exit $rc)"
}

write_conf() {
	if [[ -e $CONF ]] && ! grep -qxF "$MARK" "$CONF"; then
		say "$CONF exists and was not written by this script: using it as it is"
		return
	fi
	local node host
	host=$(hostname -s)
	# slurmd -C prints this machine's NodeName line (CPUs, sockets, memory).
	node=$(slurmd -C 2>/dev/null | head -n 1)
	[[ $node == NodeName=* ]] || node="NodeName=$host CPUs=$(nproc)"
	mkdir -p "$(dirname "$CONF")"
	cat >"$CONF.tmp" <<EOF
$MARK
# A single-node test cluster; no accounting.
ClusterName=mirage-local
SlurmctldHost=$host(127.0.0.1)
SlurmUser=root
AuthType=auth/munge
CredType=cred/munge
MpiDefault=none
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
ReturnToService=2
SlurmctldPidFile=$CTLD_PID
SlurmdPidFile=$SLURMD_PID
SlurmctldPort=6817
SlurmdPort=6818
StateSaveLocation=/var/spool/slurmctld
SlurmdSpoolDir=/var/spool/slurmd
SlurmctldLogFile=$LOG/slurmctld.log
SlurmdLogFile=$LOG/slurmd.log
SchedulerType=sched/backfill
SchedulerParameters=bf_interval=1,sched_min_interval=100000
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
AccountingStorageType=accounting_storage/none
JobAcctGatherType=jobacct_gather/none
JobCompType=jobcomp/none
InactiveLimit=0
KillWait=5
MinJobAge=300
Waittime=0
SlurmctldTimeout=30
SlurmdTimeout=60
$node NodeAddr=127.0.0.1 State=UNKNOWN
PartitionName=debug Nodes=$host Default=YES MaxTime=INFINITE State=UP
EOF
	mv "$CONF.tmp" "$CONF"
}

start_munge() {
	running "$MUNGE_PID" && return
	if [[ ! -s /etc/munge/munge.key ]]; then
		if command -v mungekey >/dev/null; then mungekey --create --force; else
			dd if=/dev/urandom of=/etc/munge/munge.key bs=1024 count=1 status=none
		fi
		chown munge:munge /etc/munge/munge.key && chmod 400 /etc/munge/munge.key
	fi
	install -d -o munge -g munge -m 755 /run/munge
	runuser -u munge -- /usr/sbin/munged --force
}

start_slurm() {
	mkdir -p "$RUN" /var/spool/slurmctld /var/spool/slurmd "$LOG"
	running "$CTLD_PID" || slurmctld
	running "$SLURMD_PID" || slurmd
}

wait_idle() { # up to 30 s for the node to take jobs
	local host state i
	host=$(hostname -s)
	for ((i = 0; i < 60; i++)); do
		state=$(sinfo -h -N -n "$host" -o %T 2>/dev/null | head -n 1 || true)
		case $state in
		idle* | mixed* | allocated* | completing*) say "up: node $host $state"; return 0 ;;
		down* | drain*) scontrol update NodeName="$host" State=RESUME 2>/dev/null || true ;;
		esac
		sleep 0.5
	done
	die "node $host not up after 30 s (state '${state:-none}'); see $LOG/slurmctld.log and $LOG/slurmd.log"
}

stop_pid() { # name pidfile
	if ! running "$2"; then
		say "$1 not running"
		return
	fi
	local pid i
	pid=$(cat "$2")
	kill "$pid"
	for ((i = 0; i < 50; i++)); do
		kill -0 "$pid" 2>/dev/null || { say "$1 stopped (pid $pid)"; return; }
		sleep 0.1
	done
	kill -9 "$pid" 2>/dev/null || true
	say "$1 killed (pid $pid)"
}

case ${1:-} in
start)
	[[ $(id -u) == 0 ]] || die "start needs root (it installs packages and starts daemons)"
	install_packages
	write_conf
	start_munge
	start_slurm
	wait_idle
	;;
stop)
	[[ $(id -u) == 0 ]] || die "stop needs root"
	stop_pid slurmd "$SLURMD_PID"
	stop_pid slurmctld "$CTLD_PID"
	stop_pid munged "$MUNGE_PID"
	;;
status)
	rc=0
	for d in munged:$MUNGE_PID slurmctld:$CTLD_PID slurmd:$SLURMD_PID; do
		if running "${d#*:}"; then echo "${d%%:*} running (pid $(cat "${d#*:}"))"; else echo "${d%%:*} not running"; rc=1; fi
	done
	sinfo 2>/dev/null || rc=1
	exit $rc
	;;
*)
	echo "usage: $0 start|stop|status" >&2
	exit 3
	;;
esac
