# expect: ^timed out after 2 s$
# timeout: 2
# A process the test started outlives its sh: the harness kills the
# test's whole process group (zz-after checks it is gone).
sh -c 'echo $$ > /tmp/timeout-child.pid; exec sleep 300' &
sleep 30
