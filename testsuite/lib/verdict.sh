# verdict.sh - how a test's outcome is judged; sourced by run-tests and by
# the harness self-test, so that both judge alike.  Each function prints
# nothing and returns 0 for a pass, or prints the reason and returns 1.

# guest_verdict OUTDIR NAME EXPECTED_STDOUT [EXPECTED_RC]
#   A guest test passes when the guest ran it (status rc=N), it exited with
#   EXPECTED_RC (0), it ran within its timeout, and its stdout is exactly the
#   expected file.
guest_verdict()
{
	local dir=$1 name=$2 expected=$3 want_rc=${4:-0} st rc secs tmo
	st=$(cat "$dir/$name.status" 2>/dev/null) || { echo "no result (guest-run failed)"; return 1; }
	case $st in
	rc=*) ;;
	*) echo "$st"; return 1 ;;
	esac
	rc=${st#rc=}; rc=${rc%% *}
	secs=${st##*time=}
	tmo=$(sed -n 's/^# timeout: *\([0-9]*\).*/\1/p' "$dir/root/ctap/tests/$name.sh" | head -n 1)
	if [ "$rc" = 137 ] && awk "BEGIN{exit !($secs >= ${tmo:-60})}"; then
		echo "timed out after ${tmo:-60} s"
		return 1
	fi
	if [ "$rc" != "$want_rc" ]; then
		echo "exit status $rc, expected $want_rc; stderr: $(head -c 160 "$dir/$name.stderr" | tr '\n' ' ')"
		return 1
	fi
	if ! cmp -s "$expected" "$dir/$name.stdout"; then
		echo "stdout differs from $(basename "$expected"): $(first_difference "$expected" "$dir/$name.stdout")"
		return 1
	fi
	return 0
}

# first_difference EXPECTED GOT - the first line that differs, short: a
# verdict is often all a reader of CI's tail has.
first_difference()
{
	diff --text "$1" "$2" | awk '
		/^[0-9]/ && !at { at = $0; next }
		/^< / && want == "" { want = substr($0, 3, 100) }
		/^> / && got == "" { got = substr($0, 3, 100) }
		END { printf "at %s, expected \"%s\", got \"%s\"", at, want, got }' | cat -v
}

# pass_verdict STP_FILE KIND STAP
#   Pass tests in SystemTap's style: the first line of the .stp names the
#   command ("#! stap -p1" runs `stap -p1 FILE`; "#!/bin/sh" runs the file
#   as a shell script with stap on PATH).  KIND ok: exit 0.  KIND ko: a clean
#   failure, exit 1..125 with a message on stderr; a crash (signal, sanitizer
#   report) is never a clean failure.  Each "# error: REGEX" line of the
#   file must match that message.  "# timeout: N" gives a test that builds
#   several modules cold more than 60 s.
pass_verdict()
{
	local file=$1 kind=$2 stap=$3 first args out rc tmo
	first=$(head -n 1 "$file")
	tmo=$(sed -n 's/^# timeout: *\([0-9]*\).*/\1/p' "$file" | head -n 1)
	out=$(mktemp)
	case $first in
	"#! stap"*|"#!stap"*)
		args=${first#*stap}
		# shellcheck disable=SC2086  # the first line is a word list
		timeout "${tmo:-60}" "$stap" $args "$file" > "$out.stdout" 2> "$out" < /dev/null
		rc=$? ;;
	"#!/bin/sh"*)
		PATH=$(dirname "$stap"):$PATH timeout "${tmo:-60}" sh "$file" > "$out.stdout" 2> "$out" < /dev/null
		rc=$? ;;
	*)
		echo "first line names no command"; rm -f "$out" "$out.stdout"; return 1 ;;
	esac
	local err; err=$(head -c 2000 "$out"); rm -f "$out" "$out.stdout"
	if [ $rc -ge 124 ] || grep -q -e 'Sanitizer' -e 'runtime error:' <<< "$err"; then
		echo "crashed or hung (exit $rc): $err"; return 1
	fi
	if [ "$kind" = ok ] && [ $rc -ne 0 ]; then
		echo "exit $rc: $err"; return 1
	fi
	if [ "$kind" = ko ] && { [ $rc -eq 0 ] || [ -z "$err" ]; }; then
		echo "expected a clean failure with a message, got exit $rc"; return 1
	fi
	# "# error: REGEX" lines: each must match the messages (ko cases).
	local want
	while IFS= read -r want; do
		grep -Eq -- "$want" <<< "$err" || { echo "message does not match /$want/: $err"; return 1; }
	done < <(sed -n 's/^# error: //p' "$file")
	return 0
}

# roundtrip_verdict STP_FILE STAP TMPDIR
#   stap -p1 prints a canonical form that parses back to the same tree:
#   printing the reparsed output must give the same text again.
roundtrip_verdict()
{
	local file=$1 stap=$2 tmp=$3/roundtrip.$$ rc=0
	shift 3		# the rest: more stap options (-I DIR)
	mkdir -p "$tmp"
	# From stdin: a file of the -I library is no script by its path.
	if ! "$stap" "$@" -p1 - < "$file" > "$tmp/1.stp" 2> "$tmp/err"; then
		echo "first parse failed: $(head -c 500 "$tmp/err")"; rc=1
	elif ! "$stap" "$@" -p1 "$tmp/1.stp" > "$tmp/2.stp" 2> "$tmp/err"; then
		echo "the printed form does not parse: $(head -c 500 "$tmp/err")"; rc=1
	elif ! diff <(grep -v '^# file ' "$tmp/1.stp") <(grep -v '^# file ' "$tmp/2.stp") > "$tmp/diff"; then
		echo "printing the reparsed form differs: $(head -c 500 "$tmp/diff")"; rc=1
	fi
	rm -rf "$tmp"
	return $rc
}
