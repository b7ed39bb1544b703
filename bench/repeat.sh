#!/bin/bash
# bench/repeat.sh - how repeatable the benchmarks are: every figure of the
# last two runs recorded in bench/results/*.csv, side by side, with the
# difference in percent; figures that moved more than 10 % are marked.
# `make bench` runs it last, so two `make bench` in a row give the report.
# A run is one value of the date column; the figures of a row are its
# numeric columns (the "runs" count excluded); the other columns, date and
# commit aside, name the row.  Where a CSV has a kernel column, the last
# two runs are those of each kernel (make bench measures 6.1 and 6.12
# one after the other).  Writes bench/results-repeat.md.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
out=$here/results-repeat.md
{
	echo "# Benchmark repeatability: the last two runs"
	echo
	echo "Each figure of the two most recent runs in \`bench/results/*.csv\`"
	echo "(\`bench/repeat.sh\`); **bold**: more than 10 % apart. Wall-time figures"
	echo "(pass 1, pass 4) depend on the host's load; the guest figures are"
	echo "emulated instruction counts."
	echo
	echo "| file | row | figure | older run | newer run | difference |"
	echo "|---|---|---|---:|---:|---:|"
	for csv in "$here"/results/*.csv; do
		awk -F, -v file="$(basename "$csv" .csv)" '
		NR == 1 { for (i = 1; i <= NF; i++) { col[i] = $i; if ($i == "kernel") kcol = i }; next }
		{
			kern = kcol ? $kcol : ""
			if (!((kern, $1) in seen)) { seen[kern, $1] = 1; run[kern, ++nruns[kern]] = $1 }
			key = ""
			for (i = 3; i <= NF; i++)
				if ($i !~ /^-?[0-9.]+$/ && $i != "")
					key = key (key == "" ? "" : " ") $i
			for (i = 3; i <= NF; i++)
				if ($i ~ /^-?[0-9.]+$/ && col[i] != "runs") {
					val[$1, key, col[i]] = $i
					if (!((key, col[i]) in known)) { known[key, col[i]] = 1; order[++n] = key SUBSEP col[i]; kof[key] = kern }
				}
		}
		END {
			for (k = 1; k <= n; k++) {
				split(order[k], kc, SUBSEP)
				kern = kof[kc[1]]
				if (nruns[kern] < 2)
					continue
				a = run[kern, nruns[kern] - 1]; b = run[kern, nruns[kern]]
				if (!((a, kc[1], kc[2]) in val) || !((b, kc[1], kc[2]) in val))
					continue
				x = val[a, kc[1], kc[2]]; y = val[b, kc[1], kc[2]]
				d = x != 0 ? 100 * (y - x) / x : 0
				ds = sprintf("%+.1f %%", d)
				if (d > 10 || d < -10)
					ds = "**" ds "**"
				printf "| %s | %s | %s | %s | %s | %s |\n", file, kc[1], kc[2], x, y, ds
			}
		}' "$csv"
	done
} > "$out"
cat "$out"
