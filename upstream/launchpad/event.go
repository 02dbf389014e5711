package launchpad

import (
	"bytes"
	"crypto/sha256"
	"errors"

	"github.com/alertd/alertd/protocol"
	"github.com/alertd/alertd/upstream"
)

// DefaultProgram is the launchpad program (CONTRACT.md section 8,
// --launchpad-program).
const DefaultProgram = "6EF8rrecthR5Dkzon8Nwu78hRvfCKubJ14M5uBEwF6P"

// Anchor prefixes each event with the first 8 bytes of sha256("event:<Name>").
var (
	discCreate   = discriminator("CreateEvent")   // 1b72a94ddeeb6376
	discComplete = discriminator("CompleteEvent") // 5f72619cd42e9808
)

func discriminator(name string) [8]byte {
	h := sha256.Sum256([]byte("event:" + name))
	return [8]byte(h[:8])
}

// ErrUnknownEvent is another event of the program (a trade, a parameter
// change): not an error, just not ours.
var ErrUnknownEvent = errors.New("launchpad: not a CreateEvent or CompleteEvent")

// Event is a decoded CreateEvent or CompleteEvent. Field order of each
// follows the program's IDL: CreateEvent {name, symbol, uri, mint,
// bonding_curve, user} and, in later versions, creator, timestamp and the
// reserves; CompleteEvent {user, mint, bonding_curve, timestamp}. Fields
// after those the connector reads, and any trailing bytes, are ignored.
type Event struct {
	Type         string // protocol.LaunchTokenLaunched or protocol.LaunchGraduated
	Name         string
	Symbol       string
	URI          string
	Mint         string
	BondingCurve string
	User         string
	Creator      string // the creator field when the event has one, else User
	Timestamp    int64  // Unix seconds; 0 when the event carries none
}

// DecodeEvent reads one event from the bytes of a "Program data:" line.
func DecodeEvent(data []byte) (Event, error) {
	if len(data) < 8 {
		return Event{}, errShort
	}
	r := &borsh{b: data[8:]}
	var ev Event
	switch {
	case bytes.Equal(data[:8], discCreate[:]):
		ev.Type = protocol.LaunchTokenLaunched
		ev.Name, ev.Symbol, ev.URI = r.str(), r.str(), r.str()
		ev.Mint, ev.BondingCurve, ev.User = r.pubkey(), r.pubkey(), r.pubkey()
		if r.err != nil {
			return Event{}, r.err
		}
		ev.Creator = ev.User
		if len(r.b) >= 32+8 { // the later layout: creator, timestamp, ...
			ev.Creator, ev.Timestamp = r.pubkey(), r.i64()
		}
	case bytes.Equal(data[:8], discComplete[:]):
		ev.Type = protocol.LaunchGraduated
		ev.User, ev.Mint, ev.BondingCurve = r.pubkey(), r.pubkey(), r.pubkey()
		ev.Timestamp = r.i64()
		ev.Creator = ev.User
		if r.err != nil {
			return Event{}, r.err
		}
	default:
		return Event{}, ErrUnknownEvent
	}
	return ev, nil
}

// Observation is the `launchpad` ingest line of ev (CONTRACT.md section 3):
// wallet_address is the wallet that acted (the creator of a launch, the
// buyer that completed the curve), market_cap is unknown here (0).
func Observation(ev Event, signature string) ([]byte, error) {
	o := protocol.LaunchpadObs{EventType: ev.Type, WalletAddress: ev.User, Mint: ev.Mint, TokenName: ev.Name,
		TokenSymbol: ev.Symbol, Creator: ev.Creator, BondingCurve: ev.BondingCurve, URI: ev.URI, Signature: signature}
	return upstream.Encode(protocol.KindLaunchpad, &o)
}

// DecodeLogs reads the events of one transaction from its log lines: the
// CreateEvents and CompleteEvents program logged itself, in order. skipped
// counts its other events, malformed the data lines that could not be read.
func DecodeLogs(program string, logs []string) (events []Event, skipped, malformed int) {
	payloads, bad := programData(program, logs)
	malformed = bad
	for _, p := range payloads {
		ev, err := DecodeEvent(p)
		switch {
		case errors.Is(err, ErrUnknownEvent):
			skipped++
		case err != nil:
			malformed++
		default:
			events = append(events, ev)
		}
	}
	return events, skipped, malformed
}
