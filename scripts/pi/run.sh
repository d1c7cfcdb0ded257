#!/usr/bin/env bash
# run.sh runs the deferbench suite on one or more Raspberry Pis over ssh, in
# parallel, and fetches each run folder into results/.
#
# usage: scripts/pi/run.sh [OPTIONS] HOST... [--] [DEFERBENCH RUN FLAGS...]
#
# Options (before the hosts):
#   --performance       set every cpufreq policy's governor to performance for
#                       the run and restore the previous governors afterwards
#                       (needs passwordless sudo on the board)
#   --governor NAME     like --performance, with another governor
#   --goarch ARCH       arm64, arm or amd64: override the choice by `uname -m`
#                       (e.g. arm on 32-bit Pi OS with a 64-bit kernel)
#   --idle-load L       wait until the 1-minute load average is below L (0.5)
#   --idle-timeout S    wait at most S seconds for that (300; 10 when local),
#                       then run anyway with a warning
#   --results DIR       where run folders land (results/)
#   --bin DIR           where `make cross` put the binaries (bin/)
#   --keep-remote       leave the run folder on the board after fetching it
#
# Everything after the hosts (from the first argument that starts with "-",
# or after "--") is passed to `deferbench run`; run.sh adds -out itself.
#
# Environment:
#   PI_SSH=ssh          (default) reach HOST with ssh/scp, BatchMode, key auth
#   PI_SSH=local        run the same flow on this machine: ssh/scp become local
#                       commands in a temporary "remote home", `uname -m` answers
#                       PI_LOCAL_MACHINE (aarch64), and an ARM binary runs under
#                       qemu-user (qemu-aarch64-static / qemu-arm-static), which
#                       is installed from Debian's packages when missing
#   PI_SSH_OPTS         extra ssh/scp options, e.g. "-o Port=2222"
#   PI_REMOTE_DIR       folder under the remote home to work in (deferbench)
#   PI_CPUFREQ_DIR      the board's cpufreq folder (/sys/devices/system/cpu/cpufreq;
#                       tests point it at a fake one)
#
# Example:
#   make cross && scripts/pi/run.sh --performance pi4.local pi5.local -quick
#   PI_SSH=local scripts/pi/run.sh localhost -quick
#
# Each host's output is prefixed with [HOST]. The exit status is 0 when every
# host produced a run folder and `deferbench run` succeeded there.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)

usage() {
	sed -n '2,/^set -euo/p' "$0" | sed -e '$d' -e 's/^# \{0,1\}//'
}

die() {
	echo "run.sh: $*" >&2
	exit 1
}

governor=""
goarch_override=""
idle_load="0.5"
idle_timeout=""
results="$repo/results"
bindir="$repo/bin"
keep_remote=0
mode=${PI_SSH:-ssh}
remote_dir=${PI_REMOTE_DIR:-deferbench}
cpufreq_dir=${PI_CPUFREQ_DIR:-/sys/devices/system/cpu/cpufreq}

while [ $# -gt 0 ]; do
	case $1 in
	--performance) governor=performance ;;
	--governor | --goarch | --idle-load | --idle-timeout | --results | --bin)
		[ $# -ge 2 ] || die "$1 needs a value"
		case $1 in
		--governor) governor=$2 ;;
		--goarch) goarch_override=$2 ;;
		--idle-load) idle_load=$2 ;;
		--idle-timeout) idle_timeout=$2 ;;
		--results) results=$2 ;;
		--bin) bindir=$2 ;;
		esac
		shift
		;;
	--keep-remote) keep_remote=1 ;;
	-h | --help)
		usage
		exit 0
		;;
	--) die "no hosts given before --; usage: scripts/pi/run.sh [OPTIONS] HOST... [DEFERBENCH RUN FLAGS]" ;;
	-*) die "unknown option $1 (deferbench flags go after the hosts; see --help)" ;;
	*) break ;;
	esac
	shift
done

hosts=()
while [ $# -gt 0 ]; do
	case $1 in
	--)
		shift
		break
		;;
	-*) break ;;
	*) hosts+=("$1") ;;
	esac
	shift
done
passthrough=("$@")

[ ${#hosts[@]} -gt 0 ] || die "no hosts given; usage: scripts/pi/run.sh [OPTIONS] HOST... [DEFERBENCH RUN FLAGS] (see --help)"
for ((i = 0; i < ${#hosts[@]}; i++)); do
	for ((j = i + 1; j < ${#hosts[@]}; j++)); do
		[ "${hosts[i]}" != "${hosts[j]}" ] || die "host ${hosts[i]} given twice"
	done
done
for a in ${passthrough[@]+"${passthrough[@]}"}; do
	case $a in
	-out | -out=* | --out | --out=*) die "run.sh sets -out itself; use --results DIR for the local folder" ;;
	esac
done
case $mode in
ssh | local) ;;
*) die "PI_SSH=$mode: want ssh or local" ;;
esac
case $idle_load in
'' | *[!0-9.]* | *.*.*) die "--idle-load $idle_load: want a number such as 0.5" ;;
esac
if [ -z "$idle_timeout" ]; then
	if [ "$mode" = local ]; then idle_timeout=10; else idle_timeout=300; fi
fi
case $idle_timeout in
'' | *[!0-9]*) die "--idle-timeout $idle_timeout: want whole seconds" ;;
esac
case $cpufreq_dir in
*[!A-Za-z0-9._/-]*) die "PI_CPUFREQ_DIR=$cpufreq_dir: want a plain path" ;;
esac
case $governor in
*[!A-Za-z0-9_-]*) die "--governor $governor: want a governor name such as performance" ;;
esac
case $remote_dir in
'' | /* | *..* | *[!A-Za-z0-9._/-]*) die "PI_REMOTE_DIR=$remote_dir: want a plain relative folder name" ;;
esac
if ! ls "$bindir"/deferbench-linux-* >/dev/null 2>&1; then
	die "no binaries in $bindir: run make cross first"
fi
mkdir -p "$results" || die "cannot create $results"
results=$(cd "$results" && pwd)

ssh_opts=(-o BatchMode=yes -o ConnectTimeout=10)
if [ -n "${PI_SSH_OPTS:-}" ]; then
	read -r -a extra <<<"$PI_SSH_OPTS"
	ssh_opts+=("${extra[@]}")
fi

# The transport: rsh runs a shell command on the host (in its home folder),
# put copies a local file there, get copies a remote folder here. In local
# mode the "remote home" is a temporary folder, lhome, made per host.
lhome=""
rsh() {
	local host=$1
	shift
	if [ "$mode" = local ]; then
		(cd "$lhome" && bash -c "$*")
	else
		# shellcheck disable=SC2029 # the command is meant to expand on the host
		ssh "${ssh_opts[@]}" "$host" "$*"
	fi
}
put() { # put HOST LOCAL REMOTE
	if [ "$mode" = local ]; then
		cp "$2" "$lhome/$3"
	else
		scp -q "${ssh_opts[@]}" "$2" "$1:$3"
	fi
}
get() { # get HOST REMOTE LOCALDIR
	if [ "$mode" = local ]; then
		cp -R "$lhome/$2" "$3/"
	else
		scp -q -r "${ssh_opts[@]}" "$1:$2" "$3/"
	fi
}
remote_machine() {
	if [ "$mode" = local ]; then
		echo "${PI_LOCAL_MACHINE:-aarch64}"
	else
		rsh "$1" uname -m
	fi
}

# run_host runs in its own subshell, so these globals are per host: cur_host,
# the governors to restore (saved), the running `deferbench run` (child: the
# local ssh or shell; rpidfile: the file on the host holding its process id)
# and the file the exit status goes to (statusfile).
cur_host=""
saved=""
child=""
rpidfile=""
statusfile=""
# as_root sets $s on the host to the command that writes as root: nothing for root, else sudo -n.
# shellcheck disable=SC2016 # expands on the host
as_root='s=; [ "$(id -u)" -eq 0 ] || s="sudo -n"'
# cleanup, the EXIT trap of run_host's subshell, stops a run still going,
# restores the governors, removes the local-mode remote home and records the
# exit status.
cleanup() {
	local rc=$?
	if [ -n "$child" ]; then
		echo "stopping deferbench run (what finished stays in its run folder on the host)"
		rsh "$cur_host" "kill -TERM \$(cat $rpidfile) 2>/dev/null; rm -f $rpidfile" </dev/null || true
		kill -TERM "$child" 2>/dev/null || true
		wait "$child" 2>/dev/null || true
	fi
	if [ -n "$saved" ]; then
		echo "restoring governors"
		# shellcheck disable=SC2016 # expands on the host
		printf '%s\n' "$saved" | rsh "$cur_host" "$as_root"'; while IFS== read -r f g; do echo "$g" | $s tee "$f" >/dev/null; done' ||
			echo "warning: could not restore governors: $saved" >&2
	fi
	if [ -n "$lhome" ]; then
		rm -rf "$lhome"
	fi
	if [ -n "$statusfile" ]; then
		echo "$rc" >"$statusfile"
	fi
}

# below reports whether the decimal $1 is below $2.
below() {
	awk -v a="$1" -v b="$2" 'BEGIN { exit !(a + 0 < b + 0) }'
}

# run_host HOST STATUSFILE runs the whole flow for one host; run it in a
# subshell. It writes its process id to STATUSFILE.pid (the main shell sends
# it SIGTERM on Ctrl-C) and its exit status to STATUSFILE.
run_host() {
	local host=$1 machine goarch runner="" bin out status=0 stage
	cur_host=$host
	statusfile=$2
	if [ -n "${BASHPID:-}" ]; then
		echo "$BASHPID" >"$statusfile.pid"
	else
		# shellcheck disable=SC2016 # $PPID of sh is this subshell (bash 3.2 has no BASHPID)
		sh -c 'echo "$PPID"' >"$statusfile.pid"
	fi
	trap cleanup EXIT
	trap 'exit 130' INT TERM

	if [ "$mode" = local ]; then
		lhome=$(mktemp -d "${TMPDIR:-/tmp}/deferbench-pi.XXXXXX")
	fi

	local err
	err=$(rsh "$host" true </dev/null 2>&1) ||
		die "$host unreachable: $(printf '%s' "$err" | tail -n 1) (check the name, the network and the ssh key; see docs/pi-setup.md)"

	machine=$(remote_machine "$host" </dev/null) || die "$host: uname -m failed"
	case ${goarch_override:-$machine} in
	aarch64 | arm64) goarch=arm64 ;;
	armv7l | armv8l | arm) goarch=arm ;;
	x86_64 | amd64) goarch=amd64 ;;
	armv6l) die "$host is ARMv6 (Pi 1/Zero): not supported, the 32-bit build needs ARMv7 (GOARM=7)" ;;
	*) die "$host: unsupported machine '${goarch_override:-$machine}' (want aarch64, armv7l or x86_64)" ;;
	esac
	bin="$bindir/deferbench-linux-$goarch"
	[ -f "$bin" ] || die "missing $bin: run make cross first"

	if [ "$mode" = local ] && [ "$goarch" != amd64 ]; then
		"$repo/scripts/ensure-qemu.sh" || die "qemu-user-static is needed for PI_SSH=local"
		if [ "$goarch" = arm64 ]; then runner="qemu-aarch64-static "; else runner="qemu-arm-static "; fi
	fi
	echo "machine $machine: using $(basename "$bin")${runner:+ under ${runner% }}"

	rsh "$host" "mkdir -p $remote_dir" </dev/null || die "$host: cannot create ~/$remote_dir"
	put "$host" "$bin" "$remote_dir/deferbench" || die "$host: copying $bin failed"
	rsh "$host" "chmod +x $remote_dir/deferbench" </dev/null

	if [ -n "$governor" ]; then
		# shellcheck disable=SC2016 # expands on the host
		saved=$(rsh "$host" "for f in $cpufreq_dir/policy*/scaling_governor; do "'[ -r "$f" ] && echo "$f=$(cat "$f")"; done; true' </dev/null)
		if [ -z "$saved" ]; then
			echo "warning: no cpufreq policies on $host; governor left alone" >&2
		elif rsh "$host" "$as_root; for f in $cpufreq_dir/policy*/scaling_governor; do echo $governor | \$s tee \"\$f\" >/dev/null || exit 1; done" </dev/null; then
			echo "governor set to $governor (was: $(printf '%s' "$saved" | sed 's|.*/\(policy[0-9]*\)/scaling_governor=|\1=|' | tr '\n' ' '))"
		else
			echo "warning: could not set governor $governor (needs passwordless sudo); running with the current one" >&2
		fi
	fi

	local waited=0 load
	while :; do
		load=$(rsh "$host" 'cut -d" " -f1 /proc/loadavg' </dev/null) || die "$host: cannot read /proc/loadavg"
		if below "$load" "$idle_load"; then
			echo "idle: load $load < $idle_load"
			break
		fi
		if [ "$waited" -ge "$idle_timeout" ]; then
			echo "warning: load $load still >= $idle_load after ${idle_timeout}s; running anyway (env.json records the load)" >&2
			break
		fi
		[ "$waited" -eq 0 ] && echo "waiting for load $load < $idle_load (at most ${idle_timeout}s)"
		sleep 5
		waited=$((waited + 5))
	done

	# The run folder is named as deferbench names it: <yyyymmdd-hhmmss>-<host>-<goarch>,
	# with the board's clock and host name.
	# shellcheck disable=SC2016 # expands on the host
	out=$(rsh "$host" 'echo "$(date +%Y%m%d-%H%M%S)-$(hostname)"' </dev/null) || die "$host: date/hostname failed"
	out="$(printf '%s' "$out" | tr -c 'A-Za-z0-9._\n-' '_')-$goarch"
	rsh "$host" "test ! -e $remote_dir/$out" </dev/null || die "$host: ~/$remote_dir/$out exists already; try again in a second"
	local args="" a
	for a in ${passthrough[@]+"${passthrough[@]}"}; do
		args+=" $(printf '%q' "$a")"
	done
	echo "running: ${runner}deferbench run -out ~/$remote_dir/$out$args"
	# In the background, so that a signal can stop it (see cleanup); exec keeps
	# the process id written to $rpidfile.
	rpidfile="$remote_dir/$out.pid"
	local cmd="cd $remote_dir && echo \$\$ >$out.pid && exec ${runner}./deferbench run -out $out$args"
	if [ "$mode" = local ]; then
		(cd "$lhome" && exec bash -c "$cmd") </dev/null &
	else
		# shellcheck disable=SC2029 # the command is meant to expand on the host
		ssh "${ssh_opts[@]}" "$host" "$cmd" </dev/null &
	fi
	child=$!
	wait "$child" || status=$?
	child=""
	rsh "$host" "rm -f $rpidfile" </dev/null || true
	[ "$status" -eq 0 ] || echo "deferbench run exited with status $status; fetching what it wrote" >&2

	rsh "$host" "test -d $remote_dir/$out" </dev/null || die "$host: deferbench wrote no ~/$remote_dir/$out"
	stage=$(mktemp -d "$results/.fetch.XXXXXX")
	if ! get "$host" "$remote_dir/$out" "$stage"; then
		rm -rf "$stage"
		die "$host: fetching ~/$remote_dir/$out failed"
	fi
	# -out is either the run folder itself or the folder run folders go in.
	local runs=() d name dest n fetched=0
	if [ -f "$stage/$out/bench.txt" ]; then
		runs=("$stage/$out")
	else
		for d in "$stage/$out"/*/; do
			[ -d "$d" ] && runs+=("${d%/}")
		done
	fi
	for d in ${runs[@]+"${runs[@]}"}; do
		name=$(basename "$d")
		dest="$results/$name"
		n=2
		while [ -e "$dest" ]; do
			dest="$results/$name-$n"
			n=$((n + 1))
		done
		mv "$d" "$dest"
		fetched=$((fetched + 1))
		echo "fetched ${dest#"$repo"/}"
		if [ -f "$dest/bench.txt" ]; then
			grep -E '^(goarch|host-model|throttled|under-voltage):' "$dest/bench.txt" | paste -sd ' ' - || true
		fi
	done
	rm -rf "$stage"
	[ "$fetched" -gt 0 ] || die "$host: ~/$remote_dir/$out held no run folder"
	if [ "$keep_remote" -eq 0 ]; then
		rsh "$host" "rm -rf $remote_dir/$out" </dev/null || true
	fi
	return "$status"
}

# prefix copies its input with "[HOST] " before each line. It ignores Ctrl-C so
# that what a host says while cleaning up after an interrupt still shows.
prefix() {
	local line
	trap '' INT
	while IFS= read -r line; do
		printf '[%s] %s\n' "$1" "$line"
	done
}

statusdir=$(mktemp -d "${TMPDIR:-/tmp}/deferbench-pi-status.XXXXXX")
trap 'rm -rf "$statusdir"' EXIT
pids=()
i=0
for h in "${hosts[@]}"; do
	(run_host "$h" "$statusdir/$i") 2>&1 | prefix "$h" &
	pids+=($!)
	i=$((i + 1))
done

# On Ctrl-C (or SIGTERM) every host stops its run, restores its governor and
# exits; wait for all of them. Background jobs ignore SIGINT, so it is passed on
# as SIGTERM.
interrupted=0
stop_hosts() {
	interrupted=1
	local f
	for f in "$statusdir"/*.pid; do
		[ -f "$f" ] && kill -TERM "$(cat "$f")" 2>/dev/null
	done
	return 0
}
trap stop_hosts INT TERM
for p in "${pids[@]}"; do
	while kill -0 "$p" 2>/dev/null; do
		wait "$p" || true
	done
done
[ "$interrupted" -eq 0 ] || die "interrupted"

failed=()
i=0
for h in "${hosts[@]}"; do
	st=$(cat "$statusdir/$i" 2>/dev/null || echo 1)
	[ "$st" = 0 ] || failed+=("$h")
	i=$((i + 1))
done
if [ ${#failed[@]} -gt 0 ]; then
	die "${#failed[@]} of ${#hosts[@]} hosts failed: ${failed[*]}"
fi
echo "run.sh: ${#hosts[@]} host(s) done; results in ${results#"$repo"/}"
