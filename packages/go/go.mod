module github.com/jtrace/jtrace-go

go 1.19
