package delivery

// FrameFilter is what a product socket opened for some items or kinds keeps
// of the frames of its topics (spec 3 reads a socket's targets at connect).
// The zero value keeps every frame. Read-only once built.
type FrameFilter struct {
	items map[string]struct{} // nil: every item
	masks map[string]uint8    // nil: every kind
}

// NewFrameFilter keeps the frames about one of items (nil: any; frames about
// no item pass) whose kind bit is among the bits masks gives their item
// (nil: any kind).
func NewFrameFilter(items []string, masks map[string]uint8) FrameFilter {
	f := FrameFilter{masks: masks}
	if items != nil {
		f.items = make(map[string]struct{}, len(items))
		for _, it := range items {
			f.items[it] = struct{}{}
		}
	}
	return f
}

// Allows reports whether a socket with this filter takes product frame e.
func (f *FrameFilter) Allows(e *Event) bool {
	if e.Kind != KindFrame {
		return false
	}
	if f.items != nil && e.Item != "" {
		if _, ok := f.items[e.Item]; !ok {
			return false
		}
	}
	return f.masks == nil || f.masks[e.Item]&e.Mask != 0
}
