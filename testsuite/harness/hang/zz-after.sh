# expect: ^not run: the guest died during hang$
echo unreachable
