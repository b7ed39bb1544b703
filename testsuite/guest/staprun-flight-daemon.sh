# stap -F -o FILE runs staprun -D: staprun loads and starts the module,
# then goes on as a daemon in a session of its own (its pid printed, as
# SystemTap's) and keeps writing FILE while the shell goes on; SIGTERM to
# it ends the session (end probe, unload).  A second staprun is refused.
loaded() { echo "loaded: $(grep -c '^ctap_smoke ' /proc/modules)"; }
getpid_loop 3000 0 3000 &
w=$!
d=$(staprun -D -o /tmp/fr.out -x $w modules/ctap_smoke.ko print_each=1)
echo "-D rc=$?"
kill -0 "$d" && echo "daemon running"
[ "$(cut -d' ' -f6 /proc/$d/stat)" != "$(cut -d' ' -f6 /proc/$$/stat)" ] && echo "in a session of its own"
[ "$(readlink /proc/$d/fd/0)" = /dev/null ] && echo "stdin: /dev/null"
loaded
sleep 1
cat /tmp/fr.out
wait $w
sleep 1
echo "hits in the file while detached: $(grep -c '^smoke: hit' /tmp/fr.out)"
staprun -d ctap_smoke 2>&1
echo "-d rc=$?"
kill -TERM "$d"
for i in 1 2 3 4 5 6 7 8 9 10; do
	grep -q '^ctap_smoke ' /proc/modules || break
	sleep 1
done
loaded
tail -1 /tmp/fr.out
state=$(cut -d' ' -f3 /proc/$d/stat 2>/dev/null)
[ -z "$state" ] || [ "$state" = Z ] && echo "daemon gone"
