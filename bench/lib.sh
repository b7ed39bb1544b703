# lib.sh - what the benchmarks share; sourced after peer/common.sh.

# wall_cpu CMD... : "WALL CPU" of one run of CMD, in seconds, its output
# appended to $work/log (CPU: user + system of CMD and its children, from
# bash's times, whose second line is the children's).  Call it in a
# subshell ($(...)): the times are that shell's children's.
wall_cpu()
{
	local t0 t1
	times > "$work/times0"
	t0=$(date +%s.%N)
	"$@" >> "$work/log" 2>&1 || { echo "failed: $*" >&2; tail -n 20 "$work/log" >&2; exit 1; }
	t1=$(date +%s.%N)
	times > "$work/times1"
	cat "$work/times0" "$work/times1" | awk -v a="$t0" -v b="$t1" '{ gsub(/[ms]/, " ") }
		NR == 2 { c0 = $1 * 60 + $2 + $3 * 60 + $4 } NR == 4 { c1 = $1 * 60 + $2 + $3 * 60 + $4 }
		END { printf "%.3f %.3f\n", b - a, c1 - c0 }'
}

# bench_guest_ok OUTDIR TEST NAME: the guest ran TEST to exit status 0, or
# say why (as NAME) and exit.
bench_guest_ok()
{
	local st

	st=$(cat "$1/$2.status")
	[ "${st%% *}" = rc=0 ] && return 0
	echo "$3: the guest run failed: $st" >&2
	cat "$1/$2.stderr" >&2
	exit 1
}

# When and what was measured, for the tables and CSV rows.
bench_date=$(date -u +%Y-%m-%dT%H:%MZ)
bench_commit=$(git -C "$top" rev-parse --short HEAD 2>/dev/null || echo unknown)
mkdir -p "$top/bench/results"

# An awk function, to prepend to a program: the median of a space-separated
# list of numbers (compared as numbers).
bench_median_awk='
	function median(s,   a, k, i, j, t) {
		k = split(s, a, " ")
		for (i = 1; i <= k; i++)
			for (j = i + 1; j <= k; j++)
				if (a[j] + 0 < a[i] + 0) { t = a[i]; a[i] = a[j]; a[j] = t }
		return k % 2 ? a[(k + 1) / 2] : (a[k / 2] + a[k / 2 + 1]) / 2
	}'

# stap48_first_error FILE: the first error in SystemTap 4.8's stderr (a
# compiler's "error:", its own "semantic error:" or "ERROR:"; else its
# last line) as one line for a table or a CSV note: a probe point it
# could not resolve with the reason it gives next ("missing debuginfo",
# "no match"), its runtime copy shown as runtime/, the peer's and the
# tree's directories and its temporary directory dropped.
stap48_first_error()
{
	local line why

	line=$(grep -m 1 -E '(error|ERROR):' "$1" || tail -n 1 "$1")
	case $line in
	*"while resolving probe point"*)
		why=$(grep -E '^(semantic error|WARNING):' "$1" | grep -v 'while resolving probe point' |
			sed 's/^semantic error: //' | head -n 2 | sed ':a;N;s/\n/; /;ba') || true
		[ -n "$why" ] && line="$line ($why)" ;;
	esac
	sed -e "s|$runtime/|runtime/|g" -e "s|$peer/||g" -e "s|$top/||g" -e 's|/tmp/stap[A-Za-z0-9]*/||g' \
		-e 's/ *\[man [^]]*\]//g' -e 's/[[:space:]]*$//' <<< "$line" | cut -c 1-300
}

# bpftrace in a guest.  bench_bpftrace_root prints a directory to merge
# into the guest's initramfs (testsuite/guest-run -r DIR) that holds
# Debian's bpftrace (/usr/bin/bpftrace: /usr/bin is not in the guest's
# PATH) and every library it loads, LLVM and clang among them: about
# 200 MB unpacked, so boot that guest with -M $bench_bpftrace_mem.  It is
# built once per bpftrace version, in the peer's cache; bench/peer/setup
# installs bpftrace.  The guest kernel gives bpftrace what it needs
# itself: BTF (/sys/kernel/btf/vmlinux; no kernel headers) and the
# debugfs and tracefs that testsuite/lib/guest-init mounts.
bench_bpftrace_mem=2048
bench_bpftrace_root()
{
	local bin=/usr/bin/bpftrace ver dir

	ver=$(dpkg-query -W -f '${Version}' bpftrace 2>/dev/null) && [ -x "$bin" ] ||
		{ echo "bench: no bpftrace (bench/peer/setup installs it)" >&2; return 1; }
	dir=${CTAP_CACHE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/ctap}/bpftrace-root-$ver
	if [ ! -x "$dir/usr/bin/bpftrace" ]; then
		rm -rf "$dir.tmp" && mkdir -p "$dir.tmp/usr/bin"
		cp -L "$bin" "$dir.tmp/usr/bin/"
		ldd "$bin" | awk '/=> \//{print $3} /^\t\/[^ ]+ \(/{print $1}' | while read -r lib; do
			mkdir -p "$dir.tmp/$(dirname "$lib")"
			cp -Ln "$lib" "$dir.tmp/$lib"
		done
		rm -rf "$dir" && mv "$dir.tmp" "$dir"
	fi
	echo "$dir"
}
