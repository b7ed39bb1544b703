# kill -9 of staprun leaves the module loaded and running (documented in
# ctap_msgs.h); staprun -A attaches to it again and ends it cleanly.
staprun -c 'getpid_loop 5 30000' modules/ctap_smoke.ko > /tmp/first &
pid=$!
sleep 1
kill -9 $pid
wait $pid 2>/dev/null
echo "still loaded: $(grep -c '^ctap_smoke ' /proc/modules)"
staprun -T 1 -A ctap_smoke > /tmp/attached
echo "attach rc=$?"
cat /tmp/first /tmp/attached
echo "loaded after: $(grep -c '^ctap_smoke ' /proc/modules)"
killall getpid_loop 2>/dev/null
true
