# A setuid staprun checked the module by its path, then opened the path
# again to load it; -o FIFO blocked it in between, long enough for the user
# to point a symlinked directory at a module of their own, which root then
# loaded (issue 39, item 1).  Now the module is opened once, checked by its
# descriptor and that descriptor loaded: the swap changes nothing.
admin=/lib/modules/$(uname -r)/systemtap
mkdir -p $admin && cp modules/ctap_smoke.ko $admin/
cp /ctap/bin/staprun /tmp/staprun-suid && chmod 4755 /tmp/staprun-suid
# The user's own "ctap_smoke.ko": a module that is not the administrator's.
mkdir -p /tmp/u1/mine && cp modules/ctap_other.ko /tmp/u1/mine/ctap_smoke.ko
chown -R 65534:65534 /tmp/u1
runas 65534 ln -s $admin /tmp/u1/dir
runas 65534 mkfifo /tmp/u1/fifo
runas 65534 /tmp/staprun-suid -T 1 -o /tmp/u1/fifo /tmp/u1/dir/ctap_smoke.ko 2> /tmp/u1/err &
pid=$!
# staprun waits in the FIFO's open for a reader: swap the directory now.
# (5.10 shows 0 in wchan: the stack says it there)
fifo_wait() { grep -q wait_for_partner /proc/$1/stack /proc/$1/wchan 2>/dev/null; }
for i in $(seq 100); do fifo_wait $pid && break; sleep 0.1; done
echo "staprun, after the module check: $(fifo_wait $pid && echo waits for a reader of the FIFO)"
runas 65534 ln -sfn /tmp/u1/mine /tmp/u1/dir
runas 65534 cat /tmp/u1/fifo > /tmp/u1/out &
wait $pid
echo "rc=$?"
wait
sed 's/ (.*)$//' /tmp/u1/err
cat /tmp/u1/out
echo "the user's module loaded by root: $(grep -c '^ctap_other ' /proc/modules)"
rmmod ctap_other 2>/dev/null
rm -rf $admin
true
