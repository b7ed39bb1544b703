# When the output cannot be written (ENOSPC, the next -o file cannot be
# created), staprun exited 1 with nothing on stderr, and the end probes'
# output was lost unsaid (issue 39, item 12).  Now it says what failed,
# stops the session (the end probes run) and counts what was lost.
echo "-- /dev/full"
staprun -o /dev/full -T 1 modules/ctap_smoke.ko 2>&1
echo "rc=$?"
echo "-- the next file cannot be created"
mkdir -p /tmp/of/out.1
staprun -o /tmp/of/out modules/ctap_smoke.ko 2>&1 &
pid=$!
for i in $(seq 100); do [ -s /tmp/of/out ] && break; sleep 0.1; done
kill -USR2 $pid	# the next output goes to out.1, a directory
kill -TERM $pid
wait $pid
echo "rc=$?"
cat /tmp/of/out
true
