# expect: ^exit status 3, expected 0$
echo hello
exit 3
