# -o FILE: the output goes to FILE, none to stdout.
staprun -o /tmp/trace.txt -c 'getpid_loop 7' modules/ctap_smoke.ko > /tmp/staprun-stdout
echo "rc=$?"
[ -s /tmp/staprun-stdout ] && echo "stdout is not empty"
cat /tmp/trace.txt
