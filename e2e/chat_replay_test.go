package e2e

import (
	"path/filepath"
	"testing"
	"time"

	"github.com/alertd/alertd/edge/api/ingest"
	"github.com/alertd/alertd/edge/telegram/telegramfake"
	"github.com/alertd/alertd/internal/testkit"
	"github.com/alertd/alertd/persistence/ingestlog"
	"github.com/alertd/alertd/protocol"
)

// TestChatReplay is the ingest log's replay of a record above its
// checkpoint, which a crash leaves, as it reaches chat alerts. The record
// holds three posts of a tracked handle: one the store has but whose alert
// was never queued (what a crash between the post's row and its chat
// message leaves; made here by storing the post before the chat tracked the
// handle), one whose alert was sent, and one never seen. After the restart
// the first and the last are alerted, and none twice. The three are queued
// in the record's order to one chat, which sends in order: the last alert
// is the barrier after which a second send of the middle one would show.
func TestChatReplay(t *testing.T) {
	forEachStore(t, func(t *testing.T, m storeMode) {
		s, fake := startChat(t, m, serverOpts{})
		const user = int64(6_310_001)
		k := s.xgKey(t, "pro")
		h := s.xgUsers(t, 1, false)[0]
		unqueued := postObs(h, "post", "stored, never queued")
		s.send(t, unqueued)
		s.sync(t)
		wantSay(t, fake, user, user, "/link "+k.key, "Linked")
		wantSay(t, fake, user, user, "/track "+h, "Now tracking")
		sent := postObs(h, "post", "sent before the crash")
		s.send(t, sent)
		alertOf(t, fake, user, sent)
		s.stop(t) // a clean stop: the outbox finishes what it sent

		// The record a crash would have left above the checkpoint.
		fresh := postObs(h, "post", "never seen before the crash")
		log, err := ingestlog.Open(filepath.Join(s.opts.dataDir, "ingest-log"), ingestlog.Options{})
		if err != nil {
			t.Fatal(err)
		}
		d := ingest.NewDurable(nowhere{}, log)
		if n, err := d.AcceptNDJSON([]byte(testkit.NDJSON(t, unqueued, sent, fresh)), time.Now().UnixMilli(), func(i int, err error) {
			t.Errorf("line %d rejected: %v", i, err)
		}); n != 3 || err != nil {
			t.Fatalf("appending the record: %d accepted, %v", n, err)
		}
		if err := log.Close(); err != nil {
			t.Fatal(err)
		}

		s = startServer(t, s.opts)
		alertOf(t, fake, user, unqueued)
		_, before := alertOf(t, fake, user, fresh)
		if n := mentions(before, sent); n != 1 {
			t.Errorf("the alert sent before the crash was sent %d times", n)
		}
		if n := mentions(before, unqueued); n != 1 {
			t.Errorf("the alert of the post stored but not queued was sent %d times", n)
		}
		if n := mentions(telegramfake.Sent(fake.Calls(""), user), fresh); n != 1 {
			t.Errorf("the alert of the post never seen was sent %d times", n)
		}
	})
}

// nowhere routes nothing: the record is for the next start's replay.
type nowhere struct{}

func (nowhere) Route(*protocol.Observation) {}
func (nowhere) Backlog() int64              { return 0 }
func (nowhere) BacklogBytes() int64         { return 0 }
