# expect: ^stdout differs
echo goodbye
