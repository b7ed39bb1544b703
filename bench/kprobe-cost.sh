#!/bin/bash
# bench/kprobe-cost.sh [RUNS] - per-hit cost of a kprobe on getpid(), side
# by side in one boot of the guest kernel:
#   none      the syscall alone
#   floor     a hand-written kprobe whose handler does nothing
#   stap48-*  Debian's SystemTap 4.8 running kprobe-cost/*.stp
#             (count: n++, stats: s <<< pid(), printf: a line per hit)
#
# array.stp (counts[execname(), pid()]++) is left out: SystemTap 4.8 oopses
# this guest kernel with it on the first run (NULL RIP from
# do_syscall_64, seen 2026-11-22; reproduce with
# CTAP_BENCH_VARIANTS="array" bench/kprobe-cost.sh).
# ctap runs the same scripts (ctap-X next to stap48-X).  Each figure is the
# median of RUNS (7) runs of 200,000 calls.  The configurations take turns
# run by run, so that drift in the emulator's speed hits all alike, and the
# guest has one CPU (less noise than two under TCG).  Writes
# bench/results.md and appends to bench/results/kprobe-cost.csv.
#
# The guest runs under TCG with -icount shift=0: the guest's clock advances
# one nanosecond per emulated instruction, so the figures are instruction
# counts per call, deterministic from boot to boot (plain TCG time drifted
# by 25% between boots on a shared host).  Compare the rows with each
# other, not with hardware nanoseconds.
set -euo pipefail
runs=${1:-7}
here=$(cd "$(dirname "$0")" && pwd)
. "$here/peer/common.sh"
. "$here/lib.sh"
out=$top/bench/out/kprobe-cost
rm -rf "$out" && mkdir -p "$out/kbuild"

gcc -O2 -static "$here/kprobe-cost/syscall_loop.c" -o "$out/syscall_loop"
cp "$here/kprobe-cost/floor_kprobe.c" "$here/kprobe-cost/Kbuild" "$out/kbuild/"
make -s -C "$KERNEL_BUILD" M="$out/kbuild" modules > "$out/kbuild.log" 2>&1 ||
	{ cat "$out/kbuild.log" >&2; exit 1; }
"$here/peer/setup" > /dev/null
mods=(-m "$out/kbuild/floor_kprobe.ko")
read -ra variants <<< "${CTAP_BENCH_VARIANTS:-count stats printf}"
for v in "${variants[@]}"; do
	ko=$("$here/peer/stap" -m "stap48_$v" "$here/kprobe-cost/$v.stp")
	mods+=(-m "$ko")
	(cd "$out" && "$top/translator/stap" -p4 -m "ctap_$v" "$here/kprobe-cost/$v.stp" > /dev/null)
	mods+=(-m "$out/ctap_$v.ko")
done
# The array script oopses the guest under SystemTap 4.8: ctap's alone.
(cd "$out" && "$top/translator/stap" -p4 -m ctap_array "$here/kprobe-cost/array.stp" > /dev/null)
mods+=(-m "$out/ctap_array.ko")

cat > "$out/kprobe_cost.sh" <<EOT
# timeout: 900
N=200000
result() { printf 'RESULT %s %s\n' "\$1" "\$(grep -o 'ns_per_call=[0-9.]*' | cut -d= -f2)"; }
for i in \$(seq $runs); do
	syscall_loop \$N | result none
	insmod modules/floor_kprobe.ko
	syscall_loop \$N | result floor
	rmmod floor_kprobe
	for v in ${variants[*]}; do
		/usr/bin/staprun -c "/ctap/bin/syscall_loop \$N" /ctap/modules/stap48_\$v.ko | result stap48-\$v
		/ctap/bin/staprun -c "/ctap/bin/syscall_loop \$N" /ctap/modules/ctap_\$v.ko | result ctap-\$v
	done
	/ctap/bin/staprun -c "/ctap/bin/syscall_loop \$N" /ctap/modules/ctap_array.ko | result ctap-array
done
EOT
CTAP_QEMU_EXTRA="-icount shift=0,sleep=off" \
"$top/testsuite/guest-run" -s 1 -o "$out/guest" "${mods[@]}" -b "$out/syscall_loop" \
	-r "$payload" "$out/kprobe_cost.sh" > /dev/null || true
bench_guest_ok "$out/guest" kprobe_cost kprobe-cost

# Medians, overheads, the table and the CSV row.
cpu=$(sed -n 's/^model name\s*: //p' /proc/cpuinfo | head -n 1)
csv=$top/bench/results/kprobe-cost.csv
[ -f "$csv" ] || echo "date,commit,kernel,config,median_instructions,runs" > "$csv"
awk -v date="$bench_date" -v commit="$bench_commit" -v kernel="$KERNEL_RELEASE" -v runs="$runs" \
    -v csv="$csv" -v cpu="$cpu" "$bench_median_awk"'
	/^RESULT / { v[$2] = v[$2] " " $3; if (!($2 in seen)) { seen[$2] = 1; order[++n] = $2 } }
	END {
		for (i = 1; i <= n; i++) m[order[i]] = median(v[order[i]])
		floor = m["floor"] - m["none"]
		printf "# Benchmarks\n\n"
		printf "Per-hit cost of a kprobe on `__x64_sys_getpid`, %s, %s, commit %s.\n", kernel, date, commit
		printf "Host CPU: %s. The guest runs under QEMU TCG with `-icount shift=0`: one guest ns is one emulated instruction, so the figures are **instructions per call**, repeatable from boot to boot; compare rows with each other, not with hardware time.\n", cpu
		printf "Median of %d runs of 200,000 calls each, configurations taking turns, one boot, one guest CPU (`bench/kprobe-cost.sh`).\n\n", runs
		printf "| configuration | instructions per call | handler cost (minus no probe) | x floor |\n|---|---:|---:|---:|\n"
		for (i = 1; i <= n; i++) {
			c = order[i]; over = m[c] - m["none"]
			printf "| %s | %.1f | %s | %s |\n", c, m[c], c == "none" ? "-" : sprintf("%.1f", over),
				(c == "none" || floor <= 0) ? "-" : sprintf("%.2f", over / floor)
			printf "%s,%s,%s,%s,%.1f,%d\n", date, commit, kernel, c, m[c], runs >> csv
		}
		printf "\nNot measured: SystemTap 4.8 with `counts[execname(), pid()]++` oopses this kernel (see the script).\n"
		printf "ctap-X and stap48-X run the same script X (`bench/kprobe-cost/X.stp`) in the same boot.\n"
	}' "$out/guest/kprobe_cost.stdout" > "$top/bench/results.md"
cat "$top/bench/results.md"
