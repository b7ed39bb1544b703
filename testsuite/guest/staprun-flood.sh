# A line on every hit of a hot syscall into a small buffer: output is
# dropped, the drop is reported as a warning, the machine is not wedged,
# and what got through is intact.
# timeout: 120
staprun -c 'getpid_loop 300000' modules/ctap_smoke.ko print_each=1 subbufs=2 > /tmp/o 2> /tmp/e
echo "rc=$?"
grep -c 'WARNING: [0-9]* output writes were dropped' /tmp/e
lines=$(grep -c '^smoke: hit [0-9]* from pid [0-9]*$' /tmp/o)
[ "$lines" -gt 1000 ] && [ "$lines" -lt 300000 ] && echo "some output kept, some dropped"
tail -n 1 /tmp/o | sed 's/hits=[0-9]*/hits=N/'
