# expect: ^stdout differs from wrong-output.expected: at 1c1, expected "hello", got "goodbye"$
echo goodbye
