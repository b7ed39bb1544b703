# expect: ^guest hung: no progress for
# The guest stops making progress for longer than the host allows (-H in
# ./options): to the host this looks exactly like a hung kernel.
# timeout: 300
sleep 300
