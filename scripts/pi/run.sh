#!/usr/bin/env bash
# run.sh runs the deferbench suite (or, with --tests, the test binaries) on one
# or more Raspberry Pis over ssh, in parallel, and fetches each run folder into
# results/.
#
# usage: scripts/pi/run.sh [OPTIONS] HOST[:DIR]... [--] [FLAGS...]
#
# HOST is an ssh destination (an alias from ~/.ssh/config, user@name, a name).
# DIR is the folder on the board to work in: relative to the home folder, or
# absolute (e.g. /dev/shm/deferbench to spare the SD card); default deferbench
# (PI_REMOTE_DIR). Use an ssh config alias for IPv6 addresses.
#
# Options (before the hosts):
#   --performance       set every cpufreq policy's governor to performance for
#                       the run and restore the previous governors afterwards
#                       (the files must be writable, or sudo -n must work)
#   --governor NAME     like --performance, with another governor
#   --goarch ARCH       arm64, arm or amd64: override the choice by `uname -m`
#                       (e.g. arm on 32-bit Pi OS with a 64-bit kernel)
#   --idle-load L       wait until the 1-minute load average is below L (0.5)
#   --idle-timeout S    wait at most S seconds for that (300; 10 when local),
#                       then run anyway with a warning
#   --wrap CMD          start the binary on the board through CMD, e.g.
#                       "taskset -c 1-3"; a CMD naming qemu marks the runs
#                       emulated
#   --tests             run the test binaries (scripts/pi/build-tests.sh) on
#                       each board instead of the benchmarks, and fetch a
#                       pass/fail summary; FLAGS go to every test binary
#                       (default -test.short)
#   --results DIR       where run folders land (results/)
#   --bin DIR           where `make cross` put the binaries (bin/)
#   --keep-remote       leave the run folder on the board after fetching it
#
# FLAGS, everything after the hosts (from the first argument that starts with
# "-", or after "--"), go to `deferbench run`; run.sh adds -out itself.
#
# Environment:
#   PI_SSH=ssh          (default) reach HOST with ssh/scp, BatchMode, key auth
#   PI_SSH=local        run the same flow on this machine: ssh/scp become local
#                       commands in a temporary "remote home", `uname -m` answers
#                       PI_LOCAL_MACHINE (aarch64), and an ARM binary runs under
#                       qemu-user (qemu-aarch64-static / qemu-arm-static), which
#                       is installed from Debian's packages when missing; the
#                       run folders are named …-emulated (…-local for x86_64)
#   PI_SSH_OPTS         extra ssh/scp options, e.g. "-o Port=2222"
#   PI_REMOTE_DIR       default folder on the boards (deferbench)
#   PI_SYS_ROOT         the folder on the board that proc/loadavg and
#                       sys/devices/system/cpu/cpufreq are read under (/);
#                       a relative path is inside DIR (tests use a fake one)
#
# Example:
#   make cross && scripts/pi/run.sh --performance pi4 pi5 -quick
#   PI_SSH=local scripts/pi/run.sh localhost -quick
#
# Each host's output is prefixed with [HOST]. After a benchmark run on two or
# more hosts, results/fleet-<date>.md holds one table of every board's headline
# figures (deferbench fleet). The exit status is 0 when every host produced a
# run folder and its run (or every test binary) succeeded there.
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
tests=0
wrap=""
mode=${PI_SSH:-ssh}
default_dir=${PI_REMOTE_DIR:-deferbench}
sys_root=${PI_SYS_ROOT:-/}

while [ $# -gt 0 ]; do
	case $1 in
	--performance) governor=performance ;;
	--governor | --goarch | --idle-load | --idle-timeout | --results | --bin | --wrap)
		[ $# -ge 2 ] || die "$1 needs a value"
		case $1 in
		--governor) governor=$2 ;;
		--goarch) goarch_override=$2 ;;
		--idle-load) idle_load=$2 ;;
		--idle-timeout) idle_timeout=$2 ;;
		--results) results=$2 ;;
		--bin) bindir=$2 ;;
		--wrap) wrap=$2 ;;
		esac
		shift
		;;
	--keep-remote) keep_remote=1 ;;
	--tests) tests=1 ;;
	-h | --help)
		usage
		exit 0
		;;
	--) die "no hosts given before --; usage: scripts/pi/run.sh [OPTIONS] HOST[:DIR]... [FLAGS] (see --help)" ;;
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

# valid_dir reports whether $1 is a folder name run.sh can put in a remote
# command unquoted: plain characters, no "..".
valid_dir() {
	case $1 in
	'' | *..* | *[!A-Za-z0-9._/-]*) return 1 ;;
	esac
}

# host_of and dir_of split HOST[:DIR]; a spec with two or more colons is a
# host alone.
host_of() {
	case $1 in
	*:*:*) echo "$1" ;;
	*) echo "${1%%:*}" ;;
	esac
}
dir_of() {
	case $1 in
	*:*:*) echo "$default_dir" ;;
	*:*) echo "${1#*:}" ;;
	*) echo "$default_dir" ;;
	esac
}

[ ${#hosts[@]} -gt 0 ] || die "no hosts given; usage: scripts/pi/run.sh [OPTIONS] HOST[:DIR]... [FLAGS] (see --help)"
for ((i = 0; i < ${#hosts[@]}; i++)); do
	[ -n "$(host_of "${hosts[i]}")" ] || die "${hosts[i]}: no host before the colon"
	valid_dir "$(dir_of "${hosts[i]}")" || die "${hosts[i]}: folder '$(dir_of "${hosts[i]}")' wanted as a plain path without '..' (letters, digits, . _ - /)"
	for ((j = i + 1; j < ${#hosts[@]}; j++)); do
		[ "${hosts[i]}" != "${hosts[j]}" ] || die "host ${hosts[i]} given twice"
	done
done
if [ "$tests" -eq 0 ]; then
	for a in ${passthrough[@]+"${passthrough[@]}"}; do
		case $a in
		-out | -out=* | --out | --out=*) die "run.sh sets -out itself; use --results DIR for the local folder" ;;
		esac
	done
elif [ ${#passthrough[@]} -eq 0 ]; then
	passthrough=(-test.short)
fi
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
[ "$sys_root" = / ] || valid_dir "$sys_root" || die "PI_SYS_ROOT=$sys_root: want a plain path without '..'"
case $governor in
*[!A-Za-z0-9_-]*) die "--governor $governor: want a governor name such as performance" ;;
esac
case $wrap in
*[!A-Za-z0-9._/,=\ -]*) die "--wrap $wrap: want a plain command line (letters, digits, spaces, . _ / , = -)" ;;
esac
valid_dir "$default_dir" || die "PI_REMOTE_DIR=$default_dir: want a plain path without '..'"
if [ "$tests" -eq 1 ]; then
	ls "$bindir"/tests-linux-*.tar >/dev/null 2>&1 || die "no test binaries in $bindir: run scripts/pi/build-tests.sh first"
elif ! ls "$bindir"/deferbench-linux-* >/dev/null 2>&1; then
	die "no binaries in $bindir: run make cross first"
fi
bindir=$(cd "$bindir" && pwd)
mkdir -p "$results" || die "cannot create $results"
results=$(cd "$results" && pwd)

ssh_opts=(-o BatchMode=yes -o ConnectTimeout=10 -o ServerAliveInterval=15 -o ServerAliveCountMax=4)
if [ -n "${PI_SSH_OPTS:-}" ]; then
	read -r -a extra <<<"$PI_SSH_OPTS"
	ssh_opts+=("${extra[@]}")
fi

# show prints a local path as the user can type it: relative to the current
# folder when it is inside it.
show() {
	case $1 in
	"$PWD"/*) echo "${1#"$PWD"/}" ;;
	*) echo "$1" ;;
	esac
}

# shq prints its argument as a shell word that pastes back as it is: single-quoted when it
# holds anything beyond letters, digits and _./=:@%+,- (a results folder with a space).
shq() {
	case $1 in
	*[!A-Za-z0-9_./=:@%+,-]* | "") printf "'%s'" "$(printf '%s' "$1" | sed "s/'/'\\\\''/g")" ;;
	*) printf '%s' "$1" ;;
	esac
}

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
		(cd "$lhome" && cp "$2" "$3")
	else
		scp -q "${ssh_opts[@]}" "$2" "$1:$3"
	fi
}
get() { # get HOST REMOTE LOCALDIR
	if [ "$mode" = local ]; then
		(cd "$lhome" && cp -R "$2" "$3/")
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

# wr, defined on the host, writes $2 into the file $1: directly when it is
# writable (root, or a fake sysfs), else through sudo -n.
# shellcheck disable=SC2016 # expands on the host
wr='wr() { if [ -w "$1" ]; then echo "$2" >"$1"; else echo "$2" | sudo -n tee "$1" >/dev/null; fi; }'

# run_host runs in its own subshell, so these globals are per host: cur_host,
# the governors to restore (saved), the running `deferbench run` (child: the
# local ssh or shell; rpidfile: the file on the host holding its process id;
# rout: the run folder's name, which that process's command line holds) and
# the file the exit status goes to (statusfile).
cur_host=""
saved=""
child=""
rpidfile=""
rout=""
statusfile=""

# stop_remote stops the run on the host if it is still going (after Ctrl-C, or
# when the ssh connection dropped): SIGTERM (deferbench then writes what
# finished, marked partial), SIGKILL after 20 s. The process is the one whose
# id is in $rpidfile, only while its command line still names $rout. It prints
# "stopped" when there was one to stop.
stop_remote() {
	# shellcheck disable=SC2016 # expands on the host
	rsh "$cur_host" 'f='"$rpidfile"'; [ -f "$f" ] || exit 0; p=$(cat "$f")
if [ -n "$p" ] && kill -0 "$p" 2>/dev/null && grep -qa -- '"$rout"' "/proc/$p/cmdline" 2>/dev/null; then
	kill -TERM "$p"; i=0
	while kill -0 "$p" 2>/dev/null && [ $i -lt 40 ]; do sleep 0.5; i=$((i + 1)); done
	kill -KILL "$p" 2>/dev/null; echo stopped
fi
rm -f "$f"' </dev/null
}

# cleanup, the EXIT trap of run_host's subshell, stops a run still going,
# restores the governors, removes the local-mode remote home and records the
# exit status.
cleanup() {
	local rc=$?
	if [ -n "$child" ]; then
		echo "stopping the run (what finished stays in its run folder on the host)"
		stop_remote >/dev/null || echo "warning: could not reach $cur_host to stop the run; its process id is in ~/$rpidfile there" >&2
		kill -TERM "$child" 2>/dev/null || true
		wait "$child" 2>/dev/null || true
	fi
	if [ -n "$saved" ]; then
		echo "restoring governors"
		# shellcheck disable=SC2016 # expands on the host
		printf '%s\n' "$saved" | rsh "$cur_host" "$wr"'; rc=0; while IFS== read -r f g; do wr "$f" "$g" || rc=1; done; exit $rc' ||
			echo "warning: could not restore governors: $(printf '%s' "$saved" | tr '\n' ' ')" >&2
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

# tests_cmd prints the shell command that runs, on the host in folder $1, the
# test binaries of the bundles unpacked there (tests-plain/, tests-race/: a
# copy of the repository with each package's test binary in its folder, listed
# in tests.txt), each in its package folder as go test does, with the
# passthrough flags, and writes $2/summary.txt (one line per binary: ok or
# FAIL, seconds, bundle, package) and $2/<bundle>-<package>.log. It exits 1
# when a binary failed.
tests_cmd() {
	local args="" a
	for a in ${passthrough[@]+"${passthrough[@]}"}; do
		args+=" $(printf '%q' "$a")"
	done
	# shellcheck disable=SC2016 # expands on the host
	printf '%s' 'cd '"$1"' && out=$PWD/'"$2"' && mkdir "$out" && echo $$ >'"$2"'.pid || exit 1
rc=0; c=
trap '"'"'[ -z "$c" ] || kill -TERM "$c" 2>/dev/null; exit 143'"'"' TERM INT HUP
for kind in '"$3"'; do
	while read -r rel name; do
		start=$(date +%s)
		(cd "tests-$kind/$rel" && exec '"$runner"'"./$name.test"'"$args"') </dev/null >"$out/$kind-$name.log" 2>&1 &
		c=$!
		if wait "$c"; then r=ok; else r=FAIL; rc=1; fi
		c=
		printf "%-4s %4ss  %-5s %s\n" "$r" "$(( $(date +%s) - start ))" "$kind" "$name" | tee -a "$out/summary.txt"
	done <"tests-$kind/tests.txt"
done
[ -s "$out/summary.txt" ] || { echo "no test binaries found" >&2; exit 1; }
exit $rc'
}

# run_host HOST[:DIR] STATUSFILE runs the whole flow for that board; run it in a
# subshell. It writes its process id to STATUSFILE.pid (the main shell sends
# it SIGTERM on Ctrl-C), the fetched run folders to STATUSFILE.dirs and its
# exit status to STATUSFILE.
runner=""
run_host() {
	local host rdir machine goarch bin out status=0 emulated=0 root t
	host=$(host_of "$1")
	rdir=$(dir_of "$1")
	cur_host=$host
	statusfile=$2
	if [ -n "${BASHPID:-}" ]; then
		echo "$BASHPID" >"$statusfile.pid"
	else
		# shellcheck disable=SC2016 # $PPID of sh is this subshell (bash 3.2 has no BASHPID)
		sh -c 'echo "$PPID"' >"$statusfile.pid"
	fi
	: >"$statusfile.dirs"
	trap cleanup EXIT
	trap 'exit 130' INT TERM

	if [ "$mode" = local ]; then
		lhome=$(mktemp -d "${TMPDIR:-/tmp}/deferbench-pi.XXXXXX")
	fi
	case $sys_root in
	/) root="" ;;
	/*) root=${sys_root%/} ;;
	*) root="$rdir/${sys_root%/}" ;;
	esac

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
	if [ "$tests" -eq 1 ]; then
		bin="$bindir/tests-linux-$goarch.tar"
		[ -f "$bin" ] || die "missing $bin: run scripts/pi/build-tests.sh first"
	else
		bin="$bindir/deferbench-linux-$goarch"
		[ -f "$bin" ] || die "missing $bin: run make cross first"
	fi

	runner=""
	if [ "$mode" = local ] && [ "$goarch" != amd64 ]; then
		"$repo/scripts/ensure-qemu.sh" || die "qemu-user-static is needed for PI_SSH=local"
		if [ "$goarch" = arm64 ]; then runner="qemu-aarch64-static "; else runner="qemu-arm-static "; fi
		emulated=1
	fi
	if [ -n "$wrap" ]; then
		runner="$wrap $runner"
		case $wrap in *qemu*) emulated=1 ;; esac
	fi
	echo "machine $machine: using $(basename "$bin")${runner:+ through ${runner% }}"
	[ "$emulated" -eq 0 ] || echo "EMULATED: this run is no board measurement; its folder is named …-emulated"

	rsh "$host" "mkdir -p $rdir" </dev/null || die "$host: cannot create $rdir"
	local kinds=plain k
	if [ "$tests" -eq 1 ]; then
		if [ -f "${bin%.tar}-race.tar" ]; then
			if [ "$emulated" -eq 1 ]; then
				echo "skipping $(basename "${bin%.tar}-race.tar"): the race detector does not run under qemu-user, only on a board"
			else
				kinds="plain race"
			fi
		fi
		for k in $kinds; do
			if [ "$k" = plain ]; then t=$bin; else t="${bin%.tar}-race.tar"; fi
			put "$host" "$t" "$rdir/tests-$k.tar" || die "$host: copying $(basename "$t") failed"
			rsh "$host" "cd $rdir && rm -rf tests-$k && mkdir tests-$k && tar -C tests-$k -xf tests-$k.tar && rm -f tests-$k.tar" </dev/null ||
				die "$host: unpacking $(basename "$t") failed"
		done
		echo "test binaries: $kinds"
	else
		put "$host" "$bin" "$rdir/deferbench" || die "$host: copying $bin failed"
		rsh "$host" "chmod +x $rdir/deferbench" </dev/null
	fi

	if [ -n "$governor" ]; then
		# shellcheck disable=SC2016 # expands on the host
		saved=$(rsh "$host" "for f in $root/sys/devices/system/cpu/cpufreq/policy*/scaling_governor; do "'[ -r "$f" ] && echo "$f=$(cat "$f")"; done; true' </dev/null)
		if [ -z "$saved" ]; then
			echo "warning: no cpufreq policies on $host; governor left alone" >&2
		elif rsh "$host" "$wr; for f in $root/sys/devices/system/cpu/cpufreq/policy*/scaling_governor; do wr \"\$f\" $governor || exit 1; done" </dev/null; then
			echo "governor set to $governor (was: $(printf '%s' "$saved" | sed 's|.*/\(policy[0-9]*\)/scaling_governor=|\1=|' | tr '\n' ' '))"
		else
			echo "warning: could not set governor $governor (needs passwordless sudo); running with the current one" >&2
		fi
	fi

	local waited=0 load
	while :; do
		load=$(rsh "$host" "cut -d' ' -f1 $root/proc/loadavg" </dev/null) || die "$host: cannot read $root/proc/loadavg"
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
	[ "$tests" -eq 0 ] || out="$out-tests"
	rsh "$host" "test ! -e $rdir/$out" </dev/null || die "$host: $rdir/$out exists already; try again in a second"
	local cmd args="" a
	for a in ${passthrough[@]+"${passthrough[@]}"}; do
		args+=" $(printf '%q' "$a")"
	done
	rpidfile="$rdir/$out.pid"
	rout=$out
	if [ "$tests" -eq 1 ]; then
		echo "running the test binaries with${args:- no flags} into $rdir/$out"
		cmd=$(tests_cmd "$rdir" "$out" "$kinds")
	else
		echo "running: ${runner}deferbench run -out $rdir/$out$args"
		# exec keeps the process id written to $rpidfile.
		cmd="cd $rdir && echo \$\$ >$out.pid && exec ${runner}./deferbench run -out $out$args"
	fi
	# In the background, so that a signal can stop it (see cleanup).
	if [ "$mode" = local ]; then
		(cd "$lhome" && exec bash -c "$cmd") </dev/null &
	else
		# shellcheck disable=SC2029 # the command is meant to expand on the host
		ssh "${ssh_opts[@]}" "$host" "$cmd" </dev/null &
	fi
	child=$!
	wait "$child" || status=$?
	child=""
	if [ "$mode" = ssh ] && [ "$status" -eq 255 ]; then
		echo "lost the ssh connection to $host during the run" >&2
	fi
	# A run still going (the connection dropped, the board did not) is stopped:
	# nothing is left running on the board.
	local stopped
	if ! stopped=$(stop_remote); then
		die "$host: unreachable after the run; the run may still be going there (process id in $rpidfile)"
	fi
	[ -z "$stopped" ] || echo "stopped the run left going on $host" >&2
	if [ "$status" -ne 0 ]; then
		if [ "$tests" -eq 1 ] && [ "$status" -eq 1 ]; then
			echo "some test binaries failed; fetching the summary" >&2
		else
			echo "the run exited with status $status; fetching what it wrote" >&2
		fi
	fi

	rsh "$host" "test -d $rdir/$out" </dev/null || die "$host: the run wrote no $rdir/$out"
	local stage
	stage=$(mktemp -d "$results/.fetch.XXXXXX")
	if ! get "$host" "$rdir/$out" "$stage"; then
		rm -rf "$stage"
		die "$host: fetching $rdir/$out failed"
	fi
	# -out is either the run folder itself or the folder run folders go in.
	local runs=() d name dest n fetched=0
	if [ "$tests" -eq 1 ] || [ -f "$stage/$out/bench.txt" ]; then
		runs=("$stage/$out")
	else
		for d in "$stage/$out"/*/; do
			[ -d "$d" ] && runs+=("${d%/}")
		done
	fi
	for d in ${runs[@]+"${runs[@]}"}; do
		name=$(basename "$d")
		if [ -f "$d/bench.txt" ] && grep -qx 'emulated: yes' "$d/bench.txt"; then
			emulated=1
		fi
		if [ "$emulated" -eq 1 ]; then
			name="$name-emulated"
		elif [ "$mode" = local ]; then
			name="$name-local"
		fi
		[ "$status" -eq 0 ] || name="$name-failed"
		dest="$results/$name"
		n=2
		while [ -e "$dest" ]; do
			dest="$results/$name-$n"
			n=$((n + 1))
		done
		mv "$d" "$dest"
		fetched=$((fetched + 1))
		echo "fetched $(show "$dest")"
		[ "$status" -ne 0 ] || echo "$dest" >>"$statusfile.dirs"
		if [ -f "$dest/bench.txt" ]; then
			grep -E '^(goarch|host-model|throttled|under-voltage|emulated):' "$dest/bench.txt" | paste -sd ' ' - || true
		fi
		if [ -f "$dest/summary.txt" ]; then
			echo "tests: $(grep -c '^ok' "$dest/summary.txt") ok, $(grep -c '^FAIL' "$dest/summary.txt") failed ($(show "$dest")/summary.txt)"
		fi
	done
	rm -rf "$stage"
	[ "$fetched" -gt 0 ] || die "$host: $rdir/$out held no run folder"
	if [ "$keep_remote" -eq 0 ]; then
		rsh "$host" "rm -rf $rdir/$out $rdir/tests-plain $rdir/tests-race" </dev/null || true
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

# fleet_cli prints the command that runs this machine's deferbench: the
# binary `make cross` built for it, else go run.
fleet_cli() {
	local m
	case $(uname -s)-$(uname -m) in
	Linux-x86_64) m=amd64 ;;
	Linux-aarch64) m=arm64 ;;
	*) m="" ;;
	esac
	if [ -n "$m" ] && [ -x "$bindir/deferbench-linux-$m" ]; then
		echo "$bindir/deferbench-linux-$m"
	elif command -v go >/dev/null 2>&1; then
		echo "go run $repo/cmd/deferbench"
	fi
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
dirs=()
i=0
for h in "${hosts[@]}"; do
	st=$(cat "$statusdir/$i" 2>/dev/null || echo 1)
	[ "$st" = 0 ] || failed+=("$h")
	while IFS= read -r d; do
		[ -n "$d" ] && dirs+=("$d")
	done <"$statusdir/$i.dirs"
	i=$((i + 1))
done

if [ "$tests" -eq 0 ] && [ ${#hosts[@]} -gt 1 ] && [ ${#dirs[@]} -gt 0 ]; then
	fleet="$results/fleet-$(date +%Y%m%d-%H%M%S).md"
	read -r -a cli <<<"$(fleet_cli)"
	if [ ${#cli[@]} -eq 0 ]; then
		echo "run.sh: no deferbench for this machine to write the fleet table; run: deferbench fleet $(for d in "${dirs[@]}"; do printf '%s ' "$(shq "$(show "$d")")"; done)" >&2
	elif "${cli[@]}" fleet -out "$fleet" "${dirs[@]}"; then
		echo "run.sh: fleet table: $(show "$fleet")"
	else
		echo "run.sh: deferbench fleet failed; the run folders are unaffected" >&2
	fi
fi
for d in ${dirs[@]+"${dirs[@]}"}; do
	if [ "$tests" -eq 1 ]; then
		echo "run.sh: test summary: $(show "$d")/summary.txt"
	else
		echo "run.sh: benchstat -col /strategy $(shq "$(show "$d")/bench.txt")"
	fi
done
if [ ${#failed[@]} -gt 0 ]; then
	die "${#failed[@]} of ${#hosts[@]} hosts failed: ${failed[*]}"
fi
echo "run.sh: ${#hosts[@]} host(s) done; results in $(show "$results")"
