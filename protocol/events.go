package protocol

import (
	"strconv"
	"strings"

	json "github.com/goccy/go-json"
)

// The realtime event model of spec 2 "Events": event names and modules, event
// ids, the `d` object of an EVENT frame and the data shapes of each event.
// Encoders append to a []byte so that a publisher encodes each event once
// per variant and hands the same bytes to every subscriber.

// Event names as delivered on the realtime WebSocket.
const (
	EventPostNew          = "social.post.new"
	EventPostUpdate       = "social.post.update"
	EventTweetDeleted     = "social.tweet.deleted"
	EventFollowingNew     = "social.following.new"
	EventFollowingRemoved = "social.following.removed"
	EventFollowerNew      = "social.follower.new"
	EventProfileUpdate    = "social.profile.update"

	// EventTraceTweetNew labels tweet records of the trace endpoint; the
	// WebSocket delivers the same events as social.post.new.
	EventTraceTweetNew = "social.tweet.new"
)

// EventKind is one of the seven realtime events, small enough to carry beside
// encoded bytes. The zero value is not an event.
type EventKind uint8

const (
	EventKindNone EventKind = iota
	EventKindPostNew
	EventKindPostUpdate
	EventKindTweetDeleted
	EventKindFollowingNew
	EventKindFollowingRemoved
	EventKindFollowerNew
	EventKindProfileUpdate
	eventKindCount
)

var eventKindInfo = [eventKindCount]struct {
	name, module, idPrefix string
}{
	EventKindNone:             {},
	EventKindPostNew:          {EventPostNew, ModuleRealtime, "evt_"},
	EventKindPostUpdate:       {EventPostUpdate, ModuleRealtime, "evt_"},
	EventKindTweetDeleted:     {EventTweetDeleted, ModuleRealtime, "evt_del_"},
	EventKindFollowingNew:     {EventFollowingNew, ModuleFollows, "evt_f_"},
	EventKindFollowingRemoved: {EventFollowingRemoved, ModuleFollows, "evt_fr_"},
	EventKindFollowerNew:      {EventFollowerNew, ModuleFollowers, "evt_fl_"},
	EventKindProfileUpdate:    {EventProfileUpdate, ModuleProfileWatch, "evt_p_"},
}

func (k EventKind) valid() bool { return k > EventKindNone && k < eventKindCount }

// Name is the event name ("social.post.new"); "" for an invalid kind.
func (k EventKind) Name() string {
	if !k.valid() {
		return ""
	}
	return eventKindInfo[k].name
}

// String is Name.
func (k EventKind) String() string { return k.Name() }

// Module is the module a client needs to receive the event (spec 2 "Events";
// the same gating applies to the trace endpoint).
func (k EventKind) Module() string {
	if !k.valid() {
		return ""
	}
	return eventKindInfo[k].module
}

// IDPrefix is the event-id prefix: "evt_" for posts, "evt_f_", "evt_fr_",
// "evt_p_", "evt_fl_", "evt_del_" for the others.
func (k EventKind) IDPrefix() string {
	if !k.valid() {
		return ""
	}
	return eventKindInfo[k].idPrefix
}

// IsTweet reports whether the event is a post event (post.new, post.update):
// those have `evt_<tweet_id>` ids, no event_time, and are the only events that
// onlyCA and onlyTicker gate.
func (k EventKind) IsTweet() bool { return k == EventKindPostNew || k == EventKindPostUpdate }

// HasTaskID reports whether task_info carries `id` (follow and follower events).
func (k EventKind) HasTaskID() bool {
	return k == EventKindFollowingNew || k == EventKindFollowingRemoved || k == EventKindFollowerNew
}

// EventKindByName returns the kind of an event name (the trace label
// social.tweet.new gives EventKindPostNew).
func EventKindByName(name string) (EventKind, bool) {
	if name == EventTraceTweetNew {
		return EventKindPostNew, true
	}
	for k := EventKindPostNew; k < eventKindCount; k++ {
		if eventKindInfo[k].name == name {
			return k, true
		}
	}
	return EventKindNone, false
}

// TweetEventID is the id of a post event (new and update share it).
func TweetEventID(tweetID string) string { return "evt_" + tweetID }

// EventID is the id of a non-tweet event: the kind's prefix, then
// `<handle>_<epoch_ms>`, where ms is also the event's event_time. Post events
// use TweetEventID instead.
func EventID(k EventKind, handle string, ms int64) string {
	return string(AppendEventID(make([]byte, 0, 8+len(handle)+20), k, handle, ms))
}

// AppendEventID appends EventID(k, handle, ms) to dst.
func AppendEventID(dst []byte, k EventKind, handle string, ms int64) []byte {
	dst = append(dst, k.IDPrefix()...)
	dst = append(dst, handle...)
	dst = append(dst, '_')
	return strconv.AppendInt(dst, ms, 10)
}

// ParseEventID reads an event id of the trace endpoint. A tweet id
// (`evt_<digits>`) gives EventKindPostNew and tweetID; a non-tweet id gives
// its kind, the handle (lowercased) and the epoch-ms suffix. Handles may hold
// underscores, so the suffix is taken after the last '_'. Any other shape is
// an *APIError 400 bad_request.
func ParseEventID(id string) (kind EventKind, tweetID, handle string, ms int64, err error) {
	rest, ok := strings.CutPrefix(id, "evt_")
	if !ok {
		return 0, "", "", 0, errEventID()
	}
	if ValidNumericID(rest) {
		return EventKindPostNew, rest, "", 0, nil
	}
	for k := EventKindTweetDeleted; k < eventKindCount; k++ {
		p := eventKindInfo[k].idPrefix[len("evt_"):]
		body, ok := strings.CutPrefix(rest, p)
		if !ok {
			continue
		}
		i := strings.LastIndexByte(body, '_')
		if i < 0 {
			return 0, "", "", 0, errEventID()
		}
		h, digits := strings.ToLower(body[:i]), body[i+1:]
		n, perr := strconv.ParseInt(digits, 10, 64)
		if !ValidHandle(h) || perr != nil || n <= 0 || digits[0] < '0' || digits[0] > '9' {
			return 0, "", "", 0, errEventID()
		}
		return k, "", h, n, nil
	}
	return 0, "", "", 0, errEventID()
}

func errEventID() error { return BadRequest("unrecognised event_id format") }

// EventHeader is everything of an EVENT's `d` object but `data`.
type EventHeader struct {
	Kind    EventKind
	EventID string
	// EventTime is epoch ms; written for non-tweet events only (and always
	// for them).
	EventTime int64
	// Handle is task_info.handle: the monitored handle (the new handle on a
	// rename).
	Handle string
	// TaskID is task_info.id; written on follow, unfollow and follower
	// events only.
	TaskID string
	// Late delivery (module late_delivery): Delayed with DelayMs on late
	// posts, Replayed on the post replay after READY. Written only when set.
	Delayed  bool
	DelayMs  int64
	Replayed bool
}

// AppendEventD appends the `d` object of an EVENT frame: header fields and
// data, which must be one encoded JSON value (see the Append*Data functions).
func AppendEventD(dst []byte, h *EventHeader, data []byte) []byte {
	dst = append(dst, `{"event":"`...)
	dst = append(dst, h.Kind.Name()...)
	dst = append(dst, `","event_id":`...)
	dst = appendJSONStr(dst, h.EventID)
	if !h.Kind.IsTweet() {
		dst = append(dst, `,"event_time":`...)
		dst = strconv.AppendInt(dst, h.EventTime, 10)
	}
	dst = append(dst, `,"task_info":{"handle":`...)
	dst = appendJSONStr(dst, h.Handle)
	if h.Kind.HasTaskID() {
		dst = append(dst, `,"id":`...)
		dst = appendJSONStr(dst, h.TaskID)
	}
	dst = append(dst, `},"data":`...)
	if len(data) == 0 {
		dst = append(dst, "null"...)
	} else {
		dst = append(dst, data...)
	}
	if h.Delayed {
		dst = append(dst, `,"delayed":true,"delay_ms":`...)
		dst = strconv.AppendInt(dst, h.DelayMs, 10)
	}
	if h.Replayed {
		dst = append(dst, `,"replayed":true`...)
	}
	return append(dst, '}')
}

// AppendEventFrame appends a whole EVENT frame (`{"op":0,"d":...}`) in one go.
func AppendEventFrame(dst []byte, h *EventHeader, data []byte) []byte {
	dst = append(dst, `{"op":0,"d":`...)
	dst = AppendEventD(dst, h, data)
	return append(dst, '}')
}

// FollowingData is the data of social.following.new and
// social.following.removed: `id`, `handle`, `name`, `bio`, `followers`,
// `following`, `protected`. It is the observation's FollowUser.
type FollowingData = FollowUser

// UnavailableFollowing is the data of an unfollow whose profile is
// unavailable: empty handle, null name and null details.
func UnavailableFollowing(id string) FollowingData { return FollowingData{ID: id} }

// AppendFollowingData appends a following event's data.
func AppendFollowingData(dst []byte, u *FollowingData) []byte {
	dst = append(dst, `{"id":`...)
	dst = appendJSONStr(dst, u.ID)
	dst = append(dst, `,"handle":`...)
	dst = appendJSONStr(dst, u.Handle)
	dst = append(dst, `,"name":`...)
	dst = appendNullStr(dst, u.Name)
	dst = append(dst, `,"bio":`...)
	dst = appendNullStr(dst, u.Bio)
	dst = append(dst, `,"followers":`...)
	dst = appendNullInt(dst, u.Followers)
	dst = append(dst, `,"following":`...)
	dst = appendNullInt(dst, u.Following)
	dst = append(dst, `,"protected":`...)
	switch {
	case u.Protected == nil:
		dst = append(dst, "null"...)
	case *u.Protected:
		dst = append(dst, "true"...)
	default:
		dst = append(dst, "false"...)
	}
	return append(dst, '}')
}

// FollowerData is the data of social.follower.new: `id`, `handle`, `name`.
type FollowerData = NewFollower

// AppendFollowerData appends a new-follower event's data.
func AppendFollowerData(dst []byte, u *FollowerData) []byte {
	dst = append(dst, `{"id":`...)
	dst = appendJSONStr(dst, u.ID)
	dst = append(dst, `,"handle":`...)
	dst = appendJSONStr(dst, u.Handle)
	dst = append(dst, `,"name":`...)
	dst = appendNullStr(dst, u.Name)
	return append(dst, '}')
}

// AppendDeletedData appends a social.tweet.deleted event's data: `tweet_id`
// and `text`, each null when unknown.
func AppendDeletedData(dst []byte, tweetID, text *string) []byte {
	dst = append(dst, `{"tweet_id":`...)
	dst = appendNullStr(dst, tweetID)
	dst = append(dst, `,"text":`...)
	dst = appendNullStr(dst, text)
	return append(dst, '}')
}

// AppendProfileData appends a social.profile.update event's data: `field`,
// `prev`, `updated`.
func AppendProfileData(dst []byte, c ProfileChange) []byte {
	dst = append(dst, `{"field":`...)
	dst = appendJSONStr(dst, c.Field)
	dst = append(dst, `,"prev":`...)
	dst = appendJSONStr(dst, c.Prev)
	dst = append(dst, `,"updated":`...)
	dst = appendJSONStr(dst, c.Updated)
	return append(dst, '}')
}

func appendNullStr(dst []byte, s *string) []byte {
	if s == nil {
		return append(dst, "null"...)
	}
	return appendJSONStr(dst, *s)
}

func appendNullInt(dst []byte, n *int64) []byte {
	if n == nil {
		return append(dst, "null"...)
	}
	return strconv.AppendInt(dst, *n, 10)
}

// EventMeta is the metadata carried beside each encoded event so that a
// session decides delivery (module gating, login filter) without parsing the
// bytes.
type EventMeta struct {
	Kind EventKind
	// Type is the login-filter type: a post type, follow, unfollow,
	// follower, deleted, or the update_* type of a profile field.
	Type EventType
	// HasCA and HasTicker describe post events (onlyCA, onlyTicker).
	HasCA     bool
	HasTicker bool
	// Categories of the monitored account.
	Categories CategorySet
}

// PostMeta is the metadata of a post event (new or update) of t by an account
// in cats. HasCA looks at the text and the OCR text; HasTicker at the
// `cashtags` field and the text.
func PostMeta(k EventKind, t *Tweet, cats CategorySet) EventMeta {
	m := EventMeta{Kind: k, Type: PostEventType(t.Type), Categories: cats}
	m.HasCA = HasContract(t.Text) || t.OCRText != nil && HasContract(*t.OCRText)
	m.HasTicker = len(t.Cashtags) > 0 || HasCashtag(t.Text)
	return m
}

// NonPostMeta is the metadata of a follow, unfollow, follower or deleted
// event (the type follows from the kind).
func NonPostMeta(k EventKind, cats CategorySet) EventMeta {
	var t EventType
	switch k {
	case EventKindFollowingNew:
		t = TypeFollow
	case EventKindFollowingRemoved:
		t = TypeUnfollow
	case EventKindFollowerNew:
		t = TypeFollower
	case EventKindTweetDeleted:
		t = TypeDeleted
	}
	return EventMeta{Kind: k, Type: t, Categories: cats}
}

// ProfileMeta is the metadata of one profile update.
func ProfileMeta(c ProfileChange, cats CategorySet) EventMeta {
	return EventMeta{Kind: EventKindProfileUpdate, Type: ProfileFieldType(c.Field), Categories: cats}
}

// Profile update fields of spec 2.
const (
	FieldName        = "name"
	FieldDisplayName = "display_name"
	FieldBio         = "bio"
	FieldDescription = "description"
	FieldAvatar      = "avatar"
	FieldAvatarURL   = "avatar_url"
	FieldBannerURL   = "banner_url"
	FieldLocation    = "location"
	FieldWebsite     = "website"
	FieldVerified    = "verified"
	FieldPinnedPost  = "pinned_post"
	FieldHandle      = "handle"
)

// ProfileChange is the data of one social.profile.update event. Values are
// strings, empty when empty.
type ProfileChange struct {
	Field   string `json:"field"`
	Prev    string `json:"prev"`
	Updated string `json:"updated"`
}

// ProfileChanges lists the profile updates between two snapshots of one
// account, one per changed field, in a fixed order: handle, name and
// display_name, bio and description, avatar and avatar_url, banner_url,
// location, website, verified ("true"/"false"), pinned_post (ids joined by
// commas, "" when none). A name, bio or avatar change is emitted under both of
// its field names. A nil prev (first snapshot) gives no changes. Null and
// empty strings are the same value. Follower counts, verification type,
// categories and suspension are not profile fields; nor is a change of the
// handle's case alone (the same account's key).
func ProfileChanges(prev, cur *UserObs) []ProfileChange {
	if prev == nil || cur == nil {
		return nil
	}
	var out []ProfileChange
	add := func(a, b string, fields ...string) {
		if a == b {
			return
		}
		for _, f := range fields {
			out = append(out, ProfileChange{Field: f, Prev: a, Updated: b})
		}
	}
	if prev.Handle != cur.Handle { // a rename changes the key; prev and updated keep the platform's spelling
		out = append(out, ProfileChange{Field: FieldHandle, Prev: prev.Display(), Updated: cur.Display()})
	}
	add(prev.Name, cur.Name, FieldName, FieldDisplayName)
	add(prev.Bio, cur.Bio, FieldBio, FieldDescription)
	add(prev.Avatar, cur.Avatar, FieldAvatar, FieldAvatarURL)
	add(deref(prev.BannerURL), deref(cur.BannerURL), FieldBannerURL)
	add(deref(prev.Location), deref(cur.Location), FieldLocation)
	add(deref(prev.Website), deref(cur.Website), FieldWebsite)
	add(strconv.FormatBool(prev.Verified), strconv.FormatBool(cur.Verified), FieldVerified)
	add(strings.Join(prev.PinnedPost, ","), strings.Join(cur.PinnedPost, ","), FieldPinnedPost)
	return out
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

// ProfileFieldType is the login-filter type of a profile field: handle →
// update_handle, bio/description → update_bio, avatar/avatar_url →
// update_photo, name/display_name → update_name, banner_url →
// update_banner_url, location, website, pinned_post, verified → their
// update_* type. An unknown field gives TypeNone.
func ProfileFieldType(field string) EventType {
	switch field {
	case FieldHandle:
		return TypeUpdateHandle
	case FieldBio, FieldDescription:
		return TypeUpdateBio
	case FieldAvatar, FieldAvatarURL:
		return TypeUpdatePhoto
	case FieldName, FieldDisplayName:
		return TypeUpdateName
	case FieldBannerURL:
		return TypeUpdateBannerURL
	case FieldLocation:
		return TypeUpdateLocation
	case FieldWebsite:
		return TypeUpdateWebsite
	case FieldPinnedPost:
		return TypeUpdatePinnedPost
	case FieldVerified:
		return TypeUpdateVerified
	}
	return TypeNone
}

// PostEventType is the login-filter type of a post's data.type: post →
// tweet, repost → retweet, quote → quote, reply → reply.
func PostEventType(dataType string) EventType {
	switch dataType {
	case PostTypePost:
		return TypeTweet
	case PostTypeRepost:
		return TypeRetweet
	case PostTypeQuote:
		return TypeQuote
	case PostTypeReply:
		return TypeReply
	}
	return TypeNone
}

// TweetVariant selects the encoding of a post's data. Variants combine.
type TweetVariant uint8

const (
	// TweetStandard is the full payload without OCR fields (Starter, Pro).
	TweetStandard TweetVariant = 0
	// TweetEnterprise adds `ocr_text` (null when the post has none) and
	// `extracted_cas` (the contract addresses of the OCR text, [] if none).
	TweetEnterprise TweetVariant = 1 << 0
	// TweetCore keeps the core fields only, for the late-delivery replay
	// after READY: no `quoted_tweet` (the quote or reply body), `entities`,
	// `conversation_id` or `metrics`; `in_reply_to` stays.
	TweetCore TweetVariant = 1 << 1
)

// coreTweet is the replayed payload: core fields only.
type coreTweet struct {
	ID                string      `json:"id"`
	CreatedAt         int64       `json:"created_at"`
	Type              string      `json:"type"`
	Text              string      `json:"text"`
	Cashtags          []string    `json:"cashtags"`
	Media             []Media     `json:"media"`
	Mentions          []string    `json:"mentions"`
	Author            TweetAuthor `json:"author"`
	InReplyTo         *InReplyTo  `json:"in_reply_to"`
	PossiblySensitive bool        `json:"possibly_sensitive"`
}

var emptyJSONArray = []byte("[]")

// AppendTweetData appends the data of a post event of t in variant v. t is not
// modified. Null arrays the spec types as arrays (cashtags, media,
// entities.hashtags, urls, symbols) are written as []; mentions may stay null.
func AppendTweetData(dst []byte, t *Tweet, v TweetVariant) ([]byte, error) {
	var b []byte
	var err error
	if v&TweetCore != 0 {
		c := coreTweet{ID: t.ID, CreatedAt: t.CreatedAt, Type: t.Type, Text: t.Text,
			Cashtags: nonNilStrings(t.Cashtags), Media: nonNilMedia(t.Media), Mentions: t.Mentions,
			Author: t.Author, InReplyTo: t.InReplyTo, PossiblySensitive: t.PossiblySensitive}
		b, err = json.Marshal(&c)
	} else {
		c := *t
		c.OCRText = nil
		c.Cashtags = nonNilStrings(c.Cashtags)
		c.Media = nonNilMedia(c.Media)
		if len(c.Entities.Hashtags) == 0 {
			c.Entities.Hashtags = emptyJSONArray
		}
		if len(c.Entities.URLs) == 0 {
			c.Entities.URLs = emptyJSONArray
		}
		if c.Entities.Symbols == nil {
			c.Entities.Symbols = []Symbol{}
		}
		b, err = json.Marshal(&c)
	}
	if err != nil {
		return dst, err
	}
	if v&TweetEnterprise == 0 {
		return append(dst, b...), nil
	}
	dst = append(dst, b[:len(b)-1]...) // drop the closing brace
	return appendOCRFields(dst, t.OCRText), nil
}

// appendOCRFields appends `,"ocr_text":...,"extracted_cas":[...]}`.
func appendOCRFields(dst []byte, ocr *string) []byte {
	dst = append(dst, `,"ocr_text":`...)
	dst = appendNullStr(dst, ocr)
	dst = append(dst, `,"extracted_cas":[`...)
	if ocr != nil {
		for i, ca := range DetectContracts(*ocr) {
			if i > 0 {
				dst = append(dst, ',')
			}
			dst = appendJSONStr(dst, ca)
		}
	}
	return append(dst, "]}"...)
}

func nonNilStrings(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

func nonNilMedia(m []Media) []Media {
	if m == nil {
		return []Media{}
	}
	return m
}
