# staprun installed setuid root (SystemTap's packaging does this for its
# stapusr group) is no way to root: run by a user, it refuses a module the
# user could have written (it loads only the administrator's, from
# /lib/modules/RELEASE/systemtap: guest/staprun-setuid-modules), and the -c
# command and the -o file are the user's.
cp /ctap/bin/staprun /tmp/staprun-suid && chmod 4755 /tmp/staprun-suid
admin=/lib/modules/$(uname -r)/systemtap
mkdir -p $admin && cp modules/ctap_smoke.ko $admin/
mkdir -p /tmp/u && chown 65534:65534 /tmp/u
cp modules/ctap_smoke.ko /tmp/u/
runas 65534 /tmp/staprun-suid /tmp/u/ctap_smoke.ko 2> /tmp/u/err
echo "rc=$?"
sed "s|$admin|ADMIN|" /tmp/u/err
runas 65534 /tmp/staprun-suid -o /tmp/u/out -c 'sh -c "id -u > /tmp/u/cmd-uid"' $admin/ctap_smoke.ko
echo "rc=$?"
echo "command ran as $(cat /tmp/u/cmd-uid), output owned by $(stat -c %u /tmp/u/out)"
ln -s /tmp/u/elsewhere /tmp/u/link
runas 65534 /tmp/staprun-suid -o /tmp/u/link $admin/ctap_smoke.ko 2>&1
echo "rc=$? elsewhere: $(ls /tmp/u/elsewhere 2>/dev/null | wc -l)"
echo "loaded after: $(grep -c '^ctap_smoke ' /proc/modules)"
rm -rf $admin
