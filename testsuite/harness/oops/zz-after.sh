# expect: ^not run: the guest died during oops$
echo unreachable
