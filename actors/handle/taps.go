package handle

import "github.com/alertd/alertd/protocol"

// PostTap hears every post observation after its handle actor has handled
// it: isNew is true the first time the id is seen; firstSeen is the epoch-ms
// first detection. Taps run on the handle actor's goroutine, in order per
// handle but concurrently across handles: a tap must be safe for concurrent
// use and must not block (hand work to an actor of your own).
type PostTap func(o *protocol.Observation, firstSeen int64, isNew bool)

// ObservationTap hears observations of one kind after their owning actor
// handled them (in order per routing key), under the same rules as PostTap.
type ObservationTap func(o *protocol.Observation)

// Taps are the hooks features register while the engine is wired, before
// the first observation is routed; they are read-only afterwards.
type Taps struct {
	post []PostTap
	obs  map[string][]ObservationTap
}

// OnPost registers a post tap.
func (t *Taps) OnPost(f PostTap) { t.post = append(t.post, f) }

// On registers a tap for observations of kind (any protocol.Kind*).
func (t *Taps) On(kind string, f ObservationTap) {
	if t.obs == nil {
		t.obs = map[string][]ObservationTap{}
	}
	t.obs[kind] = append(t.obs[kind], f)
}

func (t *Taps) firePost(o *protocol.Observation, first int64, isNew bool) {
	if t == nil {
		return
	}
	for _, f := range t.post {
		f(o, first, isNew)
	}
}

func (t *Taps) fire(o *protocol.Observation) {
	if t == nil {
		return
	}
	for _, f := range t.obs[o.Kind] {
		f(o)
	}
}
