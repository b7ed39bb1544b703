# expect: ^PASS$
# The test before it killed the guest: this one runs in a fresh boot
# (guest-run boots again for the tests left), and its verdict counts.
echo after
