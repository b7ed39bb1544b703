# The session the initramfs's init-top script started with staprun -L,
# before the harness's init mounted debugfs (again), tracefs, securityfs
# and /tmp: it is loaded, and staprun -d prints what it kept of early boot.
echo "loaded: $(grep -c '^t_onboot ' /proc/modules)"
staprun -d t_onboot
echo "rc=$?"
echo "loaded: $(grep -c '^t_onboot ' /proc/modules)"
