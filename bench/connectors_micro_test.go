package bench

import (
	"testing"

	"github.com/alertd/alertd/upstream/launchpad"
	"github.com/alertd/alertd/upstream/xapi"
)

// BenchmarkXDecodePost: one stream line to one `post` ingest line.
func BenchmarkXDecodePost(b *testing.B) {
	lines := XStreamLines()
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		if _, _, err := xapi.DecodePost(lines[i%len(lines)]); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkLaunchpadNotification: one logsNotification to its `launchpad`
// ingest lines (the trade-only one gives none).
func BenchmarkLaunchpadNotification(b *testing.B) {
	msgs := LaunchpadNotifications()
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		sig, _, logs, err := launchpad.DecodeNotification(msgs[i%len(msgs)])
		if err != nil {
			b.Fatal(err)
		}
		evs, _, _ := launchpad.DecodeLogs(launchpad.DefaultProgram, logs)
		for _, ev := range evs {
			if _, err := launchpad.Observation(ev, sig); err != nil {
				b.Fatal(err)
			}
		}
	}
}
