#!/bin/bash
# bench/map-growth.sh [RUNS] - costs that should stay flat as work grows,
# SystemTap 4.8 and ctap side by side in one boot of the guest kernel
# (-icount shift=0: the figures are instructions per hit):
#
#   map-N     a[key]++ on getpid with N = 1,000, 100,000 and 1,000,000
#             distinct keys, -DMAXMAPENTRIES=N (map-growth/map.stp; its
#             keys come from a counter in the script, not from the
#             workload): N hits fill the map (insert into a map growing
#             from 0 to N), then 100,000 hits look existing keys up, then
#             100,000 getppid hits each delete the oldest key and insert a
#             new one (the map stays at N)
#   keygen    map.stp's getpid probe without the array: its key's cost
#   stats_key, stats: s[1] <<< 1 and s <<< 1 on getpid from one CPU, then
#             from both CPUs at once (map_loop -p 2), in a second boot with
#             two CPUs and without -icount (host ns: this QEMU does not
#             bring a second vCPU up under -icount)
#   print     a printf per hit with the session's reader stopped (SIGSTOP,
#             map_loop -s) and a 1 MB output buffer (staprun -s 1 / -b 1):
#             64 batches of 1,000 hits, from an empty buffer to a full
#             one and past it; the output kept tells which batch was the
#             last to fit: "nearly full" is that one
#
# Each figure is the median of RUNS (3) runs; every run loads each module
# afresh (a fill starts from an empty map).  Per hit is the calls' cost
# minus the same calls with no probe (getpid, getppid, or two CPUs).
#
# bpftrace: Debian's bpftrace 0.17 runs map-growth/*.bt, each the .stp
# of its name in bpftrace's words, with the same workload in the same
# boots (bench_bpftrace_root: bpftrace and its libraries merged into the
# guest); its map holds BPFTRACE_MAP_KEYS_MAX keys, its output buffer is
# 1 MB a CPU (BPFTRACE_PERF_RB_PAGES=256).  CTAP_BENCH_NO_BPFTRACE=1
# leaves it out.
#
# The kernel: $CTAP_KERNEL_BUILD (a build tree or a release of
# `testsuite/kernels --list`), else the configured one.  Writes
# bench/results-map-growth.md and bench/results/map-growth.png
# (-SERIES for another kernel), appends to bench/results/map-growth.csv.
# `bench/map-growth.sh --report [RUNS]` writes them again from the last
# run's bench/out/ (nothing built, no guest; the CSV gets the rows again).
set -euo pipefail
report=0
[ "${1:-}" = --report ] && { report=1; shift; }	# the tables again from the last run
runs=${1:-3}
here=$(cd "$(dirname "$0")" && pwd)
. "$here/peer/common.sh"
. "$here/lib.sh"
series=$(echo "$KERNEL_RELEASE" | cut -d. -f1,2)
md=$top/bench/results-map-growth.md png=$top/bench/results/map-growth.png
if [ "$KERNEL_RELEASE" != "$site_release" ]; then
	md=$top/bench/results-map-growth-$series.md png=$top/bench/results/map-growth-$series.png
fi
out=$top/bench/out/map-growth-$KERNEL_RELEASE
ctap=("$top/translator/stap" -r "$KERNEL_BUILD")
sizes="1000 100000 1000000"
lookups=100000 batch=1000 batches=64

if [ $report = 0 ]; then
rm -rf "$out" && mkdir -p "$out"
gcc -O2 -static "$here/map-growth/map_loop.c" -o "$out/map_loop"
# The map code alone on the host (real time: what -icount leaves out).
gcc -O2 -std=gnu11 -I"$top/kmod-runtime" -I"$top/kmod-runtime/core" "$here/map-growth/host_map.c" \
	$(sed -n '/^CTAP_CORE_UNITS/,/^$/s|.*\(kmod-runtime/core/[a-z_]*\.c\).*|'"$top"'/\1|p' \
	"$top/kmod-runtime/core/units.mk") -o "$out/host_map"
for i in $(seq $((2 * runs + 1))); do
	"$out/host_map" $sizes
done > "$out/host_map.results"
"$here/peer/setup" > /dev/null
mods=()
ctap_module()	# NAME SCRIPT [stap options and arguments]
{
	local name=$1
	shift
	(cd "$out" && "${ctap[@]}" -p4 -m "ctap_$name" "$@" > /dev/null)
	mods+=(-m "$out/ctap_$name.ko")
}
# SystemTap 4.8's module, or its first error in $out/stap48-unbuilt (as
# kprobe-cost.sh: when its runtime alone fails, every script gets that
# error without another ~50 s try).  STP_NO_OVERLOAD: a fill of a
# million keys is a long run of hits, which its overload check would stop.
stap48_runtime_error=""
echo 'probe begin { exit() }' > "$out/stap48_begin.stp"
if ! "$here/peer/stap" -m stap48_begin "$out/stap48_begin.stp" > /dev/null 2> "$out/stap48_begin.err" &&
   grep -q '^Pass 4: compilation failed' "$out/stap48_begin.err"; then
	stap48_runtime_error="$(stap48_first_error "$out/stap48_begin.err") (its runtime: probe begin {} fails alike)"
fi
touch "$out/stap48-unbuilt"
stap48_module()	# NAME SCRIPT [stap options and arguments]
{
	local name=$1 ko
	shift
	if [ -n "$stap48_runtime_error" ]; then
		echo "$name $stap48_runtime_error" >> "$out/stap48-unbuilt"
	elif ko=$("$here/peer/stap" -m "stap48_$name" -DSTP_NO_OVERLOAD "$@" 2> "$out/stap48_$name.err"); then
		mods+=(-m "$ko")
	else
		echo "$name $(stap48_first_error "$out/stap48_$name.err")" >> "$out/stap48-unbuilt"
		echo "map-growth: SystemTap 4.8 does not build $name for $KERNEL_RELEASE" >&2
	fi
}
for n in $sizes; do
	stap48_module "map_$n" -DMAXMAPENTRIES=$n "$here/map-growth/map.stp" $n
	ctap_module "map_$n" -DMAXMAPENTRIES=$n "$here/map-growth/map.stp" $n
done
for v in keygen stats_key stats print; do
	stap48_module "$v" "$here/map-growth/$v.stp" 1000000
	ctap_module "$v" "$here/map-growth/$v.stp" 1000000
done

# bpftrace: its root merged into the guest, its scripts beside the
# tests; the guest runs its rows only when it finds them.
roots=(-r "$payload")
if [ -z "${CTAP_BENCH_NO_BPFTRACE:-}" ]; then
	roots+=(-r "$(bench_bpftrace_root)")
	rm -rf "$out/bt" && mkdir -p "$out/bt/ctap/bt" && cp "$here"/map-growth/*.bt "$out/bt/ctap/bt/"
	roots+=(-r "$out/bt")
fi

cat > "$out/functions.sh" <<EOT
L=$lookups
# res PREFIX: map_loop's "RESULT LABEL VALUE" lines (on stderr, with
# staprun's) as "RESULT PREFIX-LABEL VALUE"
res() { sed -n "s/^RESULT /RESULT \$1-/p"; }
# mod TOOL NAME: the module of NAME built for TOOL (stap48, ctap)
mod() { [ -f /ctap/modules/\$1_\$2.ko ]; }
# session TOOL NAME CMD [staprun options]: CMD under NAME's module, with
# that tool's staprun; map_loop's results on stdout
session() {
	t=\$1 name=\$2 cmd=\$3
	shift 3
	mod \$t \$name || return 0
	if [ \$t = stap48 ]; then
		/usr/bin/staprun "\$@" -c "\$cmd" /ctap/modules/stap48_\$name.ko 2>&1 >/dev/null
	else
		/ctap/bin/staprun "\$@" -c "\$cmd" /ctap/modules/ctap_\$name.ko 2>&1 >/dev/null
	fi
}
# bt NAME CMD ARG: the same under bpftrace (not run without it)
bt() {
	[ -f /ctap/bt/\$1.bt ] || return 0
	BPFTRACE_MAP_KEYS_MAX=\$3 /usr/bin/bpftrace -c "\$2" /ctap/bt/\$1.bt \$3 2>&1 >/dev/null
}
EOT
{ echo '# timeout: 3000'; cat "$out/functions.sh"; } > "$out/map_growth.sh"
cat >> "$out/map_growth.sh" <<EOT
for i in \$(seq $runs); do
	map_loop none=\$L ppid=\$L:getppid 2>&1 | res none
	for n in $sizes; do
		cmd="/ctap/bin/map_loop fill=\$n lookup=\$L churn=\$L:getppid"
		for t in stap48 ctap; do
			session \$t map_\$n "\$cmd" | res \$t-map_\$n
		done
		bt map "\$cmd" \$n | res bpftrace-map_\$n
	done
	for t in stap48 ctap; do
		session \$t keygen "/ctap/bin/map_loop keygen=\$L" | res \$t
	done
	bt keygen "/ctap/bin/map_loop keygen=\$L" $(echo $sizes | awk '{ print $NF }') | res bpftrace
	# prints into a filling buffer: the lines kept say where it filled
	for t in stap48 ctap bpftrace; do
		if [ \$t = bpftrace ]; then
			[ -f /ctap/bt/print.bt ] || continue
			BPFTRACE_PERF_RB_PAGES=256 /usr/bin/bpftrace -c "/ctap/bin/map_loop -s print=$batch*$batches" \\
				/ctap/bt/print.bt > /tmp/print.out 2> /tmp/print.err || true
			# its count of what it lost goes to stdout
			grep '^Lost' /tmp/print.out >> /tmp/print.err
		elif ! mod \$t print; then
			continue
		elif [ \$t = stap48 ]; then
			/usr/bin/staprun -b 1 -c "/ctap/bin/map_loop -s print=$batch*$batches" \\
				/ctap/modules/stap48_print.ko > /tmp/print.out 2> /tmp/print.err || true
		else
			/ctap/bin/staprun -s 1 -c "/ctap/bin/map_loop -s print=$batch*$batches" \\
				/ctap/modules/ctap_print.ko > /tmp/print.out 2> /tmp/print.err || true
		fi
		res \$t-print < /tmp/print.err
		echo "RESULT \$t-print-lines \$(grep -c '^getpid' /tmp/print.out)"
		grep -v -e '^RESULT' -e 'is not traceable' /tmp/print.err | head -n 3 | sed "s/^/NOTE \$t-print /"
	done
done
EOT
# Two CPUs: this QEMU does not bring a second vCPU up under -icount (the
# boot stops in cpu_init), so <<< from two CPUs runs in a second boot
# without it, in host nanoseconds, one CPU and two taking turns.
{ echo '# timeout: 1200'; cat "$out/functions.sh"; } > "$out/two_cpus.sh"
cat >> "$out/two_cpus.sh" <<EOT
for i in \$(seq $((2 * runs + 1))); do
	map_loop p1=\$L 2>&1 | res none
	map_loop -p 2 p2=\$L 2>&1 | res none
	for v in stats_key stats; do
		for t in stap48 ctap; do
			session \$t \$v "/ctap/bin/map_loop p1=\$L" | res \$t-\$v
			session \$t \$v "/ctap/bin/map_loop -p 2 p2=\$L" | res \$t-\$v
		done
		bt \$v "/ctap/bin/map_loop p1=\$L" 1 | res bpftrace-\$v
		bt \$v "/ctap/bin/map_loop -p 2 p2=\$L" 1 | res bpftrace-\$v
	done
done
EOT
CTAP_QEMU_EXTRA="-icount shift=0,sleep=off" \
guest_run -s 1 -M 2048 -o "$out/guest" "${mods[@]}" -b "$out/map_loop" "${roots[@]}" \
	"$out/map_growth.sh" > /dev/null || true
bench_guest_ok "$out/guest" map_growth map-growth
guest_run -s 2 -M 2048 -o "$out/guest2" "${mods[@]}" -b "$out/map_loop" "${roots[@]}" \
	"$out/two_cpus.sh" > /dev/null || true
bench_guest_ok "$out/guest2" two_cpus map-growth
fi

# Medians, handler costs (minus the same calls with no probe), the
# tables, the CSV rows and the plot data.
cpu=$(sed -n 's/^model name\s*: //p' /proc/cpuinfo | head -n 1)
csv=$top/bench/results/map-growth.csv
[ -f "$csv" ] || echo "date,commit,kernel,tool,row,size,per_call,per_hit,runs,note" > "$csv"
awk -v date="$bench_date" -v commit="$bench_commit" -v kernel="$KERNEL_RELEASE" -v runs="$runs" \
    -v csv="$csv" -v cpu="$cpu" -v plot="$out/plot.dat" -v pngrel="results/${png##*/}" \
    -v sizes="$sizes" -v lookups="$lookups" -v batch="$batch" -v batches="$batches" "$bench_median_awk"'
	FILENAME ~ /stap48-unbuilt$/ { name = $1; $1 = ""; unbuilt[name] = substr($0, 2); next }
	/^RESULT / { v[$2] = v[$2] " " $3; next }
	# bpftrace 0.17 warns that a function it then probes is not traceable
	/^NOTE / && !/is not traceable/ { t = $2; $1 = $2 = ""; if (!(t in note)) note[t] = substr($0, 3); next }
	/^NOTE / { next }
	function med(k) { return (k in v) ? median(v[k]) : "" }
	# how many runs gave result k
	function nvals(k,   a) { return (k in v) ? split(v[k], a, " ") : 0 }
	# the calls with no probe that row r is measured against
	function base(r) { return r ~ /churn/ ? "none-ppid" : r ~ /p2$/ ? "none-p2" : r ~ /p1$/ ? "none-p1" : "none-none" }
	# per hit: the median minus its base; "" where not measured
	function hit(tool, r,   m) { m = med(tool "-" r); return m == "" ? "" : m - med(base(r)) }
	function fmt(x) { return x == "" ? "" : sprintf("%.0f", x) }
	# a size as the tables and the CSV name it (a CSV row is named by its
	# columns that are not numbers: bench/repeat.sh)
	function slabel(n) { return n >= 1000000 ? n / 1000000 "M" : n / 1000 "k" }
	function ratio(a, b) { return a == "" || b == "" || a <= 0 ? "" : sprintf("%.2f", b / a) }
	function bold(r) { return r != "" && r + 0 > 2 ? "**" r "**" : r }
	# a CSV row: the median per call of result k, x per hit
	function row(tool, r, size, k, x, why) {
		printf "%s,%s,%s,%s,%s,%s,%s,%s,%d,%s\n", date, commit, kernel, tool, r, size,
			med(k), x == "" ? "" : sprintf("%.1f", x), runs, why >> csv
	}
	# why tool has no figure for script s
	function absent(tool, s,   e) {
		if (tool == "bpftrace")
			return "bpftrace did not run it (its log: bench/out/map-growth-RELEASE/guest*; CTAP_BENCH_NO_BPFTRACE leaves it out)"
		e = unbuilt[s]; gsub(/,/, ";", e)
		return tool == "stap48" && (s in unbuilt) ? "does not build: " e : "not measured"
	}
	# the lines that went into the buffer: all but those the tool says it
	# dropped (ctap: "N output writes were dropped"; SystemTap 4.8: "There
	# were N transport failures", one a line: its stapio then lost most of
	# what the buffer held, so its lines kept do not tell); else the lines kept
	function accepted(tool,   n) {
		if (match(note[tool "-print"], /[0-9]+ (output writes were dropped|transport failures|events)/)) {
			n = substr(note[tool "-print"], RSTART, RLENGTH) + 0
			return batches * batch - n
		}
		return med(tool "-print-lines")
	}
	# the batch of prints that was the last to go into the buffer whole
	function last_fit(tool,   k) {
		k = int(accepted(tool) / batch)
		return k > batches ? batches : k
	}
	END {
		nt = split("stap48 ctap bpftrace", tools, " ")
		tname["stap48"] = "SystemTap 4.8"; tname["ctap"] = "ctap"; tname["bpftrace"] = "bpftrace"
		ns = split(sizes, sz, " ")
		printf "# Costs as work grows\n\n"
		printf "On %s, %s, commit %s (`bench/map-growth.sh`). Host CPU: %s.\n", kernel, date, commit, cpu
		printf "One guest boot, one CPU, QEMU TCG with `-icount shift=0`: the figures are **instructions** per hit (the calls with a probe minus the same calls with none), median of %d runs, each module loaded afresh in each run. SystemTap 4.8 and ctap run the same scripts (`bench/map-growth/*.stp`), bpftrace 0.17 each in its words (`bench/map-growth/*.bt`; its map sized by `BPFTRACE_MAP_KEYS_MAX`).\n\n", nvals("none-none")
		printf "## `a[key]++` against the map'"'"'s size\n\n"
		printf "`map.stp` with N distinct keys (`-DMAXMAPENTRIES=N`), keys from a counter in the script: **fill** is N hits inserting into a map growing from empty to N; **lookup** %d hits on existing keys of the full map; **churn** %d hits each deleting the oldest key and inserting a new one (the map stays at N). **keygen** is the same probe without the array (the key'"'"'s own cost). 1 M / 1 k over 2 is in bold.\n\n", lookups, lookups
		printf "| row | tool |"
		for (i = 1; i <= ns; i++)
			printf " %s |", slabel(sz[i])
		printf " 1M / 1k |\n|---|---|"
		for (i = 1; i <= ns; i++)
			printf "---:|"
		printf "---:|\n"
		nr = split("fill lookup churn", rows, " ")
		for (r = 1; r <= nr; r++)
			for (t = 1; t <= nt; t++) {
				tool = tools[t]
				printf "| %s | %s |", rows[r], tname[tool]
				for (i = 1; i <= ns; i++) {
					x = hit(tool, "map_" sz[i] "-" rows[r]); y[i] = x
					printf " %s |", fmt(x)
					row(tool, rows[r], slabel(sz[i]), tool "-map_" sz[i] "-" rows[r], x, x == "" ? absent(tool, "map_" sz[i]) : "")
					pd[sz[i], tool, rows[r]] = x == "" ? "?" : x
				}
				printf " %s |\n", bold(ratio(y[1], y[ns]))
			}
		for (t = 1; t <= nt; t++) {
			tool = tools[t]; x = hit(tool, "keygen")
			printf "| keygen | %s | %s | | | |\n", tname[tool], fmt(x)
			row(tool, "keygen", "", tool "-keygen", x, x == "" ? absent(tool, "keygen") : "")
		}
		printf "\n## `<<<` from two CPUs at once\n\n"
		printf "A second boot with two CPUs and **without** `-icount` (this QEMU does not bring the second vCPU up under it), so these figures are host **nanoseconds** per hit, median of %d runs taking turns: %d hits from one process on CPU 0, then %d from each of two processes, one per CPU, at once (per hit: the elapsed time over all hits). The vCPUs take turns on one host thread: a lock one holds while the other spins costs the spinner its turn, and cache lines do not bounce as on hardware.\n\n", nvals("none-p1"), lookups, lookups
		if (med("none-p1") == "")
			printf "**Not measured in this run** (its boot did not get its turn on the guest lock or failed: bench/out/map-growth-RELEASE/guest2).\n\n"
		printf "| script | tool | 1 CPU (ns) | 2 CPUs (ns) | 2 / 1 |\n|---|---|---:|---:|---:|\n"
		split("stats_key stats", sv, " "); sn["stats_key"] = "`s[1] <<< 1`"; sn["stats"] = "`s <<< 1`"
		for (s = 1; s <= 2; s++)
			for (t = 1; t <= nt; t++) {
				tool = tools[t]; a = hit(tool, sv[s] "-p1"); b = hit(tool, sv[s] "-p2")
				printf "| %s | %s | %s | %s | %s |\n", sn[sv[s]], tname[tool], fmt(a), fmt(b), bold(ratio(a, b))
				row(tool, sv[s] "-1cpu", "", tool "-" sv[s] "-p1", a, a == "" ? absent(tool, sv[s]) : "")
				row(tool, sv[s] "-2cpu", "", tool "-" sv[s] "-p2", b, b == "" ? absent(tool, sv[s]) : "")
			}
		printf "\n## A print into a filling buffer\n\n"
		printf "`printf(\"getpid %%d %%s\\n\", pid(), execname())` per hit, the reader stopped, a 1 MB buffer (ctap'"'"'s `staprun -s 1`, SystemTap'"'"'s `-b 1`), %d batches of %d hits. **empty**: the first batch; **nearly full**: the last batch that went into the buffer whole (by the count of writes each tool says it dropped: from how full the buffer was when it began); **full**: the last batch, all of it dropped. *lines kept*: what staprun wrote out once the reader went on.\n\n", batches, batch
		printf "| tool | empty | nearly full | full | nearly full / empty | lines kept | what staprun said |\n|---|---:|---:|---:|---:|---:|---|\n"
		for (t = 1; t <= nt; t++) {
			tool = tools[t]
			if (med(tool "-print-lines") == "") {
				printf "| %s | | | | | | %s |\n", tname[tool], absent(tool, "print")
				row(tool, "print-empty", "", "", "", absent(tool, "print"))
				continue
			}
			k = last_fit(tool)
			e = hit(tool, "print-print.1"); f = k >= 1 ? hit(tool, "print-print." k) : ""
			o = hit(tool, "print-print." batches)
			pct = accepted(tool) ? 100 * (k - 1) * batch / accepted(tool) : 0
			printf "| %s | %s | %s (batch %d, from %.0f %%) | %s | %s | %d | %s |\n", tname[tool], fmt(e), fmt(f), k, pct,
				fmt(o), bold(ratio(e, f)), med(tool "-print-lines"), (note[tool "-print"] != "" ? note[tool "-print"] : "nothing (of what it lost)")
			row(tool, "print-empty", "", tool "-print-print.1", e, "")
			row(tool, "print-nearly-full", sprintf("from %.0f%%", pct), tool "-print-print." k, f, "")
			row(tool, "print-full", "", tool "-print-print." batches, o, "")
		}
		printf "\n## The map code alone, on the host\n\n"
		printf "`bench/map-growth/host_map.c`: kmod-runtime/core/map.c built for the host, `a[key]++` in nanoseconds of real time (median of %d runs, on a shared host: expect noise), the same three rows with the lookups in a shuffled order. The guest'"'"'s instruction counts leave out what caches and TLBs add once the map outgrows them; this is that part, for ctap alone.\n\n", nvals("host-map_" sz[1] "-fill")
		printf "| row |"
		for (i = 1; i <= ns; i++)
			printf " %s |", slabel(sz[i])
		printf " 1M / 1k |\n|---|"
		for (i = 1; i <= ns; i++)
			printf "---:|"
		printf "---:|\n"
		for (r = 1; r <= nr; r++) {
			printf "| %s |", rows[r]
			for (i = 1; i <= ns; i++) {
				y[i] = med("host-map_" sz[i] "-" rows[r])
				printf " %s |", y[i] == "" ? "" : sprintf("%.0f ns", y[i])
				row("host", rows[r], slabel(sz[i]), "host-map_" sz[i] "-" rows[r], y[i], "ns of real time on the host: the map code alone")
			}
			printf " %s |\n", ratio(y[1], y[ns])
		}
		printf "\nThe calls alone: getpid %.1f, getppid %.1f instructions per call", med("none-none"), med("none-ppid")
		if (med("none-p1") != "")
			printf "; getpid on one CPU %.1f ns, on two at once %.1f ns", med("none-p1"), med("none-p2")
		printf ".\n"
		printf "\n![cost against map size](%s)\n", pngrel
		for (i = 1; i <= ns; i++) {
			printf "%s", sz[i] > plot
			for (t = 1; t <= nt; t++)
				for (r = 1; r <= nr; r++)
					printf " %s", pd[sz[i], tools[t], rows[r]] > plot
			printf "\n" > plot
		}
	}' "$out/stap48-unbuilt" "$out/guest/map_growth.stdout" "$out/host_map.results" \
	$(ls "$out/guest2/two_cpus.stdout" 2> /dev/null) > "$md"
# The plot: per hit against the map's size, a colour per tool, a dash
# type per row (columns 2-4 SystemTap 4.8, 5-7 ctap, 8-10 bpftrace: fill,
# lookup, churn; "?" not measured).
gnuplot <<EOT
set terminal pngcairo size 1000,460 noenhanced
set output "$png"
set title "a[key]++, instructions per hit against map size (guest $KERNEL_RELEASE, $bench_date)"
set datafile missing "?"
set logscale x
set xrange [500:2000000]
set xtics ("1 k" 1000, "10 k" 10000, "100 k" 100000, "1 M" 1000000)
set yrange [0:*]
set ylabel "instructions per hit, minus no probe"
set xlabel "distinct keys in the map (MAXMAPENTRIES)"
set key outside right
set grid ytics
tool(c) = word("SystemTap-4.8 ctap bpftrace", (c - 2) / 3 + 1)
rowname(c) = word("fill lookup churn", (c - 2) % 3 + 1)
colour(c) = word("#c0392b #2471a3 #27ae60", (c - 2) / 3 + 1)
plot for [c=2:10] "$out/plot.dat" using 1:c with linespoints lw 2 dt 1 + (c - 2) % 3 \\
	pt 5 + (c - 2) % 3 lc rgb colour(c) title tool(c) . " " . rowname(c)
EOT
cat "$md"
