# A second staprun beside a live one (-d or -A) is told the module is busy:
# it once read the first one's control messages.  The first one goes on and
# ends the session cleanly.
staprun -T 3 -c 'getpid_loop 4 3000' modules/ctap_smoke.ko > /tmp/first &
pid=$!
sleep 1
staprun -d ctap_smoke 2>&1
echo "rc=$?"
staprun -A ctap_smoke 2>&1
echo "rc=$?"
wait $pid
echo "first rc=$?"
cat /tmp/first
echo "loaded after: $(grep -c '^ctap_smoke ' /proc/modules)"
