#!/bin/bash
# bench/dynpatch-cost.sh - per-hit cost of a user-space runtime probe
# (dyn-runtime/patch.h) on the host, no guest: a loop calling a
# one-instruction function under a jump probe whose handler does n++.
#   instructions: valgrind --tool=callgrind over bench_loop() in
#     testsuite/unit/test_dynpatch, 2,000 calls probed minus 2,000
#     unprobed, per call (deterministic; the issue's goal is <= 160)
#   ns: test_dynpatch's own figures (the fastest of 20 batches), jump
#     and breakpoint, and an 8-byte ctapdyn_read() against
#     process_vm_readv() on the process itself
# Prints a markdown table; run after `make testsuite/unit/test_dynpatch`.
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
t=${TEST_DYNPATCH:-$top/testsuite/unit/test_dynpatch}
n=2000
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

collected() {
	env "$@" valgrind --tool=callgrind --smc-check=all --toggle-collect=bench_loop \
		--callgrind-out-file="$tmp/cg" "$t" 2>&1 >/dev/null |
		sed -n 's/.*Collected : *\([0-9]*\).*/\1/p'
}

probed=$(collected CTAPDYN_BENCH_LOOP=$n)
base=$(collected CTAPDYN_BENCH_LOOP=$n CTAPDYN_BENCH_BASE=1)
"$t" > "$tmp/out" || true
echo "| measure | per hit |"
echo "|---|---|"
echo "| instructions, jump probe, n++ (callgrind) | $(( (probed - base) / n )) |"
sed -n 's/^# cost per hit of n++ (jump): \([0-9.]*\) ns.*/| ns, jump probe, n++ | \1 |/p;
	s/^# cost per hit of n++ (breakpoint): \([0-9.]*\) ns.*/| ns, breakpoint probe, n++ | \1 |/p;
	s/^# 8-byte read: ctapdyn_read \([0-9.]*\) ns, process_vm_readv \([0-9.]*\) ns/| ns, 8-byte ctapdyn_read | \1 |\n| ns, 8-byte process_vm_readv on self | \2 |/p' "$tmp/out"
