// Package handle holds the entity actors that own monitored subjects, and
// the Router that finds them.
//
// # The actors
//
//   - One handle actor per platform handle (kind "handle", identity the
//     lowercase handle): posts, deletions, following lists, new followers
//     and communities of that handle, in the order they were observed. It
//     owns the handle's State: the posts it published (with their first
//     detection), the following baseline, the community memberships with
//     their join times. It derives the realtime events from it, publishes
//     them to the delivery hub, persists what it saw through the batched
//     writer (it is the one writer of the handle's snapshots) and tells the
//     products what changed.
//   - One user actor per platform user id (kind "user"): the profile
//     snapshots of that id, so that a rename is seen in order (the old
//     handle, then the new). The profiles themselves live in the shared
//     directory (actors/state/directory), not in the actor. It applies a
//     rename in one place (rename.go).
//   - A few feed actors (kind "feed": "engagement", "trending", "mint") for
//     observations that are not bound to a handle, kept in order per feed.
//
// # Changes
//
// The actors tell the products typed changes (changes.go): post seen, post
// deleted, follows changed, followers added, memberships changed, profile
// changed, engagement changed, and the feed observations as Observed. Who
// hears what is one table, Subscriptions, filled by the engine
// (engine/changes.go). A Subscriber only tells its product's actor: the
// actors here never run product code and never wait for a product, so a
// slow or panicking product does not stall ingest.
//
// # State and where it is persisted
//
// What a handle actor knows is loaded by the Loader (StoreLoader) when an
// activation starts: on the first message, after passivation and after a
// restart, so none of them takes a new baseline or loses a join time:
//
//   - posts seen: the posts table (the posts created within LateMaxAge);
//   - the following baseline: the `following` snapshot (the last list as
//     observed, and its time);
//   - the memberships: the `communities` snapshot, which holds the
//     observation's shape with each community's joined_at added
//     (membershipsDoc).
//
// Writes go through the batched writer, so a restart after a panic may
// miss the last milliseconds of them (a post is then new again, a list
// diffed against the one before).
//
// # Engagement
//
// Engagement observations carry a tweet id, not a handle: the author's
// handle actor cannot be found without a store read on the ingest path,
// and an actor per tweet would spawn and load one for every new id (a tenth
// of the stream). So the engagement feed actor tells the counts as observed
// (EngagementChanged) and owns no baseline: the Engagement Tracker keeps the
// baseline of the posts it tracks (it is the only product that reports a
// change), the b2b recorder hands the counts to the store, which keeps the
// newest per post.
//
// # The lookup seam
//
// Nobody holds an entity actor's PID: they go through Lookup, identity and
// kind in, actor out, shaped like protoactor's cluster identity lookup so
// that the cluster issue can put grains behind the same calls. The Router is
// the local Lookup: it spawns an actor on first use, named after its
// identity ("handle/whale$1f": the "$n" suffix tells activations apart), and
// ingest reaches it through Route, which counts the observation in the
// backlog that ingest pushes back on (503 beyond 200,000 observations or
// --ingest-backlog-bytes of their lines).
//
// In a cluster the Router is given a Placement (engine/cluster): every
// message for a handle actor goes to it, and the handle actors run as
// cluster grains (NewGrain) on whichever member owns the handle; user and
// feed actors stay with the router.
//
// # Passivation
//
// An actor told nothing for one to two passivation periods (default 10
// minutes; WithPassivateAfter) is stopped and leaves the router, so the map
// of live actors shrinks. The next message starts a new activation, whose
// Started runs the Loader (Deps.Loader, StoreLoader in the engine): it
// reloads the State from the store (see above), so passivation loses
// nothing the actor knew.
//
// No message is ever sent to an actor that is stopping. Each activation
// counts the messages sent to it through the router (sent) and those it has
// handled (handled), and each sweep notes sent as it found it (seen).
// Senders count and send while holding Router.mu for reading; the sweep
// takes an activation out of the live set while holding it for writing, and
// only if sent did not move since the previous sweep and handled equals it.
// So when it decides, every message already sent has been handled, and any
// later one finds no live activation and starts a new one. The actor counts
// a message handled in a defer, even when its handling panics. (protoactor's
// ReceiveTimeout is not used: at the pinned version its timer goroutine
// writes the actor context's fields that the mailbox goroutine reads, which
// -race reports; the sweep also costs nothing per message but one atomic
// add on each side, on cache lines of their own.)
//
// # Supervision
//
// Entity actors are supervised by kit.Supervisor (the engine passes the
// kit's, see actors/kit): a panic is logged with the actor's name and the
// message's type, that message is dropped, and the actor restarts as a new
// instance that reloads its State in Started. It is never stopped, so its
// PID stays good. The backlog count of the observation that panicked is
// released by a defer, so ingest never answers 503 because of a panic. The
// entity actors are spawned at the root with the supervisor as protoactor
// guardian strategy (not under the kit's guardian actor), so that Route
// spawns synchronously, without a round trip through an actor.
//
// # Locks
//
// Router.mu guards the live set and closed; it is held for reading across
// a mailbox push (never across I/O) and for writing to spawn or passivate.
// sent, handled and seen are atomics of each activation. Everything else here is
// an actor's own state, touched only on its goroutine.
package handle
