# staprun -d stops a module left running (its end probe still runs) and
# unloads it.
staprun -c 'getpid_loop 3 30000' modules/ctap_smoke.ko > /dev/null &
pid=$!
sleep 1
kill -9 $pid
wait $pid 2>/dev/null
staprun -d ctap_smoke
echo "rc=$?"
echo "loaded after: $(grep -c '^ctap_smoke ' /proc/modules)"
staprun -d ctap_smoke 2>&1
echo "rc=$?"
killall getpid_loop 2>/dev/null
true
