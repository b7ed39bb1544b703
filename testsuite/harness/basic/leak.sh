# expect: ^left module\(s\) loaded: ctap_smoke
insmod modules/ctap_smoke.ko
