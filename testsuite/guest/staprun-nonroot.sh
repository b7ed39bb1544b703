# staprun as an unprivileged user: refused before touching the kernel.
runas 65534 staprun modules/ctap_smoke.ko 2>&1
echo "rc=$?"
grep -c '^ctap_smoke ' /proc/modules
true
