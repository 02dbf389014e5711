package casearch

import (
	"testing"

	"github.com/alertd/alertd/actors/handle"
	"github.com/alertd/alertd/actors/kit/kittest"
	"github.com/alertd/alertd/protocol"
)

// TestIndexerIndexesWhatItHears: post-seen changes told to the indexer
// reach the index, new versions and re-observations alike; other changes
// are ignored.
func TestIndexerIndexesWhatItHears(t *testing.T) {
	k := kittest.Quiet(t)
	f := newFixture(t)
	x, err := StartIndexer(t.Context(), k, f.sv)
	if err != nil {
		t.Fatal(err)
	}
	now := f.clock.now()
	seen := func(tw *protocol.Tweet, isNew bool) *handle.PostSeen {
		return &handle.PostSeen{Handle: "whale", Obs: &protocol.Observation{Kind: protocol.KindPost, Post: tw}, New: isNew}
	}
	x.Hear(seen(tweet("1", now, "gm pepe"), true))
	x.Hear(seen(tweet("2", now, "gn"), true))
	x.Hear(seen(tweet("2", now, "gn pepe"), false))
	x.Hear(&handle.PostDeleted{Handle: "whale"})
	if err := k.Barrier(t.Context()); err != nil {
		t.Fatal(err)
	}
	hits, _ := f.ix.Search(ParseQuery("pepe").Terms, Bounds{Upper: NoUpper}, 10)
	if len(hits) != 2 || f.ix.Stats().Live != 2 {
		t.Errorf("hits %+v, stats %+v: want both posts, the second in its new version", hits, f.ix.Stats())
	}
	x.Stop()
}
