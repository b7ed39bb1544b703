#!/bin/bash
# bench/kernels.sh [RELEASE...] - ctap and Debian's SystemTap 4.8 side by
# side on each kernel of the matrix (`testsuite/kernels --list`, or the
# RELEASEs given), with the same five scripts, bench/kernels/*.stp: make
# demo's readers.stp, kernel.function("vfs_read"), syscall.openat,
# begin with timer.s(1), and process().function() with its $parameters.
# For each kernel: does each tool build each script (its first error if
# not), and what each module does in one guest boot (exit status, output).
# A record, not a test: a script that does not build is a result.
#
# The headers of bench/kernels/*.stp are the script tests' (`# cmd:`,
# `# script:`; testsuite/lib/guest-script.sh runs them alike for both
# tools).  Appends to bench/results/kernels.csv and writes
# bench/results-kernels.md (from this run's outputs, for every kernel of
# the run).  CTAP_GUEST_LOCK serialises the boots (bench/peer/common.sh).
# `bench/kernels.sh --report [RELEASE...]` writes the report again from
# the last run's files in bench/out/kernels/, running nothing.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)

case ${1:-} in
--one|--report-one) ;;
*)
	top=$(cd "$here/.." && pwd)
	report=""
	[ "${1:-}" = --report ] && { report=1; shift; }
	rels=("$@")
	[ ${#rels[@]} -gt 0 ] || rels=($("$top/testsuite/kernels" --list | awk '{ print $1 }'))
	[ -n "$report" ] || rm -rf "$top/bench/out/kernels"
	for rel in "${rels[@]}"; do
		kb=$("$top/testsuite/kernels" --list | awk -v r="$rel" '$1 == r { print $2 }')
		[ -n "$kb" ] || { echo "kernels: no kernel $rel (testsuite/kernels --list)" >&2; exit 2; }
		echo "kernels: $rel" >&2
		CTAP_KERNEL_BUILD=$kb "$0" ${report:+--report-one} ${report:---one}
	done
	{
		echo "# ctap and SystemTap 4.8 on each kernel of the matrix"
		echo
		echo "\`bench/kernels.sh\`, $(cat "$top/bench/out/kernels/"*/when | head -n 1): the same six scripts"
		echo "(\`bench/kernels/*.stp\`) built by each tool for each kernel (\`stap -p4\`;"
		echo "SystemTap 4.8 as \`bench/peer/stap\` runs it: Debian's 4.8-2 with the"
		echo "work-arounds of \`bench/peer/setup\`, no debuginfo), then run in one guest"
		echo "boot per kernel. A build that fails shows its first error; \"-\": not run."
		echo "The guest's status is the harness's: staprun's exit status and its time"
		echo "in seconds in the guest (QEMU TCG: compare rows, not hardware)."
		for rel in "${rels[@]}"; do
			echo
			cat "$top/bench/out/kernels/$rel/report.md"
		done
	} > "$top/bench/results-kernels.md"
	cat "$top/bench/results-kernels.md"
	exit 0 ;;
esac

# One kernel: $CTAP_KERNEL_BUILD (common.sh).
. "$here/peer/common.sh"
. "$here/lib.sh"
. "$top/testsuite/lib/guest-script.sh"
out=$top/bench/out/kernels/$KERNEL_RELEASE
names=()
for f in "$here"/kernels/*.stp; do names+=("$(basename "$f" .stp)"); done
# first_error FILE: a build's first error line (ctap's or SystemTap's).
first_error() { stap48_first_error "$1" | sed -e "s|$top/||g" -e 's/,/;/g'; }
status() { [ -f "$out/guest/$1.status" ] && cat "$out/guest/$1.status" || echo -; }

# This kernel's part of the report, from the files of its run.
report()
{
	local name tool res st lines row a b
	echo "## $KERNEL_RELEASE"
	echo
	echo "| script | SystemTap 4.8: build | in the guest | ctap: build | in the guest |"
	echo "|---|---|---|---|---|"
	for name in "${names[@]}"; do
		row="| \`$name.stp\` |"
		for tool in stap48 ctap; do
			res=$(cat "$out/${tool}_$name.result")
			st=$(status "${tool}_$name")
			lines=0
			[ -f "$out/guest/${tool}_$name.stdout" ] && lines=$(wc -l < "$out/guest/${tool}_$name.stdout")
			case $res in
			builds) row="$row builds | $st, $lines lines of output |" ;;
			*) row="$row does not build: \`$(first_error "$out/${tool}_$name.build")\` | - |" ;;
			esac
		done
		echo "$row"
	done
	for name in "${names[@]}"; do
		a=$out/guest/stap48_$name.stdout b=$out/guest/ctap_$name.stdout
		for tool in stap48 ctap; do
			[ -f "$out/guest/${tool}_$name.stdout" ] || continue
			# the same output from both: once
			[ $tool = ctap ] && [ -f "$a" ] && cmp -s "$a" "$b" && continue
			echo
			if [ $tool = stap48 ] && [ -f "$b" ] && cmp -s "$a" "$b"; then
				echo "SystemTap 4.8 and ctap, \`$name.stp\`, the same output:"
			else
				echo "$([ $tool = ctap ] && echo ctap || echo "SystemTap 4.8"), \`$name.stp\`:"
			fi
			echo
			echo '```'
			head -n 8 "$out/guest/${tool}_$name.stdout"
			grep -E '^(ERROR|WARNING)' "$out/guest/${tool}_$name.stderr" | head -n 3 || true
			echo '```'
		done
	done
}
if [ "$1" = --report-one ]; then
	report > "$out/report.md"
	exit 0
fi
rm -rf "$out" && mkdir -p "$out/sysroot/ctap/bin" "$out/tests"
echo "$bench_date, commit $bench_commit" > "$out/when"
# process("/ctap/bin/ufuncs"): the guest's path; both tools read the
# file from the sysroot.
gcc -O2 -g -static "$top/testsuite/progs/ufuncs.c" -o "$out/sysroot/ctap/bin/ufuncs"
"$here/peer/setup" > /dev/null

mods=() tests=()
for f in "$here"/kernels/*.stp; do
	name=$(basename "$f" .stp)
	src=$(test_source "$f" "$top")
	opts=()
	grep -q 'process(' "$src" && opts=(--sysroot="$out/sysroot")
	for tool in ctap stap48; do
		if [ $tool = ctap ]; then
			build() { (cd "$out" && "$top/translator/stap" -r "$KERNEL_BUILD" -p4 -m "ctap_$name" "${opts[@]}" "$src" > /dev/null &&
				echo "$out/ctap_$name.ko"); }
			staprun=/ctap/bin/staprun
		else
			build() { "$here/peer/stap" -m "stap48_$name" "${opts[@]}" "$src"; }
			staprun=/usr/bin/staprun
		fi
		if ko=$(build 2> "$out/${tool}_$name.build"); then
			echo builds > "$out/${tool}_$name.result"
			mods+=(-m "$ko")
			guest_script "$f" "$staprun" "/ctap/modules/${tool}_$name.ko" > "$out/tests/${tool}_$name.sh"
			tests+=("$out/tests/${tool}_$name.sh")
		else
			echo "does not build: $(first_error "$out/${tool}_$name.build")" > "$out/${tool}_$name.result"
			echo "kernels: $tool does not build $name.stp for $KERNEL_RELEASE" >&2
		fi
	done
done
# ctap's first, then SystemTap's: an oops stops the rest of the boot.
ordered=()
for t in "${tests[@]}"; do case $t in */ctap_*) ordered+=("$t") ;; esac; done
for t in "${tests[@]}"; do case $t in */stap48_*) ordered+=("$t") ;; esac; done
if [ ${#ordered[@]} -gt 0 ]; then
	guest_run -o "$out/guest" "${mods[@]}" -b "$out/sysroot/ctap/bin/ufuncs" -r "$payload" \
		"${ordered[@]}" > "$out/guest.log" 2>&1 || true
fi

# The CSV rows and this kernel's part of the report.
csv=$top/bench/results/kernels.csv
[ -f "$csv" ] || echo "date,commit,kernel,tool,script,build,guest,stdout_lines" > "$csv"
for name in "${names[@]}"; do
	for tool in stap48 ctap; do
		res=$(cat "$out/${tool}_$name.result")
		st=$(status "${tool}_$name")
		lines=0
		[ -f "$out/guest/${tool}_$name.stdout" ] && lines=$(wc -l < "$out/guest/${tool}_$name.stdout")
		echo "$bench_date,$bench_commit,$KERNEL_RELEASE,$tool,$name,${res//,/;},${st//,/;},$lines" >> "$csv"
	done
done
report > "$out/report.md"
