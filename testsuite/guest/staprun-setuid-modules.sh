# A setuid staprun loaded any module root owned, every driver of the system
# and every module in root's cache, with any parameters (issue 39, item 2).
# For a user it now loads only ctap modules from the administrator's
# directory, /lib/modules/RELEASE/systemtap (a bare name is looked up
# there, as SystemTap's staprun does), with only the parameters the module
# declares; a value is passed as one value.
admin=/lib/modules/$(uname -r)/systemtap
mkdir -p $admin && cp modules/ctap_smoke.ko modules/ctap_other.ko $admin/
cp /ctap/bin/staprun /tmp/staprun-suid && chmod 4755 /tmp/staprun-suid
mkdir -p /tmp/u2 && chown 65534:65534 /tmp/u2
try() {
	echo "-- $1"; shift
	runas 65534 /tmp/staprun-suid -T 1 "$@" > /tmp/u2/out 2> /tmp/u2/err
	echo "rc=$?"
	sed -e "s|$admin|ADMIN|g" -e 's/ (.*)$//' /tmp/u2/err
	cat /tmp/u2/out
	echo "loaded after: $(cut -d' ' -f1 /proc/modules | grep -c ctap_)"
}
try "a root-owned module outside the directory" /ctap/modules/ctap_smoke.ko
try "a module of the directory that is not a ctap module" $admin/ctap_other.ko
try "a parameter the module does not declare" $admin/ctap_smoke.ko dyndbg=+p
try "a value that would be two parameters" $admin/ctap_smoke.ko 'exit_after=5 dyndbg=+p'
try "a value the kernel cannot take as one" $admin/ctap_smoke.ko 'symbol=a"b'
chmod o+w $admin
try "the directory writable by others" $admin/ctap_smoke.ko
chmod o-w $admin
try "the module by name, a parameter it declares" ctap_smoke print_each=0
rmmod ctap_other 2>/dev/null
rm -rf $admin
true
