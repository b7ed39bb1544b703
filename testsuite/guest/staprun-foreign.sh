# staprun -d NAME and -A NAME took any loaded module: one without a ctap
# control file went straight to the unload, so "staprun -d dummy" removed
# a driver of the system's, for root and for a user of a setuid staprun
# (issue 39, item 3).  Now a module that is not a ctap session is left
# alone, and a user may stop or attach to only the sessions they started
# (the module records who loaded it; its control file refuses others).
cp /ctap/bin/staprun /tmp/staprun-suid && chmod 4755 /tmp/staprun-suid
admin=/lib/modules/$(uname -r)/systemtap
mkdir -p $admin && cp modules/ctap_smoke.ko $admin/
loaded() { echo "loaded after: $(grep -c "^$1 " /proc/modules)"; }
insmod modules/ctap_other.ko
echo "-- root: staprun -d of a module that is not a ctap session"
staprun -d ctap_other 2>&1
echo "rc=$?"; loaded ctap_other
echo "-- root: staprun -A of it"
staprun -A ctap_other 2>&1
echo "rc=$?"; loaded ctap_other
echo "-- a user: staprun -d of it"
runas 65534 /tmp/staprun-suid -d ctap_other 2>&1
echo "rc=$?"; loaded ctap_other
rmmod ctap_other
# A session root started, its staprun killed: the module runs on.
staprun -c 'getpid_loop 5 30000' modules/ctap_smoke.ko > /dev/null &
pid=$!
sleep 1
kill -9 $pid
wait $pid 2>/dev/null
echo "-- a user: staprun -d and -A of root's session"
runas 65534 /tmp/staprun-suid -d ctap_smoke 2>&1
echo "rc=$?"; loaded ctap_smoke
runas 65534 /tmp/staprun-suid -A ctap_smoke 2>&1
echo "rc=$?"; loaded ctap_smoke
echo "-- root: staprun -d of it"
staprun -d ctap_smoke > /dev/null
echo "rc=$?"; loaded ctap_smoke
killall getpid_loop 2>/dev/null
# A session the user started: theirs to stop.
runas 65534 /tmp/staprun-suid $admin/ctap_smoke.ko > /dev/null &
pid=$!
sleep 1
kill -9 $pid
wait $pid 2>/dev/null
echo "-- a user: staprun -d of their own session"
runas 65534 /tmp/staprun-suid -d ctap_smoke
echo "rc=$?"; loaded ctap_smoke
rm -rf $admin
true
