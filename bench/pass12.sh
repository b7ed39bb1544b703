#!/bin/bash
# bench/pass12.sh - passes 1-2 for a 50-line script that uses tapset
# aliases (its own in bench/pass12/tapset/, outside the script's
# directory: a tapset directory's file is not a script) and
# kernel.function wildcards (bench/pass12/script.stp), against the
# configured target kernel's BTF: the best of 10 runs, after one run that
# fills the BTF cache.  Reports stap -v's own pass times and the whole
# process.      bench/pass12.sh [BUILDDIR]
set -eu
here=$(cd "$(dirname "$0")" && pwd)
stap=${1:-$here/..}/translator/stap
run() { "$stap" -v -p2 -I "$here/pass12/tapset" "$here/pass12/script.stp" 2>&1 >/dev/null; }
run > /dev/null || { run >&2; exit 1; }		# fills the BTF cache
n=$("$stap" -p2 -I "$here/pass12/tapset" "$here/pass12/script.stp" | grep -c ' /\* <- ')
best_p1="" best_p2="" best_all=""
for i in $(seq 10); do
	t0=$(date +%s%N)
	out=$(run)
	t1=$(date +%s%N)
	p1=$(echo "$out" | sed -n 's/^Pass 1:.*sys\/\([0-9]*\)real ms\.$/\1/p')
	p2=$(echo "$out" | sed -n 's/^Pass 2:.*sys\/\([0-9]*\)real ms\.$/\1/p')
	all=$(((t1 - t0) / 1000000))
	{ [ -z "$best_all" ] || [ "$all" -lt "$best_all" ]; } && best_all=$all best_p1=$p1 best_p2=$p2
done
echo "passes 1-2, 50-line script, $n concrete probes: pass 1 ${best_p1} ms, pass 2 ${best_p2} ms, whole stap -p2 process ${best_all} ms (best of 10, BTF cached)"
