#!/bin/bash
# bench/transport.sh [RUNS] - output throughput and session start, ctap's
# transport and staprun next to SystemTap 4.8's and bpftrace 0.17's
# (transport/*.bt: its perf ring buffer, compile included), in one boot of
# the guest.  CTAP_BENCH_NO_BPFTRACE=1 leaves bpftrace out.
#
#   flood    every one of 20,000 getpid() calls of the -c workload prints a
#            line ("smoke: hit N from pid P"); throughput = bytes delivered
#            / elapsed time of the whole staprun session, and drops counted.
#            Both run transport/flood.stp, each built by its own stap.
#   session  staprun -c true with a module that prints one line: load,
#            start, stop, unload.
#
# Like kprobe-cost.sh the guest runs with -icount shift=0 on one CPU, so
# time is emulated instructions and repeatable.  Median of RUNS (5).
# Writes bench/results-transport.md and appends to
# bench/results/transport.csv.  The kernel: $CTAP_KERNEL_BUILD (a build
# tree or a release of `testsuite/kernels --list`), else the configured
# one; for another than the configured one the report is
# bench/results-transport-SERIES.md (6.12, 5.10).  Where SystemTap 4.8
# does not build for the kernel, ctap runs alone and the report says why.
set -euo pipefail
runs=${1:-5}
here=$(cd "$(dirname "$0")" && pwd)
. "$here/peer/common.sh"
. "$here/lib.sh"
md=$top/bench/results-transport.md
[ "$KERNEL_RELEASE" = "$site_release" ] ||
	md=$top/bench/results-transport-$(echo "$KERNEL_RELEASE" | cut -d. -f1,2).md
out=$top/bench/out/transport-$KERNEL_RELEASE
rm -rf "$out" && mkdir -p "$out"
gcc -O2 -static "$here/transport/timeit.c" -o "$out/timeit"
gcc -O2 -static "$here/kprobe-cost/syscall_loop.c" -o "$out/syscall_loop"
"$here/peer/setup" > /dev/null
roots=(-r "$payload") mem=1024
if [ -z "${CTAP_BENCH_NO_BPFTRACE:-}" ]; then
	roots+=(-r "$(bench_bpftrace_root)" -r "$out/btroot") mem=$bench_bpftrace_mem
	mkdir -p "$out/btroot/ctap/bt"
	cp "$here"/transport/*.bt "$out/btroot/ctap/bt/"
fi
mods=(-m "$out/ctap_flood.ko" -m "$out/ctap_start.ko")
unbuilt=""
for v in flood start; do
	if ko=$("$here/peer/stap" -m "stap48_$v" "$here/transport/$v.stp" 2> "$out/stap48_$v.err"); then
		mods+=(-m "$ko")
	else
		unbuilt="$unbuilt- \`$v.stp\`: \`$(stap48_first_error "$out/stap48_$v.err")\`\\n"	# awk -v reads \n
	fi
done
(cd "$out" && "$top/translator/stap" -r "$KERNEL_BUILD" -p4 -m ctap_flood "$here/transport/flood.stp" > /dev/null &&
	"$top/translator/stap" -r "$KERNEL_BUILD" -p4 -m ctap_start "$here/transport/start.stp" > /dev/null)

cat > "$out/transport.sh" <<EOT
# timeout: 900
N=20000
BT=\$([ -d /ctap/bt ] && echo /usr/bin/bpftrace)
field() { grep -o "\$1=[0-9]*" "\$2" | head -n 1 | cut -d= -f2; }
dropped() { grep -o '[0-9]* output writes were dropped' "\$1" | cut -d' ' -f1; }
# SystemTap's own report: "WARNING: There were N transport failures."
stap_failures() { grep -o 'There were [0-9]* transport failures' "\$1" | grep -o '[0-9]*' || echo 0; }
for i in \$(seq $runs); do
	timeit staprun -c "/ctap/bin/syscall_loop \$N" modules/ctap_flood.ko > /tmp/c.out 2> /tmp/c.err
	echo "RESULT flood ctap \$(wc -c < /tmp/c.out) \$(field elapsed_ns /tmp/c.err) \$(dropped /tmp/c.err)"
	if [ -f /ctap/modules/stap48_flood.ko ]; then
		timeit /usr/bin/staprun -c "/ctap/bin/syscall_loop \$N" /ctap/modules/stap48_flood.ko > /tmp/s.out 2> /tmp/s.err
		echo "RESULT flood stap48 \$(wc -c < /tmp/s.out) \$(field elapsed_ns /tmp/s.err) \$(stap_failures /tmp/s.err)"
	fi
	if [ -n "\$BT" ]; then
		timeit \$BT -c "/ctap/bin/syscall_loop \$N" /ctap/bt/flood.bt > /tmp/b.out 2> /tmp/b.err
		echo "RESULT flood bpftrace \$(grep '^smoke' /tmp/b.out | wc -c) \$(field elapsed_ns /tmp/b.err) \$(cat /tmp/b.out /tmp/b.err | grep -o 'Lost [0-9]* events' | grep -o '[0-9]*' | awk '{ n += \$1 } END { print n + 0 }')"
	fi
	timeit staprun -c true modules/ctap_start.ko > /dev/null 2> /tmp/c.err
	echo "RESULT session ctap 0 \$(field elapsed_ns /tmp/c.err) 0"
	if [ -f /ctap/modules/stap48_start.ko ]; then
		timeit /usr/bin/staprun -c true /ctap/modules/stap48_start.ko > /dev/null 2> /tmp/s.err
		echo "RESULT session stap48 0 \$(field elapsed_ns /tmp/s.err) 0"
	fi
	if [ -n "\$BT" ]; then
		timeit \$BT -c true /ctap/bt/start.bt > /dev/null 2> /tmp/b.err
		echo "RESULT session bpftrace 0 \$(field elapsed_ns /tmp/b.err) 0"
	fi
done
EOT
CTAP_QEMU_EXTRA="-icount shift=0,sleep=off" \
guest_run -s 1 -M "$mem" -o "$out/guest" "${mods[@]}" -b "$out/timeit" -b "$out/syscall_loop" "${roots[@]}" "$out/transport.sh" > /dev/null || true
bench_guest_ok "$out/guest" transport transport

csv=$top/bench/results/transport.csv
[ -f "$csv" ] || echo "date,commit,kernel,test,system,median_bytes,median_emulated_ms,median_dropped,runs" > "$csv"
awk -v date="$bench_date" -v commit="$bench_commit" -v kernel="$KERNEL_RELEASE" -v runs="$runs" -v csv="$csv" \
    -v unbuilt="$unbuilt" "$bench_median_awk"'
	/^RESULT / { key = $2 " " $3; b[key] = b[key] " " $4; t[key] = t[key] " " $5; d[key] = d[key] " " ($6 == "" ? 0 : $6)
		if (!(key in seen)) { seen[key] = 1; order[++n] = key } }
	END {
		printf "# Transport and session benchmarks\n\n"
		printf "%s, %s, commit %s. Guest under QEMU TCG with `-icount shift=0` on one CPU: time is emulated (1 ns per instruction), repeatable; compare rows. Median of %d runs (`bench/transport.sh`).\n\n", kernel, date, commit, runs
		printf "| test | system | output bytes | emulated ms | MB/s (emulated) | drops reported |\n|---|---|---:|---:|---:|---:|\n"
		for (i = 1; i <= n; i++) {
			k = order[i]; split(k, kk, " ")
			mb = median(b[k]); ms = median(t[k]) / 1e6; dr = median(d[k])
			printf "| %s | %s | %d | %.1f | %s | %d |\n", kk[1], kk[2] == "ctap" ? "ctap" : kk[2] == "bpftrace" ? "bpftrace 0.17" : "SystemTap 4.8", mb, ms,
				kk[1] == "flood" ? sprintf("%.2f", mb / 1048576 / (ms / 1000)) : "-", dr
			printf "%s,%s,%s,%s,%s,%d,%.1f,%d,%d\n", date, commit, kernel, kk[1], kk[2], mb, ms, dr, runs >> csv
		}
		printf "\nflood: 20,000 getpid() calls, each printing one ~30-byte line (about 590 KB if nothing is lost), through the whole staprun session; drops are what each system reports (ctap: writes dropped; SystemTap: \"transport failures\"; bpftrace: \"Lost N events\"). session: staprun -c true (load, start, stop, unload); bpftrace -c true with a BEGIN probe (its compile in the guest included).\n"
		if (unbuilt != "")
			printf "\nNot measured: SystemTap 4.8 does not build these for %s (first error):\n\n%s", kernel, unbuilt
	}' "$out/guest/transport.stdout" > "$md"
cat "$md"
