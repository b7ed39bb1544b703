# A module whose .cmd is open stays loaded (the file holds a reference):
# rmmod says it is in use, and unloads it once the file is closed.  Found
# by review: a read waiting for a message held procfs's rundown, so rmmod
# hung until the reader went away; and a poll()er's entry on the module's
# wait queue outlived the module, to be removed from freed memory when the
# poll timed out.
cmd=/proc/ctap-ctap_smoke/.cmd
loaded() { grep -c '^ctap_smoke ' /proc/modules; }

# rmmod_while CMD...: rmmod 1 s after CMD opened the file, given 2 s; then
# CMD is ended (the reader) or has run out (the poller, 2 s), and its
# output shown.
rmmod_while()
{
	"$@" > /tmp/holder.out &
	holder=$!
	sleep 1
	rmmod ctap_smoke 2>/dev/null &
	rm=$!
	sleep 2
	if kill -0 $rm 2>/dev/null; then
		echo "rmmod: still waiting after 2 s"
	elif wait $rm; then
		echo "rmmod: unloaded it"
	else
		echo "rmmod: refused"
	fi
	echo "loaded: $(loaded)"
	kill $holder 2>/dev/null
	wait $holder
	cat /tmp/holder.out
	wait $rm 2>/dev/null
	[ "$(loaded)" = 0 ] || rmmod ctap_smoke
	echo "loaded after: $(loaded)"
}

echo "a blocking read:"
insmod modules/ctap_smoke.ko
rmmod_while sh -c "exec cat $cmd"
echo "a poll:"
insmod modules/ctap_smoke.ko
rmmod_while ctl_poll $cmd 2000
rm -f /tmp/holder.out
