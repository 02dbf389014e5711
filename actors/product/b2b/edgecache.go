package b2b

import (
	"container/list"

	"github.com/alertd/alertd/persistence"
)

// edgeKey names one stored list: a handle's following or followers.
type edgeKey struct{ handle, relation string }

// edgeCache keeps the complete stored edge sets of recently observed lists,
// least recently used out first, up to max edges in all, so that a list
// observed again is diffed without reading the store. The recorder's jobs
// are the only writers of edges, and they run one at a time, so a cached set
// is what the store holds; a failed job clears the cache. Not safe for
// concurrent use: only the jobs touch it.
type edgeCache struct {
	max   int
	edges int
	order *list.List // of *cacheEntry, most recent first
	byKey map[edgeKey]*list.Element
}

type cacheEntry struct {
	key edgeKey
	set persistence.FollowEdgeSet // never changed once cached
}

func newEdgeCache(max int) *edgeCache {
	return &edgeCache{max: max, order: list.New(), byKey: map[edgeKey]*list.Element{}}
}

func (c *edgeCache) get(k edgeKey) (persistence.FollowEdgeSet, bool) {
	el, ok := c.byKey[k]
	if !ok {
		return persistence.FollowEdgeSet{}, false
	}
	c.order.MoveToFront(el)
	return el.Value.(*cacheEntry).set, true
}

// put caches set (complete: every stored edge of k), evicting the least
// recently used sets beyond max edges; a set larger than max is not kept.
func (c *edgeCache) put(k edgeKey, set persistence.FollowEdgeSet) {
	c.drop(k)
	if len(set.Edges) > c.max {
		return
	}
	c.byKey[k] = c.order.PushFront(&cacheEntry{key: k, set: set})
	c.edges += len(set.Edges)
	for c.edges > c.max {
		c.drop(c.order.Back().Value.(*cacheEntry).key)
	}
}

func (c *edgeCache) drop(k edgeKey) {
	if el, ok := c.byKey[k]; ok {
		c.edges -= len(el.Value.(*cacheEntry).set.Edges)
		c.order.Remove(el)
		delete(c.byKey, k)
	}
}

func (c *edgeCache) clear() {
	c.order.Init()
	c.byKey = map[edgeKey]*list.Element{}
	c.edges = 0
}

func (c *edgeCache) len() int { return len(c.byKey) }
