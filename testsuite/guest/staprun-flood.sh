# A line on every hit of a hot syscall into a small buffer: output is
# dropped, the drop is reported as a warning, the machine is not wedged,
# and what got through is intact.
# timeout: 120
staprun -c 'getpid_loop 300000' modules/ctap_smoke.ko print_each=1 subbufs=2 > /tmp/o 2> /tmp/e
echo "rc=$?"
grep -c 'WARNING: [0-9]* output writes were dropped' /tmp/e
lines=$(grep -c '^smoke: hit [0-9]* from pid [0-9]*$' /tmp/o)
[ "$lines" -gt 1000 ] && [ "$lines" -lt 300000 ] && echo "some output kept, some dropped"
# A reader racing the writers' sub-buffer switches once read a whole
# unwritten sub-buffer: NUL bytes in the output.
grep -a -v '^smoke: hit [0-9]* from pid [0-9]*$' /tmp/o | sed 's/[0-9][0-9]*/N/g'
tr -d '\000' < /tmp/o | cmp -s - /tmp/o && echo "no NUL bytes"
