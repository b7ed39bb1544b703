# expect: ^timed out after 2 s$
# timeout: 2
sleep 30
