#!/usr/bin/env bash
# install-qemu-count.sh makes what deferbench's count tier needs to count the instructions of
# the Raspberry Pi's instruction sets under emulation (deferbench run -measure instructions
# -isa pi4,pi5,pi4-32; docs/counts.md), from Debian's packages only, and prints the path of
# the counting plugin:
#   - qemu-user (the dynamic qemu-aarch64 and qemu-arm: qemu-user-static does not load
#     plugins), with libcapstone4 and liburing2, which it needs, and gcc;
#   - the plugin API header, include/qemu/qemu-plugin.h, which no binary package ships: it is
#     taken from Debian's qemu source package (apt-get source --download-only qemu, with a
#     deb-src line added beside the system's deb lines when there is none);
#   - scripts/qemu/insncount.c built once (gcc -O2 -shared -fPIC) into the cache directory,
#     DEFERBENCH_CACHE or ${XDG_CACHE_HOME:-~/.cache}/deferbench, as qemu-count/libinsncount.so,
#     and built again only when the C source changes.
# Packages are installed when missing and this shell may install them (install-debian.sh);
# otherwise it stops at once with one line naming the package and the command. Used by .ci/run
# and scripts/expect-counts-pi.sh; deferbench finds the plugin in the same place.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
who=install-qemu-count

cache=${DEFERBENCH_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/deferbench}
dir=$cache/qemu-count
src=$here/qemu/insncount.c
plugin=$dir/libinsncount.so

# plugin_capable says whether qemu-aarch64 is the dynamic build, which accepts -plugin.
plugin_capable() {
	qemu-aarch64 -h 2>/dev/null | grep -q -- '^-plugin'
}

missing=()
command -v qemu-aarch64 >/dev/null 2>&1 && command -v qemu-arm >/dev/null 2>&1 || missing+=(qemu-user)
command -v gcc >/dev/null 2>&1 || missing+=(gcc)
# qemu-user depends on these; named so that a partial install is repaired.
for lib in libcapstone4 liburing2; do
	dpkg-query -W -f='${Status}' "$lib" 2>/dev/null | grep -q 'ok installed' || missing+=("$lib")
done
if [ ${#missing[@]} -gt 0 ]; then
	"$here/install-debian.sh" "$who" "${missing[@]}"
fi
if ! command -v qemu-aarch64 >/dev/null 2>&1 || ! command -v qemu-arm >/dev/null 2>&1; then
	echo "$who: qemu-aarch64 and qemu-arm still not on PATH after installing qemu-user: run apt-get install -y qemu-user" >&2
	exit 1
fi
if ! plugin_capable; then
	echo "$who: $(command -v qemu-aarch64) does not accept -plugin (a static build?): install Debian's qemu-user package: apt-get install -y qemu-user" >&2
	exit 1
fi

mkdir -p "$dir"
if [ ! -s "$dir/qemu-plugin.h" ]; then
	tmp=$(mktemp -d)
	trap 'rm -rf "$tmp"' EXIT
	have_src() { grep -rqsE '^(deb-src |Types:.*deb-src)' /etc/apt/sources.list /etc/apt/sources.list.d/; }
	if ! have_src; then
		if [ "$(id -u)" -ne 0 ]; then
			echo "$who: the qemu source package's plugin header is needed and apt has no deb-src line: as root, add one (copy the deb line of /etc/apt/sources.list or /etc/apt/sources.list.d/debian.sources with deb-src), apt-get update, and run this again" >&2
			exit 1
		fi
		if [ -f /etc/apt/sources.list.d/debian.sources ]; then
			sed 's/^Types: deb$/Types: deb-src/' /etc/apt/sources.list.d/debian.sources >/etc/apt/sources.list.d/deferbench-deb-src.sources
		elif [ -f /etc/apt/sources.list ] && grep -q '^deb ' /etc/apt/sources.list; then
			sed -n 's/^deb /deb-src /p' /etc/apt/sources.list >/etc/apt/sources.list.d/deferbench-deb-src.list
		else
			echo "$who: no Debian deb line to copy into a deb-src line: add a deb-src line for Debian's main archive, apt-get update, and run this again" >&2
			exit 1
		fi
		echo "$who: added a deb-src line for Debian's qemu source package" >&2
		apt-get update -qq >&2
	fi
	echo "$who: fetching Debian's qemu source package for include/qemu/qemu-plugin.h" >&2
	if ! (cd "$tmp" && apt-get source --download-only qemu >/dev/null 2>&1); then
		apt-get update -qq >&2 || true
		if ! (cd "$tmp" && apt-get source --download-only qemu >&2); then
			echo "$who: apt-get source --download-only qemu failed: check the deb-src line and run apt-get update" >&2
			exit 1
		fi
	fi
	orig=$(find "$tmp" -maxdepth 1 -name 'qemu_*.orig.tar.*' | head -1)
	if [ -z "$orig" ]; then
		echo "$who: apt-get source qemu gave no qemu_*.orig.tar.*: run apt-get source --download-only qemu by hand to see why" >&2
		exit 1
	fi
	tar -xf "$orig" -C "$tmp" --wildcards '*/include/qemu/qemu-plugin.h'
	h=$(find "$tmp" -path '*/include/qemu/qemu-plugin.h' | head -1)
	if [ -z "$h" ]; then
		echo "$who: $orig holds no include/qemu/qemu-plugin.h" >&2
		exit 1
	fi
	cp "$h" "$dir/qemu-plugin.h.tmp"
	mv "$dir/qemu-plugin.h.tmp" "$dir/qemu-plugin.h"
fi

sum=$(cat "$src" "$dir/qemu-plugin.h" | sha256sum | cut -d' ' -f1)
if [ ! -s "$plugin" ] || [ "$(cat "$dir/libinsncount.sha256" 2>/dev/null)" != "$sum" ]; then
	echo "$who: building $plugin from scripts/qemu/insncount.c" >&2
	gcc -O2 -shared -fPIC -Wall -Werror -I"$dir" -o "$plugin.tmp" "$src"
	mv "$plugin.tmp" "$plugin"
	echo "$sum" >"$dir/libinsncount.sha256"
fi
echo "$plugin"
