module kruise-webhook.test/regexdiff

go 1.23
