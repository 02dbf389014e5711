// Package stageclock is a debugging clock for the way of one post from the
// ingest API to its first socket send (issue 16): each stage stamps
// latency.Now once per post, keyed by the post's ingest stamp
// (Observation.IngestedAt, Event.IngestedAt, the socket frame's at), and
// every 500 posts that reached a socket the clock logs to stderr the median
// and p90 time each stage took after the one before it.
//
// It is compiled in only with `-tags stageclock`; without the tag On is
// false and Mark is empty, so that every call site, guarded by On where it
// loops, compiles to nothing. Build a server with it and run
// bench/cmd/fanoutbench -keep against it; the lines are in its server.log.
//
// Shared memory (stageclock builds only): mu guards the records; one lock
// per stamp, which is what a debugging build may cost.
package stageclock

// Stage is one step of a post's way to its first socket.
type Stage uint8

// The stages, in the order a post passes them.
const (
	Accepted  Stage = iota // the ingest path took the request's body (the stamp itself)
	Logged                 // the ingest log took the record (before its fsync)
	Decoded                // its lines decoded
	Routed                 // told to its handle actor
	Received               // the handle actor began handling it
	Publish                // Hub.Publish began (the actor's work before it: derive)
	Delivered              // the first subscriber's Deliver returned (its frame encoded, then queued or written)
	SendStart              // a socket writer began the system call carrying it
	SendDone               // that system call returned
	Stages                 // how many
)

var names = [Stages]string{"accepted", "logged", "decoded", "routed", "received", "publish", "delivered",
	"send_start", "send_done"}

// String is the stage's name in the log line.
func (s Stage) String() string {
	if s < Stages {
		return names[s]
	}
	return "?"
}
