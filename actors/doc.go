// Package actors is the domain of alertd; this file is its map. It holds no
// code: each sub-package is one role, and its own doc says the details.
//
// # Actors and what is not an actor
//
// Actors (protoactor-go; one goroutine at a time, state owned, no lock
// inside, reached by messages):
//
//   - handle: one entity actor per handle, per platform user id and per
//     feed, spawned on demand behind one lookup seam (Router), passivated
//     when idle, state reloaded from the store by its Loader. It owns the
//     handle's state and tells the products typed changes.
//   - product/<name>: one singleton per product (cw, ct, et, trending,
//     pumpfun, eca, searchalerts, b2b, casearch, tweetalerts), spawned by
//     kit under one guardian; each detects and publishes, nothing else.
//   - webhook: one entity actor per webhook endpoint (its ordered queue,
//     bounded in memory with the rest read back from the store, and
//     retries), the shared signed-delivery engine of the products.
//   - chat: one entity actor per Telegram chat (its durable outbox order,
//     pace, retries and topics) and the singletons chat-tweetalerts and
//     chat-products that turn posts and product frames into chat messages.
//   - kit: the guardian, the one Supervisor (restart with a new instance
//     that reloads from the store), Tell/Ask with typed errors, Barrier.
//
// Not actors:
//
//   - session: WebSocket sessions are state machines owned by the
//     transport's loop (edge/ws), one per socket; publishers hand them
//     pre-encoded frames through the delivery hub without blocking.
//   - delivery: the one subscriber registry (Hub: topics by handle, account,
//     wallet and product) and the replay buffers (Recent): shared memory.
//   - state: account (keys, subscriptions, rate windows), directory (users),
//     targets (B2B lists): shared read-mostly memory, written through to the
//     store.
//   - writer: the batched store writer, one goroutine; actors hand it rows
//     and never wait for it (the hot path never waits on the database).
//
// # Shared memory and the lock order
//
// Every lock below guards memory only. None is held across store I/O or
// socket I/O; none is taken inside an actor's Receive for longer than a map
// update. Where one lock is taken while another is held, it is in this
// order (an arrow means "may take, while holding"):
//
//	session's own lock (TweetOnly.mu, TweetAlerts.mu) → session's B2B
//	groups mu → delivery.Group.mu → delivery.Hub.mu → a topic list's mu
//
// and nothing else nests: the hub never holds one of its locks while it calls
// a subscriber's Deliver (it delivers from a pooled copy), Deliver takes at
// most the session's own lock, and edge/ws's Conn.mu guards a connection's
// queue and flags only (a writer swaps the queue out under it, then writes
// with no lock held).
//
// Registries that write through to the store (state/account,
// product/tweetalerts, product/watchlist, product/eca, product/pumpfun,
// product/searchalerts) have two locks: a write mutex that serialises their
// writers across the store round trip, and the memory lock (RWMutex) that
// readers take, held only for the memory update after the store answered.
// Readers, the WebSocket loop included, never take the write mutex, so a
// slow store slows writers of that registry and nobody else. The order is
// write mutex → memory lock. state/targets needs no write mutex: changes
// are reserved in memory, group-committed by its committer goroutine, then
// confirmed (see its package doc).
package actors
