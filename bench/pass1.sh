#!/bin/bash
# bench/pass1.sh - throughput of pass 1 (lex, preprocess, parse).
#
# Builds a ~1 MB script out of the real-world parseok cases (renaming their
# globals, functions and aliases apart so the result is one valid script),
# then runs `stap -v -p1` on it 5 times and reports the best:
#   - pass 1 itself, as stap -v reports it (what SystemTap's "Pass 1" means)
#   - the whole process, including start-up and printing the -p1 tree.
#   bench/pass1.sh [BUILDDIR]      (default: the source tree)
set -eu
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/.." && pwd)
stap=${1:-$top}/translator/stap
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

i=0
while [ "$(stat -c %s "$work/big.stp" 2>/dev/null || echo 0)" -lt 1048576 ]; do
	for f in "$top"/testsuite/parseok/real_*.stp; do
		i=$((i + 1))
		sed -e '1d' -e "s/\b\(reads\|start\|lat\|syscalls\|io\|log\|n\|describe\)\b/\1_$i/g" \
			"$f" >> "$work/big.stp"
	done
done
size=$(stat -c %s "$work/big.stp")
"$stap" -p1 "$work/big.stp" > /dev/null || { echo "pass1 bench: the script does not parse" >&2; exit 1; }
best_pass="" best_proc=""
for run in 1 2 3 4 5; do
	t0=$(date +%s%N)
	pass_ms=$("$stap" -v -p1 "$work/big.stp" 2>&1 >/dev/null | sed -n 's/^Pass 1:.*sys\/\([0-9]*\)real ms\.$/\1/p')
	t1=$(date +%s%N)
	proc_ms=$(((t1 - t0) / 1000000))
	{ [ -z "$best_pass" ] || [ "$pass_ms" -lt "$best_pass" ]; } && best_pass=$pass_ms
	{ [ -z "$best_proc" ] || [ "$proc_ms" -lt "$best_proc" ]; } && best_proc=$proc_ms
done
awk -v b="$size" -v p="$best_pass" -v w="$best_proc" 'BEGIN {
	mb = b / 1048576
	printf "pass 1 over %.2f MB of script: %d ms = %.1f MB/s (stap -v pass time, best of 5)\n", mb, p, mb / (p / 1000)
	printf "whole stap -p1 process incl. start-up and printing: %d ms = %.1f MB/s\n", w, mb / (w / 1000) }'
# Wall time on a shared 2-core host swings; instructions do not.
if command -v valgrind > /dev/null; then
	valgrind --tool=callgrind --callgrind-out-file="$work/cg" "$stap" -p1 "$work/big.stp" \
		> /dev/null 2> "$work/cg.log" &&
	awk -v b="$size" '/^summary:/ { printf "instructions (callgrind, whole stap -p1 incl. printing): %.0fM = %.0f per byte\n", $2 / 1e6, $2 / b }' "$work/cg"
fi
