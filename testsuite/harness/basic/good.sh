# expect: ^PASS$
echo hello
