package directory

import (
	"testing"
	"time"

	"github.com/alertd/alertd/persistence"
	"github.com/alertd/alertd/protocol"
)

func TestPutRenameAndTakeover(t *testing.T) {
	d := New()
	now := time.Unix(0, 0)
	if prev := d.Put(&protocol.UserObs{ID: "1", Handle: "alice"}, now); prev != nil {
		t.Fatalf("first put returned %v", prev)
	}
	prev := d.Put(&protocol.UserObs{ID: "1", Handle: "alice2"}, now)
	if prev == nil || prev.User.Handle != "alice" {
		t.Fatalf("rename did not return previous entry: %v", prev)
	}
	if _, ok := d.ByHandle("alice"); ok {
		t.Fatal("old handle still resolves after rename")
	}
	if e, ok := d.ByHandle("alice2"); !ok || e.User.ID != "1" {
		t.Fatal("new handle does not resolve")
	}
	d.Put(&protocol.UserObs{ID: "2", Handle: "alice2"}, now)
	if _, ok := d.ByID("1"); ok {
		t.Fatal("account that lost its handle still listed by id")
	}
	if e, _ := d.ByHandle("alice2"); e.User.ID != "2" {
		t.Fatalf("handle takeover not applied: %s", e.User.ID)
	}
	if d.Len() != 1 {
		t.Fatalf("len %d", d.Len())
	}
}

// A user reloaded from the store keeps the platform's spelling of its handle
// (the stored snapshot's) beside the key (the row's).
func TestLoadKeepsSpelling(t *testing.T) {
	d := New()
	err := d.Load([]persistence.User{{ID: "1", Handle: "elonmusk", Snapshot: []byte(`{"id":"1","handle":"@ElonMusk"}`)}})
	if err != nil {
		t.Fatal(err)
	}
	e, ok := d.ByHandle("elonmusk")
	if !ok || e.User.Handle != "elonmusk" || e.User.Display() != "ElonMusk" {
		t.Fatalf("entry %+v, want key elonmusk spelled ElonMusk", e)
	}
}
