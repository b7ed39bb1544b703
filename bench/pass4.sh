#!/bin/bash
# bench/pass4.sh [REPS] - script to module: ctap's stap -p4 next to Debian's
# SystemTap 4.8 for the same script and guest kernel, cold (empty module
# cache) and warm (cached), the median of REPS (3) runs each.  Writes
# bench/results-pass4.md and appends to bench/results/pass4.csv.
#
# "First, installed" is a first run after make install, which prebuilt
# the units for the kernel (make prebuilt's recipe, into a directory of the
# bench's): ctap's cache holds only its BTF.  "Cold" then empties each
# translator's module cache only: ctap's BTF cache (built once per kernel,
# 1.7 s), its runtime units (prebuilt, or compiled once per probe family
# and -D options), Kbuild's recorded commands, the precompiled headers and
# SystemTap's tapset/kernel caches stay, as they would on any machine that
# ran either tool once: a new script.  "First" empties ctap's runtime
# directory of the cache too, with no prebuilt units: everything compiled
# on demand; "second" is the next new script then, whose build also
# precompiles the kernel headers (beside its own compiles) for the builds
# after it.  Run it on an idle machine: the figures are wall time (the
# load average is noted, and ctap's CPU time, which the load moves less).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
. "$here/peer/common.sh"
. "$here/lib.sh"
reps=${1:-3}
stap=$top/translator/stap
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
"$here/peer/setup" > /dev/null

cat > "$work/bench.stp" <<'EOT'
global calls, sizes
probe kprobe.function("vfs_read") { calls[execname()]++ }
probe kprobe.function("vfs_read").return { sizes <<< 1 }
probe timer.s(1) {
	foreach (k in calls- limit 5)
		printf("%-16s %d\n", k, calls[k])
	printf("returns: %d\n", @count(sizes))
	delete calls
}
EOT

median() { sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }

# time_one CMD... : seconds of one run (stdout/stderr to the log); its CPU
# seconds (user + system, children included) appended to $work/cpu.
time_one()
{
	local r

	r=$(wall_cpu "$@") || exit 1
	echo "${r#* }" >> "$work/cpu"
	echo "${r% *}"
}
# cpu_of: the CPU seconds of the last time_one
cpu_of() { tail -n 1 "$work/cpu"; }

# ctap's own cache here (the peer keeps its files in the usual one).
cache=$work/ctap-cache
mkdir -p "$cache"
ctap() { CTAP_CACHE_DIR=$cache CTAP_PREBUILT_DIR= "$stap" "$@"; }
# A first run after make install: the prebuilt units, none in the cache.
installed() { CTAP_CACHE_DIR=$cache CTAP_PREBUILT_DIR=$work/prebuilt "$stap" "$@"; }
load0=$(cut -d' ' -f1-3 /proc/loadavg)
# The BTF cache once, outside the timing.
ctap -p2 "$work/bench.stp" > /dev/null
# What make install prebuilds (Makefile.am's prebuilt_units).
CTAP_CACHE_DIR=$work/prebuild CTAP_PREBUILT_DIR= CTAP_PREBUILD=1 "$stap" -p4 \
	-e 'probe begin { exit() }' > /dev/null
mkdir -m 755 "$work/prebuilt"
cp "$work"/prebuild/runtime/* "$work/prebuilt/" && chmod 644 "$work"/prebuilt/*
ctap_first=() ctap_second=() ctap_installed=() ctap_cold=() ctap_warm=() stap_cold=() stap_warm=()
cpu_first=() cpu_second=() cpu_installed=() cpu_cold=() cpu_warm=()
for ((i = 0; i < reps; i++)); do
	rm -rf "$cache/modules" "$cache/runtime"
	ctap_installed+=("$(time_one installed -p4 "$work/bench.stp")")
	cpu_installed+=("$(cpu_of)")
	rm -rf "$cache/modules"
	ctap_cold+=("$(time_one installed -p4 "$work/bench.stp")")
	cpu_cold+=("$(cpu_of)")
	ctap_warm+=("$(time_one installed -p4 "$work/bench.stp")")
	cpu_warm+=("$(cpu_of)")
	rm -rf "$cache/modules" "$cache/runtime"
	ctap_first+=("$(time_one ctap -p4 "$work/bench.stp")")
	cpu_first+=("$(cpu_of)")
	rm -rf "$cache/modules"
	ctap_second+=("$(time_one ctap -p4 "$work/bench.stp")")
	cpu_second+=("$(cpu_of)")
	rm -rf "$peer/stapdir/cache"
	stap_cold+=("$(time_one "$here/peer/stap" -m benchpass4 "$work/bench.stp")")
	stap_warm+=("$(time_one "$here/peer/stap" -m benchpass4 "$work/bench.stp")")
done
# Peak memory of the translator alone: pass 3, so no compiler is counted
# (GNU time's maximum resident set size, KiB).
maxrss() { /usr/bin/time -f %M "$@" 2>&1 >/dev/null | tail -n 1; }
# Kbuild with nothing to do: the floor of a build through it.
noop=$(cd "$work" && CTAP_KBUILD=1 CTAP_CACHE_DIR=$cache "$stap" -k -p4 "$work/bench.stp" 2>&1 >/dev/null |
	sed -n 's/^Keeping temporary directory "\(.*\)"$/\1/p')
noop_s=()
for ((i = 0; i < reps; i++)); do
	noop_s+=("$(time_one make -s -C "$KERNEL_BUILD" M="$noop" modules)")
done
rm -rf "$noop"
noop=$(printf '%s\n' "${noop_s[@]}" | median)
ctap_rss=$(maxrss env CTAP_CACHE_DIR="$cache" "$stap" -p3 "$work/bench.stp")
stap_rss=$(SYSTEMTAP_DIR=$peer/stapdir maxrss stap -R "$runtime" -r "$kbuild" -p3 "$work/bench.stp")
cf=$(printf '%s\n' "${ctap_first[@]}" | median)
ci=$(printf '%s\n' "${ctap_installed[@]}" | median)
c2=$(printf '%s\n' "${ctap_second[@]}" | median)
p2=$(printf '%s\n' "${cpu_second[@]}" | median)
pf=$(printf '%s\n' "${cpu_first[@]}" | median)
pi=$(printf '%s\n' "${cpu_installed[@]}" | median)
pc=$(printf '%s\n' "${cpu_cold[@]}" | median)
pw=$(printf '%s\n' "${cpu_warm[@]}" | median)
load1=$(cut -d' ' -f1-3 /proc/loadavg)
cc=$(printf '%s\n' "${ctap_cold[@]}" | median)
cw=$(printf '%s\n' "${ctap_warm[@]}" | median)
sc=$(printf '%s\n' "${stap_cold[@]}" | median)
sw=$(printf '%s\n' "${stap_warm[@]}" | median)
commit=$(git -C "$top" rev-parse --short HEAD)
date=$(date -u +%Y-%m-%dT%H:%MZ)
mkdir -p "$here/results"
csv=$here/results/pass4.csv
[ -f "$csv" ] || echo "date,commit,kernel,ctap_cold_s,ctap_warm_s,stap_cold_s,stap_warm_s,ctap_p3_maxrss_kb,stap_p3_maxrss_kb,ctap_first_s,ctap_first_installed_s,ctap_second_s" > "$csv"
echo "$date,$commit,$KERNEL_RELEASE,$cc,$cw,$sc,$sw,$ctap_rss,$stap_rss,$cf,$ci,$c2" >> "$csv"
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.1f\n", a / b }'; }
ms() { awk -v a="$1" 'BEGIN { printf "%d\n", a * 1000 }'; }
cat > "$here/results-pass4.md" <<EOT
# Script to module (pass 1–4): ctap vs SystemTap 4.8

\`bench/pass4.sh\` on $date, commit $commit, target kernel $KERNEL_RELEASE,
$(nproc) CPUs ($(sed -n 's/^model name\s*: //p' /proc/cpuinfo | head -n 1)), load average
$load0 at the start, $load1 at the end.
Median of $reps runs, wall time of the whole command; first = an empty
cache but the BTF; cold = a new script: empty module cache (BTF, ctap's
runtime units, recorded Kbuild commands and precompiled headers,
SystemTap's own tapset caches warm), warm = the same script again.  The script: two kprobes on vfs_read (entry, return), a
timer, an array, statistics (\`bench/pass4.sh\` holds it).

| | first run | cold (new script) | warm (cached) |
|---|---|---|---|
| ctap \`stap -p4\`, after make install (prebuilt units) | $(ms "$ci") ms | $(ms "$cc") ms | $(ms "$cw") ms |
| ... its CPU time (user + system, compilers included) | $(ms "$pi") ms | $(ms "$pc") ms | $(ms "$pw") ms |
| ctap \`stap -p4\`, nothing prebuilt (CPU time) | $(ms "$cf") ms ($(ms "$pf") ms) | second script: $(ms "$c2") ms ($(ms "$p2") ms) | |
| SystemTap 4.8 \`stap -p4\` | | $(ms "$sc") ms | $(ms "$sw") ms |
| SystemTap / ctap | | $(ratio "$sc" "$cc")× | $(ratio "$sw" "$cw")× |

A first run with nothing prebuilt compiles the runtime's units the script
needs (the core, kprobes, timers: Kbuild runs them in parallel) and
records Kbuild's commands; the second script's build replays them and
precompiles the kernel headers meanwhile (about 2 s of CPU, once per
kernel), which the builds after it read.
make install (\`make prebuilt\` in the tree) does all that for the
configured kernel, so a first run after it is a cold build.

Peak memory of the translator (pass 3, no compiler; maximum resident set):
ctap $((ctap_rss / 1024)) MiB, SystemTap 4.8 $((stap_rss / 1024)) MiB.

Every run: ctap first $(printf '%s ' "${ctap_first[@]}")s; second $(printf '%s ' "${ctap_second[@]}")s; first after install $(printf '%s ' "${ctap_installed[@]}")s;
cold $(printf '%s ' "${ctap_cold[@]}")s; warm $(printf '%s ' "${ctap_warm[@]}")s;
CPU: first $(printf '%s ' "${cpu_first[@]}")s; second $(printf '%s ' "${cpu_second[@]}")s; first after install $(printf '%s ' "${cpu_installed[@]}")s;
cold $(printf '%s ' "${cpu_cold[@]}")s; warm $(printf '%s ' "${cpu_warm[@]}")s;
SystemTap cold $(printf '%s ' "${stap_cold[@]}")s; warm $(printf '%s ' "${stap_warm[@]}")s.
A cold build does not run make: it replays the commands Kbuild ran for the
first build (\`translator/build/kbuild_replay.c\`) with the kernel headers
precompiled (\`translator/build/kbuild_pch.c\`), which saves what
\`make -C <build tree> M=...\` spends with nothing to compile: $(ms "$noop") ms here.
Its modpost reads only the kernel's Module.symvers lines of the module's
symbols, and its .mod.c compiles beside the script's unit, from the last
one modpost wrote for the same units (kept only if modpost writes the
same).
EOT
cat "$here/results-pass4.md"
