# A flight-recorder session a user started with a setuid staprun -L is
# theirs: another user can neither attach to it nor stop it (the module's
# control file opens only for the uid that loaded it, or root); its owner
# can stop it.
cp /ctap/bin/staprun /tmp/staprun-suid && chmod 4755 /tmp/staprun-suid
admin=/lib/modules/$(uname -r)/systemtap
mkdir -p $admin && cp modules/ctap_smoke.ko $admin/
loaded() { echo "loaded: $(grep -c '^ctap_smoke ' /proc/modules)"; }
runas 65534 /tmp/staprun-suid -L ctap_smoke 2>&1
echo "-L rc=$?"
loaded
runas 65533 /tmp/staprun-suid -A ctap_smoke 2>&1
echo "other user -A rc=$?"
runas 65533 /tmp/staprun-suid -d ctap_smoke 2>&1
echo "other user -d rc=$?"
loaded
runas 65534 /tmp/staprun-suid -d ctap_smoke 2>&1
echo "owner -d rc=$?"
loaded
rm -rf $admin
