# -b: one output file per CPU, PREFIX_cpuN with -o PREFIX; nothing lost.
staprun -b -o /tmp/bulk -c 'getpid_loop 9' modules/ctap_smoke.ko
echo "rc=$?"
[ "$(ls /tmp/bulk_cpu* | wc -l)" = "$(nproc)" ] && echo "a file per CPU"
cat /tmp/bulk_cpu* | sort
