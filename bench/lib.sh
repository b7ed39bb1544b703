# lib.sh - what the guest benchmarks share; sourced after peer/common.sh.

# bench_guest_ok OUTDIR TEST NAME: the guest ran TEST to exit status 0, or
# say why (as NAME) and exit.
bench_guest_ok()
{
	local st

	st=$(cat "$1/$2.status")
	[ "${st%% *}" = rc=0 ] && return 0
	echo "$3: the guest run failed: $st" >&2
	cat "$1/$2.stderr" >&2
	exit 1
}

# When and what was measured, for the tables and CSV rows.
bench_date=$(date -u +%Y-%m-%dT%H:%MZ)
bench_commit=$(git -C "$top" rev-parse --short HEAD 2>/dev/null || echo unknown)
mkdir -p "$top/bench/results"

# An awk function, to prepend to a program: the median of a space-separated
# list of numbers (compared as numbers).
bench_median_awk='
	function median(s,   a, k, i, j, t) {
		k = split(s, a, " ")
		for (i = 1; i <= k; i++)
			for (j = i + 1; j <= k; j++)
				if (a[j] + 0 < a[i] + 0) { t = a[i]; a[i] = a[j]; a[j] = t }
		return k % 2 ? a[(k + 1) / 2] : (a[k / 2] + a[k / 2 + 1]) / 2
	}'
