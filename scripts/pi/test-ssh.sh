#!/usr/bin/env bash
# test-ssh.sh tests scripts/pi/run.sh over real ssh. It starts Debian's OpenSSH
# server on 127.0.0.1 on a free port, as this user, with a throwaway host key
# and user key (installing openssh-server when missing and this shell may:
# root, or passwordless sudo, with apt-get), and writes an ssh config with
# three aliases ("boards") for it:
#
#	board-a   uname -m says aarch64; its load starts high, drops once run.sh waits
#	board-b   uname -m says armv7l
#	board-c   uname -m says aarch64; its sshd session is killed mid-run, the
#	          run itself goes on (its output goes to a file)
#
# Each board works in its own folder, holding a fake sysfs (PI_SYS_ROOT=fakeroot:
# cpufreq governors and proc/loadavg). The ARM binaries from `make cross` run
# under qemu-user on this machine (run.sh --wrap), so every result here is
# emulated, which run.sh must say. One run.sh call drives the three boards in
# parallel with --performance, and the test checks:
#
#   - each board got the binary its uname -m asks for (goarch in bench.txt);
#   - the run folders of board-a and board-b are fetched into the results
#     folder, byte for byte what the board wrote, complete, labelled emulated;
#   - the governors were performance during the runs and are restored after,
#     also on board-c;
#   - board-a's run started only after its load dropped below --idle-load;
#   - board-c is reported failed, run.sh exits non-zero, and no process of its
#     run is left on the "board";
#   - the fleet table lists board-a and board-b, both emulated;
#   - run.sh --tests on board-a with a bundle of a real and a failing test
#     binary reports the failure and fetches the summary.
#
# It needs the binaries (bin/deferbench-linux-*; built with scripts/cross.sh
# when missing) and qemu-user-static (scripts/ensure-qemu.sh). Set
# TEST_SSH_KEEP=1 to keep its temporary folder. CI runs it through make test-arm.
set -euo pipefail

cd "$(dirname "$0")/../.."
repo=$PWD

fail() {
	echo "test-ssh: FAIL: $*" >&2
	exit 1
}

find_sshd() {
	local p
	for p in "$(command -v sshd 2>/dev/null)" /usr/sbin/sshd /usr/local/sbin/sshd; do
		[ -n "$p" ] && [ -x "$p" ] && echo "$p" && return 0
	done
	return 1
}

if ! sshd=$(find_sshd); then
	"$repo/scripts/install-debian.sh" test-ssh openssh-server || exit 1
	sshd=$(find_sshd) || fail "openssh-server installed but no sshd found"
fi
for p in ssh scp ssh-keygen; do
	command -v "$p" >/dev/null 2>&1 || fail "$p not found; install openssh-client"
done
scripts/ensure-qemu.sh
if ! ls bin/deferbench-linux-arm64 bin/deferbench-linux-arm >/dev/null 2>&1; then
	scripts/cross.sh
fi

tmp=$(mktemp -d "${TMPDIR:-/tmp}/deferbench-ssh.XXXXXX")
tmp=$(cd "$tmp" && pwd -P)
case $tmp in
*[!A-Za-z0-9._/-]*) fail "temporary folder $tmp has characters run.sh refuses in a board folder; set TMPDIR" ;;
esac
sshd_pid=""
bg_pids=()
finish() {
	local rc=$?
	local p
	for p in ${bg_pids[@]+"${bg_pids[@]}"}; do
		kill "$p" 2>/dev/null || true
	done
	# A run that run.sh failed to stop is stopped here.
	while read -r p; do
		if grep -qa deferbench "/proc/$p/cmdline" 2>/dev/null; then
			kill -KILL "$p" 2>/dev/null || true
		fi
	done < <(cat "$tmp"/pids-? 2>/dev/null)
	if [ -n "$sshd_pid" ]; then
		kill "$sshd_pid" 2>/dev/null || true
		wait "$sshd_pid" 2>/dev/null || true
	fi
	if [ "$rc" -ne 0 ] && [ -f "$tmp/sshd.log" ]; then
		echo "test-ssh: sshd log (last lines):" >&2
		tail -n 20 "$tmp/sshd.log" >&2 || true
	fi
	if [ "${TEST_SSH_KEEP:-0}" = 1 ]; then
		echo "test-ssh: kept $tmp" >&2
	else
		rm -rf "$tmp"
	fi
}
trap finish EXIT

user=$(id -un)
start=$(date +%s)

# Keys, the fake "board" programs, the boards' folders with their fake sysfs.
ssh-keygen -q -t ed25519 -N '' -C test-ssh-host -f "$tmp/host_key"
ssh-keygen -q -t ed25519 -N '' -C test-ssh-user -f "$tmp/user_key"
cp "$tmp/user_key.pub" "$tmp/authorized_keys"
chmod 600 "$tmp/authorized_keys"

mkdir -p "$tmp/fakebin" "$tmp/results"
# uname -m answers the board's machine, sent by the ssh client (SetEnv).
cat >"$tmp/fakebin/uname" <<'EOF'
#!/bin/sh
if [ "$1" = -m ] && [ -n "${DEFERBENCH_TEST_MACHINE:-}" ]; then
	echo "$DEFERBENCH_TEST_MACHINE"
	exit 0
fi
exec /bin/uname "$@"
EOF
# qemu-by-elf runs an ELF binary under the qemu-user its header asks for. On
# board-c (DEFERBENCH_TEST_DETACHED) the binary's output goes to a file, not to
# the ssh session, and the run repeats 30 times: when the session dies the run
# goes on long after the other boards are done, as on a board whose network
# dropped, and run.sh has to stop it.
cat >"$tmp/fakebin/qemu-by-elf" <<'EOF'
#!/bin/sh
if [ -n "${DEFERBENCH_TEST_DETACHED:-}" ]; then
	exec >>output.log 2>&1 </dev/null
	set -- "$@" -count 30
fi
m=$(od -An -tu2 -j18 -N2 "$1" | tr -d ' ')
case $m in
183) exec qemu-aarch64-static "$@" ;;
40) exec qemu-arm-static "$@" ;;
62) exec "$@" ;;
*) echo "qemu-by-elf: $1: unknown ELF machine $m" >&2; exit 126 ;;
esac
EOF
chmod +x "$tmp/fakebin/uname" "$tmp/fakebin/qemu-by-elf"

for b in a b c; do
	for p in 0 4; do
		mkdir -p "$tmp/boards/$b/fakeroot/sys/devices/system/cpu/cpufreq/policy$p"
	done
	echo ondemand >"$tmp/boards/$b/fakeroot/sys/devices/system/cpu/cpufreq/policy0/scaling_governor"
	echo schedutil >"$tmp/boards/$b/fakeroot/sys/devices/system/cpu/cpufreq/policy4/scaling_governor"
	mkdir -p "$tmp/boards/$b/fakeroot/proc"
	echo "0.10 0.20 0.30 1/100 4242" >"$tmp/boards/$b/fakeroot/proc/loadavg"
done
echo "0.90 0.80 0.70 2/100 4242" >"$tmp/boards/a/fakeroot/proc/loadavg"

# The server, on the first free port of a few random tries.
path="$tmp/fakebin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"
[ "$(id -u)" -ne 0 ] || mkdir -p /run/sshd
port=""
for _ in 1 2 3 4 5 6 7 8 9 10; do
	try=$((20000 + RANDOM % 40000))
	cat >"$tmp/sshd_config" <<EOF
Port $try
ListenAddress 127.0.0.1
HostKey $tmp/host_key
PidFile $tmp/sshd.pid
AuthorizedKeysFile $tmp/authorized_keys
StrictModes no
PubkeyAuthentication yes
PasswordAuthentication no
KbdInteractiveAuthentication no
UsePAM no
PermitRootLogin prohibit-password
AllowUsers $user
AcceptEnv DEFERBENCH_TEST_MACHINE DEFERBENCH_TEST_DETACHED
SetEnv PATH=$path
Subsystem sftp internal-sftp
MaxStartups 100:30:200
LogLevel VERBOSE
EOF
	"$sshd" -D -e -f "$tmp/sshd_config" 2>>"$tmp/sshd.log" &
	sshd_pid=$!
	for _ in $(seq 50); do
		if ! kill -0 "$sshd_pid" 2>/dev/null; then break; fi
		if (exec 3<>"/dev/tcp/127.0.0.1/$try") 2>/dev/null; then
			port=$try
			break
		fi
		sleep 0.1
	done
	[ -z "$port" ] || break
	kill "$sshd_pid" 2>/dev/null || true
	wait "$sshd_pid" 2>/dev/null || true
	sshd_pid=""
done
[ -n "$port" ] || fail "sshd did not start on a free port (see $tmp/sshd.log)"

cat >"$tmp/ssh_config" <<EOF
Host board-a
	SetEnv DEFERBENCH_TEST_MACHINE=aarch64
Host board-b
	SetEnv DEFERBENCH_TEST_MACHINE=armv7l
Host board-c
	SetEnv DEFERBENCH_TEST_MACHINE=aarch64 DEFERBENCH_TEST_DETACHED=1
Host board-*
	HostName 127.0.0.1
	Port $port
	User $user
	IdentityFile $tmp/user_key
	IdentitiesOnly yes
	UserKnownHostsFile $tmp/known_hosts
	GlobalKnownHostsFile /dev/null
	StrictHostKeyChecking yes
	LogLevel ERROR
EOF
echo "[127.0.0.1]:$port $(cut -d' ' -f1,2 "$tmp/host_key.pub")" >"$tmp/known_hosts"
ssh -F "$tmp/ssh_config" -o BatchMode=yes -o ConnectTimeout=10 -o ServerAliveInterval=15 -o ServerAliveCountMax=4 board-b uname -m >"$tmp/uname-b" 2>"$tmp/ssh-check.err" ||
	fail "ssh board-b: $(tail -n 1 "$tmp/ssh-check.err")"
[ "$(cat "$tmp/uname-b")" = armv7l ] || fail "the fake uname on board-b says '$(cat "$tmp/uname-b")', want armv7l"
echo "test-ssh: sshd on 127.0.0.1:$port as $user ($(($(date +%s) - start))s)"

# board-a's load drops below --idle-load 3 s after run.sh says it waits for it
# (or after 60 s).
(
	for _ in $(seq 300); do
		grep -q '^\[board-a:[^]]*\] waiting for load' "$tmp/run.log" 2>/dev/null && break
		sleep 0.2
	done
	sleep 3
	date +%Y%m%d-%H%M%S >"$tmp/load-dropped"
	echo "0.10 0.50 0.60 1/100 4242" >"$tmp/boards/a/fakeroot/proc/loadavg"
) &
bg_pids+=($!)

# The watcher: while a board's run is going (its pid file exists), note its
# process id and governors; once board-c's run has written its folder, kill
# the sshd session that serves it.
(
	killed=0
	while :; do
		for b in a b c; do
			for f in "$tmp/boards/$b"/*.pid; do
				[ -f "$f" ] || continue
				p=$(cat "$f" 2>/dev/null) || continue
				[ -n "$p" ] || continue
				grep -qx "$p" "$tmp/pids-$b" 2>/dev/null || echo "$p" >>"$tmp/pids-$b"
				cat "$tmp/boards/$b/fakeroot/sys/devices/system/cpu/cpufreq"/policy*/scaling_governor >>"$tmp/governors-during-$b" 2>/dev/null || true
				if [ "$b" = c ] && [ "$killed" -eq 0 ] && [ -d "${f%.pid}" ]; then
					q=$p
					while [ -n "$q" ] && [ "$q" -gt 1 ]; do
						q=$(awk '{ print $4 }' "/proc/$q/stat" 2>/dev/null) || q=""
						[ -n "$q" ] || break
						case $(cat "/proc/$q/comm" 2>/dev/null) in
						sshd*)
							kill -KILL "$q" && echo "$q" >"$tmp/killed-sshd"
							killed=1
							break
							;;
						esac
					done
				fi
			done
		done
		sleep 0.2
	done
) &
bg_pids+=($!)

flags=(-quick -count 1 -scenarios "Stage,Frame,Contention" -strategies "cmdbuffer,hybrid")
echo "test-ssh: PI_SSH_OPTS='-F ssh_config' PI_SYS_ROOT=fakeroot run.sh --performance --wrap qemu-by-elf board-a:… board-b:… board-c:… ${flags[*]}"
run_start=$(date +%s)
set +e
PI_SSH_OPTS="-F $tmp/ssh_config" PI_SYS_ROOT=fakeroot \
	scripts/pi/run.sh --performance --wrap qemu-by-elf --idle-timeout 60 --keep-remote --results "$tmp/results" \
	"board-a:$tmp/boards/a" "board-b:$tmp/boards/b" "board-c:$tmp/boards/c" "${flags[@]}" >"$tmp/run.log" 2>&1
rc=$?
set -e
run_secs=$(($(date +%s) - run_start))
for p in "${bg_pids[@]}"; do
	kill "$p" 2>/dev/null || true
done
bg_pids=()
sed 's/^/  | /' "$tmp/run.log"
echo "test-ssh: run.sh exited $rc after ${run_secs}s"

# ---- checks
[ -f "$tmp/killed-sshd" ] || fail "board-c's run was never seen going, so its sshd session was not killed"
[ "$rc" -ne 0 ] || fail "run.sh exited 0 although board-c dropped off"
grep -q "1 of 3 hosts failed: board-c:" "$tmp/run.log" || fail "run.sh did not name board-c (alone) as failed"
grep -q '^\[board-c:[^]]*\] lost the ssh connection' "$tmp/run.log" || fail "run.sh did not say it lost board-c's connection"

fetched() { # fetched BOARD: the folder run.sh fetched for BOARD
	sed -n "s|^\[board-$1:[^]]*\] fetched ||p" "$tmp/run.log" | head -n 1
}
for b in a b; do
	case $b in a) want=arm64 ;; b) want=arm ;; esac
	d=$(fetched "$b")
	[ -n "$d" ] || fail "board-$b: run.sh fetched nothing"
	case $d in /*) ;; *) d="$repo/$d" ;; esac
	[ -d "$d" ] || fail "board-$b: fetched folder $d missing"
	case $d in "$tmp/results/"*) ;; *) fail "board-$b: fetched into $d, not the --results folder" ;; esac
	grep -qx "goarch: $want" "$d/bench.txt" || fail "board-$b (uname -m $(
		[ "$b" = a ] && echo aarch64 || echo armv7l
	)): bench.txt says $(grep '^goarch:' "$d/bench.txt"), want goarch: $want"
	case $(basename "$d") in *-"$want"-emulated) ;; *) fail "board-$b: folder $(basename "$d") not named …-$want-emulated" ;; esac
	grep -qx 'emulated: yes' "$d/bench.txt" || fail "board-$b: bench.txt does not say emulated: yes"
	n=$(grep -c '^Benchmark' "$d/bench.txt" || true)
	[ "$n" -gt 0 ] || fail "board-$b: bench.txt holds no results"
	grep -q partial "$d/bench.txt" "$d/env.json" && fail "board-$b: the run is marked partial"
	for f in env.json summary.json report.md details.md; do
		[ -s "$d/$f" ] || fail "board-$b: $f missing from the fetched folder"
	done
	remote=$(find "$tmp/boards/$b" -maxdepth 1 -type d -name "*-$want" | head -n 1)
	[ -n "$remote" ] || fail "board-$b: no run folder on the board (--keep-remote)"
	diff -r "$remote" "$d" >"$tmp/diff-$b" 2>&1 || fail "board-$b: fetched folder differs from the board's: $(head -n 3 "$tmp/diff-$b")"
	[ "$(od -An -tu2 -j18 -N2 "$tmp/boards/$b/deferbench" | tr -d ' ')" = "$([ "$want" = arm64 ] && echo 183 || echo 40)" ] ||
		fail "board-$b: the binary copied there is not the $want one"
	echo "test-ssh: board-$b: $want binary, $(basename "$d") fetched intact ($n results)"
done

for b in a b c; do
	while read -r p; do
		if kill -0 "$p" 2>/dev/null && grep -qa deferbench "/proc/$p/cmdline" 2>/dev/null; then
			fail "board-$b: process $p of its run is still running: $(tr '\0' ' ' <"/proc/$p/cmdline")"
		fi
	done < <(cat "$tmp/pids-$b" 2>/dev/null)
	left=$(find "$tmp/boards/$b" -maxdepth 1 -name '*.pid')
	[ -z "$left" ] || fail "board-$b: pid file left: $left"
done
[ -s "$tmp/pids-c" ] || fail "board-c's run process was never seen"
grep -q '^\[board-c:[^]]*\] stopped the run left going' "$tmp/run.log" || fail "run.sh did not stop board-c's run left going"
echo "test-ssh: board-c dropped off (sshd session $(cat "$tmp/killed-sshd") killed), reported failed, no process of its run left"

for b in a b c; do
	got=$(cat "$tmp/boards/$b/fakeroot/sys/devices/system/cpu/cpufreq"/policy*/scaling_governor | tr '\n' ' ')
	[ "$got" = "ondemand schedutil " ] || fail "board-$b: governors not restored: $got"
	grep -qx performance "$tmp/governors-during-$b" 2>/dev/null || fail "board-$b: governor never seen at performance during the run"
	grep -qvx performance "$tmp/governors-during-$b" &&
		fail "board-$b: governor seen other than performance during the run"
done
echo "test-ssh: governors performance during the runs, ondemand/schedutil restored on all three"

grep -q '^\[board-a:[^]]*\] waiting for load 0.90 < 0.5' "$tmp/run.log" || fail "board-a: run.sh did not wait for the load to drop"
grep -q '^\[board-a:[^]]*\] idle: load 0.10 < 0.5' "$tmp/run.log" || fail "board-a: run.sh did not see the load drop"
started_a=$(basename "$(fetched a)" | cut -c1-15)
[ -f "$tmp/load-dropped" ] || fail "the load of board-a never dropped"
[[ ! $started_a < "$(cat "$tmp/load-dropped")" ]] || fail "board-a's run started at $started_a, before its load dropped at $(cat "$tmp/load-dropped")"
grep -q '^\[board-b:[^]]*\] waiting for load' "$tmp/run.log" && fail "board-b waited although its load was low"
echo "test-ssh: board-a waited for its load (dropped $(cat "$tmp/load-dropped"), run $started_a); board-b did not wait"

fleet=$(find "$tmp/results" -maxdepth 1 -name 'fleet-*.md')
[ -n "$fleet" ] || fail "no fleet table in the results folder"
for b in a b; do
	grep -q "$(basename "$(fetched "$b")")" "$fleet" || fail "fleet table does not list board-$b's run"
done
grep -q 'arm64-emulated-failed' "$fleet" && fail "fleet table lists board-c's failed run"
grep -qx '| emulated | yes | yes |' "$fleet" || fail "fleet table does not say both runs were emulated: $(grep '^| emulated' "$fleet")"
echo "test-ssh: fleet table $(basename "$fleet") lists board-a and board-b, emulated"

# run.sh --tests over ssh: a bundle of two test binaries, deferral's (from
# scripts/pi/build-tests.sh) and one that fails; the summary must say so and
# come back, and the bundle must be gone from the board.
[ -f bin/tests-linux-arm64.tar ] || scripts/pi/build-tests.sh arm64
mkdir -p "$tmp/tbin" "$tmp/tree/broken" "$tmp/tresults"
tar -C "$tmp/tree" -xf bin/tests-linux-arm64.tar ./deferral/deferral.test
printf '#!/bin/sh\necho "broken: fails on purpose"\nexit 1\n' >"$tmp/tree/broken/broken.test"
chmod +x "$tmp/tree/broken/broken.test"
printf 'deferral deferral\nbroken broken\n' >"$tmp/tree/tests.txt"
tar -C "$tmp/tree" -cf "$tmp/tbin/tests-linux-arm64.tar" .
echo "test-ssh: run.sh --tests --wrap qemu-by-elf board-a:… -test.short"
set +e
PI_SSH_OPTS="-F $tmp/ssh_config" PI_SYS_ROOT=fakeroot \
	scripts/pi/run.sh --tests --bin "$tmp/tbin" --wrap qemu-by-elf --idle-timeout 0 --results "$tmp/tresults" \
	"board-a:$tmp/boards/a" -test.short >"$tmp/tests.log" 2>&1
rc=$?
set -e
sed 's/^/  | /' "$tmp/tests.log"
[ "$rc" -ne 0 ] || fail "run.sh --tests exited 0 although a test binary failed"
summary=$(find "$tmp/tresults" -name summary.txt)
[ -n "$summary" ] || fail "run.sh --tests fetched no summary.txt"
case $summary in */*-arm64-tests-emulated-failed/summary.txt) ;; *) fail "run.sh --tests fetched $summary, want …-arm64-tests-emulated-failed/summary.txt" ;; esac
grep -q '^ok .* plain deferral$' "$summary" || fail "summary.txt has no ok line for deferral: $(cat "$summary")"
grep -q '^FAIL .* plain broken$' "$summary" || fail "summary.txt has no FAIL line for broken: $(cat "$summary")"
grep -qx PASS "$(dirname "$summary")/plain-deferral.log" || fail "plain-deferral.log has no PASS line"
[ ! -e "$tmp/boards/a/tests-plain" ] || fail "the test bundle was left on board-a"
echo "test-ssh: run.sh --tests: deferral ok, broken FAIL, summary and logs fetched, bundle removed"

echo "test-ssh: ok ($(($(date +%s) - start))s)"
