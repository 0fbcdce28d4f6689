module github.com/hpcfs/hpcfs

go 1.26.8

require (
	github.com/hanwen/go-fuse/v2 v2.12.1
	github.com/sirupsen/logrus v1.10.2
)

require golang.org/x/sys v0.28.0 // indirect
