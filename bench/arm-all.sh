#!/bin/bash
# bench/arm-all.sh - arming the whole kernel: a staprun session with
# `probe kernel.function("*") { next }` (every function ctap may probe,
# about 40,000 on 6.1) and one with `kernel.function("*").return`, in one
# boot of the guest, with staprun -v's timings of each step: module load,
# arming (START: the begin probes and every probe registered), disarming
# (EXIT: every probe unregistered and the end probes), and the unload.
#
# On the host: the generated C's size, and passes 2, 3 and 4 (the
# translator's -v times; pass 4's, the module's build, is wall time).
#
# The guest runs under TCG with -icount shift=0 (as bench/kprobe-cost.sh):
# one emulated nanosecond per instruction, so the milliseconds are
# millions of instructions, deterministic from boot to boot.  Whole-kernel
# .return probes take minutes there; CTAP_ARM_VARIANTS lists the scripts
# to run ("all all_return", the default; "s" and "s_return" arm the 3,600
# functions of kernel.function("s*") for a quicker look).
#
# The kernel: $CTAP_KERNEL_BUILD (a build tree or a release of
# `testsuite/kernels --list`), else the configured one.  Writes
# bench/results-arm.md (bench/results-arm-SERIES.md for another kernel)
# and appends to bench/results/arm.csv.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
. "$here/peer/common.sh"
. "$here/lib.sh"
series=$(echo "$KERNEL_RELEASE" | cut -d. -f1,2)
md=$top/bench/results-arm.md
[ "$KERNEL_RELEASE" = "$site_release" ] || md=$top/bench/results-arm-$series.md
out=$top/bench/out/arm-all-$KERNEL_RELEASE
rm -rf "$out" && mkdir -p "$out"
ctap=("$top/translator/stap" -r "$KERNEL_BUILD")
read -ra variants <<< "${CTAP_ARM_VARIANTS:-all all_return}"

gcc -O2 -static "$here/transport/timeit.c" -o "$out/timeit"
# The script of a variant: all, all_return, or a glob's first letters.
script()
{
	local glob='*' suffix=""

	case $1 in
	*_return) suffix=.return ;;
	esac
	case ${1%_return} in
	all) ;;
	*) glob="${1%_return}*" ;;
	esac
	printf 'probe kernel.function("%s")%s { next }\n' "$glob" "$suffix"
}
# Host side: passes 2-4 (ms) and the C's size (bytes), "p2 p3 p4 bytes".
mods=()
for v in "${variants[@]}"; do
	script "$v" > "$out/$v.stp"
	(cd "$out" && "${ctap[@]}" -v -p3 "$v.stp" > "$v.c" 2> "$v.p3.err")
	start=$(date +%s%N)
	(cd "$out" && "${ctap[@]}" -p4 -m "arm_$v" "$v.stp" > /dev/null)
	p4=$((($(date +%s%N) - start) / 1000000))
	pass_ms() { sed -n "s/^Pass $1: .* in [0-9]*usr\/[0-9]*sys\/\([0-9]*\)real ms.*/\1/p" "$out/$v.p3.err"; }
	echo "$v $(pass_ms 2) $(pass_ms 3) $p4 $(stat -c %s "$out/$v.c")" >> "$out/host"
	"${ctap[@]}" -l "$(sed 's/^probe \(.*\) { next }$/\1/' "$out/$v.stp")" | grep -c . > "$out/$v.n"
	mods+=(-m "$out/arm_$v.ko")
done

# A session per variant: staprun -v says how long each step took.
cat > "$out/arm_all.sh" <<EOF
# timeout: 6000
for v in ${variants[*]}; do
	timeit /ctap/bin/staprun -v -c /bin/true /ctap/modules/arm_\$v.ko > \$CTAP_OUT/\$v.log 2>&1
	echo "\$v rc=\$?"
done
dmesg > \$CTAP_OUT/dmesg.txt
EOF
CTAP_QEMU_EXTRA="-icount shift=0,sleep=off" \
guest_run -s 1 -o "$out/guest" "${mods[@]}" -b "$out/timeit" "$out/arm_all.sh" > /dev/null || true
bench_guest_ok "$out/guest" arm_all arm-all

csv=$top/bench/results/arm.csv
[ -f "$csv" ] || echo "date,commit,kernel,script,probes,refused,load_ms,arm_ms,disarm_ms,unload_ms,session_ms,pass2_ms,pass3_ms,pass4_ms,c_bytes" > "$csv"
{
	echo "# Arming the whole kernel ($KERNEL_RELEASE)"
	echo
	echo "One staprun session per script in one guest boot (\`bench/arm-all.sh\`, $bench_date, $bench_commit), under \`-icount shift=0\`: a millisecond is a million emulated instructions. Steps as \`staprun -v\` times them: load (insmod), arm (START: every probe registered), disarm (EXIT: every probe unregistered), unload; the session is \`timeit\`'s whole run. Probes: the translator's count (\`stap -l\`); refused: those the kernel would not take (warnings)."
	echo
	echo "| script | probes | refused | load | arm | disarm | unload | session | C | pass 2 | pass 3 | pass 4 |"
	echo "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
} > "$md"
for v in "${variants[@]}"; do
	log=$out/guest/arm_all.files/$v.log
	ms() { sed -n "s/^staprun: module .* $1 .* in \([0-9]*\) ms$/\1/p; s/^staprun: module .* $1 in \([0-9]*\) ms$/\1/p" "$log" | head -n 1; }
	load=$(ms loaded) arm=$(ms started:) disarm=$(ms stopped:) unload=$(ms unloaded)
	session=$(sed -n 's/^elapsed_ns=\([0-9]*\)$/\1/p' "$log")
	session=$((${session:-0} / 1000000))
	refused=$(grep -c 'registration error' "$log" || true)
	n=$(cat "$out/$v.n")
	read -r _ p2 p3 p4 bytes < <(grep "^$v " "$out/host")
	echo "$bench_date,$bench_commit,$KERNEL_RELEASE,$(cat "$out/$v.stp" | sed 's/,/;/g'),$n,$refused,$load,$arm,$disarm,$unload,$session,$p2,$p3,$p4,$bytes" >> "$csv"
	s() { [ -n "$1" ] && awk -v v="$1" 'BEGIN { printf "%.2f s", v / 1000 }' || echo "-"; }
	echo "| \`$(cat "$out/$v.stp")\` | $n | $refused | $(s "$load") | $(s "$arm") | $(s "$disarm") | $(s "$unload") | $(s "$session") | $((bytes / 1024)) KiB | $(s "$p2") | $(s "$p3") | $(s "$p4") |" >> "$md"
	grep -q 'did not stop' "$log" && echo "arm-all: $v: staprun gave up waiting for the stop" >&2
done
echo >> "$md"
echo "The guest's logs: bench/out/arm-all-$KERNEL_RELEASE/guest/arm_all.files/." >> "$md"
cat "$md"
