# -v: staprun says how long the module took to start (its begin probes
# and the arming of every probe), then the session runs as without it.
staprun -v -c 'getpid_loop 3' modules/ctap_smoke.ko 2> /tmp/e > /tmp/o
rc=$?
grep -o "module 'ctap_smoke' started: begin probes run and probes armed in [0-9]* ms" /tmp/e |
	sed 's/[0-9]* ms/N ms/'
sed 's/hits=[0-9]*/hits=N/' /tmp/o
echo "rc=$rc"
