package launchpadfake

import (
	"crypto/sha256"
	"encoding/base64"
	"encoding/binary"

	"github.com/mr-tron/base58"
)

// The launchpad program's events as its IDL declares them (Anchor: the
// first 8 bytes of sha256("event:<Name>"), then the fields in Borsh).

// CreateEvent is the program's CreateEvent. With Creator set it is written
// in the later layout (creator, timestamp and the four reserve figures
// follow user); without, in the original one that ends at user.
type CreateEvent struct {
	Name, Symbol, URI        string
	Mint, BondingCurve, User string // base58 addresses
	Creator                  string
	Timestamp                int64
	VirtualTokenReserves     uint64
	VirtualSolReserves       uint64
	RealTokenReserves        uint64
	TokenTotalSupply         uint64
}

// CompleteEvent is the program's CompleteEvent: the bonding curve is done.
type CompleteEvent struct {
	User, Mint, BondingCurve string
	Timestamp                int64
}

// TradeEvent stands for the program's other events, which the connector
// ignores: only its discriminator and a few bytes are written.
type TradeEvent struct{ Mint string }

func disc(name string) []byte {
	h := sha256.Sum256([]byte("event:" + name))
	return h[:8]
}

type enc struct{ b []byte }

func (e *enc) str(s string) {
	e.b = binary.LittleEndian.AppendUint32(e.b, uint32(len(s)))
	e.b = append(e.b, s...)
}

func (e *enc) key(addr string) {
	k, err := base58.Decode(addr)
	if err != nil || len(k) != 32 {
		panic("launchpadfake: not a 32-byte address: " + addr)
	}
	e.b = append(e.b, k...)
}

func (e *enc) u64(v uint64) { e.b = binary.LittleEndian.AppendUint64(e.b, v) }

// Data is the event's bytes as the program logs them.
func (c CreateEvent) Data() []byte {
	e := &enc{b: disc("CreateEvent")}
	e.str(c.Name)
	e.str(c.Symbol)
	e.str(c.URI)
	e.key(c.Mint)
	e.key(c.BondingCurve)
	e.key(c.User)
	if c.Creator != "" {
		e.key(c.Creator)
		e.u64(uint64(c.Timestamp))
		e.u64(c.VirtualTokenReserves)
		e.u64(c.VirtualSolReserves)
		e.u64(c.RealTokenReserves)
		e.u64(c.TokenTotalSupply)
	}
	return e.b
}

// Data is the event's bytes as the program logs them.
func (c CompleteEvent) Data() []byte {
	e := &enc{b: disc("CompleteEvent")}
	e.key(c.User)
	e.key(c.Mint)
	e.key(c.BondingCurve)
	e.u64(uint64(c.Timestamp))
	return e.b
}

// Data is the event's bytes as the program logs them.
func (t TradeEvent) Data() []byte {
	e := &enc{b: disc("TradeEvent")}
	e.key(t.Mint)
	e.u64(1_000_000)
	return e.b
}

// Logs is a transaction's log as a validator writes it when prog runs
// instruction and emits data: invoke, the instruction name, one
// "Program data:" line per event, compute units, success.
func Logs(prog, instruction string, data ...[]byte) []string {
	out := []string{"Program ComputeBudget111111111111111111111111111111 invoke [1]",
		"Program ComputeBudget111111111111111111111111111111 success",
		"Program " + prog + " invoke [1]", "Program log: Instruction: " + instruction}
	for _, d := range data {
		out = append(out, "Program data: "+base64.StdEncoding.EncodeToString(d))
	}
	return append(out, "Program "+prog+" consumed 61235 of 200000 compute units", "Program "+prog+" success")
}

// Address is a stable, valid address derived from seed.
func Address(seed string) string {
	h := sha256.Sum256([]byte(seed))
	return base58.Encode(h[:])
}

// Signature is a stable, valid transaction signature derived from seed.
func Signature(seed string) string {
	a := sha256.Sum256([]byte(seed))
	b := sha256.Sum256(a[:])
	return base58.Encode(append(a[:], b[:]...))
}
