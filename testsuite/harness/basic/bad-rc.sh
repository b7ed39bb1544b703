# expect: ^exit status 3, expected 0; stderr: bad news $
echo hello
echo bad news >&2
exit 3
