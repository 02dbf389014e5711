package handle

import (
	"time"

	"github.com/alertd/alertd/actors/delivery"
	"github.com/alertd/alertd/actors/writer"
	"github.com/alertd/alertd/persistence"
)

// WriterTrace keeps trace records through the batched writer.
type WriterTrace struct{ W *writer.Writer }

// Trace implements TraceSink.
func (t WriterTrace) Trace(handle string, e *delivery.Event) {
	t.W.Trace(persistence.TraceRecord{EventID: e.Header.EventID, Event: e.Header.Kind.Name(), Handle: handle,
		EventTime: time.UnixMilli(e.Header.EventTime).UTC(), Data: e.Data})
}
