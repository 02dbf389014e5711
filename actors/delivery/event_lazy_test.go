package delivery

import (
	"bytes"
	"testing"

	"github.com/alertd/alertd/protocol"
)

// frameTaker is a realtime-like subscriber: it takes the variant of its
// plan, as a session's Deliver does.
type frameTaker struct {
	enterprise bool
	got        []byte
}

func (f *frameTaker) Deliver(e *Event) { f.got = e.FrameFor(f.enterprise) }

// TestPublishEncodesOnlyWhatIsTaken: Publish encodes no variant itself; a
// post delivered to enterprise sessions only costs the enterprise frame,
// and each frame is the one Encode builds, encoded once.
func TestPublishEncodesOnlyWhatIsTaken(t *testing.T) {
	t.Parallel()
	h := NewHub()
	a, b := &frameTaker{enterprise: true}, &frameTaker{enterprise: true}
	h.Subscribe(HandleTopic("whale"), a)
	h.Subscribe(HandleTopic("whale"), b)
	e := postEvent(1000, 1200, protocol.EventKindPostNew)
	if h.Publish(HandleTopic("whale"), e) != 2 {
		t.Fatal("not delivered to both")
	}
	if e.frames[VariantStandard] != nil || e.tweetOnly != nil {
		t.Fatal("Publish encoded a variant no subscriber took")
	}
	if a.got == nil || &a.got[0] != &b.got[0] {
		t.Fatal("the enterprise frame was not encoded once for both")
	}
	whole := postEvent(1000, 1200, protocol.EventKindPostNew)
	whole.Encode()
	if !bytes.Equal(a.got, whole.FrameFor(true)) {
		t.Fatalf("lazy frame %s, want %s", a.got, whole.FrameFor(true))
	}
	if !bytes.Equal(e.TweetOnlyFrame(), whole.tweetOnly) || !bytes.Equal(e.FrameFor(false), whole.frames[VariantStandard]) {
		t.Fatal("a variant encoded on first use differs from Encode's")
	}
	if x := e.Encoded(); x.Frames[VariantStandard] == nil || x.TweetOnly == nil {
		t.Fatal("Encoded did not encode the event whole")
	}
}

// TestLateFrameOnFirstUse: a late post's sessions get the delayed variant,
// encoded on first use, and no tweet-only frame.
func TestLateFrameOnFirstUse(t *testing.T) {
	t.Parallel()
	e := postEvent(1000, 61_000, protocol.EventKindPostNew)
	e.Late = true
	if f := e.FrameFor(false); !bytes.Contains(f, []byte(`"delayed":true,"delay_ms":60000`)) {
		t.Fatalf("late frame %s", f)
	}
	if e.TweetOnlyFrame() != nil {
		t.Fatal("tweet-only frame of a late post")
	}
}

// BenchmarkPublishPost is a new post to 1,000 enterprise sessions: the
// encoding Publish's first Deliver waits for. "whole" encodes every variant
// first, as Publish did before variants were encoded on first use.
func BenchmarkPublishPost(b *testing.B) {
	h := NewHub()
	for range 1000 {
		h.Subscribe(HandleTopic("whale"), &frameTaker{enterprise: true})
	}
	for _, whole := range []bool{false, true} {
		name := "first-use"
		if whole {
			name = "whole"
		}
		b.Run(name, func(b *testing.B) {
			b.ReportAllocs()
			for range b.N {
				e := postEvent(1000, 1200, protocol.EventKindPostNew)
				if whole {
					e.Encode()
				}
				h.Publish(HandleTopic("whale"), e)
			}
		})
	}
}
