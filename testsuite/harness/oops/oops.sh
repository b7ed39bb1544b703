# expect: ^kernel oops/panic: .*(BUG|Oops)
insmod modules/ctap_panic.ko
