package b2b

import (
	"errors"
	"net/url"
	"strconv"
	"strings"
	"testing"

	"github.com/alertd/alertd/protocol"
)

// FuzzTraceEventID: the {event_id} of GET /v1/dt/events comes from the
// client; it is either refused with 400 or read into parts that name it.
func FuzzTraceEventID(f *testing.F) {
	for _, s := range []string{"evt_1860000000000000001", "evt_f_whale_1763712000123", "evt_fr_a_b_1", "evt_fl_x_9",
		"evt_p_X_1", "evt_del_h_2", "evt_", "evt_f_", "evt_f__1", "evt_f_h_-1", "evt_f_h_+1", "abc", "evt_zz_h_1"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, id string) {
		kind, tweetID, handle, ms, err := protocol.ParseEventID(id)
		if err != nil {
			var ae *protocol.APIError
			if !errors.As(err, &ae) || ae.Status != 400 || ae.Code != protocol.CodeBadRequest {
				t.Fatalf("%q: error %v, want a 400 bad_request", id, err)
			}
			return
		}
		if kind == protocol.EventKindPostNew {
			if !protocol.ValidNumericID(tweetID) || id != "evt_"+tweetID {
				t.Fatalf("%q: tweet id %q", id, tweetID)
			}
			return
		}
		if !protocol.ValidHandle(handle) || ms <= 0 || kind.Module() == "" {
			t.Fatalf("%q: kind %v handle %q ms %d", id, kind, handle, ms)
		}
		rest, ok := strings.CutPrefix(strings.ToLower(id), kind.IDPrefix()+handle+"_")
		if n, perr := strconv.ParseInt(rest, 10, 64); !ok || perr != nil || n != ms {
			t.Fatalf("%q does not name %v, @%s, %d", id, kind, handle, ms)
		}
	})
}

// FuzzDTWebhookURL: an accepted webhook URL is an absolute http or https URL
// with a host and no credentials, within the size limit.
func FuzzDTWebhookURL(f *testing.F) {
	for _, s := range []string{"https://hooks.example.com/a", "http://x", "ftp://x", "https://", "//x", "https://u:p@x/",
		"HTTPS://X.EXAMPLE", "https://[::1]:8080/p?q=1#f", "\x00", strings.Repeat("a", 3000)} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		if !validDTWebhookURL(raw) {
			return
		}
		u, err := url.Parse(raw)
		if err != nil || u.Host == "" || u.User != nil || len(raw) > maxDTWebhookURL {
			t.Fatalf("%q accepted: %v", raw, err)
		}
		if s := strings.ToLower(u.Scheme); s != "http" && s != "https" {
			t.Fatalf("%q accepted with scheme %q", raw, u.Scheme)
		}
	})
}
