#!/bin/bash
# bench/pass1.sh [REPS] - pass 1 (lex, preprocess, parse) throughput, ctap
# next to Debian's SystemTap 4.8, over two corpora:
#   - big: a ~1 MB script built from the real-world parseok cases (their
#     globals, functions and aliases renamed apart so it is one script);
#   - lib: SystemTap 4.8's own tapset library (systemtap-common), the files
#     either tool loads for x86_64.  SystemTap parses its whole library on
#     every run; ctap does with --dump-functions (only pass 1 is counted).
# The figures are the "Pass 1: ... real ms" each tool's -v prints, best and
# median of REPS (9) runs, tools taking turns; SystemTap's time for the big
# script less its time for an empty one is its cost for the script alone.
# Wall time on a shared 2-core host swings by ±40 %, so ctap's instructions
# (callgrind, deterministic) are reported too.  Writes bench/results-pass1.md
# and appends to bench/results/pass1.csv.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
. "$here/peer/common.sh"
. "$here/lib.sh"
reps=${1:-9}
stap=$top/translator/stap
lib=/usr/share/systemtap/tapset
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
[ -d "$lib" ] && command -v stap > /dev/null ||
	"$here/peer/setup" > /dev/null	# installs systemtap (and its library)

i=0
while [ "$(stat -c %s "$work/big.stp" 2>/dev/null || echo 0)" -lt 1048576 ]; do
	for f in "$top"/testsuite/parseok/real_*.stp; do
		i=$((i + 1))
		sed -e '1d' -e "s/\b\(reads\|start\|lat\|syscalls\|io\|log\|n\|describe\)\b/\1_$i/g" \
			"$f" >> "$work/big.stp"
	done
done
echo 'probe begin { }' > "$work/empty.stp"
big_mb=$(stat -c %s "$work/big.stp" | awk '{ printf "%.2f", $1 / 1048576 }')
"$stap" -p1 "$work/big.stp" > /dev/null || { echo "pass1 bench: the big script does not parse" >&2; exit 1; }

# pass1_ms CMD... - the real ms of the "Pass 1:" line CMD prints with -v;
# pass1_cpu_ms: its usr + sys ms (the CPU time, without the time a shared
# host's other guests took: see steal below).
pass1_ms() { "$@" 2>&1 >/dev/null | sed -n 's/^Pass 1:.*sys\/\([0-9]*\)real ms\.$/\1/p'; }
pass1_cpu_ms() { "$@" 2>&1 >/dev/null |
	sed -n 's/^Pass 1:.* in \([0-9]*\)usr\/\([0-9]*\)sys\/.*/\1 \2/p' | awk '{ print $1 + $2 }'; }
# steal_ticks: jiffies this VM was ready to run but the host ran another.
cpu_ticks() { awk '/^cpu / { t = 0; for (i = 2; i <= NF; i++) t += $i; print $9, t }' /proc/stat; }
ctap_lib() { SYSTEMTAP_TAPSET=$lib "$stap" -v --dump-functions; }
stap48() { /usr/bin/stap -r "$KERNEL_BUILD" -v -p1 "$@"; }

c_big=() c_big_cpu=() c_lib=() s_big=() s_empty=()
read -r steal0 total0 < <(cpu_ticks)
for r in $(seq "$reps"); do
	c_big+=("$(pass1_ms "$stap" -v -p1 "$work/big.stp")")
	c_big_cpu+=("$(pass1_cpu_ms "$stap" -v -p1 "$work/big.stp")")
	c_lib+=("$(pass1_ms ctap_lib)")
	s_big+=("$(pass1_ms stap48 "$work/big.stp")")
	s_empty+=("$(pass1_ms stap48 "$work/empty.stp")")
done
read -r steal1 total1 < <(cpu_ticks)
steal=$(awk -v s=$((steal1 - steal0)) -v t=$((total1 - total0)) 'BEGIN { printf "%.0f", t ? 100 * s / t : 0 }')
c_nlib=$(ctap_lib 2>&1 >/dev/null | sed -n 's/^Pass 1: parsed user script and \([0-9]*\) library.*/\1/p')
s_nlib=$(stap48 "$work/empty.stp" 2>&1 >/dev/null | sed -n 's/^Pass 1: parsed user script and \([0-9]*\) library.*/\1/p')
lib_mb=$(cat "$lib"/{linux/x86_64,linux,x86_64,.}/*.stp* | wc -c | awk '{ printf "%.2f", $1 / 1048576 }')

stats() { printf '%s\n' "$@" | awk "$bench_median_awk"'
	{ v = v " " $1; if (min == "" || $1 + 0 < min) min = $1 + 0 }
	END { printf "%d %d\n", min, median(v) }'; }
read -r cb_min cb_med < <(stats "${c_big[@]}")
read -r cc_min cc_med < <(stats "${c_big_cpu[@]}")
read -r cl_min cl_med < <(stats "${c_lib[@]}")
read -r sb_min sb_med < <(stats "${s_big[@]}")
read -r se_min se_med < <(stats "${s_empty[@]}")
mbps() { awk -v mb="$1" -v ms="$2" 'BEGIN { printf "%.1f", (ms > 0 ? mb / (ms / 1000) : 0) }'; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.1f", (b > 0 ? a / b : 0) }'; }
s_user_med=$((sb_med - se_med))

instr="(valgrind not installed)"
if command -v valgrind > /dev/null; then
	# per_byte CALLGRIND_OUT - "NM instructions, N per byte" of the big script.
	per_byte() { awk -v b="$(stat -c %s "$work/big.stp")" '/^summary:/ {
		printf "%.0fM instructions, %.0f per byte", $2 / 1e6, $2 / b }' "$1"; }
	valgrind --tool=callgrind --callgrind-out-file="$work/cg" "$stap" -p1 "$work/big.stp" \
		> /dev/null 2> "$work/cg.log"
	# Pass 1 alone, as the -v time counts it.
	valgrind --tool=callgrind --toggle-collect=pass1_parse --callgrind-out-file="$work/cg1" \
		"$stap" -p1 "$work/big.stp" > /dev/null 2> "$work/cg1.log"
	instr="pass 1 $(per_byte "$work/cg1") (the whole \`stap -p1\` process, printing
the tree included: $(per_byte "$work/cg"))"
fi

csv=$here/results/pass1.csv
[ -f "$csv" ] || echo "date,commit,big_mb,ctap_big_ms,stap_big_user_ms,lib_mb,ctap_lib_ms,stap_lib_ms" > "$csv"
echo "$bench_date,$bench_commit,$big_mb,$cb_med,$s_user_med,$lib_mb,$cl_med,$se_med" >> "$csv"
cat > "$here/results-pass1.md" <<EOT
# Pass 1 (lex, preprocess, parse): ctap vs SystemTap 4.8

\`bench/pass1.sh\` on $bench_date, commit $bench_commit, $(nproc) CPUs
($(sed -n 's/^model name\s*: //p' /proc/cpuinfo | head -n 1)). Each tool's own
\`-v\` "Pass 1" time, $reps runs each, tools taking turns; best and median.

| corpus | ctap best / median | ctap MB/s (median) | SystemTap 4.8 median | SystemTap / ctap |
|---|---:|---:|---:|---:|
| 1 script of $big_mb MB | $cb_min / $cb_med ms | $(mbps "$big_mb" "$cb_med") | $s_user_med ms (script alone: $sb_med − $se_med) | $(ratio "$s_user_med" "$cb_med")× |
| SystemTap's tapset library, $lib_mb MB (ctap: $c_nlib files, SystemTap: $s_nlib) | $cl_min / $cl_med ms | $(mbps "$lib_mb" "$cl_med") | $se_med ms | $(ratio "$se_med" "$cl_med")× |

ctap over the big script: $instr.
ctap's CPU time (usr + sys) for pass 1 over the big script: best $cc_min ms,
median $cc_med ms ($(mbps "$big_mb" "$cc_med") MB/s).  The host's steal time during the
runs (other guests running on this VM's CPUs, which wall times include): $steal %.
Every run (ms): ctap big ${c_big[*]}; ctap library ${c_lib[*]};
SystemTap big ${s_big[*]}; SystemTap empty script (its library) ${s_empty[*]}.
EOT
cat "$here/results-pass1.md"
