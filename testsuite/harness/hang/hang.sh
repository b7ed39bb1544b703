# expect: ^guest hung: no progress for [0-9]+ s; vCPU0 [A-Za-z_][A-Za-z0-9_.]*\+0x[0-9a-f]+; vCPU1 [A-Za-z_][A-Za-z0-9_.]*\+0x[0-9a-f]+;
# The guest stops making progress for longer than the host allows (-H in
# ./options): to the host this looks exactly like a hung kernel.
# timeout: 300
sleep 300
