package launchpad

import (
	"encoding/base64"
	"testing"

	"github.com/alertd/alertd/protocol"
	"github.com/alertd/alertd/upstream/launchpad/launchpadfake"
)

func b64(b []byte) string { return base64.StdEncoding.EncodeToString(b) }

// FuzzDecodeEvent: any bytes either fail cleanly or give an event whose
// observation ingest accepts.
func FuzzDecodeEvent(f *testing.F) {
	f.Add(launchpadfake.CreateEvent{Name: "Dog", Symbol: "D", URI: "u", Mint: mint, BondingCurve: curve, User: dev}.Data())
	f.Add(launchpadfake.CreateEvent{Name: "Dog", Symbol: "D", URI: "u", Mint: mint, BondingCurve: curve, User: dev, Creator: owner, Timestamp: 1}.Data())
	f.Add(launchpadfake.CompleteEvent{User: dev, Mint: mint, BondingCurve: curve, Timestamp: 2}.Data())
	f.Add(launchpadfake.TradeEvent{Mint: mint}.Data())
	f.Fuzz(func(t *testing.T, data []byte) {
		ev, err := DecodeEvent(data)
		if err != nil {
			if ev != (Event{}) {
				t.Fatal("partial event with an error")
			}
			return
		}
		line, err := Observation(ev, "sig")
		if err != nil {
			t.Fatal(err)
		}
		if _, err := protocol.DecodeObservation(line, 1); err != nil {
			t.Fatalf("ingest rejects %s: %v", line, err)
		}
	})
}

// FuzzProgramData: any log lines are read without panics.
func FuzzProgramData(f *testing.F) {
	f.Add("Program " + DefaultProgram + " invoke [1]\nProgram data: " + b64([]byte("12345678")) + "\nProgram " + DefaultProgram + " success")
	f.Fuzz(func(t *testing.T, s string) {
		lines := splitLines(s)
		programData(DefaultProgram, lines)
	})
}

func splitLines(s string) []string {
	var out []string
	for len(s) > 0 {
		i := 0
		for i < len(s) && s[i] != '\n' {
			i++
		}
		out = append(out, s[:i])
		if i < len(s) {
			i++
		}
		s = s[i:]
	}
	return out
}
