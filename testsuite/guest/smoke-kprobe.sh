# The smoke module counts the getpid() calls of its -c workload: 1000 calls
# by the loop, plus none from staprun itself (the target is the workload).
# timeout: 60
staprun -c 'getpid_loop 1000' modules/ctap_smoke.ko
echo "staprun rc=$?"
