#!/bin/bash
# bench/dyninst-cost.sh [RUNS] - the user-space runtime (stap
# --runtime=dyninst) on the host, no guest: per-hit cost of
#   dyn-count   process("ufunc_loop").function("bench_target") { n++ }
#   dyn-args    ...function("bench_target2") { n += $x + $y } (two
#               parameters from DWARF)
#   dyn-floor   the engine alone (dyn-runtime/patch.h): a jump probe whose
#               C handler does n++ (test_dynpatch's bench loop)
# and script to module (pass 4, as an ordinary user's cache would see
# it): cold (an empty cache: the runtime archive is compiled) and cached
# (a new script, the archive cached).
#
# Instructions per hit are counted by valgrind's callgrind over the whole
# process: ufunc_loop run under stapdyn at two call counts, probed and
# with the module's probe on a function the loop does not call; per hit
# = the probed difference over the calls minus the unprobed one.  A hit
# of this runtime enters the kernel nowhere (a jump to a trampoline, a
# call, a jump back), so its user instructions are all its instructions,
# the figure the guest's -icount gives for the kernel runtime's rows
# (bench/kprobe-cost.sh); they are not measured in the guest, as the
# guest has no libc for stapdyn.  Median of RUNS (3); callgrind repeats.
#
# Writes bench/results-dyninst.md and appends to
# bench/results/dyninst-cost.csv (bench/readme-table puts the newest rows
# in the README).
set -euo pipefail
runs=${1:-3}
top=$(cd "$(dirname "$0")/.." && pwd)
. "$top/bench/lib.sh"
out=$top/bench/out/dyninst-cost
rm -rf "$out" && mkdir -p "$out"
export SYSTEMTAP_TAPSET=$top/tapsets SYSTEMTAP_RUNTIME=$top/kmod-runtime CTAP_DYN_RUNTIME=$top/dyn-runtime
stap=$top/translator/stap stapdyn=$top/stapdyn/stapdyn
command -v valgrind > /dev/null || { echo "dyninst-cost: needs valgrind" >&2; exit 1; }
[ -x "$top/testsuite/unit/test_dynpatch" ] || make -C "$top" testsuite/unit/test_dynpatch > /dev/null

# ufunc_loop, as the kernel rows use it, linked dynamically (LD_PRELOAD).
gcc -O2 -g "$top/bench/kprobe-cost/ufunc_loop.c" -o "$out/ufunc_loop"
P=$out/ufunc_loop

# Script to module: an empty cache, then a new script with the archive cached.
export CTAP_CACHE_DIR=$out/cache
cd "$out"
t0=$(date +%s.%N)
"$stap" --dyninst -p4 -m count -e "global n; probe process(\"$P\").function(\"bench_target\") { n++ }
	probe end { printf(\"n=%d\\n\", n) }" > /dev/null
t1=$(date +%s.%N)
"$stap" --dyninst -p4 -m args -e "global n; probe process(\"$P\").function(\"bench_target2\") { n += \$x + \$y }
	probe end { printf(\"n=%d\\n\", n) }" > /dev/null
t2=$(date +%s.%N)
cold=$(printf %.2f "$(echo "$t1 - $t0" | bc)") cached=$(printf %.3f "$(echo "$t2 - $t1" | bc)")


# Instructions of ufunc_loop N [2] under stapdyn MODULE, whole process.
instr()
{
	"$stapdyn" "$out/$1.so" -c "valgrind --tool=callgrind --smc-check=all \
		--callgrind-out-file=/dev/null $P $2 $3" 2>&1 |
		sed -n 's/.*Collected : *\([0-9]*\).*/\1/p'
}
n1=100000 n2=200000
# Per call: probed (the module's probe on the loop's function) and not (the
# other module's probe is on the function the loop does not call).
per_call()	# MODULE LOOPARG
{
	local a b
	a=$(instr "$1" $n1 "$2")
	b=$(instr "$1" $n2 "$2")
	echo "scale=1; ($b - $a) / ($n2 - $n1)" | bc
}
floor()
{
	local t=$top/testsuite/unit/test_dynpatch n=2000 p b
	p=$(CTAPDYN_BENCH_LOOP=$n valgrind --tool=callgrind --smc-check=all --toggle-collect=bench_loop \
		--callgrind-out-file=/dev/null "$t" 2>&1 >/dev/null | sed -n 's/.*Collected : *\([0-9]*\).*/\1/p')
	b=$(CTAPDYN_BENCH_LOOP=$n CTAPDYN_BENCH_BASE=1 valgrind --tool=callgrind --smc-check=all \
		--toggle-collect=bench_loop --callgrind-out-file=/dev/null "$t" 2>&1 >/dev/null |
		sed -n 's/.*Collected : *\([0-9]*\).*/\1/p')
	echo "scale=1; ($p - $b) / $n" | bc
}
declare -A vals
for r in $(seq "$runs"); do
	vals[count]+=" $(echo "$(per_call count 1) - $(per_call args 1)" | bc)"
	vals[args]+=" $(echo "$(per_call args 2) - $(per_call count 2)" | bc)"
	vals[floor]+=" $(floor)"
done
median() { awk "$bench_median_awk"' { print median($0) }' <<< "$1"; }
count=$(median "${vals[count]}") args=$(median "${vals[args]}") fl=$(median "${vals[floor]}")

csv=$top/bench/results/dyninst-cost.csv
[ -f "$csv" ] || echo "date,commit,kernel,config,value,runs,note" > "$csv"
host=$(uname -r)
{
	echo "$bench_date,$bench_commit,$host,dyn-count,$count,$runs,instructions per hit (callgrind)"
	echo "$bench_date,$bench_commit,$host,dyn-args,$args,$runs,instructions per hit (callgrind)"
	echo "$bench_date,$bench_commit,$host,dyn-floor,$fl,$runs,instructions per hit (callgrind)"
	echo "$bench_date,$bench_commit,$host,dyn-build-cold,$cold,1,seconds"
	echo "$bench_date,$bench_commit,$host,dyn-build-cached,$cached,1,seconds"
} >> "$csv"
cat > "$top/bench/results-dyninst.md" <<EOF
# The user-space runtime (bench/dyninst-cost.sh)

$bench_date, commit $bench_commit, host kernel $host; instructions per hit
counted by callgrind over the whole probed process (median of $runs runs;
the per-run figures: count${vals[count]}, args${vals[args]}, floor${vals[floor]}).

| | per hit |
|---|---:|
| \`process("ufunc_loop").function("bench_target") { n++ }\` | $count instructions |
| \`...function("bench_target2") { n += \$x + \$y }\` (DWARF) | $args instructions |
| the engine alone, a jump probe with a C handler doing n++ (floor) | $fl instructions |
| script to module, empty cache (the runtime archive compiled) | $cold s |
| script to module, a new script, archive cached | $cached s |

The kernel runtime's uprobe rows (bench/results.md, guest -icount) for
comparison: the same loop under a uprobe costs the kernel's trap and
return, about 1,600 instructions before any handler.
EOF
cat "$top/bench/results-dyninst.md"
