# A module of the same name already loaded: refused, with a message, and
# the loaded one is left alone.
insmod modules/ctap_smoke.ko
staprun modules/ctap_smoke.ko 2>&1
echo "rc=$?"
grep -c '^ctap_smoke ' /proc/modules
rmmod ctap_smoke
