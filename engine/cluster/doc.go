// Package cluster makes an alertd process one node of several on
// protoactor-go's cluster (CONTRACT.md section 7, issue 14). It is wired
// only when --cluster-name is set: a single node runs none of it, and its
// hot path is unchanged but for one nil check per routed observation
// (handle.Router) and one per topic created or removed (delivery.Hub).
//
// # What works across nodes now
//
//   - Membership: protoactor's cluster with the automanaged provider
//     (--cluster-peers; each node serves its membership on --cluster-addr's
//     port + 1), remote over gRPC on --cluster-addr, the disthash identity
//     lookup. /health shows the live members (Node.Members).
//   - Handle actors are grains (kind "handle", keyed by the lowercase
//     handle): the handle Router hands every handle-bound observation
//     (posts, deletions, following lists, followers, communities) to the
//     Placement this Node implements, so an observation ingested on any
//     node reaches its handle's grain wherever it lives, in ingest order
//     per handle (one sender to one grain keeps order, as remote does).
//     The grain is the handle actor itself (Router.NewGrain): it loads its
//     state from the store when it activates, on whichever node.
//   - Cross-node delivery: each node's relay subscribes to a handle's grain
//     once, when the node's hub gets the handle's first session, and off
//     again with its last (delivery.Hub's TopicWatcher). The grain listens
//     to its handle's topic on its own node's hub and sends each event once
//     per subscribed node (wire.Event: the frames its node encoded plus the
//     plain fields sessions filter on); the relay hands it to that node's
//     sessions. Sessions on the grain's own node hear the hub directly.
//   - Registries: Feed carries their changes on PostgreSQL's
//     alertd_changes channel (LISTEN/NOTIFY). A node that stored a change
//     announces the registry and the accounts it touched; the others
//     reload those accounts from the store (keys and plans in full, B2B
//     target lists with renames and resolves, Tweet Alerts lists, prefs,
//     settings and webhooks), and their sessions hear targets that came
//     and went as for their own. Once its LISTEN holds, and after a lost
//     connection, a node reloads every registry in full.
//   - Failed logins: each is an event on the same feed (the address and
//     the key's SHA-256), counted by every node's Blocker, so the IP and
//     key blocks hold across nodes within a NOTIFY's delay.
//   - Per-account socket limits: each node tells the others its count of
//     every quota when it changes (ConnCounts, events on the feed), and
//     Reserve adds the others' counts from memory. Nodes beat every 5 s;
//     one not heard from for 15 s is forgotten (its sockets died with
//     it). Two logins within a NOTIFY's delay on two nodes may both take
//     an account's last slot.
//   - REST rate windows and CA Search quotas (RateCounts): each node counts
//     in memory as one node does and announces the counts it changed on
//     the feed (at once after a quiet spell, then at most every 50 ms); a
//     request is admitted against its own count plus the others' as last
//     heard (ratewindow.Fixed: the nodes converge on the window of the
//     first request). Over-admission: about 50 ms plus a NOTIFY's delay;
//     two nodes taking an account's requests within that lag of each
//     other may both admit its last one of a window. The day's CA Search
//     count travels as each node's new calls (deltas) and every node
//     writes the total it knows (the store keeps the larger count of a
//     day), so it survives a restart of any node or all of them.
//   - Community Watch, Convergence and Engagement Tracker lists, settings
//     and webhooks (RegProduct): reloaded by account like Tweet Alerts'.
//     A product socket's scope is its list when it opens (spec 3), on
//     every node.
//   - Rebalancing: when members join or leave, disthash stops the grains
//     that moved; the next message activates them on their new owner, which
//     reloads the state from the store and asks every other member's relay
//     whether it listens before it handles anything; an observation that
//     reaches a stopped grain comes back as a dead letter and is sent on to
//     the new owner (at most 3 times); every relay subscribes again.
//   - Webhooks sent once (Owners, owners.go): the webhook endpoints of
//     every product are cut into 64 parts by (scope, id); the owner of a
//     part is the live member that rendezvous hashing over the members'
//     --cluster-addr picks, and it sends the part's deliveries only while
//     it holds the part's PostgreSQL advisory lock, on a connection of its
//     own. The node whose products made a delivery stores it (as on one
//     node) and, when it does not own the endpoint, names the endpoint on
//     the feed (event "queued"); the owner reads the endpoint's queue back
//     from the store. A node gives a part up only after its engines
//     yielded it (attempts in flight back and their outcomes stored), then
//     unlocks; the new owner takes the lock after that, so a join never has
//     two senders. A SIGKILLed node's connection dies with it, and with it
//     its locks: the survivors take its parts as soon as membership drops
//     it (seconds) and read the queues back with the original delivery
//     ids. Across a crash it is at least once: an attempt in flight when
//     the node died, or whose outcome was not stored yet, is made again.
//     Why not endpoint grains: disthash at the pinned protoactor version
//     may activate a grain on two members while their views of the
//     membership differ, and a webhook sent twice cannot be taken back;
//     the lock makes two senders impossible whatever the views, and the
//     webhook engine keeps its pool, its fairness and its write-ahead as
//     on one node. The owner computed from the member list only spreads
//     the work; the lock decides. A node whose lock connection fails stops
//     sending everything at once (its locks are gone).
//   - Chat messages sent once: the chat outbox (actors/chat, owned.go) is
//     a Queue of Owners too (scope "chat", key the chat id): a chat's
//     actor sends only while this node owns the chat's part; a node that
//     queues a message for a chat it does not own stores it and announces
//     the chat ("queued"); the owner reads the chat's waiting messages back
//     (ListChatMessagesOf) before its next send. Yield waits for the call
//     in flight and its stored finish; a take reads the forum topics other
//     nodes created. Secret answers (never stored) go from the node that
//     made them. Each node sends at its share of the bot's 30/s.
//   - Singletons (singleton.go): a job that runs on one node at a time, on
//     the node holding its advisory lock (its own connection); the others
//     try every second, so a SIGKILLed leader is replaced within seconds.
//     The Telegram update poller is one; its offset is stored with each
//     update's answers (never moving back), so the next leader goes on
//     after the last update answered.
//   - Cost: every message sent to another member is counted by kind
//     (Node.Sent, atomics; alertd_cluster_messages_total): an observation
//     to its grain, an event to a listening member, control (subscribe,
//     unsubscribe, rename, an activating grain's question and its answer).
//     bench/cmd/fanoutbench -cluster reads them per post.
//
// # What does not yet
//
//   - User snapshots and the feeds (engagement, trending, mint) still run
//     on the node that ingests them; a profile change goes from the user
//     actor to the handle's grain (handle.Publish, wire.Event), which
//     publishes it to every node, but a rename moves the hub's and the
//     replay buffer's subscribers on the ingesting node only. The
//     directory (categories, profiles) is per node.
//   - A rename's state hand-over crosses nodes only as "renamed" (the new
//     handle's grain reloads from the store, it does not adopt the old
//     state); membership queries answer only for grains on the asking node.
//   - While a grain moves, observations of one handle ingested on
//     different nodes may be reordered, and an event may be missed by
//     another node's sessions if the new grain published before that
//     node's subscription arrived (the activation question narrows this,
//     it does not close it); no backlog push-back across nodes (ingest's
//     503 counts local user and feed actors only); the late-delivery
//     replay buffer holds only posts of grains on the node; grains do not
//     passivate (they live until they move or the node stops).
//   - The other products' registries (launchpad wallets, Search Alerts,
//     ECA watchlists, chat links) are read when a node starts only. A
//     reload reads the registry's whole table and keeps the accounts
//     named (the stores have no per-account list yet); the B2B one holds
//     its committer meanwhile. Community Watch's sync of a handle added on
//     another node is not redone there (the list is).
//   - Product detectors as grains (each node's products hear its own
//     grains), and the etcd, consul and kubernetes providers. Chat links
//     are read at start (above), so a node queues alerts only for the
//     chats linked before it started. A
//     webhook delivery queued for an endpoint that its owner does not know
//     yet (its registry reload still on the way) is read back when the
//     endpoint is put there; deliveries of endpoints removed are dropped by
//     the nodes that remove them, never at a take.
//   - -race: protoactor's cluster at the pinned version races with itself
//     (remote's BlockList, gossip state, the disthash manager, grpc's
//     logger); the e2e tests run cluster nodes as processes built without
//     -race, and this package's own tests run under -race.
//
// # Locks
//
// Owners.owned (atomics) is written by its loop alone and read by the
// webhook engines' and chat actors' goroutines; the loop alone uses its
// lock connection. A Singleton's loop alone uses its connection and starts
// and stops its job; Leading is an atomic.
// Node.pidsMu guards the grain PID cache, Node.membersMu the member list,
// grain.mu a grain's subscribed nodes (Deliver runs on publishers'
// goroutines); none is held across a send or the identity lookup.
// Node.ready is closed by Attach after router and relay are set: readers
// of those on other goroutines (grains, the event stream) wait for it.
// ConnCounts.mu guards the other nodes' counts (taken under the
// ConnLimit's lock, never the other way round). RateCounts.mu guards its
// dirty sets only; it never holds it while it reads a window or the quota
// (their own locks), and those call into it after unlocking.
// Feed.mu guards its pending announcements and reloads; its goroutines
// wake each other through channels, and it calls reloads and event
// handlers without it.
package cluster
