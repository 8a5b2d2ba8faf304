module custodian

go 1.21
