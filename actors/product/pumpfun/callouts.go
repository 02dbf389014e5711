package pumpfun

import "github.com/alertd/alertd/protocol"

// call is one callout followed for milestones.
type call struct {
	key   string
	obs   protocol.CalloutObs
	fired uint8
}

// callBook follows callouts by (caller, mint) and by mint, forgetting the
// oldest beyond max and those that fired every milestone.
type callBook struct {
	max    int
	byKey  map[string]*call
	byMint map[string][]*call
	order  []*call // oldest first; may hold replaced calls, skipped on eviction
}

func newCallBook(max int) *callBook {
	return &callBook{max: max, byKey: map[string]*call{}, byMint: map[string][]*call{}}
}

func callKey(caller, mint string) string { return caller + "\x00" + mint }

// add follows a callout; a new callout of the same caller and mint replaces
// the earlier one (its milestones start over from the new callout_mcap).
func (b *callBook) add(o *protocol.CalloutObs) *call {
	c := &call{key: callKey(o.CallerWallet, o.Mint), obs: *o}
	if old := b.byKey[c.key]; old != nil {
		b.drop(old)
	}
	b.byKey[c.key] = c
	b.byMint[o.Mint] = append(b.byMint[o.Mint], c)
	b.order = append(b.order, c)
	for len(b.byKey) > b.max && len(b.order) > 0 {
		old := b.order[0]
		b.order = b.order[1:]
		b.drop(old)
	}
	if len(b.order) > 2*b.max+16 { // compact replaced and finished calls
		live := b.order[:0]
		for _, x := range b.order {
			if b.byKey[x.key] == x {
				live = append(live, x)
			}
		}
		b.order = live
	}
	return c
}

// drop forgets c if it is still followed.
func (b *callBook) drop(c *call) {
	if b.byKey[c.key] != c {
		return
	}
	delete(b.byKey, c.key)
	list := b.byMint[c.obs.Mint]
	for i, x := range list {
		if x == c {
			list = append(list[:i:i], list[i+1:]...)
			break
		}
	}
	if len(list) == 0 {
		delete(b.byMint, c.obs.Mint)
	} else {
		b.byMint[c.obs.Mint] = list
	}
}

// mint returns the calls of mint (the slice is not kept by the book).
func (b *callBook) mint(m string) []*call { return append([]*call(nil), b.byMint[m]...) }
