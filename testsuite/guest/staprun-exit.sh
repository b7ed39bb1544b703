# exit() in the module (here after 50 target hits) ends the session: the end
# probe runs, staprun stops well before the -c command would have, and
# kills it.  The final count varies (hits go on until EXIT arrives).
t0=$(date +%s)
staprun -c 'getpid_loop 200 20000' modules/ctap_smoke.ko exit_after=50 > /tmp/o
rc=$?
t1=$(date +%s)
sed 's/hits=[0-9]*/hits=N/' /tmp/o
echo "rc=$rc"
[ $((t1 - t0)) -lt 10 ] && echo "stopped before the command ended"
