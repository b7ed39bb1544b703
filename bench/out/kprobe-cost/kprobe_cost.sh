# timeout: 600
N=200000
result() { printf 'RESULT %s %s\n' "$1" "$(grep -o 'ns_per_call=[0-9.]*' | cut -d= -f2)"; }
for i in $(seq 5); do syscall_loop $N | result none; done
insmod modules/floor_kprobe.ko
for i in $(seq 5); do syscall_loop $N | result floor; done
rmmod floor_kprobe
for v in count stats printf; do
	for i in $(seq 5); do
		/usr/bin/staprun -c "/ctap/bin/syscall_loop $N" /ctap/modules/stap48_$v.ko | result stap48-$v
	done
done
