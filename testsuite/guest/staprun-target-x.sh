# -x PID: target() is a process already running; only its calls count.
getpid_loop 25 0 1500 &
pid=$!
staprun -x $pid -T 3 modules/ctap_smoke.ko
echo "rc=$?"
wait $pid
