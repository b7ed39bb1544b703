# SIGINT, SIGTERM and SIGHUP each end the session cleanly: end probe,
# output, exit status 0, module unloaded.
for sig in INT TERM HUP; do
	staprun -c 'getpid_loop 10 30000' modules/ctap_smoke.ko > /tmp/o &
	pid=$!
	sleep 1
	kill -$sig $pid
	wait $pid
	echo "SIG$sig rc=$?"
	cat /tmp/o
	grep -c '^ctap_smoke ' /proc/modules
done
true
