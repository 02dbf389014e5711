package b2b

// The recorder takes the handle actors' changes it keeps (see
// Recorder.Hear) and these.

// Flush asks the recorder to hand everything waiting to the writer; it
// answers *Flushed once it has.
type Flush struct{}

// Flushed answers Flush.
type Flushed struct{}

// tick is the recorder's periodic flush.
type tick struct{}
