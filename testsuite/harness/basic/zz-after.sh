# expect: ^PASS$
# The batch goes on after a failed test; the leaked module was removed,
# and the process timeout-children left behind was killed.
grep -c ctap_smoke /proc/modules
if kill -0 "$(cat /tmp/timeout-child.pid)" 2>/dev/null; then
	echo "timeout-children's sleep still runs"
fi
true
