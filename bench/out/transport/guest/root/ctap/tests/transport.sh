# timeout: 900
N=20000
field() { grep -o "$1=[0-9]*" "$2" | head -n 1 | cut -d= -f2; }
dropped() { grep -o '[0-9]* output writes were dropped' "$1" | cut -d' ' -f1; }
# SystemTap's own report: "WARNING: There were N transport failures."
stap_failures() { grep -o 'There were [0-9]* transport failures' "$1" | grep -o '[0-9]*' || echo 0; }
for i in $(seq 5); do
	timeit staprun -c "/ctap/bin/syscall_loop $N" modules/ctap_smoke.ko print_each=1 subbufs=64 > /tmp/c.out 2> /tmp/c.err
	echo "RESULT flood ctap $(wc -c < /tmp/c.out) $(field elapsed_ns /tmp/c.err) $(dropped /tmp/c.err)"
	timeit /usr/bin/staprun -c "/ctap/bin/syscall_loop $N" /ctap/modules/stap48_flood.ko > /tmp/s.out 2> /tmp/s.err
	echo "RESULT flood stap48 $(wc -c < /tmp/s.out) $(field elapsed_ns /tmp/s.err) $(stap_failures /tmp/s.err)"
	timeit staprun -c true modules/ctap_smoke.ko > /dev/null 2> /tmp/c.err
	echo "RESULT session ctap 0 $(field elapsed_ns /tmp/c.err) 0"
	timeit /usr/bin/staprun -c true /ctap/modules/stap48_start.ko > /dev/null 2> /tmp/s.err
	echo "RESULT session stap48 0 $(field elapsed_ns /tmp/s.err) 0"
done
