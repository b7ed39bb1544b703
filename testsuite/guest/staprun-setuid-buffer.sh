# A user of a setuid staprun sized the runtime's output buffers at will:
# -s 4095 (or the parameter ctap_buffer_mb=4095 given directly) is 4,095 MB
# of kernel memory on every CPU, and the OOM killer ran.  Now more than a
# quarter of the machine's memory in all is refused before anything loads;
# a size within it runs.  (Root may still ask for what it likes.)
cp /ctap/bin/staprun /tmp/staprun-suid && chmod 4755 /tmp/staprun-suid
admin=/lib/modules/$(uname -r)/systemtap
mkdir -p $admin && cp modules/ctap_smoke.ko $admin/
mkdir -p /tmp/u5 && chown 65534:65534 /tmp/u5
runas 65534 /tmp/staprun-suid -s 4095 $admin/ctap_smoke.ko 2> /tmp/u5/err
echo "-s 4095: rc=$?"
# (the sizes of this guest's memory and CPUs as letters)
sed 's/for [0-9]* MB/for T MB/; s/of [0-9]* CPUs/of N CPUs/; s/s [0-9]* MB$/s M MB/' /tmp/u5/err
runas 65534 /tmp/staprun-suid $admin/ctap_smoke.ko ctap_buffer_mb=4095 2> /tmp/u5/err
echo "ctap_buffer_mb=4095: rc=$?"
grep -c 'more than a quarter of this machine' /tmp/u5/err
echo "loaded after: $(grep -c '^ctap_smoke ' /proc/modules)"
runas 65534 /tmp/staprun-suid -T 1 -s 2 $admin/ctap_smoke.ko > /tmp/u5/out 2>&1
echo "-s 2: rc=$? output lines: $(wc -l < /tmp/u5/out)"
rm -rf $admin
true
