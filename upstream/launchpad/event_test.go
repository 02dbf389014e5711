package launchpad

import (
	"errors"
	"slices"
	"testing"

	"github.com/alertd/alertd/protocol"
	"github.com/alertd/alertd/upstream/launchpad/launchpadfake"
)

var (
	mint  = launchpadfake.Address("mint")
	curve = launchpadfake.Address("curve")
	dev   = launchpadfake.Address("dev")
	owner = launchpadfake.Address("owner")
)

func TestDecodeCreateEventBothLayouts(t *testing.T) {
	orig := launchpadfake.CreateEvent{Name: "Dog Wif Hat Two", Symbol: "WIF2", URI: "https://ipfs.io/ipfs/Qm123", Mint: mint, BondingCurve: curve, User: dev}
	ev, err := DecodeEvent(orig.Data())
	want := Event{Type: "token_launched", Name: "Dog Wif Hat Two", Symbol: "WIF2", URI: "https://ipfs.io/ipfs/Qm123", Mint: mint, BondingCurve: curve, User: dev, Creator: dev}
	if err != nil || ev != want {
		t.Fatalf("original layout: %+v %v", ev, err)
	}
	later := orig
	later.Creator, later.Timestamp, later.TokenTotalSupply = owner, 1795248000, 1_000_000_000_000_000
	ev, err = DecodeEvent(later.Data())
	want.Creator, want.Timestamp = owner, 1795248000
	if err != nil || ev != want {
		t.Fatalf("later layout: %+v %v", ev, err)
	}
	// bytes the connector does not know are ignored
	ev, err = DecodeEvent(append(orig.Data(), 1, 2, 3))
	if err != nil || ev.Mint != mint {
		t.Fatalf("trailing bytes: %+v %v", ev, err)
	}
}

func TestDecodeCompleteEvent(t *testing.T) {
	ev, err := DecodeEvent(launchpadfake.CompleteEvent{User: dev, Mint: mint, BondingCurve: curve, Timestamp: 1795248123}.Data())
	want := Event{Type: "graduated", User: dev, Creator: dev, Mint: mint, BondingCurve: curve, Timestamp: 1795248123}
	if err != nil || ev != want {
		t.Fatalf("%+v %v", ev, err)
	}
}

func TestDecodeUnknownAndMalformed(t *testing.T) {
	if _, err := DecodeEvent(launchpadfake.TradeEvent{Mint: mint}.Data()); !errors.Is(err, ErrUnknownEvent) {
		t.Fatalf("trade event: %v", err)
	}
	full := launchpadfake.CreateEvent{Name: "A", Symbol: "B", URI: "C", Mint: mint, BondingCurve: curve, User: dev}.Data()
	for _, bad := range [][]byte{nil, full[:7], full[:12], full[:len(full)-1],
		append(append([]byte{}, full[:8]...), 0xff, 0xff, 0xff, 0xff), // a string longer than the data
		append(append([]byte{}, full[:8]...), 1, 0, 0, 0, 0xff),       // not UTF-8
	} {
		if _, err := DecodeEvent(bad); err == nil || errors.Is(err, ErrUnknownEvent) {
			t.Errorf("%x: %v", bad, err)
		}
	}
}

func TestObservationIsIngestable(t *testing.T) {
	ev := Event{Type: "token_launched", Name: "Dog Wif Hat Two", Symbol: "WIF2", URI: "https://ipfs.io/ipfs/Qm123", Mint: mint, BondingCurve: curve, User: dev, Creator: owner}
	sig := launchpadfake.Signature("tx1")
	line, err := Observation(ev, sig)
	if err != nil {
		t.Fatal(err)
	}
	o, err := protocol.DecodeObservation(line, 1)
	if err != nil {
		t.Fatalf("%s: %v", line, err)
	}
	want := protocol.LaunchpadObs{EventType: "token_launched", WalletAddress: dev, Mint: mint, TokenName: "Dog Wif Hat Two", TokenSymbol: "WIF2",
		Creator: owner, BondingCurve: curve, URI: "https://ipfs.io/ipfs/Qm123", Signature: sig}
	if *o.Launchpad != want {
		t.Fatalf("%+v", *o.Launchpad)
	}
}

func TestProgramDataFollowsTheCallStack(t *testing.T) {
	create := launchpadfake.CreateEvent{Name: "A", Symbol: "B", URI: "C", Mint: mint, BondingCurve: curve, User: dev}.Data()
	other := launchpadfake.CompleteEvent{User: dev, Mint: mint, BondingCurve: curve}.Data()
	logs := launchpadfake.Logs(DefaultProgram, "Create", create)
	// another program, invoked by ours, logs data that looks like an event
	nested := slices.Clone(logs[:5])
	nested = append(nested, "Program Other1111111111111111111111111111111111 invoke [2]",
		"Program data: "+b64(other), "Program Other1111111111111111111111111111111111 success", "Program data: not base64!")
	nested = append(nested, logs[5:]...)
	got, bad := programData(DefaultProgram, nested)
	if len(got) != 1 || string(got[0]) != string(create) || bad != 1 {
		t.Fatalf("%d payloads, %d bad", len(got), bad)
	}
	if got, _ := programData(DefaultProgram, []string{"Program data: " + b64(create)}); len(got) != 0 {
		t.Fatal("data outside any invoke taken")
	}
}
