# -T 1 ends the session after a second, long before the command would.
t0=$(date +%s)
staprun -T 1 -c 'getpid_loop 10 30000' modules/ctap_smoke.ko
echo "rc=$?"
t1=$(date +%s)
[ $((t1 - t0)) -lt 10 ] && echo "stopped by -T"
