module custodian.test/go-verifier

go 1.26.0

require golang.org/x/mod v0.43.0

require github.com/transparency-dev/formats v0.1.2-0.20260710124811-af9e607161b6
