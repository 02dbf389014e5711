// Package wire holds the protobuf messages that cross between cluster
// nodes (wire.proto; wire.pb.go is generated from it by go generate with
// protoc and protoc-gen-go v1.33.0, the version of google.golang.org/protobuf
// in go.mod).
package wire

//go:generate sh -c "protoc -I. -I$(go list -m -f '{{.Dir}}' github.com/asynkron/protoactor-go)/actor --go_out=paths=source_relative:. wire.proto"
