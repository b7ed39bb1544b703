# A probe that cannot be registered: the module's error names the probe
# point, staprun says the module failed to start, exits 1, and unloads it.
staprun modules/ctap_smoke.ko symbol=no_such_function_xyz 2>&1
echo "rc=$?"
grep -c '^ctap_smoke ' /proc/modules
true
