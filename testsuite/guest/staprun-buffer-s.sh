# -s MB sizes the output buffer: the same flood into the same 2-subbuffer
# module as staprun-flood, now with -s 8, gets every line through.
# timeout: 120
staprun -s 8 -c 'getpid_loop 20000' modules/ctap_smoke.ko print_each=1 subbufs=2 > /tmp/o 2> /tmp/e
echo "rc=$?"
grep -c 'output writes were dropped' /tmp/e
grep -c '^smoke: hit [0-9]* from pid [0-9]*$' /tmp/o
staprun -s 0 modules/ctap_smoke.ko 2>&1
echo "rc=$?"
