# The flight recorder (stap -F without -o runs staprun -L, as SystemTap's):
# staprun -L starts the session and leaves it running.  Nobody reads, and
# the output buffer (2 sub-buffers of 64 KiB here) overwrites its oldest
# part.  staprun -A shows what it holds, the newest output, in order, then
# streams on; SIGQUIT detaches it again (SystemTap's), and staprun -d
# stops the session: the end probe runs, nothing is left loaded.
# timeout: 120
loaded() { echo "loaded: $(grep -c '^ctap_smoke ' /proc/modules)"; }
getpid_loop 20000 0 2000 &
w=$!
staprun -L -x $w modules/ctap_smoke.ko print_each=1 subbufs=2 2>&1
echo "-L rc=$?"
loaded
wait $w
staprun -A ctap_smoke > /tmp/o 2> /tmp/e &
a=$!
sleep 2
kill -QUIT $a
wait $a
echo "-A rc=$?"
cat /tmp/e
loaded
# What -A printed: a run of consecutive hits ending at the last one, more
# than half the buffer and at most all of it; the begin line and the first
# hits were overwritten.
grep -c 'begin' /tmp/o
awk '{ n = $3 } NR == 1 { first = n } NR > 1 && n != prev + 1 { gap++ } { prev = n }
     END { print "first hit overwritten: " (first > 1), "last: " prev, "gaps: " gap + 0 }' /tmp/o
size=$(wc -c < /tmp/o)
[ "$size" -gt 65536 ] && [ "$size" -le 131072 ] && echo "kept: between one and two sub-buffers"
grep -v -c '^smoke: hit [0-9]* from pid [0-9]*$' /tmp/o
staprun -d ctap_smoke
echo "-d rc=$?"
loaded
