# -o FILE -S MB,N: a setuid staprun removed FILE.n as root, by a path
# through a directory the user controls: a user swapped a symlinked
# directory and any root-owned file named PREFIX.NUMBER went (issue 39,
# item 4).  Now the output files are opened and removed relative to the
# directory staprun opened at the start, as the user.
cp /ctap/bin/staprun /tmp/staprun-suid && chmod 4755 /tmp/staprun-suid
admin=/lib/modules/$(uname -r)/systemtap
mkdir -p $admin && cp modules/ctap_smoke.ko $admin/
mkdir -p /tmp/victim && echo "root's file" > /tmp/victim/out.0
mkdir -p /tmp/u4/real && chown -R 65534:65534 /tmp/u4
runas 65534 ln -s real /tmp/u4/d
# The next file is a FIFO: the switch to it waits for a reader.
runas 65534 mkfifo /tmp/u4/real/out.1
runas 65534 /tmp/staprun-suid -o /tmp/u4/d/out -S 1,1 $admin/ctap_smoke.ko 2> /tmp/u4/err &
pid=$!
for i in $(seq 100); do [ -s /tmp/u4/real/out.0 ] && break; sleep 0.1; done
kill -USR2 $pid	# the next output goes to out.1
kill -TERM $pid	# that is the end probe's
# (5.10 shows 0 in wchan: the stack says it there)
fifo_wait() { grep -q wait_for_partner /proc/$1/stack /proc/$1/wchan 2>/dev/null; }
for i in $(seq 100); do fifo_wait $pid && break; sleep 0.1; done
echo "the switch to out.1: $(fifo_wait $pid && echo waits for a reader of the FIFO)"
runas 65534 ln -sfn /tmp/victim /tmp/u4/d
runas 65534 cat /tmp/u4/real/out.1 > /tmp/u4/got &
wait $pid
echo "rc=$?"
wait
cat /tmp/u4/err
echo "the end probe's output: $(cat /tmp/u4/got)"
echo "root's file: $(cat /tmp/victim/out.0 2>&1)"
echo "the user's out.0 (the file before out.1): $([ -e /tmp/u4/real/out.0 ] && echo kept || echo removed)"
rm -rf $admin
true
