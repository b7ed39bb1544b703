#!/bin/bash
# bench/kdwarf.sh [REPS] - a probe placed by the kernel's DWARF (issue 43):
# kernel.statement("vfs_read@fs/read_write.c:*") (a kprobe at each line of
# vfs_read, with the locals live there), script to pass 3 and to pass 4,
# ctap's next to Debian's SystemTap 4.8 for the same script and kernel, the
# median of REPS (3) runs each.  Writes bench/results-kdwarf.md and appends
# to bench/results/kdwarf.csv (README's table).
#
# ctap "cold" is its first session after the kernel's DWARF was installed
# or updated: its index of the DWARF's compilation units (kdwarf-ID.cus in
# the cache, kdwarf.c) removed before each run; its BTF cache and runtime
# units stay, as on any machine that ran it once.  "Warm" has the index.
# The page cache is not dropped (a shared host; that needs root): a first
# read of the 600 MB vmlinux from disk costs more than either figure.
# Each pass-4 run is a new script (a constant changed) so that neither
# tool's module cache answers it; SystemTap 4.8 keeps no index of the
# DWARF, so its runs are alike.  Wall time and CPU time (user + system,
# the compilers included) of the whole command, and the load average:
# the host is shared.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
. "$here/peer/common.sh"
. "$here/lib.sh"
reps=${1:-3}
stap=$top/translator/stap
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
"$here/peer/setup" > /dev/null
export SYSTEMTAP_TAPSET=$top/tapsets SYSTEMTAP_RUNTIME=$top/kmod-runtime

# script N: the benchmark's script, its constant N (a new script per N).
script()
{
	cat > "$work/kd$1.stp" <<EOT
global n
probe kernel.statement("vfs_read@fs/read_write.c:*") { n += $1 }
probe end { printf("%d\n", n) }
EOT
	echo "$work/kd$1.stp"
}


cache=$work/ctap-cache
mkdir -p "$cache"
ctap() { CTAP_CACHE_DIR=$cache CTAP_PREBUILT_DIR= "$stap" -r "$KERNEL_BUILD" "$@"; }
peer48() { SYSTEMTAP_DIR=$peer/stapdir stap -R "$runtime" -r "$kbuild" "$@"; }
cold() { rm -f "$cache"/kdwarf-*.cus; }

load0=$(cut -d' ' -f1-3 /proc/loadavg)
# Outside the timing: ctap's BTF cache and runtime units, and the count of
# probes (both tools must place the same ones).
ctap -p4 "$(script 0)" > /dev/null
ctap -p4 "$(script 1000)" > /dev/null	# the second precompiles the kernel headers
[ -n "$(ls "$cache"/kdwarf-*.cus 2>/dev/null)" ] ||
	{ echo "kdwarf: ctap found no kernel DWARF for $KERNEL_RELEASE (testsuite/kernel-debuginfo)" >&2; exit 1; }
nprobes=$(ctap -p2 "$(script 0)" | grep -c '^kernel\.statement')
nprobes48=$(peer48 -p2 "$(script 0)" 2>/dev/null | grep -c '^kernel\.statement') || true
peer48 -p4 -m kdwarfwarm "$(script 0)" > /dev/null 2>&1 || true	# its tapset cache

declare -A t
add() { t[$1]="${t[$1]:-} $2"; }
for ((i = 1; i <= reps; i++)); do
	cold
	read -r w c < <(wall_cpu ctap -p3 "$(script "$i")"); add p3cold "$w"; add p3cold_cpu "$c"
	read -r w c < <(wall_cpu ctap -p3 "$(script "$i")"); add p3warm "$w"; add p3warm_cpu "$c"
	cold
	read -r w c < <(wall_cpu ctap -p4 "$(script $((100 + i)))"); add p4cold "$w"; add p4cold_cpu "$c"
	read -r w c < <(wall_cpu ctap -p4 "$(script $((200 + i)))"); add p4warm "$w"; add p4warm_cpu "$c"
	read -r w c < <(wall_cpu peer48 -p3 "$(script "$i")"); add s3 "$w"; add s3_cpu "$c"
	read -r w c < <(wall_cpu "$here/peer/stap" -m kdwarf$i "$(script $((300 + i)))"); add s4 "$w"; add s4_cpu "$c"
done
load1=$(cut -d' ' -f1-3 /proc/loadavg)
med() { awk "$bench_median_awk"' { printf "%.3f\n", median($0) }' <<< "${t[$1]}"; }
cols="p3cold p3cold_cpu p3warm p3warm_cpu p4cold p4cold_cpu p4warm p4warm_cpu s3 s3_cpu s4 s4_cpu"
declare -A m
for k in $cols; do m[$k]=$(med "$k"); done
csv=$top/bench/results/kdwarf.csv
[ -f "$csv" ] || echo "date,commit,kernel,probes,ctap_p3_cold_s,ctap_p3_cold_cpu_s,ctap_p3_warm_s,ctap_p3_warm_cpu_s,ctap_p4_cold_s,ctap_p4_cold_cpu_s,ctap_p4_warm_s,ctap_p4_warm_cpu_s,stap_p3_s,stap_p3_cpu_s,stap_p4_s,stap_p4_cpu_s,load_start,load_end,stap_probes" > "$csv"
row="$bench_date,$bench_commit,$KERNEL_RELEASE,$nprobes"
for k in $cols; do row="$row,${m[$k]}"; done
echo "$row,${load0%% *},${load1%% *},$nprobes48" >> "$csv"
ms() { awk -v a="$1" 'BEGIN { printf "%d\n", a * 1000 + 0.5 }'; }
cat > "$here/results-kdwarf.md" <<EOT
# A probe placed by the kernel's DWARF: ctap vs SystemTap 4.8

\`bench/kdwarf.sh\` on $bench_date, commit $bench_commit, target kernel
$KERNEL_RELEASE, $(nproc) CPUs ($(sed -n 's/^model name\s*: //p' /proc/cpuinfo | head -n 1)),
load average $load0 at the start, $load1 at the end (a shared host).
The script: \`kernel.statement("vfs_read@fs/read_write.c:*") { n += N }\`
and an end probe; $nprobes probes for ctap, $nprobes48 for SystemTap 4.8
(\`-p2\`).  Median of $reps runs; wall time of the whole command, CPU
time (user + system, compilers included) in parentheses.  Cold: ctap's
index of the DWARF's compilation units removed (its first session after
the DWARF was installed); warm: kept.  Every pass-4 run is a new script.

| | to pass 3 | to pass 4 (a module) |
|---|---:|---:|
| ctap, DWARF index cold | $(ms "${m[p3cold]}") ms ($(ms "${m[p3cold_cpu]}") ms) | $(ms "${m[p4cold]}") ms ($(ms "${m[p4cold_cpu]}") ms) |
| ctap, DWARF index warm | $(ms "${m[p3warm]}") ms ($(ms "${m[p3warm_cpu]}") ms) | $(ms "${m[p4warm]}") ms ($(ms "${m[p4warm_cpu]}") ms) |
| SystemTap 4.8 | $(ms "${m[s3]}") ms ($(ms "${m[s3_cpu]}") ms) | $(ms "${m[s4]}") ms ($(ms "${m[s4_cpu]}") ms) |

The goal of issue 43 (docs/features.md): at most 200 ms to pass 3 and
2 s to a module with the index warm.
EOT
cat "$here/results-kdwarf.md"
