package ws

import "github.com/gobwas/ws"

type wsOp = ws.OpCode

const (
	opText   = ws.OpText
	opBinary = ws.OpBinary
)
