# guest-script.sh - the guest's shell script for one script test, from the
# headers of run/NAME.stp; shared by run-tests (ctap's staprun) and
# bench/peer/reference-batch (SystemTap 4.8's), so that both run a test
# the same way.  Headers: testsuite/README.md, "Script tests".

# test_source FILE TOP - the script FILE's test runs: FILE itself, or
# for "# script: scripts/NAME.stp" that tool of the tree TOP, or for
# "# example: io/iotop.stp" SystemTap's example of that name (Debian's
# systemtap-doc, which bootstrap installs; FILE then holds only headers).
test_source()
{
	local src ex
	src=$(sed -n 's/^# script: //p' "$1")
	ex=$(sed -n 's/^# example: //p' "$1")
	if [ -n "$ex" ]; then
		echo "${CTAP_EXAMPLES:-/usr/share/systemtap/examples}/$ex"
	elif [ -n "$src" ]; then
		echo "$2/$src"
	else
		echo "$1"
	fi
}

# guest_modules FILE - its "# guest-module:" paths (under
# /lib/modules/RELEASE/, without .xz), which the caller copies to
# /ctap/kmods/, in the order they load.  A bare name ("nfsv4") is
# resolved, with what it depends on, from $GUEST_MODDIR/modules.dep: the
# same test then runs on kernels whose modules moved or split.
guest_modules()
{
	local m
	for m in $(sed -n 's/^# guest-module: //p' "$1"); do
		case $m in
		*/*) echo "$m" ;;
		*) module_deps "$m" ;;
		esac
	done | awk '!seen[$0]++'
}

# module_deps NAME - NAME's module and every module it needs, from
# $GUEST_MODDIR/modules.dep, those it needs first (modprobe loads a
# module's list from its end).
module_deps()
{
	local deps
	deps=$(awk -v want="$1" -F': *' '{
		n = split($1, p, "/"); base = p[n]; sub(/\.ko(\.[a-z]+)?$/, "", base)
		gsub(/-/, "_", base); w = want; gsub(/-/, "_", w)
		if (base != w) next
		k = split($2, d, " ")
		for (i = k; i >= 1; i--) print d[i]
		print $1; found = 1; exit
	} END { exit !found }' "$GUEST_MODDIR/modules.dep" 2>/dev/null) ||
		{ echo "module $1 is not in $GUEST_MODDIR/modules.dep" >&2; return 1; }
	printf '%s\n' "$deps" | sed -E 's/\.(xz|zst|gz)$//'
}

# guest_script FILE STAPRUN MODULE - prints the script that runs MODULE
# (a path in the guest) with STAPRUN as FILE's headers say.
guest_script()
{
	local f=$1 staprun=$2 ko=$3 cmd params env stdin sopt="" pipe="" tmo intr kms km
	cmd=$(sed -n 's/^# cmd: //p' "$f")
	params=$(sed -n 's/^# staprun: //p' "$f")
	# "# env: TZ=EST5": staprun's environment (a time zone, say)
	env=$(sed -n 's/^# env: //p' "$f")
	# "# stdin: a\nb\n": piped to staprun -i (printf's escapes; no ' or %)
	stdin=$(sed -n 's/^# stdin: //p' "$f")
	[ -n "$stdin" ] && pipe="printf '$stdin' |" && sopt=-i
	# "# staprun-opts: -o /tmp/f -S 1,2": more staprun options
	sopt="$sopt $(sed -n 's/^# staprun-opts: //p' "$f")"
	# "# timeout: 120": the test's time limit in the guest (60 s)
	tmo=$(sed -n 's/^# timeout: *\([0-9]*\).*/\1/p' "$f" | head -n 1)
	# "# interrupt: 3": staprun gets SIGINT after 3 seconds
	intr=$(sed -n 's/^# interrupt: *\([0-9]*\).*/\1/p' "$f" | head -n 1)
	kms=$(guest_modules "$f")
	echo "# timeout: ${tmo:-60}"
	echo "cd /ctap/bin"
	for km in $kms; do echo "insmod /ctap/kmods/$(basename "$km")"; done
	# "# before: CMD": run before staprun (a process to probe by pid,
	# started with '&')
	sed -n 's/^# before: //p' "$f"
	if [ -n "$intr" ]; then
		printf '%s %s %s %s %s &\n' "$env" "$staprun" "$sopt" "$ko" "$params"
		printf 'pid=$!; sleep %s; kill -INT $pid; wait $pid\n' "$intr"
	elif [ -n "$cmd" ]; then
		printf '%s %s %s %s -c %q %s %s\n' "$pipe" "$env" "$staprun" "$sopt" "$cmd" "$ko" "$params"
	else
		printf '%s %s %s %s %s %s\n' "$pipe" "$env" "$staprun" "$sopt" "$ko" "$params"
	fi
	echo 'rc=$?'
	# "# after: CMD": a shell line run after staprun (its stdout is the
	# test's too: the -o files, say)
	sed -n 's/^# after: //p' "$f"
	# users first: bridge before the llc it uses
	for km in $(printf '%s\n' $kms | tac); do echo "rmmod $(basename "$km" .ko)"; done
	echo 'exit $rc'
}
