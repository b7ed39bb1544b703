# timeout: 400
# The guest half of run-tests' remote test (run_remote): the network card
# up on QEMU's user network, dropbear on port 22 with the test's key, and
# this guest's workload size in /etc/ctap-remote-n; then wait until the
# host says it is done (ssh ... touch /tmp/ctap-remote-done).
insmod /lib/ctap-net/e1000.ko || exit 1
ip link set lo up
ip link set eth0 up
ip addr add 10.0.2.15/24 dev eth0
ip route add default via 10.0.2.2
mkdir -p /usr/bin && ln -sf /ctap/bin/staprun /usr/bin/staprun
ln -sf /ctap/bin/getpid_loop /usr/bin/getpid_loop
# -F foreground, -E log to stderr, -s no passwords, -j -k no forwarding
/usr/sbin/dropbear -F -E -s -j -k -p 22 -r /etc/dropbear/host_key 2> /tmp/dropbear.log &
d=$!
sleep 1
kill -0 $d 2>/dev/null || { echo "dropbear did not start"; cat /tmp/dropbear.log; exit 1; }
echo "sshd up on $(uname -r)"
n=0
while [ ! -e /tmp/ctap-remote-done ] && [ $n -lt 3600 ]; do
	sleep 0.1
	n=$((n + 1))
done
kill $d
ip link set eth0 down
rmmod e1000
[ -e /tmp/ctap-remote-done ] || { echo "no word from the host"; cat /tmp/dropbear.log; exit 1; }
echo done
