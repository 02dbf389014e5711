package storetest

// This file freezes the schema steps exactly as the Go code of commit
// 1315c4c registered them (sqlstore.Migration literals in migrations.go and
// the feature files), before they became embedded SQL files. RunUpgrade
// builds a database with them, as an old binary would have, to prove that the
// new code opens it without re-running anything. Never edit it.

// LegacyStep is one schema step of the old code.
type LegacyStep struct {
	Version int
	Name    string
	Stmts   []string
}

// LegacySteps are the old code's steps, in version order; {{blob}} and
// {{serial_pk}} are filled by the dialect as they were then.
var LegacySteps = []LegacyStep{
	{Version: 1, Name: "initial schema", Stmts: []string{
		`CREATE TABLE accounts (
				id         TEXT PRIMARY KEY,
				created_at BIGINT NOT NULL
			)`,
		`CREATE TABLE subscriptions (
				account_id            TEXT NOT NULL REFERENCES accounts (id),
				product               TEXT NOT NULL,
				plan                  TEXT NOT NULL,
				modules               TEXT NOT NULL,
				max_handles           BIGINT NOT NULL,
				max_tweets            BIGINT NOT NULL,
				max_wallets           BIGINT NOT NULL,
				ca_search_daily_limit BIGINT,
				late_delivery         BOOLEAN NOT NULL,
				expires_at            BIGINT,
				created_at            BIGINT NOT NULL,
				updated_at            BIGINT NOT NULL,
				PRIMARY KEY (account_id, product)
			)`,
		`CREATE TABLE api_keys (
				hash       {{blob}} PRIMARY KEY,
				product    TEXT NOT NULL,
				account_id TEXT NOT NULL REFERENCES accounts (id),
				state      TEXT NOT NULL CHECK (state IN ('active', 'deactivated', 'revoked')),
				created_at BIGINT NOT NULL,
				updated_at BIGINT NOT NULL
			)`,
		`CREATE INDEX api_keys_account_product ON api_keys (account_id, product)`,
		`CREATE UNIQUE INDEX api_keys_one_active ON api_keys (account_id, product) WHERE state = 'active'`,
		`CREATE TABLE users (
				id         TEXT PRIMARY KEY,
				handle     TEXT,
				suspended  BOOLEAN NOT NULL,
				categories TEXT NOT NULL,
				snapshot   {{blob}} NOT NULL,
				updated_at BIGINT NOT NULL
			)`,
		`CREATE UNIQUE INDEX users_handle ON users (handle)`,
		`CREATE TABLE posts (
				id          TEXT PRIMARY KEY,
				handle      TEXT NOT NULL,
				created_at  BIGINT NOT NULL,
				detected_at BIGINT NOT NULL,
				data        {{blob}} NOT NULL
			)`,
		`CREATE INDEX posts_handle_created ON posts (handle, created_at DESC)`,
		`CREATE TABLE snapshots (
				handle      TEXT NOT NULL,
				kind        TEXT NOT NULL,
				data        {{blob}} NOT NULL,
				observed_at BIGINT NOT NULL,
				PRIMARY KEY (handle, kind)
			)`,
		`CREATE TABLE observations (
				id          {{serial_pk}},
				kind        TEXT NOT NULL,
				key         TEXT NOT NULL,
				detected_at BIGINT NOT NULL,
				data        {{blob}} NOT NULL
			)`,
		`CREATE INDEX observations_kind_detected ON observations (kind, detected_at)`,
	}},
	{Version: 2, Name: "B2B targets and event trace records", Stmts: []string{
		`CREATE TABLE targets (
				id             {{serial_pk}},
				account_id     TEXT NOT NULL REFERENCES accounts (id),
				handle         TEXT NOT NULL,
				display_name   TEXT NOT NULL,
				social_user_id TEXT,
				is_active      BOOLEAN NOT NULL,
				created_at     BIGINT NOT NULL
			)`,
		`CREATE UNIQUE INDEX targets_account_handle ON targets (account_id, handle)`,
		`CREATE TABLE trace (
				id         {{serial_pk}},
				event_id   TEXT NOT NULL,
				event      TEXT NOT NULL,
				handle     TEXT NOT NULL,
				event_time BIGINT NOT NULL,
				data       {{blob}} NOT NULL
			)`,
		`CREATE INDEX trace_handle_time ON trace (handle, event_time)`,
	}},
	{Version: 3, Name: "lookups: profile history, follow edges, communities, engagement, blacklist, dt webhook", Stmts: []string{
		`CREATE TABLE profile_history (
				id           {{serial_pk}},
				user_id      TEXT NOT NULL,
				followers    BIGINT NOT NULL,
				following    BIGINT NOT NULL,
				tweet_count  BIGINT NOT NULL,
				likes_count  BIGINT NOT NULL,
				listed_count BIGINT NOT NULL,
				scraped_at   BIGINT NOT NULL
			)`,
		`CREATE INDEX profile_history_user ON profile_history (user_id, scraped_at)`,
		`CREATE INDEX profile_history_user_id ON profile_history (user_id, id)`,
		`CREATE TABLE follow_edges (
				handle             TEXT NOT NULL,
				relation           TEXT NOT NULL,
				target_id          TEXT NOT NULL,
				target_screen_name TEXT NOT NULL,
				is_current         BOOLEAN NOT NULL,
				first_seen_at      BIGINT NOT NULL,
				last_seen_at       BIGINT NOT NULL,
				PRIMARY KEY (handle, relation, target_id)
			)`,
		`CREATE INDEX follow_edges_page ON follow_edges (handle, relation, is_current, first_seen_at)`,
		`CREATE TABLE follow_lists (
				handle   TEXT NOT NULL,
				relation TEXT NOT NULL,
				first_at BIGINT NOT NULL,
				last_at  BIGINT NOT NULL,
				PRIMARY KEY (handle, relation)
			)`,
		`CREATE TABLE social_changes (
				id                 {{serial_pk}},
				handle             TEXT NOT NULL,
				relation           TEXT NOT NULL,
				target_id          TEXT NOT NULL,
				target_screen_name TEXT NOT NULL,
				change             TEXT NOT NULL,
				changed_at         BIGINT NOT NULL
			)`,
		`CREATE INDEX social_changes_handle ON social_changes (handle, change, changed_at)`,
		`CREATE TABLE handle_communities (
				handle              TEXT NOT NULL,
				community_id        TEXT NOT NULL,
				community_name      TEXT NOT NULL,
				member_count        BIGINT NOT NULL,
				creator_screen_name TEXT NOT NULL,
				is_current          BOOLEAN NOT NULL,
				first_seen_at       BIGINT NOT NULL,
				last_seen_at        BIGINT NOT NULL,
				PRIMARY KEY (handle, community_id)
			)`,
		`CREATE TABLE community_catalog (
				id           TEXT PRIMARY KEY,
				name         TEXT NOT NULL,
				name_lower   TEXT NOT NULL,
				description  TEXT NOT NULL,
				member_count BIGINT NOT NULL,
				updated_at   BIGINT NOT NULL
			)`,
		`CREATE INDEX community_catalog_rank ON community_catalog (member_count, id)`,
		`CREATE TABLE lookup_engagement (
				tweet_id    TEXT PRIMARY KEY,
				likes       BIGINT,
				retweets    BIGINT,
				replies     BIGINT,
				quotes      BIGINT,
				bookmarks   BIGINT,
				observed_at BIGINT NOT NULL
			)`,
		`CREATE TABLE dt_blacklist (
				id         {{serial_pk}},
				account_id TEXT NOT NULL REFERENCES accounts (id),
				handle     TEXT NOT NULL,
				created_at BIGINT NOT NULL
			)`,
		`CREATE UNIQUE INDEX dt_blacklist_account_handle ON dt_blacklist (account_id, handle)`,
		`CREATE TABLE dt_webhooks (
				account_id TEXT PRIMARY KEY REFERENCES accounts (id),
				url        TEXT NOT NULL,
				secret     TEXT NOT NULL,
				updated_at BIGINT NOT NULL
			)`,
	}},
	{Version: 4, Name: "CA Search terms and daily usage", Stmts: []string{
		`CREATE TABLE search_terms (
				term       TEXT NOT NULL,
				created_at BIGINT NOT NULL,
				post_id    TEXT NOT NULL,
				PRIMARY KEY (term, created_at, post_id)
			)`,
		`CREATE INDEX posts_created ON posts (created_at, id)`,
		`CREATE TABLE search_usage (
				account_id TEXT NOT NULL,
				day        BIGINT NOT NULL,
				used       BIGINT NOT NULL,
				PRIMARY KEY (account_id, day)
			)`,
	}},
	{Version: 5, Name: "Tweet Alerts consumer: tracked accounts, settings, webhooks, delivery queue", Stmts: []string{
		`CREATE TABLE xg_tracked (
				account_id TEXT NOT NULL REFERENCES accounts (id),
				handle     TEXT NOT NULL,
				added_at   BIGINT NOT NULL,
				PRIMARY KEY (account_id, handle)
			)`,
		`CREATE TABLE xg_handle_prefs (
				account_id      TEXT NOT NULL REFERENCES accounts (id),
				handle          TEXT NOT NULL,
				keywords        TEXT NOT NULL,
				muted           BOOLEAN NOT NULL,
				exclude_replies BOOLEAN NOT NULL,
				exclude_reposts BOOLEAN NOT NULL,
				exclude_quotes  BOOLEAN NOT NULL,
				PRIMARY KEY (account_id, handle)
			)`,
		`CREATE TABLE xg_settings (
				account_id           TEXT PRIMARY KEY REFERENCES accounts (id),
				exclude_replies      BOOLEAN NOT NULL,
				contracts_only       BOOLEAN NOT NULL,
				notifications_paused BOOLEAN NOT NULL,
				exclude_reposts      BOOLEAN NOT NULL,
				auto_topics          BOOLEAN NOT NULL,
				contract_topic       BOOLEAN NOT NULL
			)`,
		`CREATE TABLE xg_webhooks (
				id                   {{serial_pk}},
				account_id           TEXT NOT NULL REFERENCES accounts (id),
				url                  TEXT NOT NULL,
				events               TEXT NOT NULL,
				filter_handles       TEXT NOT NULL,
				filter_keywords      TEXT NOT NULL,
				secret               TEXT NOT NULL,
				is_active            BOOLEAN NOT NULL,
				consecutive_failures BIGINT NOT NULL,
				created_at           BIGINT NOT NULL,
				deactivated_at       BIGINT,
				disabled             BOOLEAN NOT NULL
			)`,
		`CREATE INDEX xg_webhooks_account ON xg_webhooks (account_id, is_active)`,
		`CREATE TABLE webhook_deliveries (
				seq         {{serial_pk}},
				scope       TEXT NOT NULL,
				endpoint_id BIGINT NOT NULL,
				delivery_id TEXT NOT NULL,
				body        {{blob}} NOT NULL,
				attempts    BIGINT NOT NULL,
				created_at  BIGINT NOT NULL
			)`,
		`CREATE UNIQUE INDEX webhook_deliveries_id ON webhook_deliveries (scope, delivery_id)`,
		`CREATE INDEX webhook_deliveries_endpoint ON webhook_deliveries (scope, endpoint_id)`,
		`CREATE TABLE server_secrets (
				name  TEXT PRIMARY KEY,
				value {{blob}} NOT NULL
			)`,
		`CREATE TABLE xg_telegram_links (
				telegram_id BIGINT PRIMARY KEY,
				account_id  TEXT NOT NULL REFERENCES accounts (id),
				product     TEXT NOT NULL,
				linked_at   BIGINT NOT NULL
			)`,
	}},
	{Version: 6, Name: "watch products: targets, settings and webhooks, delivered events, detector state", Stmts: []string{
		`CREATE TABLE watch_targets (
				id         {{serial_pk}},
				product    TEXT NOT NULL,
				account_id TEXT NOT NULL REFERENCES accounts (id),
				item       TEXT NOT NULL,
				options    {{blob}} NOT NULL,
				created_at BIGINT NOT NULL
			)`,
		`CREATE UNIQUE INDEX watch_targets_item ON watch_targets (product, account_id, item)`,
		`CREATE TABLE watch_configs (
				id             {{serial_pk}},
				product        TEXT NOT NULL,
				account_id     TEXT NOT NULL REFERENCES accounts (id),
				settings       {{blob}} NOT NULL,
				webhook_url    TEXT NOT NULL,
				webhook_secret TEXT NOT NULL,
				updated_at     BIGINT NOT NULL
			)`,
		`CREATE UNIQUE INDEX watch_configs_account ON watch_configs (product, account_id)`,
		`CREATE TABLE watch_events (
				id         {{serial_pk}},
				product    TEXT NOT NULL,
				account_id TEXT NOT NULL,
				kind       TEXT NOT NULL,
				data       {{blob}} NOT NULL,
				created_at BIGINT NOT NULL
			)`,
		`CREATE INDEX watch_events_account ON watch_events (product, account_id, id)`,
		`CREATE INDEX watch_events_created ON watch_events (product, created_at)`,
		`CREATE TABLE watch_states (
				product    TEXT NOT NULL,
				subject    TEXT NOT NULL,
				data       {{blob}} NOT NULL,
				updated_at BIGINT NOT NULL,
				PRIMARY KEY (product, subject)
			)`,
	}},
	{Version: 7, Name: "trending, pumpfun, eca, search alerts: stored webhooks, categories, wallets, events, watchlist, matches, queries", Stmts: []string{
		`CREATE TABLE stored_webhooks (
				account_id TEXT NOT NULL REFERENCES accounts (id),
				product    TEXT NOT NULL,
				url        TEXT,
				updated_at BIGINT NOT NULL,
				PRIMARY KEY (account_id, product)
			)`,
		`CREATE TABLE trending_subscriptions (
				account_id TEXT PRIMARY KEY REFERENCES accounts (id),
				categories TEXT NOT NULL,
				updated_at BIGINT NOT NULL
			)`,
		`CREATE TABLE pf_targets (
				id          {{serial_pk}},
				account_id  TEXT NOT NULL REFERENCES accounts (id),
				wallet      TEXT NOT NULL,
				label       TEXT NOT NULL,
				alert_types TEXT NOT NULL,
				created_at  BIGINT NOT NULL
			)`,
		`CREATE UNIQUE INDEX pf_targets_wallet ON pf_targets (account_id, wallet)`,
		`CREATE TABLE pf_events (
				id                  {{serial_pk}},
				account_id          TEXT NOT NULL,
				wallet              TEXT NOT NULL,
				mint                TEXT NOT NULL,
				token_name          TEXT NOT NULL,
				token_symbol        TEXT NOT NULL,
				event_type          TEXT NOT NULL,
				detected_at         BIGINT NOT NULL,
				delivery_latency_ms BIGINT NOT NULL
			)`,
		`CREATE INDEX pf_events_account ON pf_events (account_id, id)`,
		`CREATE TABLE eca_entries (
				id               {{serial_pk}},
				account_id       TEXT NOT NULL REFERENCES accounts (id),
				ticker           TEXT NOT NULL,
				token_name       TEXT NOT NULL,
				contract_address TEXT NOT NULL,
				creator_address  TEXT NOT NULL,
				source           TEXT NOT NULL,
				state            TEXT NOT NULL CHECK (state IN ('active', 'expired', 'matched', 'removed')),
				created_at       BIGINT NOT NULL,
				expires_at       BIGINT NOT NULL,
				ended_at         BIGINT
			)`,
		`CREATE INDEX eca_entries_active ON eca_entries (state, expires_at)`,
		`CREATE TABLE eca_matches (
				id         {{serial_pk}},
				account_id TEXT NOT NULL,
				entry_id   BIGINT NOT NULL,
				matched_at BIGINT NOT NULL,
				data       {{blob}} NOT NULL
			)`,
		`CREATE INDEX eca_matches_account ON eca_matches (account_id, matched_at)`,
		`CREATE TABLE sa_queries (
				id         {{serial_pk}},
				account_id TEXT NOT NULL REFERENCES accounts (id),
				query_text TEXT NOT NULL,
				every      TEXT NOT NULL,
				created_at BIGINT NOT NULL
			)`,
		`CREATE INDEX sa_queries_account ON sa_queries (account_id, id)`,
	}},
}
