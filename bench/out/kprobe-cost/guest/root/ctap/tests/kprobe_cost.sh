# timeout: 900
N=200000
result() { printf 'RESULT %s %s\n' "$1" "$(grep -o 'ns_per_call=[0-9.]*' | cut -d= -f2)"; }
for i in $(seq 7); do
	syscall_loop $N | result none
	insmod modules/floor_kprobe.ko
	syscall_loop $N | result floor
	rmmod floor_kprobe
	for v in count stats printf; do
		/usr/bin/staprun -c "/ctap/bin/syscall_loop $N" /ctap/modules/stap48_$v.ko | result stap48-$v
	done
done
