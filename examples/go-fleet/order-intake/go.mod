module orderintake

go 1.19

require github.com/jtrace/jtrace-go v0.0.0

replace github.com/jtrace/jtrace-go => ../../../packages/go
