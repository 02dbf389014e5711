// Package handle holds the entity actors that own monitored subjects, and
// the Router that finds them.
//
// # The actors
//
//   - One handle actor per platform handle (kind "handle", identity the
//     lowercase handle): posts, deletions, following lists, new followers
//     and communities of that handle, in the order they were observed. It
//     owns the handle's State (the posts it published, the following
//     baseline), derives events from it, publishes them to the delivery hub
//     and persists what it saw through the batched writer.
//   - One user actor per platform user id (kind "user"): the profile
//     snapshots of that id, so that a rename is seen in order (the old
//     handle, then the new). The profiles themselves live in the shared
//     directory (actors/state/directory), not in the actor.
//   - A few feed actors (kind "feed": "engagement", "trending", "mint") for
//     observations that are not bound to a handle, kept in order per feed.
//
// Products hear observations through Taps, on the actor's goroutine, after
// the actor handled them (see taps.go for the rules).
//
// # The lookup seam
//
// Nobody holds an entity actor's PID: they go through Lookup, identity and
// kind in, actor out, shaped like protoactor's cluster identity lookup so
// that the cluster issue can put grains behind the same calls. The Router is
// the local Lookup: it spawns an actor on first use, named after its
// identity ("handle/whale$1f": the "$n" suffix tells activations apart), and
// ingest reaches it through Route, which counts the observation in the
// backlog that ingest pushes back on (503 beyond 200,000).
//
// # Passivation
//
// An actor told nothing for one to two passivation periods (default 10
// minutes; WithPassivateAfter) is stopped and leaves the router, so the map
// of live actors shrinks. The next message starts a new activation, whose
// Started runs the Loader (Deps.Loader, StoreLoader in the engine): it
// reloads the State from the store, so passivation loses neither the posts
// seen nor the following baseline. State that moves into the handle actor
// later is added to State and loaded there.
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
