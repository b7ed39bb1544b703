#!/bin/bash
# bench/kprobe-cost.sh [RUNS] - per-hit cost of probes, side by side in one
# boot of the guest kernel:
#   none      the syscall alone (getpid)
#   floor     a hand-written kprobe whose handler does nothing
#   floor-ftrace, floor-ftrace-args: a hand-written ftrace_ops on the same
#             function, doing nothing, with all registers and with the
#             argument registers only (ctap's entry probes on ftrace sites
#             go this way, with all registers)
#   stap48-*  Debian's SystemTap 4.8 running kprobe-cost/*.stp
#             (count: n++, stats: s <<< pid(), printf: a line per hit,
#             array1: counts[execname()]++,
#             wild: n++ on 117 functions, getpid among them,
#             syscall: nd_syscall.getpid n++)
#   ctap-*    ctap running the same scripts
#   bpftrace-* Debian's bpftrace 0.17 running kprobe-cost/*.bt, each the
#             .stp of its name in bpftrace's words (kfunc.bt: count by
#             fentry, on getsid: the BTF lacks getpid); its arm- rows are
#             its per-hit sessions less their calls (N x per-call), since
#             a session of it compiles the script (LLVM) in the guest
#   ctap-count-kprobes: ctap's count with entry probes as kprobes
#             (ctap_ftrace=0), as before ftrace
#   uprobe_args-*: the same with a function of two parameters and a
#             handler reading both ($x + $y, from DWARF)
#   uprobe-none, uprobe-floor, stap48-uprobe, ctap-uprobe: a user function
#             called in a loop, alone, under an empty hand-written uprobe,
#             under process().function() n++ in SystemTap and in ctap
#   arm-*     a whole staprun session (load, arm, run `syscall_loop 1`,
#             disarm, unload) with 1 probe (count) and with 117 (wild)
#   ctap-syscall_all: syscall.* n++ (ctap's alone: SystemTap 4.8 cannot
#             translate it without debuginfo), per getpid and armed
#   scale-*   whole sessions arming about 10, 100 and 1,000 functions
#             (kprobe-cost/arm*.stp), once each after the runs: instruction
#             counts repeat, and SystemTap's 1,000 take minutes under TCG
#   first-*   script to first event: from the tool's start (timeit -s) to
#             the first getpid's handler (kprobe-cost/first.*); ctap and
#             SystemTap build their module on the host first (build-*:
#             host wall time, a new script each run)
#
# CTAP_BENCH_NO_BPFTRACE=1 leaves bpftrace out (a smaller initramfs and a
# shorter run, for a quick look at ctap's rows); CTAP_BENCH_SCALE="" the
# scale rows (bpftrace's 1,000 probes alone take about 65 s emulated).
#
# array.stp (counts[execname(), pid()]++) is ctap's alone: SystemTap 4.8
# oopses this guest kernel with it on the first run (NULL RIP from
# do_syscall_64, seen 2026-11-22; reproduce with
# CTAP_BENCH_VARIANTS="array" bench/kprobe-cost.sh).
# The kernel: $CTAP_KERNEL_BUILD (a build tree or a release of
# `testsuite/kernels --list`), else the configured one; `make bench` runs
# this on the configured kernel and again on 6.12.  Where SystemTap 4.8
# does not build a script for the kernel, its rows are not measured and
# the CSV says so instead (a row with no figure and the first error).
#
# Each figure is the median of RUNS (7) runs of 200,000 calls (20,000 for
# uprobes, which trap twice per hit).  The configurations take turns run
# by run, so that drift in the emulator's speed hits all alike, and the
# guest has one CPU (less noise than two under TCG).  Writes
# bench/results.md, bench/results/kprobe-cost.png and appends to
# bench/results/kprobe-cost.csv.
#
# The guest runs under TCG with -icount shift=0: the guest's clock advances
# one nanosecond per emulated instruction, so the figures are instruction
# counts per call, deterministic from boot to boot (plain TCG time drifted
# by 25% between boots on a shared host).  Compare the rows with each
# other, not with hardware nanoseconds.
#
# Writes bench/results.md and bench/results/kprobe-cost.png for the
# configured kernel, bench/results-SERIES.md and
# bench/results/kprobe-cost-SERIES.png (SERIES: 6.12, 5.10) for another.
set -euo pipefail
runs=${1:-7}
here=$(cd "$(dirname "$0")" && pwd)
. "$here/peer/common.sh"
. "$here/lib.sh"
series=$(echo "$KERNEL_RELEASE" | cut -d. -f1,2)
md=$top/bench/results.md png=$top/bench/results/kprobe-cost.png
if [ "$KERNEL_RELEASE" != "$site_release" ]; then
	md=$top/bench/results-$series.md png=$top/bench/results/kprobe-cost-$series.png
fi
out=$top/bench/out/kprobe-cost-$KERNEL_RELEASE
rm -rf "$out" && mkdir -p "$out/kbuild"
ctap=("$top/translator/stap" -r "$KERNEL_BUILD")

gcc -O2 -static "$here/kprobe-cost/syscall_loop.c" -o "$out/syscall_loop"
gcc -O2 -static "$here/transport/timeit.c" -o "$out/timeit"
gcc -O2 -g -static "$here/kprobe-cost/ufunc_loop.c" -o "$out/ufunc_loop"
# A uprobe's file offset: the function's address in its LOAD segment.
file_offset()
{
	local va uoff="" type off vaddr msz

	va=$((16#$(nm "$out/ufunc_loop" | awk -v f="$1" '$3 == f { print $1 }')))
	while read -r type off vaddr _ _ msz _; do
		[ "$type" = LOAD ] && ((va >= vaddr && va < vaddr + msz)) && uoff=$((va - vaddr + off))
	done < <(readelf -lW "$out/ufunc_loop")
	[ -n "$uoff" ] || { echo "kprobe-cost: no offset for $1" >&2; exit 1; }
	echo "$uoff"
}
uoff=$(file_offset bench_target)
uoff2=$(file_offset bench_target2)
cp "$here/kprobe-cost/floor_kprobe.c" "$here/kprobe-cost/floor_uprobe.c" "$here/kprobe-cost/floor_ftrace.c" \
	"$here/kprobe-cost/Kbuild" "$out/kbuild/"
make -s -C "$KERNEL_BUILD" M="$out/kbuild" modules > "$out/kbuild.log" 2>&1 ||
	{ cat "$out/kbuild.log" >&2; exit 1; }
"$here/peer/setup" > /dev/null
# bpftrace and its scripts (/ctap/bt) for the guest.
roots=(-r "$payload") mem=1024
if [ -z "${CTAP_BENCH_NO_BPFTRACE:-}" ]; then
	roots+=(-r "$(bench_bpftrace_root)" -r "$out/btroot") mem=$bench_bpftrace_mem
	mkdir -p "$out/btroot/ctap/bt"
	cp "$here"/kprobe-cost/*.bt "$out/btroot/ctap/bt/"
fi
mods=(-m "$out/kbuild/floor_kprobe.ko" -m "$out/kbuild/floor_uprobe.ko" -m "$out/kbuild/floor_ftrace.ko")
# ctap's module for a script (ctap NAME SCRIPT [ARG]): it must build.
ctap_module()
{
	local name=$1
	shift
	(cd "$out" && "${ctap[@]}" -p4 -m "ctap_$name" "$@" > /dev/null)
	mods+=(-m "$out/ctap_$name.ko")
}
# SystemTap 4.8's (stap48_module NAME SCRIPT [ARG]), or, where it does not
# build for this kernel, its first error in $out/stap48-unbuilt ("NAME
# ERROR"): the guest runs only the modules it has.  When its runtime
# alone does not compile for the kernel (`probe begin {}` fails in pass
# 4, as on 6.12), no script can build: each gets that error without
# another try (a failed build is not cached: each costs ~50 s).
stap48_runtime_error=""
echo 'probe begin { exit() }' > "$out/stap48_begin.stp"
if ! "$here/peer/stap" -m stap48_begin "$out/stap48_begin.stp" > /dev/null 2> "$out/stap48_begin.err" &&
   grep -q '^Pass 4: compilation failed' "$out/stap48_begin.err"; then
	stap48_runtime_error="$(stap48_first_error "$out/stap48_begin.err") (its runtime: probe begin {} fails alike)"
fi
stap48_module()
{
	local name=$1 ko
	shift
	if [ -n "$stap48_runtime_error" ]; then
		echo "$name $stap48_runtime_error" >> "$out/stap48-unbuilt"
		echo "kprobe-cost: SystemTap 4.8's runtime does not build for $KERNEL_RELEASE: no $name" >&2
	elif ko=$("$here/peer/stap" -m "stap48_$name" "$@" 2> "$out/stap48_$name.err"); then
		mods+=(-m "$ko")
	else
		echo "$name $(stap48_first_error "$out/stap48_$name.err")" >> "$out/stap48-unbuilt"
		echo "kprobe-cost: SystemTap 4.8 does not build $name for $KERNEL_RELEASE" >&2
	fi
}
read -ra variants <<< "${CTAP_BENCH_VARIANTS:-count stats printf wild syscall array1}"
for v in "${variants[@]}"; do
	stap48_module "$v" "$here/kprobe-cost/$v.stp"
	ctap_module "$v" "$here/kprobe-cost/$v.stp"
done
# The array script oopses the guest under SystemTap 4.8: ctap's alone.
ctap_module array "$here/kprobe-cost/array.stp"
# Arming at scale.
read -ra scale <<< "${CTAP_BENCH_SCALE-arm10 arm100 arm1000}"
for v in "${scale[@]}"; do
	stap48_module "$v" "$here/kprobe-cost/$v.stp"
	ctap_module "$v" "$here/kprobe-cost/$v.stp"
done
# Every system call: SystemTap 4.8 cannot translate syscall.* or
# nd_syscall.* without debuginfo (clone, select), so ctap's alone.
ctap_module syscall_all "$here/kprobe-cost/syscall_all.stp"
# SystemTap finds the uprobe's binary by path: the guest runs it from the
# same path as here ($out/ufunc_loop).
for v in uprobe uprobe_args; do
	stap48_module "$v" "$here/kprobe-cost/$v.stp" "$out/ufunc_loop"
	ctap_module "$v" "$here/kprobe-cost/$v.stp" "$out/ufunc_loop"
done
# Script to first event: each translator's build of a new script (a new
# word for @1), host wall time in ns, then its session in the guest.
nonce=run$(date +%s%N)
ns_now() { date +%s%N; }
t0=$(ns_now); ctap_module first "$here/kprobe-cost/first.stp" "$nonce"; t1=$(ns_now)
build_ctap=$((t1 - t0))
t0=$(ns_now); stap48_module first "$here/kprobe-cost/first.stp" "$nonce"; t1=$(ns_now)
build_stap48=$((t1 - t0))

cat > "$out/kprobe_cost.sh" <<EOT
# timeout: 9000
N=200000
U=20000
BT=\$([ -d /ctap/bt ] && echo /usr/bin/bpftrace)
# bpftrace refuses over 512 probes (or BPF programs) by default: arm1000
# has about 1,000
export BPFTRACE_MAX_PROBES=4096 BPFTRACE_MAX_BPF_PROGS=4096
result() { printf 'RESULT %s %s\n' "\$1" "\$(grep -o 'ns_per_call=[0-9.]*' | cut -d= -f2)"; }
# bt NAME N CMD [ARG]: bpftrace's NAME.bt over CMD (N calls of the
# workload): per call, its session less the calls (arm-), its probe count
bt() {
	[ -n "\$BT" ] && [ -f /ctap/bt/\$1.bt ] || return 0
	timeit \$BT -c "\$3" /ctap/bt/\$1.bt \$4 > /tmp/bt.out 2> /tmp/bt.err
	ns=\$(grep -o 'ns_per_call=[0-9.]*' /tmp/bt.out | cut -d= -f2)
	el=\$(grep -o 'elapsed_ns=[0-9]*' /tmp/bt.err | cut -d= -f2)
	if [ -z "\$ns" ] || [ -z "\$el" ]; then
		{ echo "bpftrace \$1 failed:"; cat /tmp/bt.err; } >&2
		return 0
	fi
	echo "RESULT bpftrace-\$1 \$ns"
	echo "RESULT arm-bpftrace-\$1 \$(awk -v e=\$el -v n=\$2 -v c=\$ns 'BEGIN { printf "%.0f", e - n * c }')"
	echo "RESULT probes-bpftrace-\$1 \$(sed -n 's/^Attaching \([0-9]*\) probe.*/\1/p' /tmp/bt.out)"
}
# first TOOL CLOCK CMD...: script to first event, CMD's start (timeit -s,
# by CLOCK: mono or real) to the first_ns its probe prints
first() {
	t=\$1 c=\$2
	shift 2
	timeit -s "\$@" > /tmp/fe.out 2> /tmp/fe.err
	f=\$(grep -o 'first_ns=[0-9]*' /tmp/fe.out | head -n 1 | cut -d= -f2)
	s=\$(grep -o "start_\${c}_ns=[0-9]*" /tmp/fe.err | cut -d= -f2)
	if [ -z "\$f" ] || [ -z "\$s" ]; then
		{ echo "first \$t failed:"; cat /tmp/fe.out /tmp/fe.err; } >&2
		return 0
	fi
	echo "RESULT first-\$t \$((f - s))"
}
# timeit's elapsed_ns (on stderr), as a result
elapsed() { printf 'RESULT %s %s\n' "\$1" "\$(grep -o 'elapsed_ns=[0-9]*' | cut -d= -f2)"; }
# s48 NAME: SystemTap 4.8 built NAME for this kernel
s48() { [ -f /ctap/modules/stap48_\$1.ko ]; }
mkdir -p "$out" && cp /ctap/bin/ufunc_loop "$out/ufunc_loop"
for i in \$(seq $runs); do
	syscall_loop \$N | result none
	insmod modules/floor_kprobe.ko
	syscall_loop \$N | result floor
	rmmod floor_kprobe
	insmod modules/floor_ftrace.ko regs=1
	syscall_loop \$N | result floor-ftrace
	rmmod floor_ftrace
	insmod modules/floor_ftrace.ko regs=0
	syscall_loop \$N | result floor-ftrace-args
	rmmod floor_ftrace
	syscall_loop \$N getsid | result none-getsid
	for v in ${variants[*]}; do
		call=getpid; [ \$v = wild ] && call=getsid
		if s48 \$v; then
			/usr/bin/staprun -c "/ctap/bin/syscall_loop \$N \$call" /ctap/modules/stap48_\$v.ko | result stap48-\$v
		fi
		/ctap/bin/staprun -c "/ctap/bin/syscall_loop \$N \$call" /ctap/modules/ctap_\$v.ko | result ctap-\$v
		bt \$v \$N "/ctap/bin/syscall_loop \$N \$call"
	done
	bt kfunc \$N "/ctap/bin/syscall_loop \$N getsid"
	/ctap/bin/staprun -c "/ctap/bin/syscall_loop \$N" /ctap/modules/ctap_count.ko ctap_ftrace=0 | result ctap-count-kprobes
	/ctap/bin/staprun -c "/ctap/bin/syscall_loop \$N" /ctap/modules/ctap_array.ko | result ctap-array
	bt array \$N "/ctap/bin/syscall_loop \$N"
	/ctap/bin/staprun -c "/ctap/bin/syscall_loop \$N" /ctap/modules/ctap_syscall_all.ko | result ctap-syscall_all
	bt syscall_all \$N "/ctap/bin/syscall_loop \$N"
	$out/ufunc_loop \$U | result uprobe-none
	insmod modules/floor_uprobe.ko path=$out/ufunc_loop offset=$uoff
	$out/ufunc_loop \$U | result uprobe-floor
	rmmod floor_uprobe
	if s48 uprobe; then
		/usr/bin/staprun -c "$out/ufunc_loop \$U" /ctap/modules/stap48_uprobe.ko | result stap48-uprobe
	fi
	/ctap/bin/staprun -c "$out/ufunc_loop \$U" /ctap/modules/ctap_uprobe.ko | result ctap-uprobe
	bt uprobe \$U "$out/ufunc_loop \$U" $out/ufunc_loop
	$out/ufunc_loop \$U 2 | result uprobe_args-none
	insmod modules/floor_uprobe.ko path=$out/ufunc_loop offset=$uoff2
	$out/ufunc_loop \$U 2 | result uprobe_args-floor
	rmmod floor_uprobe
	if s48 uprobe_args; then
		/usr/bin/staprun -c "$out/ufunc_loop \$U 2" /ctap/modules/stap48_uprobe_args.ko | result stap48-uprobe_args
	fi
	/ctap/bin/staprun -c "$out/ufunc_loop \$U 2" /ctap/modules/ctap_uprobe_args.ko | result ctap-uprobe_args
	bt uprobe_args \$U "$out/ufunc_loop \$U 2" $out/ufunc_loop
	for v in count wild syscall; do
		if s48 \$v; then
			timeit /usr/bin/staprun -c "/ctap/bin/syscall_loop 1" /ctap/modules/stap48_\$v.ko 2>&1 >/dev/null | elapsed arm-stap48-\$v
		fi
		timeit /ctap/bin/staprun -c "/ctap/bin/syscall_loop 1" /ctap/modules/ctap_\$v.ko 2>&1 >/dev/null | elapsed arm-ctap-\$v
	done
	timeit /ctap/bin/staprun -c "/ctap/bin/syscall_loop 1" /ctap/modules/ctap_syscall_all.ko 2>&1 >/dev/null | elapsed arm-ctap-syscall_all
	first ctap real /ctap/bin/staprun -c "/ctap/bin/syscall_loop 1" /ctap/modules/ctap_first.ko
	if s48 first; then
		first stap48 real /usr/bin/staprun -c "/ctap/bin/syscall_loop 1" /ctap/modules/stap48_first.ko
	fi
	[ -z "\$BT" ] || first bpftrace mono \$BT -c "/ctap/bin/syscall_loop 1" /ctap/bt/first.bt
done
for v in ${scale[*]}; do
	if s48 \$v; then
		timeit /usr/bin/staprun -c "/ctap/bin/syscall_loop 1" /ctap/modules/stap48_\$v.ko 2>&1 >/dev/null | elapsed scale-stap48-\$v
	fi
	timeit /ctap/bin/staprun -c "/ctap/bin/syscall_loop 1" /ctap/modules/ctap_\$v.ko 2>&1 >/dev/null | elapsed scale-ctap-\$v
	if [ -n "\$BT" ]; then
		timeit \$BT -c "/ctap/bin/syscall_loop 1" /ctap/bt/\$v.bt > /tmp/bt.out 2> /tmp/bt.err
		np=\$(sed -n 's/^Attaching \([0-9]*\) probe.*/\1/p' /tmp/bt.out)
		if [ -n "\$np" ]; then
			grep -o 'elapsed_ns=[0-9]*' /tmp/bt.err | elapsed scale-bpftrace-\$v
			echo "RESULT probes-bpftrace-\$v \$np"
		else
			{ echo "bpftrace \$v failed:"; cat /tmp/bt.err; } >&2
		fi
	fi
done
EOT
CTAP_QEMU_EXTRA="-icount shift=0,sleep=off" \
guest_run -s 1 -M "$mem" -o "$out/guest" "${mods[@]}" -b "$out/syscall_loop" \
	-b "$out/timeit" -b "$out/ufunc_loop" "${roots[@]}" "$out/kprobe_cost.sh" > /dev/null || true
bench_guest_ok "$out/guest" kprobe_cost kprobe-cost

# How many probes a script arms, by SystemTap's own count (its -v pass-2
# line, "N probe(s)"; 0 where its pass 2 fails on this kernel).
stap_probes()
{
	local n
	n=$(SYSTEMTAP_DIR=$peer/stapdir stap -R "$runtime" -r "$kbuild" -v -p2 "$1" 2>&1 >/dev/null |
		sed -n 's/^Pass 2: analyzed script: \([0-9]*\) probe.*/\1/p') || true
	echo "${n:-0}"
}
# How many probes the wildcard armed, by each tool's own count.
ctap_nwild=$("${ctap[@]}" -l 'kprobe.function("__x64_sys_[a-g]*")' | grep -c .)
stap_nwild=$(stap_probes "$here/kprobe-cost/wild.stp")

# The probes each arm* script armed, by each tool's own count.
ctap_probes() { grep -o 'kprobe.function("[^"]*")' "$1" | while read -r p; do "${ctap[@]}" -l "$p"; done | grep -c .; }
nscale=""
for v in arm10 arm100 arm1000; do
	nscale="$nscale $(ctap_probes "$here/kprobe-cost/$v.stp") $(stap_probes "$here/kprobe-cost/$v.stp")"
done

# Medians, overheads, the tables, the CSV rows and the plot data.  A
# script SystemTap 4.8 did not build gets a CSV row with no figure and the
# error as its note (a comma in it becomes a semicolon).
cpu=$(sed -n 's/^model name\s*: //p' /proc/cpuinfo | head -n 1)
csv=$top/bench/results/kprobe-cost.csv
[ -f "$csv" ] || echo "date,commit,kernel,config,median_instructions,runs,note" > "$csv"
touch "$out/stap48-unbuilt"
awk -v date="$bench_date" -v commit="$bench_commit" -v kernel="$KERNEL_RELEASE" -v runs="$runs" \
    -v csv="$csv" -v cpu="$cpu" -v plot="$out/plot.dat" -v pngrel="results/${png##*/}" \
    -v ctap_nwild="$ctap_nwild" -v stap_nwild="$stap_nwild" -v nscale="$nscale" \
    -v build_ctap="$build_ctap" -v build_stap48="$build_stap48" "$bench_median_awk"'
	FILENAME ~ /stap48-unbuilt$/ { name = $1; $1 = ""; unbuilt[name] = substr($0, 2); unorder[++nu] = name; next }
	/^RESULT / { v[$2] = v[$2] " " $3; if (!($2 in seen)) { seen[$2] = 1; order[++n] = $2 } }
	function base(c) { return c ~ /uprobe_args/ ? "uprobe_args-none" : c ~ /uprobe/ ? "uprobe-none" : c ~ /wild|getsid|kfunc/ ? "none-getsid" : "none" }
	function flr(c) { return c ~ /uprobe_args/ ? "uprobe_args-floor" : c ~ /uprobe/ ? "uprobe-floor" : "floor" }
	# SystemTap 4.8 built script s for this kernel
	function built(tool, s) { return tool != "stap48" || !(s in unbuilt) }
	function per_extra(a, b, k) { return k > 0 ? sprintf("%.2f M", (b - a) / k / 1e6) : "-" }
	# A scale cell: M instructions (probes), or why none: a bpftrace
	# session that attached nothing (over its BPFTRACE_MAX_PROBES) or failed
	function scell(tool, v, np) {
		if (!(("scale-" tool "-" v) in m))
			return "failed (the guest'"'"'s stderr)"
		if (tool == "bpftrace" && np == 0)
			return "refused (over 512 probes)"
		return sprintf("%.1f M (%d)", m["scale-" tool "-" v] / 1e6, np)
	}
	function toolname(t) { return t == "ctap" ? "ctap" : t == "bpftrace" ? "bpftrace 0.17" : "SystemTap 4.8" }
	# bpftrace ran (its rows are left out with CTAP_BENCH_NO_BPFTRACE)
	function hasbt(c) { return ("bpftrace-" c) in m || ("scale-bpftrace-" c) in m }
	END {
		for (i = 1; i <= n; i++) m[order[i]] = median(v[order[i]])
		printf "# Benchmarks\n\n"
		printf "Probe costs on %s, %s, commit %s.\n", kernel, date, commit
		printf "Host CPU: %s. The guest runs under QEMU TCG with `-icount shift=0`: one guest ns is one emulated instruction, so the figures are **instructions**, repeatable from boot to boot; compare rows with each other, not with hardware time.\n", cpu
		printf "Median of %d runs (200,000 getpid() calls; 20,000 calls of a user function for uprobes), configurations taking turns, one boot, one guest CPU (`bench/kprobe-cost.sh`).\n\n", runs
		printf "## Per hit\n\n| configuration | instructions per call | handler cost (minus no probe) | x floor |\n|---|---:|---:|---:|\n"
		for (i = 1; i <= n; i++) {
			c = order[i]
			printf "%s,%s,%s,%s,%.1f,%d,\n", date, commit, kernel, c, m[c], runs >> csv
			if (c ~ /^(arm|scale|probes|first)-/)
				continue
			over = m[c] - m[base(c)]; fl = m[flr(c)] - m[base(flr(c))]
			printf "| %s | %.1f | %s | %s |\n", c, m[c], c == base(c) ? "-" : sprintf("%.1f", over),
				(c == base(c) || fl <= 0) ? "-" : sprintf("%.2f", over / fl)
			if (c != base(c))
				printf "%s %.1f\n", c, over > plot
		}
		for (i = 1; i <= nu; i++) {
			note = unbuilt[unorder[i]]; gsub(/,/, ";", note)
			printf "%s,%s,%s,stap48-%s,,0,does not build: %s\n", date, commit, kernel, unorder[i], note >> csv
			if (unorder[i] !~ /^(arm|first)/)
				printf "| stap48-%s | does not build | | |\n", unorder[i]
		}
		# the builds of first.stp: host wall time, ns (not instructions)
		printf "%s,%s,%s,build-ctap-first,%.0f,1,host wall ns\n", date, commit, kernel, build_ctap >> csv
		if (built("stap48", "first"))
			printf "%s,%s,%s,build-stap48-first,%.0f,1,host wall ns\n", date, commit, kernel, build_stap48 >> csv
		printf "\n## Arming\n\nA whole `staprun -c \"syscall_loop 1\"` session: load the module, arm, run, disarm, unload.\n\n"
		printf "bpftrace'"'"'s: its per-hit sessions (200,000 calls) less the calls; a bpftrace session compiles its script (LLVM) in the guest, where the others load a module built on the host.\n\n"
		printf "| tool | 1 probe | the wildcard | probes | per extra probe |\n|---|---:|---:|---:|---:|\n"
		ntools = split("stap48 ctap" (hasbt("count") ? " bpftrace" : ""), tools, " ")
		nwild["stap48"] = stap_nwild; nwild["ctap"] = ctap_nwild; nwild["bpftrace"] = m["probes-bpftrace-wild"]
		for (t = 1; t <= ntools; t++) {
			tool = tools[t]; name = toolname(tool)
			if (!built(tool, "count") || !built(tool, "wild")) {
				printf "| %s | does not build | | | |\n", name
				continue
			}
			one = m["arm-" tool "-count"]; many = m["arm-" tool "-wild"]
			printf "| %s | %.1f M | %.1f M | %d | %s |\n", name, one / 1e6, many / 1e6, nwild[tool],
				per_extra(one, many, nwild[tool] - 1)
		}
		split(nscale, ns, " ")
		printf "\n## Arming at scale\n\nWhole sessions (M instructions) arming about 10, 100 and 1,000 functions (`bench/kprobe-cost/arm*.stp`: 32-bit system call entries, and for 1,000 the 64-bit ones too), run once each: the counts repeat from run to run.\n\n"
		printf "| tool | ~10 | ~100 | ~1,000 | per extra probe, 100 to 1,000 |\n|---|---:|---:|---:|---:|\n"
		for (t = 1; t <= ntools; t++) {
			tool = tools[t]; o = tool == "ctap" ? 0 : 1; name = toolname(tool)
			if (tool == "bpftrace") {
				if (!hasbt("arm10"))
					continue
				ns[1] = m["probes-bpftrace-arm10"]; ns[3] = m["probes-bpftrace-arm100"]; ns[5] = m["probes-bpftrace-arm1000"]; o = 0
			}
			if (!built(tool, "arm10") || !built(tool, "arm100") || !built(tool, "arm1000")) {
				printf "| %s | does not build | | | |\n", name
				continue
			}
			a = m["scale-" tool "-arm10"]; b = m["scale-" tool "-arm100"]; c = m["scale-" tool "-arm1000"]
			printf "| %s | %s | %s | %s | %s |\n", name, scell(tool, "arm10", ns[1 + o]), scell(tool, "arm100", ns[3 + o]),
				scell(tool, "arm1000", ns[5 + o]), (ns[5 + o] > 0 ? per_extra(b, c, ns[5 + o] - ns[3 + o]) : "-")
		}
		printf "\n## System calls\n\nA getpid() hit and a whole session (instructions, M for sessions) with `nd_syscall.getpid { n++ }` (SystemTap 4.8: a kprobe on `__x64_sys_getpid`; ctap: `kernel.syscall(\"getpid\")` on the raw_syscalls tracepoints) and with `syscall.* { n++ }` (ctap only: SystemTap 4.8 cannot translate `syscall.*` or `nd_syscall.*` without debuginfo).\n\n"
		printf "| tool | nd_syscall.getpid, per hit | its session | syscall.*, per getpid hit | its session |\n|---|---:|---:|---:|---:|\n"
		if (built("stap48", "syscall"))
			printf "| SystemTap 4.8 | %.1f | %.1f M | - | - |\n", m["stap48-syscall"] - m["none"], m["arm-stap48-syscall"] / 1e6
		else
			printf "| SystemTap 4.8 | does not build | | - | - |\n"
		printf "| ctap | %.1f | %.1f M | %.1f | %.1f M |\n", m["ctap-syscall"] - m["none"], m["arm-ctap-syscall"] / 1e6,
			m["ctap-syscall_all"] - m["none"], m["arm-ctap-syscall_all"] / 1e6
		if (hasbt("syscall"))
			printf "| bpftrace 0.17 (`tracepoint:syscalls:sys_enter_getpid`; `tracepoint:raw_syscalls:sys_enter`) | %.1f | %.1f M | %.1f | %.1f M |\n",
				m["bpftrace-syscall"] - m["none"], m["arm-bpftrace-syscall"] / 1e6,
				m["bpftrace-syscall_all"] - m["none"], m["arm-bpftrace-syscall_all"] / 1e6
		printf "\n## Script to first event\n\nFrom the tool'"'"'s start in the guest to the first getpid()'"'"'s handler (`kprobe-cost/first.stp`, `first.bt`), emulated ms (M instructions); ctap and SystemTap 4.8 build the module on the host before (host wall time, a new script each run, the runtime cached), bpftrace compiles in the guest.\n\n"
		printf "| tool | build on the host (wall) | start to first event in the guest (emulated) |\n|---|---:|---:|\n"
		for (t = 1; t <= ntools; t++) {
			tool = tools[t]
			if (!(("first-" tool) in m)) {
				printf "| %s | %s | |\n", toolname(tool), built(tool, "first") ? "-" : "does not build"
				continue
			}
			printf "| %s | %s | %.1f ms |\n", toolname(tool), tool == "bpftrace" ? "-" : sprintf("%.0f ms", (tool == "ctap" ? build_ctap : build_stap48) / 1e6), m["first-" tool] / 1e6
		}
		if (nu) {
			printf "\nSystemTap 4.8 does not build these scripts for %s (`bench/peer/stap`), so they are not measured; the first error of each:\n\n", kernel
			for (i = 1; i <= nu; i++)
				printf "- `%s.stp`: `%s`\n", unorder[i], unbuilt[unorder[i]]
		}
		printf "\nNot measured: SystemTap 4.8 with `counts[execname(), pid()]++` oopses the 6.1 guest kernel (see the script).\n"
		printf "ctap-X and stap48-X run the same script X (`bench/kprobe-cost/X.stp`) in the same boot; bpftrace-X runs `bench/kprobe-cost/X.bt`, the same in bpftrace'"'"'s words (kfunc: `kfunc:__x64_sys_getsid { @n++ }` on the getsid workload: the kernel'"'"'s BTF lacks `__x64_sys_getpid`).\n"
		printf "\n![handler cost per hit](%s)\n", pngrel
	}' "$out/stap48-unbuilt" "$out/guest/kprobe_cost.stdout" > "$md"
gnuplot <<EOT
set terminal pngcairo size 900,420 noenhanced
set output "$png"
set title "Handler cost per hit, instructions (guest $KERNEL_RELEASE, $bench_date, $bench_commit)"
set style fill solid 0.8
set boxwidth 0.7
set logscale y
set ylabel "instructions per hit, minus no probe"
set xtics rotate by -40
set bmargin 7
set grid ytics
plot "$out/plot.dat" using 0:2:xtic(1) with boxes notitle, \
     "" using 0:2:(sprintf("%.0f", \$2)) with labels offset 0,0.7 notitle
EOT
cat "$md"
